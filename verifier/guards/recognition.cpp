#include "verifier/guards/recognition.h"

#include <cstdio>
#include <mutex>

namespace fusecert::guards {

namespace {
std::mutex recogniser_mu;
Recogniser& recogniser() {
  static Recogniser r;
  return r;
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
}  // namespace

void set_recogniser(Recogniser r) {
  std::lock_guard<std::mutex> l(recogniser_mu);
  recogniser() = std::move(r);
}

void remark_recognition(const ir::Module& m, const ir::Candidate& c, unsigned timeout_ms, const Facts& facts,
                        CandidateReport& r) {
  if (c.form == ir::Form::Dag || c.consumer < 0 || facts.consumer_spec) return;
  const ir::Op& cons = m.ops[c.consumer];
  // A linalg.generic reading the gradient directly, as its one use.
  const bool direct = c.uses.size() == 1 && c.uses[0].first == c.consumer;
  if (!cons.body || c.consumer_operand < 0 || c.consumer_operand >= cons.num_inputs || !direct) return;
  Recogniser fn;
  {
    std::lock_guard<std::mutex> l(recogniser_mu);
    fn = recogniser();
  }
  auto attr = [&](const std::string& k) { return cons.attr(k); };
  const ir::Recognition rec = fn ? fn(*cons.body, c.consumer_operand, cons.num_inputs, attr, timeout_ms)
                                 : ir::recognize(*cons.body, c.consumer_operand, cons.num_inputs, attr, timeout_ms);
  GuardContext g{m, c, timeout_ms, facts, r};
  bool proven = false;
  if (!rec.smt2.empty()) {
    auto& o = g.smt_answered("P1.consumer_is_optimizer", rec.claim, rec.smt2, "unsat", "QF_NRA",
                             smt::solve_smt2(rec.smt2, timeout_ms));
    std::string roles;
    for (size_t i = 0; i < rec.roles.size(); ++i) roles += (i ? ", " : "") + std::string("in") + std::to_string(i) + "=" + rec.roles[i];
    for (size_t i = 0; i < rec.outputs.size(); ++i) roles += ", out" + std::to_string(i) + "=" + rec.outputs[i];
    o.evidence = "role assignment: " + roles + " (recognition, a remark: it does not decide the verdict)";
    proven = !rec.kind.empty() && o.answer == "unsat" && o.decided();  // non-vacuous: satisfiable premises
  }
  if (proven) {
    r.recognized = rec.kind;
    r.roles = rec.roles;
    r.outputs = rec.outputs;
    std::string constants;
    if (const ir::Reference* ref = ir::find_reference(rec.kind))
      for (const auto& k : ref->keys)
        if (const ir::Attr* a = cons.attr(k); a && (a->kind == ir::Attr::Kind::Float || a->kind == ir::Attr::Kind::Int))
          constants += (constants.empty() ? "" : ", ") + k + " = " + number(a->num);
    g.remark("P1", "P1.consumer_is_optimizer", cons.loc,
             "the " + cons.name + " body is equivalent to " + rec.kind + " with these binary32 constants" +
                 (constants.empty() ? std::string() : " (" + constants + ")") +
                 ": Z3 proves it equal to the reference update over the reals (recognition names the optimizer; "
                 "the verdict comes from the dependence facts alone)");
    if (!rec.declared.empty() && rec.declared != rec.kind)
      g.warning("P1", "P1.consumer_is_optimizer", cons.loc,
                "the op declares optimizer = \"" + rec.declared + "\" but its body is proven to compute " + rec.kind +
                    "; the declaration is a hint only and does not decide the verdict");
    return;
  }
  // A declared optimizer is a hint, cross-checked against the body: one the
  // body is not proven to compute is a warning, never a verdict.
  if (!rec.declared.empty())
    g.warning("P1", "P1.consumer_is_optimizer", cons.loc,
              "the op declares optimizer = \"" + rec.declared +
                  "\" but its body is not proven equal to that reference update; the declaration is a hint only, "
                  "and legality is decided by what the body reads");
}

}  // namespace fusecert::guards
