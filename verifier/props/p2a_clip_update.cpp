// P2a — "clip the update" (scale η by c) does not substitute for clipping.
// Source: propositions.md §P2a/P2b.
//
//  P2a.v_update_eq_none   (unsat) the state update never sees c: v_update ≡ v_none
//  P2a.v_update_ne_exact  (unsat) c < 1 ∧ g ≠ 0 ∧ v_update = v_exact is impossible
//  P2a.W_differs          (sat)   a concrete state where the weight differs from exact
#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"
#include "verifier/witness/numeric.h"
#include "verifier/witness/protocols.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;
}

FUSECERT_ENCODER(encode_P2a) {
  auto h = hyper_from(params);
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::expr v = re.var("v"), g = re.var("g");
    // clip-the-update: A(S, g) runs on the unclipped g; only U scales η.
    z3::expr v_update = model::adam_v(re, v, g), v_none = model::adam_v(re, v, g);
    smt::Query q(ctx);
    q.add(!(v_update == v_none));
    discharge(out, "P2a.v_update_eq_none", "clip-the-update leaves v exactly as no clipping does",
              Scope{"reals", "v, g", fixed_params(params, {"beta2"}),
                    "both sides are the same term adam_v(v, g) (clip-the-update's state update is the unclipped one by "
                    "definition): the query is (distinct e e)"},
              q, Answer::Unsat,
              opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::expr v = re.var("v"), g = re.var("g"), c = re.var("c");
    smt::Query q(ctx);
    q.add(c > 0 && c < 1 && g != 0 && v >= 0);
    q.add(model::adam_v(re, v, g) == model::adam_v(re, v, c * g));
    discharge(out, "P2a.v_update_ne_exact", "v_update != v_exact whenever 0 < c < 1 and g != 0",
              Scope{"reals", "v >= 0, g != 0, c in (0, 1)", fixed_params(params, {"beta2"}), ""}, q, Answer::Unsat,
              opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::expr W = re.var("W"), m = re.var("m"), v = re.var("v"), g = re.var("g"), c = re.var("c");
    auto exact = model::adamw_step(re, {W, m, v}, c * g);
    model::Hyper hc = h;
    smt::RealArith upd(ctx, hc.constants());
    auto none_state = model::adamw_step(upd, {W, m, v}, g);
    smt::Query q(ctx);
    for (unsigned i = 0; i < re.side().size(); ++i) q.add(re.side()[i]);
    for (unsigned i = 0; i < upd.side().size(); ++i) q.add(upd.side()[i]);
    // Clip-the-update's W: W·(1−ηcλ) − ηc·m̂/(√v̂+ε) — the unclipped step's
    // displacement scaled by c.
    z3::expr W_update = W + c * (none_state.W - W);
    q.add(c > 0 && c < 1 && v >= 0);
    q.add(!(W_update == exact.W));
    auto& ob = discharge(out, "P2a.W_differs", "the clipped-update weight differs from the exactly clipped weight",
                         Scope{"reals", "W, m, v >= 0, g, c in (0, 1)",
                               fixed_params(params, {"beta1", "beta2", "eps", "lam", "lr"}) + ", step = 1", ""},
                         q, Answer::Sat, opt.timeout_ms);
    if (ob.smt_answer() == Answer::Sat) {
      double Wd = model_double(ob, "W"), md = model_double(ob, "m"), vd = model_double(ob, "v");
      double gd = model_double(ob, "g"), cd = model_double(ob, "c");
      witness::F64Arith d(h.constants());
      auto ex = model::adamw_step(d, {Wd, md, vd}, cd * gd);
      auto no = model::adamw_step(d, {Wd, md, vd}, gd);
      Counterexample cx = counterexample_from(ob, "clip-the-update keeps the unclipped state and only scales the step");
      cx.replay = {{"W_exact", fmt_exact(ex.W)}, {"W_clip_update", fmt_exact(Wd + cd * (no.W - Wd))},
                   {"v_exact", fmt_exact(ex.v)}, {"v_clip_update", fmt_exact(no.v)}};
      cx.replay_confirms = ex.W != Wd + cd * (no.W - Wd);
      out.counterexample = cx;
    }
  }
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  if (opt.witnesses) {
    auto w = witness::spike(params, "clip_update");
    set_witness(out, spec, w.protocol, w.figures, out.params_overridden);
  }
}

}  // namespace fusecert::verifier::props
