// P5 — folding state decay into the GEMM's β is unsafe for conditionally
// routed (MoE) weights: β-folded decay moves an expert's m only on steps a
// gradient arrives; the correct m decays every step. Source: propositions.md §P5.
//
//  P5.dense.reals       (unsat) all steps routed ⇒ folded m = correct m (n steps unrolled);
//                               a sanity check (both sides are the same terms), not evidence
//  P5.unrouted.reals    (unsat) an unrouted step with m ≠ 0 ⇒ they cannot be equal, for all β₁ ∈ (0,1)
//  P5.counterexample    (sat)   a concrete routing sequence where they differ
//  P5.closed_form.reals (unsat) fixed points: folded m* = g, correct m* = p·g ⇒ ratio = 1/p, for all
//                               β₁ ∈ (0,1) and routing probabilities p ∈ (0,1] (QF_NRA)
//  P5.mean_correct.base.reals / .step.reals (unsat) by induction over the step count k, for all
//      β₁ ∈ (0,1), p ∈ (0,1], m0, g: the mean of the correct m is M_k = p·g + (m0 − p·g)·β₁^k
//      (the step: the expectation of the two branches of the update, routed with probability p)
//  P5.mean_folded.base.reals / .step.reals (unsat) the same for the β-folded m:
//      F_k = g + (m0 − g)·a^k with a = 1 − p·(1 − β₁)
//  P5.mean_rates.reals  (unsat) both rates lie in (0,1): β₁ by premise, a = 1 − p·(1 − β₁) proved, so
//      M_k → p·g and F_k → g (the fixed points of P5.closed_form) and F_k / M_k → 1/p
#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"
#include "verifier/witness/protocols.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;

const std::vector<std::string> kMeanAssumed = {
    "routing of step k is a Bernoulli(p) draw independent of the state m_k (so E[m_{k+1}] is the p-weighted mean "
    "of the routed and unrouted branches of the update)",
    "a routed step's gradient is the same g on every step (the closed form is for a constant gradient)"};

void encode_P5_means(PropositionResult& out, unsigned timeout_ms);

struct Unrolled {
  z3::expr folded, correct;
};

Unrolled unroll(smt::RealArith& re, z3::context& ctx, long n, std::vector<z3::expr>& routed) {
  z3::expr mf = re.var("m0"), mc = mf;
  for (long k = 0; k < n; ++k) {
    z3::expr r = ctx.bool_const(("routed" + std::to_string(k)).c_str());
    z3::expr g = re.var("g" + std::to_string(k));
    routed.push_back(r);
    mf = z3::ite(r, model::adam_m(re, mf, g), mf);
    mc = model::adam_m(re, mc, z3::ite(r, g, ctx.real_val(0)));
  }
  return {mf, mc};
}
}  // namespace

FUSECERT_ENCODER(encode_P5) {
  auto h = hyper_from(params);
  const long n = iparam(params, "unrolled_steps", 1, 32);
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    std::vector<z3::expr> routed;
    auto u = unroll(re, ctx, n, routed);
    smt::Query q(ctx);
    for (auto& r : routed) q.add(r);
    q.add(!(u.folded == u.correct));
    discharge(out, "P5.dense.reals", "with dense routing (every step routed) folded decay equals correct decay",
              Scope{"reals", "m0, the gradients g_k", fixed_params(params, {"unrolled_steps", "beta1"}),
                    "with every routed_k a premise, both ites pick the routed branch and folded and correct m are the "
                    "same terms adam_m(...adam_m(m0, g0)..., g_n)"},
              q,
              Answer::Unsat, opt.timeout_ms);
  }
  {
    z3::context ctx;
    z3::expr m = ctx.real_const("m"), b = ctx.real_const("beta1");
    smt::Query q(ctx);
    q.add(b > 0 && b < 1 && m != 0);
    q.add(m == b * m + (1 - b) * ctx.real_val(0));  // folded keeps m; correct decays it (g = 0 on the step)
    discharge(out, "P5.unrouted.reals", "on an unrouted step with m != 0, folded m != correct m",
              Scope{"reals (QF_NRA)", "beta1 in (0,1), m != 0", "", ""}, q, Answer::Unsat, opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    std::vector<z3::expr> routed;
    auto u = unroll(re, ctx, n, routed);
    smt::Query q(ctx);
    q.add(!(u.folded == u.correct));
    auto& ob = discharge(out, "P5.counterexample", "a routing sequence where folded and correct m differ",
                         Scope{"reals", "m0, the gradients g_k, the routing routed_k",
                               fixed_params(params, {"unrolled_steps", "beta1"}), ""},
                         q, Answer::Sat, opt.timeout_ms);
    if (ob.smt_answer() == Answer::Sat) out.counterexample = replay_routed(ob, h.beta1, n);
  }
  {
    z3::context ctx;
    auto R = [&](const char* n) { return ctx.real_const(n); };
    z3::expr mf = R("m_folded"), mc = R("m_correct"), g = R("g"), p = R("p"), ratio = R("ratio"), b = R("beta1");
    auto step = [&](const z3::expr& m, const z3::expr& gg) { return b * m + (1 - b) * gg; };
    smt::Query q(ctx);
    q.add(b > 0 && b < 1 && g != 0 && p > 0 && p <= 1);
    q.add(mf == step(mf, g));      // folded: every update it makes sees g (only routed steps exist for it)
    q.add(mc == step(mc, p * g));  // correct, in expectation: E[g_t] = p·g
    q.add(ratio * mc == mf && !(ratio * p == 1));
    discharge(out, "P5.closed_form.reals",
              "at the fixed points folded m -> g and correct m -> p*g, so the ratio is 1/p",
              Scope{"reals (QF_NRA)", "beta1 in (0,1), routing probability p in (0, 1], g != 0, the fixed points, "
                                      "the ratio",
                    "correct m in expectation (E[g_t] = p*g): a statement about the means, not one draw", "",
                    kMeanAssumed},
              q, Answer::Unsat, opt.timeout_ms);
  }
  encode_P5_means(out, opt.timeout_ms);
  // The verdict (and its note) is the rules file's (rules/propositions.yaml, verdict_rule).
  if (opt.witnesses) {
    auto w = witness::routed_decay(params);
    set_witness(out, spec, w.protocol, w.figures, out.params_overridden);
  }
}

// The mean recurrences for symbolic beta1 and p, by induction over the step
// count k (issue #19): base (k = 0) and step (k -> k + 1), each the unsat
// of its negation (QF_NRA). beta^k is the variable B_k with B_0 = 1 and
// B_{k+1} = beta*B_k, so no exponent enters the query. Each query's key
// premise (the base's B_0 = 1, the step's induction hypothesis, the rates'
// p > 0) is a separate assertion, at index 1: evidence_test.cpp drops it and
// requires sat.
namespace {
void encode_P5_means(PropositionResult& out, unsigned timeout_ms) {
  for (const bool folded : {false, true}) {
    const std::string name = folded ? "mean_folded" : "mean_correct";
    for (const bool step : {false, true}) {
      z3::context ctx;
      auto R = [&](const std::string& n) { return ctx.real_const(n.c_str()); };
      z3::expr b = R("beta1"), p = R("p"), g = R("g"), m0 = R("m0");
      // The rate a and the fixed point: correct a = beta1, m* = p*g; folded
      // a = 1 - p*(1 - beta1), m* = g.
      z3::expr rate = folded ? 1 - p * (1 - b) : b, fixed = folded ? g : p * g;
      auto closed = [&](const z3::expr& ak) { return fixed + (m0 - fixed) * ak; };
      // The expectation of one step from mean M: routed (probability p) the
      // update b*M + (1-b)*g; unrouted the correct update decays with g = 0,
      // the folded one leaves m as it is.
      auto mean_step = [&](const z3::expr& M) {
        return p * (b * M + (1 - b) * g) + (1 - p) * (folded ? M : b * M + (1 - b) * 0);
      };
      smt::Query q(ctx);
      q.add(b > 0 && b < 1 && p > 0 && p <= 1);
      std::string claim;
      if (!step) {
        z3::expr a0 = R("a0"), M0 = R("M0");
        q.add(a0 == 1);                 // key premise: a^0 = 1
        q.add(M0 == m0);                // the mean before any step is the initial state
        q.add(!(M0 == closed(a0)));
        claim = "base k = 0: the mean of the " + std::string(folded ? "beta-folded" : "correct") +
                " m is the closed form at k = 0";
      } else {
        z3::expr ak = R("a_k"), ak1 = R("a_k1"), Mk = R("M_k"), Mk1 = R("M_k1");
        q.add(Mk == closed(ak));        // key premise: the induction hypothesis
        q.add(ak1 == rate * ak);        // a^(k+1) = a * a^k
        q.add(Mk1 == mean_step(Mk));    // one step of the update, in expectation
        q.add(!(Mk1 == closed(ak1)));
        claim = "step k -> k+1: if the mean of the " + std::string(folded ? "beta-folded" : "correct") +
                " m is the closed form at k, one step of the update keeps it so at k+1";
      }
      claim += folded ? ": F_k = g + (m0 - g)*a^k, a = 1 - p*(1 - beta1)" : ": M_k = p*g + (m0 - p*g)*beta1^k";
      discharge(out, "P5." + name + (step ? ".step" : ".base") + ".reals", claim,
                Scope{"reals (QF_NRA)", "beta1 in (0,1), routing probability p in (0,1], m0, g; the step count k (by "
                                        "induction: base and step together cover every k)",
                      "", "", kMeanAssumed},
                q, Answer::Unsat, timeout_ms);
    }
  }
  {
    z3::context ctx;
    z3::expr b = ctx.real_const("beta1"), p = ctx.real_const("p");
    smt::Query q(ctx);
    q.add(b > 0 && b < 1 && p <= 1);
    q.add(p > 0);  // key premise: an expert is routed with positive probability
    z3::expr a = 1 - p * (1 - b);
    q.add(!(a > 0 && a < 1));
    discharge(out, "P5.mean_rates.reals",
              "the folded mean's rate a = 1 - p*(1 - beta1) lies in (0,1), as beta1 does: a^k and beta1^k tend to 0, "
              "so the means tend to the fixed points g and p*g and their ratio to 1/p",
              Scope{"reals (QF_NRA)", "beta1 in (0,1), routing probability p in (0,1]", "",
                    "", {"the limit a^k -> 0 for a in (0,1) is the textbook fact, not an SMT query"}},
              q, Answer::Unsat, timeout_ms);
  }
}
}  // namespace

Counterexample replay_routed(const Obligation& ob, double beta1, long n) {
  double mf = model_double(ob, "m0"), mc = mf;
  std::string seq;
  for (long k = 0; k < n; ++k) {
    bool r = model_value(ob, "routed" + std::to_string(k)).value == "true";
    double g = 0;
    for (const auto& v : ob.model)
      if (v.name == "g" + std::to_string(k)) g = model_double(ob, v.name);
    if (r) mf = beta1 * mf + (1 - beta1) * g;
    mc = beta1 * mc + (1 - beta1) * (r ? g : 0.0);
    seq += r ? "R" : "-";
  }
  Counterexample cx = counterexample_from(ob, "routing " + seq + ": beta-folded m skips the decay on unrouted steps");
  cx.replay = {{"m_folded", fmt_exact(mf)}, {"m_correct", fmt_exact(mc)}};
  cx.replay_confirms = mf != mc;
  return cx;
}

}  // namespace fusecert::verifier::props
