// check-cert for `fusecert prove --certify` output
// (format fusecert-proposition-certificate/1, docs/prover.md): a
// proposition's obligations with their SMT-LIB2 text. Re-checked on its own:
// the fields, every query re-run with the chosen solver against the recorded
// answer, and the verdict rule that only a fully decided set of obligations
// carries a definite verdict (holds / refuted / conditional); an undecided
// one makes it inconclusive. What the verdict is for a decided set is the
// encoder's reading of its obligations (verifier/props/, per proposition),
// not re-derived here: re-run `fusecert prove ID` for that.
#include "verifier/cert/check_proposition.h"

#include <set>

namespace fusecert::cert {

using nlohmann::json;

bool is_proposition_certificate(const json& j) {
  return j.is_object() && j.contains("format") && j["format"] == kPropositionFormat;
}

CheckOutcome check_proposition_certificate(const json& j, const Solver& solver, unsigned timeout_ms) {
  CheckOutcome out;
  auto bad = [&](const std::string& s) {
    out.valid = false;
    out.problems.push_back(s);
  };
  auto str = [&](const json& o, const char* k) { return o.is_object() && o.contains(k) && o[k].is_string(); };
  for (const char* k : {"id", "statement", "verdict", "expected", "rules_sha256"})
    if (!str(j, k)) bad(std::string("schema: '") + k + "' must be a string");
  if (!j.contains("obligations") || !j["obligations"].is_array() || j["obligations"].empty())
    bad("schema: 'obligations' must be a non-empty array");
  if (!out.valid) return out;
  static const std::set<std::string> kVerdicts = {"holds", "refuted", "conditional", "inconclusive"};
  static const std::set<std::string> kAnswers = {"sat", "unsat", "unknown", "timeout", "error"};
  const std::string verdict = j["verdict"];
  if (!kVerdicts.count(verdict)) bad("verdict '" + verdict + "' is not holds, refuted, conditional or inconclusive");
  std::set<std::string> ids;
  bool all_decided = true;
  for (const auto& o : j["obligations"]) {
    for (const char* k : {"id", "smt2", "expected", "result"})
      if (!str(o, k)) {
        bad(std::string("schema: every obligation needs a string '") + k + "'");
        return out;
      }
    const std::string id = o["id"], result = o["result"], expected = o["expected"];
    if (!ids.insert(id).second) bad(id + ": appears twice");
    if (id.rfind(j["id"].get<std::string>() + ".", 0) != 0) bad(id + ": not an obligation of " + j["id"].get<std::string>());
    if (!kAnswers.count(result) || !kAnswers.count(expected)) bad(id + ": answers must be sat, unsat, unknown, timeout or error");
    if (o.contains("how") && o["how"] != "smt") bad(id + ": how must be smt (a proposition's obligations are SMT queries)");
    all_decided &= result == "sat" || result == "unsat";
  }
  if (!out.valid) return out;
  out.checked.push_back("schema " + std::string(kPropositionFormat));
  if (!all_decided && verdict != "inconclusive")
    bad("verdict \"" + verdict + "\" with an undecided obligation (only inconclusive follows from a timeout or unknown)");
  else
    out.checked.push_back("verdict rule (definite only when every obligation is decided)");
  size_t n = 0;
  for (const auto& o : j["obligations"]) {
    const std::string id = o["id"], text = o["smt2"], rec = o["result"];
    const bool fp_exp = text.find("(_ FloatingPoint 8 8)") != std::string::npos;  // bf16 needs cvc5 --fp-exp
    const std::string ans = run_solver(solver, text, fp_exp, timeout_ms);
    ++n;
    if (ans == rec) continue;
    if ((ans == "sat" || ans == "unsat") && (rec == "sat" || rec == "unsat"))
      bad(id + ": " + solver.name + " answers " + ans + ", the certificate records " + rec);
    else if (ans == "sat" || ans == "unsat")
      out.undecided.push_back(id + ": the certificate records " + rec + ", " + solver.name + " now answers " + ans +
                              " — re-run `fusecert prove` for a decided certificate");
    else
      out.undecided.push_back(id + ": " + solver.name + " " + (ans == "timeout" ? "timed out" : "answered " + ans) +
                              "; the certificate records " + rec + " — not re-verified with this solver");
  }
  out.checked.push_back(std::to_string(n) + " SMT queries re-run with " + solver.name);
  return out;
}

}  // namespace fusecert::cert
