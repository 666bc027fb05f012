// A validation as a certificate in the `fusecert certify` format
// (docs/certificates.md), so `fusecert check-cert` re-checks its digest,
// verdict rule and every SMT query.
#include "verifier/cert/certify.h"
#include "verifier/tv/validate.h"

namespace fusecert::tv {

using nlohmann::json;

nlohmann::json certificate(const Validation& v, size_t pair, const std::string& tool_version) {
  const PairResult& p = v.pairs.at(pair);
  guards::CandidateReport c;
  c.cand.form = ir::Form::Fused;
  c.function = p.after_func;
  // The producer is the after side's contraction (the fused op); the consumer
  // the before side's op that the fused op replaces.
  auto first_op = [](const Side& s) -> const ir::Op* {
    if (s.contraction_ops.empty()) return nullptr;
    return &s.module->ops.at(static_cast<size_t>(s.contraction_ops.front()));
  };
  if (const ir::Op* a = first_op(p.after)) {
    c.producer_op = a->name;
    c.producer_loc = a->loc;
  } else {
    c.producer_op = "func.func @" + p.after_func;
    c.producer_loc = p.after_loc;
  }
  if (const ir::Op* b = first_op(p.before)) {
    c.consumer_op = b->name;
    c.consumer_loc = b->loc;
    c.recognized = "translation-validation";
    c.cand.consumer_operand = 0;
  }
  c.verdict = p.verdict == "equivalent" ? "legal" : p.verdict == "not equivalent" ? "illegal" : "inconclusive";
  for (auto& r : p.results) {
    guards::Obligation o;
    o.id = r.id;
    o.proposition = "TV";
    o.how = "smt";
    o.claim = r.name + ": bitwise equal for every operand value (K = " + std::to_string(p.before.k_used) + ")";
    o.decides = true;
    o.expected = "unsat";
    o.answer = std::string(smt::to_string(r.res.answer));
    if (r.res.premises) o.premises = std::string(smt::to_string(*r.res.premises));
    o.evidence = r.verdict + " (" + r.method + ")";
    o.smt2 = std::make_shared<const std::string>(r.smt2);
    o.logic = "QF_FP";
    o.fp_exp = r.smt2.find("(_ FloatingPoint 8 8)") != std::string::npos;
    c.obligations.push_back(o);
    if (r.verdict == "not equivalent" && !c.counterexample) {
      guards::Counterexample ce;
      ce.obligation = r.id;
      ce.summary = "element (i, j) with the operand values below: before " + r.before.bits + " (" + r.before.value +
                   "), after " + r.after.bits + " (" + r.after.value + ")";
      ce.values = r.res.model;
      c.counterexample = ce;
    }
  }
  cert::InputReport in;
  in.file = v.after_file;
  in.sha256 = v.after_sha256;
  in.parsed = true;
  in.candidates.push_back(c);
  json j = cert::certificate(in, 0, tool_version);
  j["validation"] = {{"before", {{"file", v.before_file}, {"sha256", v.before_sha256}, {"function", p.before_func}}},
                     {"after", {{"file", v.after_file}, {"sha256", v.after_sha256}, {"function", p.after_func}}},
                     {"verdict", p.verdict},
                     {"k_bound", p.before.k_used},
                     {"k_module", p.before.k_module},
                     {"abstractions", p.abstractions}};
  j["digest"] = cert::digest(j);
  return j;
}

}  // namespace fusecert::tv
