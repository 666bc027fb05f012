// P6 — the fp32-accumulator precision benefit is realizable only when the
// state dtype does not mask it. Error-budget model over the reals: the fused
// path's error is the state's rounding δ_s ≥ ε_state; the bf16-gradient path
// adds δ_g ≤ ε_grad. Gain = (δ_g + δ_s)/δ_s ≤ 1 + ε_grad/ε_state.
// Source: propositions.md §P6.
//
//  P6.bound.reals        (unsat) gain > 1 + ε_grad/ε_state is impossible
//  P6.bf16_state.reals   (unsat) with a bf16 state (ε_state = 2⁻⁸), gain > 2 is impossible
//  P6.bf16_state_tight.reals (sat) with a bf16 state the gain 2 is attained (the bound is tight)
//  P6.fp32_state.reals   (sat)   with an fp32 state (ε_state = 2⁻²⁴), a gain ≥ min_gain exists
//  P6.errors_add.reals   (unsat) derived from the error model (each rounding fl(a) = a·(1 + δ), |δ| ≤ u):
//      the two roundings of the bf16-gradient path compose to a relative error of at most
//      ε_grad + ε_state + ε_grad·ε_state, for all ε ≥ 0 and x ≠ 0 (QF_NRA): the budget's "errors add"
//      is its first-order part
//  P6.gain_derived.reals (unsat) from that composition and the floor (the fused path's error is at
//      least ε_state): gain ≤ 1 + ε_grad/ε_state + ε_grad, for all ε (QF_NRA)
//  P6.gain_derived_tight.reals (sat) that bound is attained
#include <cmath>

#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"
#include "verifier/witness/protocols.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;

// Unit roundoff u = 2^-p for a format of p significand bits.
double unit_roundoff(int p) { return std::ldexp(1.0, -p); }

// The error model, stated as assumptions of the derived obligations.
const std::vector<std::string> kRoundingModel = {
    "each rounding is the standard model fl(a) = a*(1 + delta) with |delta| <= u, its unit roundoff (round to "
    "nearest, no overflow or underflow)",
    "the bf16-gradient path rounds twice, the gradient to bf16 then the result to the state's dtype; the fused "
    "path rounds once, to the state's dtype"};
const std::string kFloor =
    "the fused path's relative error is at least eps_state (the state's rounding at its worst): a floor, not derived";
const std::string kFirstOrder =
    "the errors add (delta_grad + delta_state): the first-order part of P6.errors_add.reals, which derives the "
    "composition's bound eps_grad + eps_state + eps_grad*eps_state";

smt::Query budget(z3::context& ctx, const z3::expr& eps_grad, const z3::expr& eps_state) {
  z3::expr dg = ctx.real_const("delta_grad"), ds = ctx.real_const("delta_state"), gain = ctx.real_const("gain");
  smt::Query q(ctx);
  q.add(dg >= 0 && dg <= eps_grad && ds >= eps_state && eps_state > 0);
  q.add(gain * ds == dg + ds);
  return q;
}
}  // namespace

namespace {
z3::expr abs_of(const z3::expr& e) { return z3::ite(e >= 0, e, -e); }

// The bound derived from the error model (issue #19), for symbolic unit
// roundoffs. Each query's key premise is its assertion at index 1 (the
// state rounding's bound; the floor): evidence_test.cpp drops it and
// requires sat.
void encode_P6_derived(PropositionResult& out, unsigned timeout_ms) {
  {
    z3::context ctx;
    auto R = [&](const char* n) { return ctx.real_const(n); };
    z3::expr eg = R("eps_grad"), es = R("eps_state"), dg = R("delta_grad"), ds = R("delta_state"), x = R("x"),
             y = R("x_grad"), z = R("x_state");
    smt::Query q(ctx);
    q.add(eg >= 0 && es >= 0 && x != 0 && dg >= -eg && dg <= eg);
    q.add(ds >= -es && ds <= es);  // key premise: the state rounding is bounded by its unit roundoff
    q.add(y == x * (1 + dg));      // the gradient rounded to bf16
    q.add(z == y * (1 + ds));      // then to the state's dtype
    q.add(!(abs_of(z - x) <= (eg + es + eg * es) * abs_of(x)));
    discharge(out, "P6.errors_add.reals",
              "the bf16-gradient path's two roundings compose to a relative error of at most eps_grad + eps_state + "
              "eps_grad*eps_state (the errors add, to first order)",
              Scope{"reals (QF_NRA)", "eps_grad >= 0, eps_state >= 0, x != 0, delta_grad, delta_state", "", "",
                    kRoundingModel},
              q, Answer::Unsat, timeout_ms);
  }
  // The derived bound, and that it is attained (so it is this model's bound,
  // not a loose one: both obligations read the same bound).
  for (const bool tight : {false, true}) {
    z3::context ctx;
    auto R = [&](const char* n) { return ctx.real_const(n); };
    z3::expr eg = R("eps_grad"), es = R("eps_state"), dg = R("delta_grad"), ds = R("delta_state"),
             df = R("delta_fused"), gain = R("gain");
    z3::expr bound_times_es = es + eg + eg * es;  // (1 + eps_grad/eps_state + eps_grad) * eps_state
    smt::Query q(ctx);
    q.add(eg >= 0 && es > 0 && dg >= -eg && dg <= eg && ds >= -es && ds <= es);
    q.add(df >= es);  // key premise: the floor on the fused path's error
    // The unfused relative error is that of the composition (1 + dg)(1 + ds) - 1.
    q.add(gain * df == abs_of(dg + ds + dg * ds));
    q.add(tight ? gain * es >= bound_times_es : gain * es > bound_times_es);
    auto assumed = kRoundingModel;
    assumed.push_back(kFloor);
    discharge(out, tight ? "P6.gain_derived_tight.reals" : "P6.gain_derived.reals",
              tight ? "the derived bound 1 + eps_grad/eps_state + eps_grad is attained (both roundings at their "
                      "worst, the fused error at its floor)"
                    : "from the composed roundings and the floor, gain <= 1 + eps_grad/eps_state + eps_grad for all "
                      "unit roundoffs",
              Scope{"reals (QF_NRA)", "eps_grad >= 0, eps_state > 0, delta_grad, delta_state, the fused error, the gain",
                    "", "", assumed},
              q, tight ? Answer::Sat : Answer::Unsat, timeout_ms);
  }
}
}  // namespace

FUSECERT_ENCODER(encode_P6) {
  const double min_gain = param(params, "min_gain");
  const double eg = unit_roundoff(8), e_bf16 = unit_roundoff(8), e_fp32 = unit_roundoff(24);
  {
    z3::context ctx;
    z3::expr eps_g = ctx.real_const("eps_grad"), eps_s = ctx.real_const("eps_state");
    smt::Query q = budget(ctx, eps_g, eps_s);
    q.add(eps_g >= 0);
    q.add(ctx.real_const("gain") * eps_s > eps_s + eps_g);
    discharge(out, "P6.bound.reals", "gain <= 1 + eps_grad/eps_state for all error budgets",
              Scope{"reals", "eps_grad >= 0, eps_state > 0, delta_grad in [0, eps_grad], delta_state >= eps_state",
                    "", "", {kFirstOrder, kFloor}},
              q, Answer::Unsat,
              opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, {});
    smt::Query q = budget(ctx, re.num(eg), re.num(e_bf16));
    q.add(ctx.real_const("gain") > 2);
    discharge(out, "P6.bf16_state.reals", "with a bf16 state the fp32 accumulator gains at most 2x",
              Scope{"reals", "delta_grad, delta_state", "eps_grad = eps_state = 2^-8 (bf16)", "",
                    {kFirstOrder, kFloor}},
              q, Answer::Unsat,
              opt.timeout_ms);
  }
  {
    // The bf16 bound is attained, so it is the bound of these unit roundoffs
    // and not a loose one (a wrong bf16 roundoff changes it: issue #19's
    // surviving mutant).
    z3::context ctx;
    smt::RealArith re(ctx, {});
    smt::Query q = budget(ctx, re.num(eg), re.num(e_bf16));
    q.add(ctx.real_const("gain") >= 2);
    discharge(out, "P6.bf16_state_tight.reals", "with a bf16 state a gain of exactly 2x is attained (the bound is tight)",
              Scope{"reals", "delta_grad, delta_state", "eps_grad = eps_state = 2^-8 (bf16)", "",
                    {kFirstOrder, kFloor}},
              q, Answer::Sat, opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, {});
    smt::Query q = budget(ctx, re.num(eg), re.num(e_fp32));
    q.add(ctx.real_const("gain") >= re.num(min_gain));
    discharge(out, "P6.fp32_state.reals",
              "with an fp32 state a gain of at least " + params.at("min_gain").text + "x is possible",
              Scope{"reals", "delta_grad, delta_state",
                    "eps_grad = 2^-8, eps_state = 2^-24 (fp32), " + fixed_params(params, {"min_gain"}), "",
                    {kFirstOrder, kFloor}},
              q, Answer::Sat,
              opt.timeout_ms);
  }
  encode_P6_derived(out, opt.timeout_ms);
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  out.notes.push_back("fusion removes the bf16 gradient rounding; a bf16 state masks it (gain <= 2x), an fp32 state "
                      "realizes it (bound 1 + 2^16)");
  if (opt.witnesses) {
    auto w = witness::precision(params);
    set_witness(out, spec, w.protocol, w.figures, out.params_overridden);
  }
}

}  // namespace fusecert::verifier::props
