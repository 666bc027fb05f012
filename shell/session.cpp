// Session: the command table, the tokenizer, dispatch, `set` and `help`.
#include "shell/session.h"

#include "support/diag/render.h"
#include "support/nearest_key.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace fusecert::shell {

using nlohmann::ordered_json;

const std::vector<CommandInfo>& commands() {
  static const std::vector<CommandInfo> table = {
      {"list", "list", "list the propositions: id, expected verdict, title", {}, "list"},
      {"show", "show ID", "statement, assumptions, parameters, verdict and the assessment's wording of one proposition",
       {"prop"}, "show P2"},
      {"prove", "prove ID [name=value...]",
       "prove one proposition, parameters changed; with changes, also says what differs from the defaults",
       {"prop", "param"}, "prove P2 beta1=0"},
      {"cx", "cx [ID]",
       "the last counterexample (of the last proof or 'why N', or of ID's last proof) with every variable", {"prop"},
       "cx P2"},
      {"obligations", "obligations [ID]", "the obligations of the last proof (or of ID's last proof): id, answer, claim",
       {"prop"}, "obligations P2"},
      {"smt", "smt OBLIGATION", "print an obligation's SMT-LIB2 ('obligations ID' lists the ids)", {"obligation"},
       "smt P2.recover.m"},
      {"solve", "solve SMT-LIB2...", "run a raw SMT-LIB2 query (declarations + assertions; may span lines)", {},
       "solve (declare-const x Int) (assert (> x 2))"},
      {"load", "load FILE.mlir", "certify an .mlir file and number its fusion candidates", {"file"},
       "load fixtures/ir/global_clip_linalg.mlir"},
      {"candidates", "candidates", "the loaded candidates with their verdicts", {}, "candidates"},
      {"why", "why N", "why candidate N is illegal (or inconclusive): diagnostics, failed obligations, counterexample",
       {"candidate"}, "why 1"},
      {"set", "set [timeout MS | witnesses on|off]", "show or change the settings (timeout 0 = no limit)",
       {"setting", "setting_value"}, "set timeout 5000"},
      {"help", "help [COMMAND]", "this list, or one command's synopsis and example", {"command"}, "help smt"},
      {"quit", "quit", "leave the shell (also: exit, Ctrl-D)", {}, "quit"},
  };
  return table;
}

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false, quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (ch == '\\' && i + 1 < line.size()) {
      cur += line[++i];
      in_word = true;
    } else if (ch == '"') {
      quoted = !quoted;
      in_word = true;
    } else if (!quoted && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')) {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += ch;
      in_word = true;
    }
  }
  if (quoted) throw std::invalid_argument("unterminated \" in the command line");
  if (in_word) out.push_back(cur);
  return out;
}

namespace {
/// The first word and the rest of the line (for `solve`, whose text is raw).
std::pair<std::string, std::string_view> head(std::string_view line) {
  size_t b = line.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {"", {}};
  size_t e = line.find_first_of(" \t\r\n", b);
  if (e == std::string_view::npos) return {std::string(line.substr(b)), {}};
  return {std::string(line.substr(b, e - b)), line.substr(e)};
}
}  // namespace

bool needs_continuation(std::string_view line) {
  auto [cmd, rest] = head(line);
  if (cmd != "solve") return false;
  int depth = 0;
  bool in_str = false, in_comment = false, in_bar = false;
  for (char ch : rest) {
    if (in_comment) { in_comment = ch != '\n'; continue; }
    if (in_str) { in_str = ch != '"'; continue; }
    if (in_bar) { in_bar = ch != '|'; continue; }
    if (ch == ';') in_comment = true;
    else if (ch == '"') in_str = true;
    else if (ch == '|') in_bar = true;
    else if (ch == '(') ++depth;
    else if (ch == ')') --depth;
  }
  return depth > 0 || in_str || in_bar;
}

int worse_status(int a, int b) {
  return diag::code(diag::worse(static_cast<diag::Exit>(a), static_cast<diag::Exit>(b)));
}

Reply error_reply(const std::string& command, const std::string& message, const std::string& hint,
                  const std::string& rule) {
  Reply r;
  r.status = kError;
  r.diagnostic = diag::error({}, rule, message);
  if (!hint.empty()) r.diagnostic.note({}, hint);
  r.json = {{"command", command}, {"status", "error"}, {"error", message}};
  if (!hint.empty()) r.json["hint"] = hint;
  return r;
}

Session::Session(verifier::Registry reg, std::string tool) : reg_(std::move(reg)), tool_(std::move(tool)) {
  opt_.timeout_ms = 20000;
  opt_.witnesses = false;
}

Reply Session::execute(std::string_view line) {
  Reply r = run_command(line);
  if (r.status != kAnswered && r.text.empty()) r.text = diag::TextRenderer({}, tool_).render(r.diagnostic);
  return r;
}

std::string Session::note_line(const std::string& message) const {
  return diag::TextRenderer({}, tool_).render(diag::make(diag::Severity::Note, {}, "", message));
}

Reply Session::run_command(std::string_view line) {
  auto [cmd, rest] = head(line);
  if (cmd.empty()) return Reply{kAnswered, "", {{"command", ""}, {"status", "ok"}}};
  if (cmd[0] == '#') return Reply{kAnswered, "", {{"command", "#"}, {"status", "ok"}}};
  if (cmd == "solve") return cmd_solve(rest);
  Args args;
  try {
    args = split_words(rest);
  } catch (const std::invalid_argument& e) {
    return error_reply(cmd, e.what());
  }
  try {
    if (cmd == "list") return cmd_list(args);
    if (cmd == "show") return cmd_show(args);
    if (cmd == "prove") return cmd_prove(args);
    if (cmd == "cx") return cmd_cx(args);
    if (cmd == "obligations") return cmd_obligations(args);
    if (cmd == "smt") return cmd_smt(args);
    if (cmd == "load") return cmd_load(args);
    if (cmd == "candidates") return cmd_candidates(args);
    if (cmd == "why") return cmd_why(args);
    if (cmd == "set") return cmd_set(args);
    if (cmd == "help" || cmd == "?") return cmd_help(args);
    if (cmd == "quit" || cmd == "exit") {
      Reply r{kAnswered, "", {{"command", "quit"}, {"status", "ok"}}};
      r.quit = true;
      return r;
    }
  } catch (const std::invalid_argument& e) {
    return error_reply(cmd, e.what());
  } catch (const std::exception& e) {
    return error_reply(cmd, std::string("internal error: ") + e.what(), "", "input.internal");
  }
  std::vector<std::string> names;
  for (const auto& c : commands()) names.push_back(c.name);
  const std::string best = support::nearest_key(cmd, names);
  return error_reply(cmd, "unknown command '" + cmd + "'" + (best.empty() ? "" : "; did you mean '" + best + "'?"),
                     "type 'help' for the list of commands");
}

Reply Session::cmd_set(const Args& a) {
  if (!a.empty()) {
    if (a[0] == "timeout") {
      if (a.size() != 2) throw std::invalid_argument("usage: set timeout MS (0 = no limit)");
      size_t pos = 0;
      unsigned long v = 0;
      try {
        v = std::stoul(a[1], &pos);
      } catch (const std::exception&) {
        pos = 0;
      }
      if (pos != a[1].size() || a[1].empty() || a[1][0] == '-' || v > 86400000UL)
        throw std::invalid_argument("timeout must be a whole number of milliseconds (0..86400000), got '" + a[1] + "'");
      opt_.timeout_ms = static_cast<unsigned>(v);
    } else if (a[0] == "witnesses") {
      if (a.size() != 2 || (a[1] != "on" && a[1] != "off"))
        throw std::invalid_argument("usage: set witnesses on|off");
      opt_.witnesses = a[1] == "on";
    } else {
      throw std::invalid_argument("unknown setting '" + a[0] + "'; settings: timeout, witnesses");
    }
    // Proofs at the old settings no longer answer for the new ones; the
    // parameters of each id's latest proof are kept, so cx / obligations
    // re-prove that proof (not the defaults) at the new settings.
    last_.clear();
    latest_.clear();
  }
  Reply r;
  r.text = "timeout " + std::to_string(opt_.timeout_ms) + " ms" + (opt_.timeout_ms == 0 ? " (no limit)" : "") +
           "\nwitnesses " + (opt_.witnesses ? "on" : "off") + "\n";
  r.json = {{"command", "set"}, {"status", "ok"}, {"timeout_ms", opt_.timeout_ms}, {"witnesses", opt_.witnesses}};
  return r;
}

Reply Session::cmd_help(const Args& a) {
  std::ostringstream o;
  ordered_json list = ordered_json::array();
  bool found = a.empty();
  for (const auto& c : commands()) {
    if (!a.empty() && c.name != a[0]) continue;
    found = true;
    char line[256];
    std::snprintf(line, sizeof line, "  %-34s %s\n", c.synopsis.c_str(), c.summary.c_str());
    o << line;
    if (!a.empty()) o << "  example: " << c.example << "\n";
    list.push_back({{"name", c.name}, {"synopsis", c.synopsis}, {"summary", c.summary}, {"example", c.example}});
  }
  if (!found) throw std::invalid_argument("no command '" + a[0] + "' (type 'help' for the list)");
  if (a.empty())
    o << "Tab completes commands, proposition ids, parameter names, obligation ids and file names.\n"
         "Example: prove P2 beta1=0   (why P2 fails at beta1 = 0.9, and what changes at beta1 = 0)\n";
  Reply r;
  r.text = o.str();
  r.json = {{"command", "help"}, {"status", "ok"}, {"commands", list}};
  return r;
}

const verifier::PropositionSpec& Session::spec(const std::string& id) const {
  for (const auto& p : reg_.propositions) {
    std::string a = p.id, b = id;
    std::transform(a.begin(), a.end(), a.begin(), ::toupper);
    std::transform(b.begin(), b.end(), b.begin(), ::toupper);
    if (a == b) return p;
  }
  std::string known;
  for (const auto& k : verifier::known_ids(reg_)) known += " " + k;
  throw std::invalid_argument("unknown proposition id '" + id + "'; known:" + known);
}

}  // namespace fusecert::shell
