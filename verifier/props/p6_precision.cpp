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

smt::Query budget(z3::context& ctx, const z3::expr& eps_grad, const z3::expr& eps_state) {
  z3::expr dg = ctx.real_const("delta_grad"), ds = ctx.real_const("delta_state"), gain = ctx.real_const("gain");
  smt::Query q(ctx);
  q.add(dg >= 0 && dg <= eps_grad && ds >= eps_state && eps_state > 0);
  q.add(gain * ds == dg + ds);
  return q;
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
                    "the error model (assumed, not derived): errors add, the state's rounding floors the fused error", ""},
              q, Answer::Unsat,
              opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, {});
    smt::Query q = budget(ctx, re.num(eg), re.num(e_bf16));
    q.add(ctx.real_const("gain") > 2);
    discharge(out, "P6.bf16_state.reals", "with a bf16 state the fp32 accumulator gains at most 2x",
              Scope{"reals", "delta_grad, delta_state", "eps_grad = eps_state = 2^-8 (bf16); the error model", ""}, q,
              Answer::Unsat,
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
              Scope{"reals", "delta_grad, delta_state", "eps_grad = eps_state = 2^-8 (bf16); the error model", ""}, q,
              Answer::Sat, opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, {});
    smt::Query q = budget(ctx, re.num(eg), re.num(e_fp32));
    q.add(ctx.real_const("gain") >= re.num(min_gain));
    discharge(out, "P6.fp32_state.reals",
              "with an fp32 state a gain of at least " + params.at("min_gain").text + "x is possible",
              Scope{"reals", "delta_grad, delta_state",
                    "eps_grad = 2^-8, eps_state = 2^-24 (fp32), " + fixed_params(params, {"min_gain"}) + "; the error model",
                    ""},
              q, Answer::Sat,
              opt.timeout_ms);
  }
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  out.notes.push_back("fusion removes the bf16 gradient rounding; a bf16 state masks it (gain <= 2x), an fp32 state "
                      "realizes it (bound 1 + 2^16)");
  if (opt.witnesses) {
    auto w = witness::precision(params);
    set_witness(out, spec, w.protocol, w.figures, out.params_overridden);
  }
}

}  // namespace fusecert::verifier::props
