// check-cert: re-verify a certificate on its own.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "support/sha256.h"
#include "verifier/cert/certify.h"
#include "verifier/cert/check_proposition.h"
#include "verifier/guards/assumptions.h"
#include "verifier/guards/obligations.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/report/report.h"
#include "verifier/smt/query.h"
#include "verifier/smt/whitelist.h"

namespace fusecert::cert {

using nlohmann::json;

namespace {

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

}  // namespace

std::optional<std::string> json_too_deep(const std::string& text, int max_depth) {
  int depth = 0;
  bool in_str = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_str) {
      if (c == '\\') ++i;
      else if (c == '"') in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return "JSON nests deeper than " + std::to_string(max_depth) + " levels at byte " + std::to_string(i) +
               " (fusecert writes at most 8); not parsed";
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

std::string run_solver(const Solver& s, const std::string& smt2, bool fp_exp, unsigned timeout_ms) {
  if (auto why = smt::whitelist_problem(smt2)) return "error: refused before solving: " + *why;
  if (s.is_library()) return std::string(smt::to_string(smt::solve_smt2(smt2, timeout_ms).answer));
  const bool cvc5 = std::filesystem::path(s.name).filename().string().find("cvc5") != std::string::npos;
  std::string text = smt2;
  if (cvc5 && text.find("(set-logic") == std::string::npos) text = "(set-logic ALL)\n" + text;
  // The query file goes to TMPDIR (temp_directory_path), and is removed on
  // every path out of here.
  std::string tmpl_s;
  try {
    tmpl_s = (std::filesystem::temp_directory_path() / "fusecert-smt-XXXXXX").string();
  } catch (const std::exception&) {
    tmpl_s = "/tmp/fusecert-smt-XXXXXX";
  }
  std::vector<char> tmpl(tmpl_s.begin(), tmpl_s.end());
  tmpl.push_back('\0');
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return "error: cannot create a temporary file in " + tmpl_s;
  struct Remove {
    const char* p;
    ~Remove() { std::remove(p); }
  } remove_tmp{tmpl.data()};
  {
    FILE* f = fdopen(fd, "w");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  std::string cmd = shell_quote(s.name);
  if (cvc5) {
    cmd += " --lang=smt2";
    if (fp_exp) cmd += " --fp-exp";
    if (timeout_ms) cmd += " --tlimit=" + std::to_string(timeout_ms);
  } else if (std::filesystem::path(s.name).filename() == "z3") {
    cmd += " -smt2";
    if (timeout_ms) cmd += " -T:" + std::to_string((timeout_ms + 999) / 1000);
  }
  // Every external solver runs under coreutils `timeout`: one that ignores
  // its own limit (or is not z3/cvc5 and has none) is killed 2 s after the
  // deadline and the answer is a timeout, never a hang.
  if (timeout_ms) {
    const unsigned secs = (timeout_ms + 999) / 1000 + 2;
    cmd = "timeout -k 2 " + std::to_string(secs) + " " + cmd;
  }
  cmd += " " + shell_quote(tmpl.data()) + " 2>&1";
  constexpr size_t kMaxOut = 1 << 20;  // an answer is a line; keep 1 MiB, drain the rest
  std::string out;
  bool truncated = false;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "error: cannot run " + s.name;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) {
    if (out.size() < kMaxOut) out.append(buf.data(), std::min(n, kMaxOut - out.size()));
    else truncated = true;
  }
  int st = pclose(p);
  const int code = st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  auto first_line = [&] {
    std::string f = out.substr(0, std::min(out.find('\n'), size_t{200}));
    return f.empty() ? std::string("no answer from ") + s.name : f;
  };
  if (timeout_ms && (code == 124 || code == 137)) return "timeout";  // killed by `timeout`
  // Fail closed: a solver that crashed (a signal, or the shell's 128+N for
  // one) answered nothing trustworthy, even if it printed "unsat" first.
  int sig = st == -1 ? -1 : WIFSIGNALED(st) ? WTERMSIG(st) : (code > 128) ? code - 128 : 0;
  if (sig != 0) {
    // cvc5 1.0.3 prints "cvc5 interrupted by timeout." and then aborts
    // (SIGABRT) when --tlimit expires: that is a timeout, not a crash.
    if (out.find("interrupted by timeout") != std::string::npos) return "timeout";
    return "error: " + s.name + (sig > 0 ? " was killed by signal " + std::to_string(sig) : std::string(" could not be waited for"));
  }
  if (code == 126 || code == 127) return "error: cannot run " + s.name + " (the shell answered " + std::to_string(code) + ")";
  // The query has one check-sat: exactly one answer line, no error line, and
  // a zero exit status. Anything else (an "(error ...)" after "unsat", two
  // answers, a non-zero exit) is an error, never the answer it printed first.
  std::vector<std::string> answers;
  std::string error_line;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t e = out.find('\n', pos);
    std::string line = out.substr(pos, e == std::string::npos ? std::string::npos : e - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line == "sat" || line == "unsat" || line == "unknown" || line == "timeout") answers.push_back(line);
    if (line.rfind("(error", 0) == 0 && error_line.empty()) error_line = line.substr(0, 200);
    if (e == std::string::npos) break;
    pos = e + 1;
  }
  if (answers.size() == 1 && answers[0] == "timeout") return "timeout";
  if (out.find("interrupted by timeout") != std::string::npos) return "timeout";
  if (!error_line.empty()) return "error: " + s.name + " reported " + error_line;
  if (code != 0) return "error: " + s.name + " exited with status " + std::to_string(code) + " (" + first_line() + ")";
  if (answers.size() > 1) return "error: " + s.name + " gave " + std::to_string(answers.size()) + " answers to one check-sat";
  if (answers.size() == 1) return answers[0];
  if (truncated) return "error: " + s.name + " printed over 1 MiB and no answer";
  return "error: " + first_line();
}

std::optional<std::string> solver_unavailable(const Solver& s) {
  if (s.is_library()) return std::nullopt;
  namespace fs = std::filesystem;
  auto runnable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
  };
  if (s.name.find('/') != std::string::npos) {
    if (runnable(s.name)) return std::nullopt;
    return "solver '" + s.name + "' does not exist or is not executable";
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t pos = 0;
  while (pos <= dirs.size()) {
    size_t e = dirs.find(':', pos);
    std::string d = dirs.substr(pos, e == std::string::npos ? std::string::npos : e - pos);
    if (runnable(fs::path(d.empty() ? "." : d) / s.name)) return std::nullopt;
    if (e == std::string::npos) break;
    pos = e + 1;
  }
  return "solver '" + s.name + "' is not on PATH";
}

std::optional<std::string> other_format_version(const json& j) {
  if (!j.is_object()) return std::nullopt;
  auto other = [&](const char* key, const std::string& mine, const std::string& remedy) -> std::optional<std::string> {
    const std::string family = mine.substr(0, mine.rfind('/') + 1);
    if (!j.contains(key) || !j[key].is_string()) return std::nullopt;
    const std::string theirs = j[key];
    if (theirs == mine || theirs.rfind(family, 0) != 0) return std::nullopt;
    return "the certificate is of format " + theirs + ", which this fusecert cannot read (it reads " + mine +
           " only): " + remedy + " to write a " + mine + " certificate";
  };
  if (auto why = other("schema", kSchema, "certify (or validate) the input again")) return why;
  const std::string id = j.contains("id") && j["id"].is_string() ? " " + j["id"].get<std::string>() : " ID";
  const std::string remedy = "re-run fusecert prove" + id + " --certify";
  if (auto why = other("schema", kPropositionFormat, remedy)) return why;
  return other("format", kPropositionFormat, remedy);  // versions 1 and 2 named it under `format`
}

void record_open_answers(const json& rederived, CheckOutcome& out) {
  for (const OpenAnswer& o : open_answers(rederived, false))
    out.undecided.push_back(
        o.field == "answer"
            ? o.id + ": the re-derivation's Z3 answered " + o.value +
                  ", as the certificate records — nothing re-verified (a longer --timeout-ms may decide it)"
            : o.id + ": the re-derivation's premise check answered " + o.value +
                  " (not sat: vacuous or undecided), as the certificate records — nothing re-verified");
}

namespace {

bool has(const json& j, const char* k, json::value_t t) { return j.is_object() && j.contains(k) && j[k].type() == t; }
bool has_str(const json& j, const char* k) { return has(j, k, json::value_t::string); }
bool has_num(const json& j, const char* k) {
  return j.is_object() && j.contains(k) && j[k].is_number_integer();
}

void validate_loc(const json& l, const std::string& where, std::vector<std::string>& p) {
  if (!l.is_object() || !has_str(l, "file") || !has_num(l, "line") || !has_num(l, "col"))
    p.push_back(where + ": location needs file (string), line and col (integers)");
}

/// Schema: docs/certificates.md.
std::vector<std::string> validate(const json& j) {
  std::vector<std::string> p;
  if (!j.is_object()) return {"the certificate is not a JSON object"};
  if (!has_str(j, "schema") || j["schema"] != kSchema) p.push_back(std::string("schema must be \"") + kSchema + "\"");
  if (!j.contains("tool") || !has_str(j["tool"], "name") || !has_str(j["tool"], "version"))
    p.push_back("tool needs name and version");
  if (!j.contains("solver") || !has_str(j["solver"], "name") || !has_str(j["solver"], "version"))
    p.push_back("solver needs name and version");
  if (!j.contains("input") || !has_str(j["input"], "file") || !has_str(j["input"], "sha256") ||
      j["input"]["sha256"].get<std::string>().size() != 64)
    p.push_back("input needs file and a 64-hex-digit sha256");
  else if (j["input"].contains("split") &&
           (!j["input"]["split"].is_object() || !j["input"]["split"].contains("index") ||
            !j["input"]["split"]["index"].is_number_unsigned() || !j["input"]["split"].contains("line") ||
            !j["input"]["split"]["line"].is_number_unsigned() || j["input"]["split"]["line"].get<uint64_t>() < 1 ||
            j["input"]["split"].size() != 2))
    p.push_back("input.split needs exactly index (integer >= 0) and line (integer >= 1)");
  if (!has(j, "dialects", json::value_t::array)) {
    p.push_back("dialects must be an array (the --dialect tables; empty when none)");
  } else {
    for (const json& t : j["dialects"])
      if (!t.is_object() || t.size() != 3 || !has_str(t, "dialect") || !has_str(t, "file") || !has_str(t, "sha256") ||
          t["sha256"].get<std::string>().size() != 64)
        p.push_back("each dialects entry needs exactly dialect, file and a 64-hex-digit sha256");
  }
  if (!j.contains("candidate") || !j["candidate"].is_object()) {
    p.push_back("candidate missing");
  } else {
    const json& c = j["candidate"];
    if (!has_num(c, "index") || !has_str(c, "function") || !has_str(c, "form")) p.push_back("candidate needs index, function, form");
    if (!c.contains("dialect") || !(c["dialect"].is_null() || c["dialect"].is_string()))
      p.push_back("candidate.dialect must be a string or null");
    if (!c.contains("producer") || !has_str(c["producer"], "op") || !has_num(c["producer"], "result"))
      p.push_back("candidate.producer needs op, location, result");
    else
      validate_loc(c["producer"].value("location", json()), "candidate.producer", p);
    if (!c.contains("consumer")) p.push_back("candidate.consumer missing (null when there is none)");
    else if (!c["consumer"].is_null()) {
      if (!has_str(c["consumer"], "op") || !has_num(c["consumer"], "operand") || !has_str(c["consumer"], "recognized_as"))
        p.push_back("candidate.consumer needs op, location, operand, recognized_as");
      else
        validate_loc(c["consumer"].value("location", json()), "candidate.consumer", p);
    }
  }
  static const std::set<std::string> verdicts = {"legal", "illegal", "inconclusive"};
  if (!has_str(j, "verdict") || !verdicts.count(j["verdict"].get<std::string>()))
    p.push_back("verdict must be legal, illegal or inconclusive");
  if (!j.contains("residency") || !(j["residency"].is_null() || j["residency"].is_string()))
    p.push_back("residency must be a string or null");
  if (!has(j, "obligations", json::value_t::array)) {
    p.push_back("obligations must be an array");
  } else {
    static const std::set<std::string> answers = {"sat", "unsat", "unknown", "timeout", "error"};
    static const std::set<std::string> structural = {"holds", "violated", "missing"};
    size_t k = 0;
    for (auto& o : j["obligations"]) {
      std::string w = "obligation " + std::to_string(k++);
      if (!has_str(o, "id") || !has_str(o, "proposition") || !has_str(o, "how") || !has_str(o, "claim") ||
          !has(o, "decides", json::value_t::boolean) || !has_str(o, "expected") || !has_str(o, "answer") ||
          !has_str(o, "evidence")) {
        p.push_back(w + ": needs id, proposition, how, claim, decides, expected, answer, evidence");
        continue;
      }
      w += " (" + o["id"].get<std::string>() + ")";
      const std::string how = o["how"];
      if (how == "smt") {
        if (!has_str(o, "smt2") || !has_str(o, "logic") || !has(o, "fp_exp", json::value_t::boolean) ||
            !has_str(o, "smt2_sha256"))
          p.push_back(w + ": smt obligations need smt2, logic, fp_exp, smt2_sha256");
        if (!answers.count(o["expected"]) || !answers.count(o["answer"])) p.push_back(w + ": expected/answer must be solver answers");
        // Non-vacuity: an unsat answer records the answer to its premises alone.
        if (!o.contains("premises") || !(o["premises"].is_null() || o["premises"].is_string()))
          p.push_back(w + ": smt obligations need premises (the premise check's answer, or null)");
        else if (o["answer"] == "unsat" && !o["premises"].is_string())
          p.push_back(w + ": unsat with no recorded premise check (non-vacuity): the certificate cannot show its "
                          "premises are satisfiable");
        else if (o["answer"] == "unsat" && !answers.count(o["premises"]))
          p.push_back(w + ": premises must be a solver answer");
        else if (o["answer"] != "unsat" && !o["premises"].is_null())
          p.push_back(w + ": a premise check is recorded for a " + o["answer"].get<std::string>() +
                          " answer (only unsat answers have one)");
      } else if (how == "structural") {
        if (o["expected"] != "holds" || !structural.count(o["answer"]))
          p.push_back(w + ": structural obligations expect holds; answer is holds, violated or missing");
      } else {
        p.push_back(w + ": how must be structural or smt");
      }
    }
  }
  if (!j.contains("counterexample") || !(j["counterexample"].is_null() || j["counterexample"].is_object()))
    p.push_back("counterexample must be an object or null");
  if (!has_str(j, "digest")) p.push_back("digest missing");
  if (!has(j, "diagnostics", json::value_t::array)) p.push_back("diagnostics must be an array");
  return p;
}

guards::Obligation from_json(const json& o) {
  guards::Obligation g;
  g.id = o["id"];
  g.how = o["how"];
  g.decides = o["decides"];
  g.expected = o["expected"];
  g.answer = o["answer"];
  if (o.contains("premises") && o["premises"].is_string()) g.premises = o["premises"];
  return g;
}

}  // namespace

void compare_answer(const std::string& id, const std::string& ans, const std::string& rec, const Solver& solver,
                    unsigned timeout_ms, CheckOutcome& out) {
  if (ans == rec) return;
  // A solver that cannot decide (timeout, unknown, a crash) is not evidence
  // of tampering: the certificate is unverified with it. A definite answer
  // that differs from the recorded one is.
  if (ans == "sat" || ans == "unsat") {
    out.valid = false;
    out.problems.push_back(id + ": " + solver.name + " answers " + ans + ", the certificate records " + rec);
    return;
  }
  out.undecided.push_back(id + ": " + solver.name + " " +
                          (ans == "timeout" ? "timed out (timeout, limit " + std::to_string(timeout_ms) + " ms)"
                                            : "answered " + ans) +
                          "; the certificate records " + rec + " — not re-verified with this solver" +
                          (ans == "timeout" ? " (a longer --timeout-ms or another --solver may decide it)"
                                            : " (another --solver may decide it)"));
}

size_t recheck_smt(const json& o, const Solver& solver, unsigned timeout_ms, CheckOutcome& out) {
  const std::string id = o["id"], text = o["smt2"], rec = o["answer"];
  const bool fp_exp = o["fp_exp"].get<bool>();
  compare_answer(id, run_solver(solver, text, fp_exp, timeout_ms), rec, solver, timeout_ms, out);
  if (rec != "unsat") return 1;
  // Non-vacuity re-run: an unsat answer is a proof only over satisfiable
  // premises. `text` passed the whitelist; the premise text passes it again
  // inside run_solver before the solver parses it.
  std::string ptext;
  try {
    ptext = smt::premises_smt2(text);
  } catch (const z3::exception&) {
    out.valid = false;
    out.problems.push_back(id + ": the query does not parse, so its premises cannot be separated");
    return 1;
  }
  compare_answer(id + " (premises alone)", run_solver(solver, ptext, fp_exp, timeout_ms),
                 o.value("premises", json()).is_string() ? o["premises"].get<std::string>() : std::string("null"),
                 solver, timeout_ms, out);
  return 1;
}

namespace {

bool definite(const std::string& a) { return a == "sat" || a == "unsat" || a == "holds" || a == "violated"; }

}  // namespace

std::vector<OpenAnswer> open_answers(const json& obligations, bool structural) {
  std::vector<OpenAnswer> open;
  if (!obligations.is_array()) return open;
  for (const json& o : obligations) {
    if (!o.is_object()) continue;
    if (!structural && o.value("how", json()) == "structural") continue;
    const std::string id = o.value("id", json()).is_string() ? o["id"].get<std::string>() : "?";
    const json x = o.value("answer", json()), p = o.value("premises", json());
    if (!x.is_string() || !definite(x.get<std::string>()))
      open.push_back({id, "answer", x.is_string() ? x.get<std::string>() : "nothing"});
    else if (x == "unsat" && p.is_string() && p != "sat")
      open.push_back({id, "premises", p.get<std::string>()});
  }
  return open;
}

namespace {

/// Why the --dialect tables in force are not the ones a certificate records
/// (`recorded`: its schema-checked `dialects`). `differs`: a recorded
/// dialect is in force with another SHA-256 (another table: the
/// certificate's semantics are not these, invalid); otherwise a recorded
/// table is not in force, or one in force is not recorded (not re-derived).
struct TablesDiffer {
  bool differs = false;
  std::string text;
};
std::optional<TablesDiffer> dialect_tables_differ(const json& recorded) {
  const std::vector<const ir::DialectTable*> mine = ir::dialects().user_tables();
  auto listed = [](const json& t) {
    return t["file"].get<std::string>() + " (dialect " + t["dialect"].get<std::string>() + ", sha256 " +
           t["sha256"].get<std::string>() + ")";
  };
  for (const json& t : recorded) {
    const ir::DialectTable* have = nullptr;
    for (const ir::DialectTable* m : mine)
      if (m->dialect == t["dialect"].get<std::string>()) have = m;
    if (!have)
      return TablesDiffer{false, "it was written with the dialect table " + listed(t) +
                                     ", which this run does not have: pass the same table with --dialect to "
                                     "re-derive it"};
    if (have->sha256 != t["sha256"].get<std::string>())
      return TablesDiffer{true, "dialect table mismatch: --dialect " + have->source + " (sha256 " + have->sha256 +
                                    ") is not the table this certificate was written with, " + listed(t)};
  }
  for (const ir::DialectTable* m : mine) {
    bool recorded_too = false;
    for (const json& t : recorded) recorded_too |= t["dialect"].get<std::string>() == m->dialect;
    if (!recorded_too)
      return TablesDiffer{false, "this run has --dialect " + m->source + " (dialect " + m->dialect +
                                     "), which the certificate was not written with (it records " +
                                     std::to_string(recorded.size()) +
                                     " table(s)): re-derive it with exactly the certificate's tables"};
  }
  return std::nullopt;
}

/// With the input: re-derive every obligation through certify's own path
/// and compare with the certificate's before any solver sees the
/// certificate's text — which no solver ever sees. Only the regenerated
/// queries are solved: by the Z3 library inside the re-derivation, and by an
/// external --solver after the comparison.
/// Returns false only when the input cannot re-derive it (MissingInput,
/// recorded in out.missing_input): the caller then re-runs its queries.
bool rederive(const json& j, const std::pair<std::string, std::string>& ir, const Solver& solver, unsigned timeout_ms,
              const Regenerate& regenerate, CheckOutcome& out) {
  auto bad = [&](const std::string& s) {
    out.valid = false;
    out.problems.push_back(s);
  };
  const auto& [text, name] = ir;
  if (support::sha256_hex(text) != j["input"]["sha256"].get<std::string>()) {
    bad("input hash mismatch: " + name + " is not the module this certificate was written for");
    return true;
  }
  out.checked.push_back("input sha256");
  // The re-derivation runs under the tables in force (the built-in ones and
  // check-cert's own --dialect): they must be the certificate's. Nothing is
  // read from the paths the certificate records (they are input); the user
  // passes the tables, and their SHA-256 decides.
  if (auto why = dialect_tables_differ(j["dialects"])) {
    if (why->differs) {
      bad(why->text);
      return true;
    }
    out.dialects = why->text;
    out.missing_input = why->text;
    return false;
  }
  if (!j["dialects"].empty()) out.checked.push_back("dialect tables sha256");
  // The facts certify assumed (--assume) are part of what was proven: a
  // re-derivation under others proves something else. Each recorded
  // assumption must be in force with the same value (fail closed).
  if (j.contains("assumptions") && j["assumptions"].is_array()) {
    const size_t before = out.problems.size();
    for (const auto& a : j["assumptions"]) {
      if (!a.is_object() || !a.contains("key") || !a["key"].is_string() || !a.contains("value") || !a["value"].is_string()) {
        bad("assumptions: an entry is not {key, value} strings");
        continue;
      }
      const std::string key = a["key"].get<std::string>(), value = a["value"].get<std::string>();
      const ir::Attr* mine = guards::assumed(key);
      if (!mine || mine->text != value)
        bad("certified under --assume " + key + "=" + value + ", but check-cert was given " +
            (mine ? "--assume " + key + "=" + mine->text : "no --assume " + key) +
            ": pass the --assume flags certify was given");
    }
    if (out.problems.size() != before) return true;
    out.checked.push_back("assumptions");
  }
  json again;
  const size_t idx = j["candidate"]["index"].get<size_t>();
  const json& cons = j["candidate"]["consumer"];
  if (cons.is_object() && cons.value("recognized_as", std::string()) == "translation-validation") {
    // A translation-validation certificate is re-derived by validate's own
    // path (verifier/tv links this library, so the caller hands it in).
    std::string why;
    std::optional<json> g;
    try {
      if (regenerate) g = regenerate(j, text, why);
    } catch (const MissingInput& e) {
      out.missing_input = e.what();
      return false;
    }
    if (!g) {
      bad("cannot re-derive this translation-validation certificate: " +
          (why.empty() ? std::string("no validator given") : why));
      return true;
    }
    again = *g;
  } else {
    InputReport r;
    if (j["input"].contains("split")) {
      // A --split-input-file certificate: the same split of the same file
      // (the schema check above has made index and line integers).
      const json& sp = j["input"]["split"];
      auto splits = certify_splits(text, j["input"]["file"].get<std::string>(), timeout_ms);
      const size_t k = sp["index"].get<size_t>();
      if (k >= splits.size() || !splits[k].split || splits[k].split->line != sp["line"].get<unsigned>()) {
        bad("the input has no split " + std::to_string(k) + " at line " + std::to_string(sp["line"].get<unsigned>()));
        return true;
      }
      r = std::move(splits[k]);
    } else {
      r = certify_text(text, j["input"]["file"].get<std::string>(), timeout_ms);
    }
    if (idx >= r.candidates.size()) {
      bad("the input has no candidate " + std::to_string(idx));
      return true;
    }
    again = certificate(r, idx, j["tool"]["version"].get<std::string>());
  }
  const json& a = again["obligations"];
  const json& b = j["obligations"];
  std::vector<std::string> differs;
  if (again["candidate"] != j["candidate"]) differs.push_back("the candidate does not match the input's candidate " + std::to_string(idx));
  if (a.size() != b.size())
    differs.push_back("re-derivation gives " + std::to_string(a.size()) + " obligations, the certificate has " +
                      std::to_string(b.size()));
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    // Every field of each obligation, in this order first.
    std::vector<std::string> keys = {"id", "how", "expected", "answer", "premises", "evidence", "smt2", "decides"};
    for (const json* o : {&a[i], &b[i]})
      if (o->is_object())
        for (auto& [k, v] : o->items())
          if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    // When the re-derivation's own solve could not decide, the fields that
    // follow from its answer (the premise check, the reason) differ too:
    // that is the same undecided answer, not evidence.
    const json ax = a[i].value("answer", json());
    const bool undecided_i = ax.is_string() && !definite(ax.get<std::string>()) &&
                             (!b[i].is_object() || b[i].value("answer", json()) != ax);
    for (const std::string& k : keys) {
      json x = a[i].value(k, json()), y = b[i].is_object() ? b[i].value(k, json()) : json();
      if (x == y) continue;
      if (undecided_i && (k == "premises" || k == "reason")) continue;
      // The re-derivation's own solve could not decide: not evidence.
      if ((k == "answer" || k == "premises") && x.is_string() && !definite(x.get<std::string>())) {
        out.undecided.push_back(b[i].value("id", std::string("?")) + ": the re-derivation's Z3 answered " +
                                x.get<std::string>() + "; the certificate records " + y.dump() +
                                " — not re-verified (a longer --timeout-ms may decide it)");
        continue;
      }
      differs.push_back("obligation " + std::to_string(i) + " (" + b[i].value("id", std::string("?")) + "): '" + k +
                        "' differs from a re-derivation on the input");
    }
  }
  if (out.undecided.empty() && again["verdict"] != j["verdict"])
    differs.push_back("re-derivation on the input gives verdict " + again["verdict"].get<std::string>());
  // Everything else a certificate says (the counterexample, the
  // diagnostics, the residency, the solver, ...) is re-derived too:
  // certificates are deterministic, so a valid one is exactly what certify
  // writes for this input.
  if (out.undecided.empty()) {
    std::set<std::string> keys;
    for (auto& [k, v] : j.items()) keys.insert(k);
    for (auto& [k, v] : again.items()) keys.insert(k);
    for (const auto& k : keys) {
      // dialects: compared above by dialect and SHA-256 (the path a table
      // was given by may differ between the two runs).
      if (k == "digest" || k == "obligations" || k == "candidate" || k == "verdict" || k == "dialects") continue;
      if (j.value(k, json()) != again.value(k, json())) differs.push_back("'" + k + "' differs from a re-derivation on the input");
    }
  }
  if (!differs.empty()) {
    // A re-derivation whose own solve could not decide an answer that shapes
    // the candidate (the consumer's recognition, say) rebuilds another
    // candidate with other obligations: its differences are that undecided
    // answer, not evidence of an edit. Unverified, never valid.
    std::vector<std::string> open;
    for (const OpenAnswer& o : open_answers(a, true)) {
      if (o.vacuous()) continue;  // decided: a difference is still evidence
      // An undecided answer the certificate records too is the same
      // answer: the differences are then still evidence.
      bool recorded = false;
      for (const json& c : b)
        recorded |= c.is_object() && c.value("id", json()) == o.id && c.value(o.field, json()) == o.value;
      if (!recorded) open.push_back(o.id + " (" + o.field + ": " + o.value + ")");
    }
    if (!open.empty()) {
      for (const auto& o : open)
        out.undecided.push_back(o + ": the re-derivation's Z3 could not decide it, and the candidate re-derived without "
                                    "that answer differs (" + differs.front() +
                                ") — not re-verified (a longer --timeout-ms may decide it)");
      return true;
    }
    // Another fusecert or another Z3 may write other text for the same
    // module: stale (certify again), not evidence of an edit.
    const std::string mine = verifier::report::tool_version();
    if (j["tool"]["version"] != mine) {
      out.stale = "written by fusecert " + j["tool"]["version"].get<std::string>() + ", this is " + mine +
                  ", and the re-derivation differs (" + differs.front() + "): certify the input again";
      return true;
    }
    if (j["solver"] != again["solver"]) {
      out.stale = "written with " + j["solver"].dump() + ", this fusecert links " + again["solver"].dump() +
                  ", and the re-derivation differs (" + differs.front() + "): certify the input again";
      return true;
    }
    for (auto& d : differs) bad(d);
    return true;
  }
  // A re-derivation that matches but could not decide an answer itself
  // (timeout, unknown, error) or decided it only over contradictory premises
  // (vacuous) re-verified nothing for it: the certificate records the same
  // non-answer, and an undecided solver must never make it valid (exit 0).
  // (An answer the certificate records otherwise is already in
  // out.undecided, with the certificate's answer: not reported twice.)
  if (out.undecided.empty()) record_open_answers(a, out);
  if (!out.undecided.empty()) return true;
  out.checked.push_back("every obligation re-derived from the input");
  out.rederived = true;
  if (solver.is_library()) {
    out.checked.push_back("the regenerated queries solved with the Z3 library");
    return true;
  }
  size_t n = 0;
  for (auto& o : a)
    if (o["how"] == "smt") n += recheck_smt(o, solver, timeout_ms, out);
  out.checked.push_back(std::to_string(n) + " regenerated SMT queries solved with " + solver.name);
  return true;
}

}  // namespace

CheckOutcome check_certificate(const std::string& cert_text,
                               const std::optional<std::pair<std::string, std::string>>& ir, const Solver& solver,
                               unsigned timeout_ms, const Regenerate& regenerate) {
  CheckOutcome out;
  auto bad = [&](const std::string& s) {
    out.valid = false;
    out.problems.push_back(s);
  };
  if (auto deep = json_too_deep(cert_text, kMaxCertificateDepth)) {
    bad(*deep);
    return out;
  }
  json j;
  try {
    j = json::parse(cert_text);
  } catch (const std::exception& e) {
    bad(std::string("not valid JSON (truncated or corrupted?): ") + e.what());
    return out;
  }
  // A certificate of another format version is not read at all: /1 named
  // the solver's answer `actual` (legality) or `result` (proposition), /2
  // names it `answer`, and a field read under the wrong name would be a
  // silent default. The remedy is to write it again.
  if (auto old = other_format_version(j)) {
    out.unreadable = *old;
    return out;
  }
  if (is_proposition_certificate(j)) {
    if (ir) bad("a proposition certificate (fusecert prove --certify) has no IR input: drop --ir");
    if (!out.valid) return out;
    return check_proposition_certificate(j, solver, timeout_ms);
  }
  for (auto& p : validate(j)) bad("schema: " + p);
  if (!out.valid) return out;
  out.checked.push_back("schema " + std::string(kSchema));
  if (digest(j) != j["digest"].get<std::string>())
    bad("digest mismatch: the certificate was changed after fusecert wrote it");
  else
    out.checked.push_back("digest");
  // The obligation table (verifier/guards/obligations.h): what each id is,
  // what it expects and whether it decides is fixed, not the certificate's to
  // say; a legal certificate carries every obligation its form requires.
  {
    size_t before = out.problems.size();
    std::set<std::string> ids;
    for (auto& o : j["obligations"]) {
      const std::string id = o["id"], how = o["how"], answer = o["answer"];
      const guards::ObligationSpec* spec = guards::find_obligation(id);
      if (!spec) {
        bad(id + ": not an obligation fusecert writes (docs/certificates.md lists them)");
        continue;
      }
      if (!ids.insert(id).second) bad(id + ": appears twice");
      if (o["proposition"] != id.substr(0, id.find('.'))) bad(id + ": proposition does not match the id");
      // A structural `missing` placeholder may stand for any obligation (a key
      // its check needs is absent): it can only make the verdict inconclusive.
      const bool placeholder = how == "structural" && answer == "missing";
      if (how != spec->how && !placeholder)
        bad(id + ": how is " + how + ", but " + id + " is discharged by " + spec->how +
            (std::string(spec->how) == "smt" ? " (an SMT obligation stays smt)" : ""));
      const std::string want = how == "structural" ? "holds" : spec->expected;
      if (o["expected"] != want)
        bad(id + ": expected is " + o["expected"].get<std::string>() + ", the obligation table says " + want);
      if (o["decides"].get<bool>() != spec->decides)
        bad(id + ": decides is " + std::string(o["decides"].get<bool>() ? "true" : "false") +
            ", the obligation table says " + (spec->decides ? "true" : "false"));
    }
    if (j["verdict"] == "legal") {
      const json& cons = j["candidate"]["consumer"];
      const bool tv = cons.is_object() && cons.value("recognized_as", std::string()) == "translation-validation";
      const unsigned form = tv ? guards::kTv : guards::form_bit(j["candidate"]["form"].get<std::string>());
      if (!form) bad("candidate.form " + j["candidate"]["form"].dump() + " is not linalg, table, bufferized, fused or dag");
      if (cons.is_null()) bad("a legal certificate needs a consumer");
      for (const auto& spec : guards::kObligations)
        if ((spec.required & form) && !ids.count(guards::required_id(spec)))
          bad(std::string("obligation set incomplete: a legal ") +
              (tv ? std::string("translation-validation") : j["candidate"]["form"].get<std::string>()) +
              " certificate must carry " + guards::required_id(spec));
    }
    if (out.problems.size() == before) out.checked.push_back("obligation table");
  }
  // The verdict follows from the obligations.
  std::vector<guards::Obligation> obs;
  for (auto& o : j["obligations"]) obs.push_back(from_json(o));
  std::string v = guards::decide(obs);
  if (v != j["verdict"].get<std::string>())
    bad("verdict \"" + j["verdict"].get<std::string>() + "\" does not follow from the obligations (they give \"" + v + "\")");
  else
    out.checked.push_back("verdict rule");
  if (j["verdict"] == "illegal" && j["counterexample"].is_null()) bad("an illegal verdict needs a counterexample");
  // Every query text read passes the whitelist and its recorded hash before
  // anything else happens with it: a certificate's SMT-LIB2 is input.
  for (auto& o : j["obligations"]) {
    if (o["how"] != "smt") continue;
    const std::string id = o["id"], text = o["smt2"];
    if (auto why = smt::whitelist_problem(text)) bad(id + ": not a query fusecert writes: " + *why);
    else if (support::sha256_hex(text) != o["smt2_sha256"].get<std::string>())
      bad(id + ": the SMT-LIB2 text does not match its recorded hash (edited query)");
  }
  if (!out.valid) return out;
  out.checked.push_back("query whitelist and hashes");
  // The embedded default input is part of fusecert itself: its
  // certificates are re-derived from it without --ir (the hash still decides).
  if (!ir && j["input"]["file"] == kEmbeddedName) {
    if (rederive(j, {embedded_training_step(), kEmbeddedName}, solver, timeout_ms, regenerate, out)) return out;
  }
  if (ir && rederive(j, *ir, solver, timeout_ms, regenerate, out)) return out;
  // Without the input: the certificate's own (whitelisted) queries re-run.
  // At most "consistent": the queries and structural facts are the
  // certificate's word, not re-derived from a module.
  size_t n = 0;
  for (auto& o : j["obligations"])
    if (o["how"] == "smt") n += recheck_smt(o, solver, timeout_ms, out);
  out.checked.push_back(std::to_string(n) + " SMT queries re-run with " + solver.name);
  for (auto& o : j["obligations"])
    if (o["how"] == "structural") ++out.structural_unchecked;
  return out;
}

}  // namespace fusecert::cert
