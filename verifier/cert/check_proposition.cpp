// check-cert for `fusecert prove --certify` output
// (schema fusecert-proposition-certificate/4, docs/prover.md): a
// proposition's obligations with their SMT-LIB2 text. Checked like a
// legality certificate (fields, query whitelist, digest, every unsat answer's
// premise check recorded: non-vacuity), then re-derived: the same prover
// query is run again (fusecert prove ID with the certificate's parameters)
// and its obligations (premise checks included) and verdict must equal the
// certificate's, and the verdict must follow from the recorded answers by
// the proposition's verdict rule (rules/propositions.yaml) — the digest only
// detects corruption; the re-derivation decides, so an edited verdict is
// invalid. A certificate from another fusecert version or rules file is
// "stale": its obligations need not be what this prover writes.
#include "verifier/cert/check_proposition.h"

#include <set>

#include "verifier/core/verdict_rule.h"
#include "verifier/prover.h"
#include "verifier/report/report.h"
#include "verifier/smt/query.h"
#include "verifier/smt/whitelist.h"

namespace fusecert::cert {

using nlohmann::json;

bool is_proposition_certificate(const json& j) {
  return j.is_object() && j.contains("schema") && j["schema"] == kPropositionFormat;
}

namespace {

// The verdict the rules give for the certificate's recorded answers; "" with
// `why` set when they cannot be applied.
std::string rederive_verdict(const json& j, const verifier::Registry& reg, std::string& why) {
  const verifier::PropositionSpec* spec = reg.find(j["id"].get<std::string>());
  if (!spec) {
    why = "the rules have no proposition " + j["id"].get<std::string>();
    return "";
  }
  verifier::PropositionResult r;
  r.id = spec->id;
  for (const auto& o : j["obligations"]) {
    verifier::Obligation ob;
    ob.id = o["id"];
    ob.expected = o["expected"].get<std::string>();
    ob.answer = o["answer"].get<std::string>();
    if (o.contains("premises") && o["premises"].is_string())
      ob.premises = o["premises"].get<std::string>();
    r.obligations.push_back(ob);
  }
  const json& cx = j.value("counterexample", json());
  if (cx.is_object()) {
    verifier::Counterexample c;
    c.obligation = cx.value("obligation", std::string());
    c.replay_confirms = cx.value("replay_confirms", false);
    r.counterexample = c;
  }
  try {
    verifier::apply_verdict_rule(*spec, r);
  } catch (const verifier::SpecError& e) {
    why = e.what();
    return "";
  }
  return verifier::to_string(r.verdict);
}

}  // namespace

CheckOutcome check_proposition_certificate(const json& j, const Solver& solver, unsigned timeout_ms) {
  CheckOutcome out;
  auto bad = [&](const std::string& s) {
    out.valid = false;
    out.problems.push_back(s);
  };
  auto str = [&](const json& o, const char* k) { return o.is_object() && o.contains(k) && o[k].is_string(); };
  for (const char* k : {"id", "statement", "verdict", "expected", "rules_sha256", "digest"})
    if (!str(j, k)) bad(std::string("schema: '") + k + "' must be a string");
  if (!j.contains("tool") || !str(j["tool"], "version")) bad("schema: 'tool' needs a version");
  if (!j.contains("params") || !j["params"].is_object()) bad("schema: 'params' must be an object");
  if (!j.contains("obligations") || !j["obligations"].is_array() || j["obligations"].empty())
    bad("schema: 'obligations' must be a non-empty array");
  if (j.contains("counterexample") && !j["counterexample"].is_null() &&
      !(j["counterexample"].is_object() && str(j["counterexample"], "obligation") &&
        j["counterexample"].contains("replay_confirms") && j["counterexample"]["replay_confirms"].is_boolean()))
    bad("schema: 'counterexample' must be null or an object with a string 'obligation' and a boolean 'replay_confirms'");
  if (!out.valid) return out;
  for (auto& [k, v] : j["params"].items())
    if (!v.is_string()) bad("schema: parameter '" + k + "' must be a string");
  static const std::set<std::string> kVerdicts = {"holds", "refuted", "conditional", "inconclusive"};
  static const std::set<std::string> kAnswers = {"sat", "unsat", "unknown", "timeout", "error"};
  const std::string verdict = j["verdict"];
  if (!kVerdicts.count(verdict)) bad("verdict '" + verdict + "' is not holds, refuted, conditional or inconclusive");
  std::set<std::string> ids;
  bool all_decided = true;
  for (const auto& o : j["obligations"]) {
    for (const char* k : {"id", "smt2", "expected", "answer"})
      if (!str(o, k)) {
        bad(std::string("schema: every obligation needs a string '") + k + "'");
        return out;
      }
    const std::string id = o["id"], result = o["answer"], expected = o["expected"];
    if (!ids.insert(id).second) bad(id + ": appears twice");
    if (id.rfind(j["id"].get<std::string>() + ".", 0) != 0) bad(id + ": not an obligation of " + j["id"].get<std::string>());
    if (!kAnswers.count(result) || !kAnswers.count(expected)) bad(id + ": answers must be sat, unsat, unknown, timeout or error");
    // Version 4: every scope states what the answer assumes (issue #19); a
    // scope without it is not one this fusecert writes (never read as "none").
    if (!o.contains("scope") || !o["scope"].is_object() || !o["scope"].contains("assumed") ||
        !o["scope"]["assumed"].is_array()) {
      bad(id + ": schema: 'scope' must be an object with an 'assumed' array (the assumptions the answer rests on)");
      continue;
    }
    for (const auto& a : o["scope"]["assumed"])
      if (!a.is_string() || a.get<std::string>().empty()) bad(id + ": schema: every 'scope.assumed' entry must be a non-empty string");
    if (o.contains("how") && o["how"] != "smt") bad(id + ": how must be smt (a proposition's obligations are SMT queries)");
    if (auto why = smt::whitelist_problem(o["smt2"].get<std::string>())) bad(id + ": not a query fusecert writes: " + *why);
    // Non-vacuity: an unsat answer carries the answer to its premises alone.
    const bool premises_rec = o.contains("premises") && o["premises"].is_string();
    if (result == "unsat") {
      if (!premises_rec)
        bad(id + ": unsat with no recorded premise check (non-vacuity): the certificate cannot show its premises "
                 "are satisfiable");
      else if (!kAnswers.count(o["premises"].get<std::string>()))
        bad(id + ": premises must be sat, unsat, unknown, timeout or error");
    } else if (o.contains("premises") && !o["premises"].is_null()) {
      bad(id + ": a premise check is recorded for a " + result + " answer (only unsat answers have one)");
    }
    all_decided &= result == "sat" || (result == "unsat" && premises_rec && o["premises"] == "sat");
  }
  if (!out.valid) return out;
  out.checked.push_back("schema " + std::string(kPropositionFormat) + " and query whitelist");
  if (verifier::report::proposition_digest(j) != j["digest"].get<std::string>()) {
    bad("digest mismatch: the certificate was changed after fusecert wrote it");
    return out;
  }
  out.checked.push_back("digest");
  if (!all_decided && verdict != "inconclusive") {
    bad("verdict \"" + verdict + "\" with an undecided or vacuous obligation (only inconclusive follows from a "
        "timeout, unknown or unsat premises)");
    return out;
  }
  out.checked.push_back("verdict rule (definite only when every obligation is decided and non-vacuous)");

  // Another fusecert or rules file: not this prover's query to re-derive.
  verifier::Registry reg;
  try {
    reg = verifier::load_registry();
  } catch (const std::exception& e) {
    out.undecided.push_back(std::string("cannot load the rules to re-derive the proposition: ") + e.what());
    return out;
  }
  const std::string mine = verifier::report::tool_version(), theirs = j["tool"]["version"];
  if (theirs != mine) {
    out.stale = "written by fusecert " + theirs + ", this is " + mine + ": re-run fusecert prove " + j["id"].get<std::string>();
    return out;
  }
  if (j["rules_sha256"] != reg.sha256) {
    out.stale = "written with another rules file (rules_sha256 " + j["rules_sha256"].get<std::string>().substr(0, 12) +
                "…, this one " + reg.sha256.substr(0, 12) + "…): re-run fusecert prove " + j["id"].get<std::string>();
    return out;
  }
  // The verdict the proposition's rule gives for the recorded answers.
  {
    std::string why, v = rederive_verdict(j, reg, why);
    if (v.empty()) bad("the verdict rule cannot be applied: " + why);
    else if (v != verdict)
      bad("verdict \"" + verdict + "\" does not follow from the recorded answers (the rule gives \"" + v + "\")");
    else
      out.checked.push_back("verdict re-derived by the rules file");
    if (!out.valid) return out;
  }
  // Re-derive: the same prover query, with the certificate's parameters.
  verifier::ProveOptions opt;
  opt.timeout_ms = timeout_ms;
  opt.witnesses = false;
  std::vector<verifier::PropositionResult> rs;
  try {
    if (!reg.find(j["id"].get<std::string>())) {
      bad("'" + j["id"].get<std::string>() + "' is not a proposition of the rules file");
      return out;
    }
    for (auto& [k, v] : j["params"].items()) {
      auto [name, p] = verifier::parse_param_assignment(k + "=" + v.get<std::string>());
      opt.overrides[name] = p;
    }
    if (auto unknown = verifier::unknown_params(reg, {j["id"].get<std::string>()}, opt.overrides); !unknown.empty()) {
      bad("parameter '" + unknown[0] + "' is not a parameter of " + j["id"].get<std::string>());
      return out;
    }
    rs = verifier::prove(reg, {j["id"].get<std::string>()}, opt);
  } catch (const std::exception& e) {
    bad(std::string("the certificate's proposition cannot be re-derived: ") + e.what());
    return out;
  }
  if (rs.size() != 1) {
    bad("the prover gave no result for " + j["id"].get<std::string>());
    return out;
  }
  const json again = json(verifier::report::render_certificate(rs[0], reg));
  const json& a = again["obligations"];
  const json& b = j["obligations"];
  if (a.size() != b.size())
    bad("re-derivation gives " + std::to_string(a.size()) + " obligations, the certificate has " + std::to_string(b.size()));
  bool undecided = false;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    // An undecided re-run answer also changes its premise check: the same
    // undecided answer, not evidence.
    const std::string ar = a[i].value("answer", json()).is_string() ? a[i]["answer"].get<std::string>() : "";
    const bool undecided_i = ar != "sat" && ar != "unsat" && a[i].value("answer", json()) != b[i].value("answer", json());
    for (const char* k : {"id", "scope", "smt2", "expected", "answer", "premises"}) {
      if (a[i].value(k, json()) == b[i].value(k, json())) continue;
      if (undecided_i && std::string(k) == "premises") continue;
      const std::string x = a[i].value(k, json()).is_string() ? a[i][k].get<std::string>() : std::string("null");
      if ((std::string(k) == "answer" || std::string(k) == "premises") && x != "sat" && x != "unsat" && x != "null") {
        undecided = true;
        out.undecided.push_back(b[i].value("id", std::string("?")) + ": the re-derivation's Z3 answered " + x +
                                "; the certificate records " +
                                (b[i].value(k, json()).is_string() ? b[i][k].get<std::string>() : std::string("null")) +
                                " — not re-verified (a longer --timeout-ms may decide it)");
        continue;
      }
      bad("obligation " + std::to_string(i) + " (" + b[i].value("id", std::string("?")) + "): '" + k +
          "' differs from a re-run of the prover");
    }
  }
  for (const char* k : {"statement", "expected", "params", "z3_version", "schema"})
    if (again[k] != j[k]) bad(std::string("'") + k + "' differs from the rules file's");
  // The counterexample, like the verdict, follows from the answers.
  if (!undecided && again["counterexample"] != j["counterexample"]) bad("'counterexample' differs from the rules file's");
  if (!undecided && again["verdict"] != j["verdict"])
    bad("verdict \"" + verdict + "\" is not what the prover derives (" + again["verdict"].get<std::string>() + ")");
  if (!out.valid || undecided) return out;
  // A match whose answers are themselves undecided or vacuous re-verified
  // nothing: an undecided solver must never make a certificate valid.
  record_open_answers(a, out);
  // A proposition is inconclusive only when its answers decide nothing
  // (undecided, vacuous, or matching no case of its rule): re-deriving that
  // verifies nothing either.
  if (out.undecided.empty() && again["verdict"] == "inconclusive")
    out.undecided.push_back("the re-derived verdict is inconclusive, as the certificate records: its answers match no "
                            "case of the verdict rule, so nothing is re-verified");
  if (!out.undecided.empty()) return out;
  out.checked.push_back("every obligation and the verdict re-derived by the prover");
  out.rederived = true;
  if (solver.is_library()) return out;
  size_t n = 0;
  for (const auto& o : a) {
    const std::string text = o["smt2"];
    const bool fp_exp = text.find("(_ FloatingPoint 8 8)") != std::string::npos;  // bf16 needs cvc5 --fp-exp
    compare_answer(o["id"], run_solver(solver, text, fp_exp, timeout_ms), o["answer"], solver, timeout_ms, out);
    ++n;
    if (o["answer"] != "unsat" || !o.value("premises", json()).is_string()) continue;
    // Non-vacuity with this solver too: the premises alone (Z3's printing of
    // regenerated text; run_solver whitelists it before the solver reads it).
    compare_answer(o["id"].get<std::string>() + " (premises alone)",
                   run_solver(solver, smt::premises_smt2(text), fp_exp, timeout_ms), o["premises"], solver,
                   timeout_ms, out);  // counted with its query, once
  }
  out.checked.push_back(std::to_string(n) + " regenerated SMT queries solved with " + solver.name);
  return out;
}

}  // namespace fusecert::cert
