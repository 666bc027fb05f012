// P2b — a delayed (previous-step) norm does not substitute for clipping: on
// the step a spike arrives the previous step's c is 1, so the step is
// identical to no clipping. Source: propositions.md §P2a/P2b.
//
//  P2b.spike_step_eq_none  (unsat) ‖g_prev‖ ≤ τ ⇒ the delayed step ≡ the unclipped step
//  P2b.spike_step_ne_exact (unsat) with ‖g‖ > τ (c < 1) and g ≠ 0, v_delayed = v_exact is impossible
#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"
#include "verifier/witness/protocols.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;
}

FUSECERT_ENCODER(encode_P2b) {
  auto h = hyper_from(params);
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::expr W = re.var("W"), m = re.var("m"), v = re.var("v"), g = re.var("g");
    z3::expr nprev = re.var("norm_prev"), tau = re.var("tau");
    z3::expr c_prev = z3::ite(nprev <= tau, ctx.real_val(1), tau / nprev);  // c = min(1, τ/‖g_prev‖)
    auto delayed = model::adamw_step(re, {W, m, v}, c_prev * g);
    auto none = model::adamw_step(re, {W, m, v}, g);
    smt::Query q(ctx);
    for (unsigned i = 0; i < re.side().size(); ++i) q.add(re.side()[i]);
    q.add(tau > 0 && nprev >= 0 && nprev <= tau && v >= 0);
    q.add(!(delayed.W == none.W && delayed.m == none.m && delayed.v == none.v));
    discharge(out, "P2b.spike_step_eq_none",
              "on the spike step (previous norm <= tau) the delayed-norm step is identical to no clipping",
              Scope{"reals", "W, m, v >= 0, g, tau > 0, ||g_prev|| in [0, tau]",
                    fixed_params(params, {"beta1", "beta2", "eps", "lam", "lr"}) + ", step = 1",
                    "the premise ||g_prev|| <= tau is the condition of the delayed scale's ite, so the scale is the "
                    "constant 1 and both sides are the same AdamW step"},
              q,
              Answer::Unsat, opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::expr v = re.var("v"), g = re.var("g"), n = re.var("norm"), tau = re.var("tau");
    smt::Query q(ctx);
    q.add(tau > 0 && n > tau && g != 0 && v >= 0);
    q.add(model::adam_v(re, v, g) == model::adam_v(re, v, (tau / n) * g));
    discharge(out, "P2b.spike_step_ne_exact", "the delayed step's v differs from the exactly clipped v on the spike step",
              Scope{"reals", "v >= 0, g != 0, tau > 0, ||g|| > tau", fixed_params(params, {"beta2"}), ""}, q, Answer::Unsat, opt.timeout_ms);
  }
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  if (opt.witnesses) {
    auto w = witness::spike(params, "delayed");
    set_witness(out, spec, w.protocol, w.figures, out.params_overridden);
  }
}

}  // namespace fusecert::verifier::props
