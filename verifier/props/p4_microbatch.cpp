// P4 — accumulating micro-batches into the momentum (seed μ·B, then add each
// g_k) removes the gradient accumulator: exact for affine A, not for AdamW.
// Source: propositions.md §P4. Verdict wording: "Affine A only".
//
//  P4.momentum.reals (unsat) μ·B + Σ_k g_k = one momentum step on Σ_k g_k
//  P4.adamw_v.reals  (sat)   β₂·v + (1−β₂)·Σ g_k² ≠ one v step on Σ g_k
#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;
}

FUSECERT_ENCODER(encode_P4) {
  (void)spec;
  auto h = hyper_from(params);
  const long n = iparam(params, "microbatches", 1, 64);
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::expr B = re.var("B"), acc = re.mul(re.c("mu"), B), sum = ctx.real_val(0);
    for (long k = 0; k < n; ++k) {
      z3::expr g = re.var("g" + std::to_string(k));
      acc = acc + g;
      sum = sum + g;
    }
    smt::Query q(ctx);
    q.add(!(acc == model::momentum_state(re, B, sum)));
    discharge(out, "P4.momentum.reals",
              "accumulating " + std::to_string(n) + " micro-batches into the momentum equals one step on their sum",
              Scope{"reals", "B, the micro-batch gradients g_k",
                    fixed_params(params, {"microbatches", "mu"}), ""},
              q,
              Answer::Unsat, opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::expr v = re.var("v"), acc = re.mul(re.c("beta2"), v), sum = ctx.real_val(0);
    for (long k = 0; k < n; ++k) {
      z3::expr g = re.var("g" + std::to_string(k));
      acc = acc + re.c("one_minus_beta2") * g * g;
      sum = sum + g;
    }
    smt::Query q(ctx);
    q.add(v >= 0);
    q.add(!(acc == model::adam_v(re, v, sum)));
    auto& ob = discharge(out, "P4.adamw_v.reals",
                         "accumulating micro-batches into AdamW's v differs from one step on their sum",
                         Scope{"reals", "v >= 0, the micro-batch gradients g_k",
                               fixed_params(params, {"microbatches", "beta2"}), ""},
                         q, Answer::Sat,
                         opt.timeout_ms);
    if (ob.smt_answer() == Answer::Sat) {
      double vv = model_double(ob, "v"), s = 0, ss = 0;
      for (long k = 0; k < n; ++k) {
        double g = model_double(ob, "g" + std::to_string(k));
        s += g;
        ss += g * g;
      }
      Counterexample cx = counterexample_from(ob, "v accumulated per micro-batch != v stepped on the summed gradient");
      cx.replay = {{"v_accumulated", fmt_exact(h.beta2 * vv + (1 - h.beta2) * ss)},
                   {"v_one_step", fmt_exact(h.beta2 * vv + (1 - h.beta2) * s * s)}};
      cx.replay_confirms = ss != s * s;
      out.counterexample = cx;
    }
  }
  // The verdict (and its note) is the rules file's (rules/propositions.yaml, verdict_rule).
}

}  // namespace fusecert::verifier::props
