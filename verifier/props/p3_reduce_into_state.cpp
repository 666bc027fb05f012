// P3 — affine reduce-into-state (seed A(S) on the owner rank, 0 elsewhere,
// reduce the state) is exact and composes with ZeRO-2 reduce-scatter.
// Source: propositions.md §P3.
//
//  P3.allreduce.reals      (unsat) Σ_r contrib_r = μ·B + Σ_r G_r, owner symbolic
//  P3.reduce_scatter.reals (unsat) the same per row, each rank seeding the rows of its own shard
//                                  (symbolic V): exactly one rank seeds every row
//  P3.owner.unique         (unsat) symbolic V, R: no row has two owners
//  P3.owner.exists         (unsat) symbolic V, R: the closed-form owner owns the row
//  P3.adamw_partials       (sat)   (Σ G_r)² ≠ Σ G_r²: AdamW's v cannot be reduced
#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"
#include "verifier/witness/protocols.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;

// Contiguous shards, the first V mod R one row longer: start(r) = r·q + min(r, rem).
z3::expr shard_start(const z3::expr& r, const z3::expr& q, const z3::expr& rem) {
  return r * q + z3::ite(r <= rem, r, rem);
}
z3::expr owns(const z3::expr& r, const z3::expr& x, const z3::expr& R, const z3::expr& q, const z3::expr& rem) {
  return r >= 0 && r < R && shard_start(r, q, rem) <= x && x < shard_start(r + 1, q, rem);
}
}  // namespace

FUSECERT_ENCODER(encode_P3) {
  auto h = hyper_from(params);
  const long R = iparam(params, "ranks", 1, 64);
  for (bool scatter : {false, true}) {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    z3::sort I = ctx.int_sort();
    z3::func_decl G = ctx.function("G", I, I, ctx.real_sort());  // G(rank, row)
    z3::func_decl B = ctx.function("B", I, ctx.real_sort());     // B(row)
    z3::expr row = ctx.int_const("row"), owner = ctx.int_const("owner");
    smt::Query q(ctx);
    z3::expr V = ctx.int_const("V"), qq = ctx.int_const("q"), rem = ctx.int_const("rem");
    z3::expr Rv = ctx.int_val(static_cast<int>(R));
    if (scatter) {
      // Every rank seeds the state exactly where its own shard holds the row
      // (contiguous shards, the first V mod R one row longer): that exactly
      // one rank seeds is what this obligation proves, for symbolic V.
      q.add(V >= 0 && V == Rv * qq + rem && rem >= 0 && rem < Rv);
      q.add(row >= 0 && row < V);  // the row is one of W's rows
    } else {
      q.add(owner >= 0 && owner < Rv);
    }
    z3::expr sum_contrib = ctx.real_val(0), sum_G = ctx.real_val(0);
    for (long r = 0; r < R; ++r) {
      z3::expr rr = ctx.int_val(static_cast<int>(r));
      z3::expr seeds = scatter ? owns(rr, row, Rv, qq, rem) : rr == owner;
      z3::expr contrib = z3::ite(seeds, model::momentum_state(re, B(row), G(rr, row)), G(rr, row));
      sum_contrib = sum_contrib + contrib;
      sum_G = sum_G + G(rr, row);
    }
    q.add(!(sum_contrib == model::momentum_state(re, B(row), sum_G)));
    discharge(out, scatter ? "P3.reduce_scatter.reals" : "P3.allreduce.reals",
              std::string(scatter ? "reduce-scatter" : "all-reduce") + " of state contributions over " +
                  std::to_string(R) + " ranks equals one momentum step on the summed gradient",
              Scope{"reals (state and gradients), integers (ranks, rows)",
                    std::string("the gradients G(rank, row) and state B(row) (uninterpreted), ") +
                        (scatter ? "the row count V and the row (the seeding ranks from the shard formula)"
                                 : "the owner rank, the row"),
                    "R = " + std::to_string(R) + " ranks, " + fixed_params(params, {"mu"}), ""},
              q, Answer::Unsat, opt.timeout_ms);
  }
  for (bool uniq : {true, false}) {
    z3::context ctx;
    z3::expr V = ctx.int_const("V"), Rr = ctx.int_const("R"), qq = ctx.int_const("q"), rem = ctx.int_const("rem");
    z3::expr x = ctx.int_const("row");
    smt::Query q(ctx);
    q.add(Rr > 0 && V >= 0 && qq >= 0 && V == Rr * qq + rem && rem >= 0 && rem < Rr && x >= 0 && x < V);
    if (uniq) {
      z3::expr r1 = ctx.int_const("r1"), r2 = ctx.int_const("r2");
      q.add(owns(r1, x, Rr, qq, rem) && owns(r2, x, Rr, qq, rem) && r1 < r2);
    } else {
      z3::expr r = ctx.int_const("r");
      z3::expr big = rem * (qq + 1);
      q.add(r == z3::ite(x < big, x / (qq + 1), rem + (x - big) / qq));
      q.add(!owns(r, x, Rr, qq, rem));
    }
    discharge(out, uniq ? "P3.owner.unique" : "P3.owner.exists",
              uniq ? "for all V, R > 0: no row lies in two ranks' shards"
                   : "for all V, R > 0: every row has an owner (closed form x < rem*(q+1) ? x div (q+1) : rem + (x - "
                     "rem*(q+1)) div q)",
              Scope{"integers", "rows V >= 0, ranks R > 0, the row", "", ""},
              q, Answer::Unsat, opt.timeout_ms);
  }
  {
    z3::context ctx;
    smt::RealArith re(ctx, h.constants());
    smt::Query q(ctx);
    z3::expr sum = ctx.real_val(0), sumsq = ctx.real_val(0), v = re.var("v");
    for (long r = 0; r < R; ++r) {
      z3::expr g = re.var("G" + std::to_string(r));
      sum = sum + g;
      sumsq = sumsq + g * g;
    }
    // Owner seeds β₂·v; every rank adds (1−β₂)·G_r² — vs the step on the sum.
    q.add(v >= 0);
    q.add(!(model::adam_v(re, v, sum) == re.c("beta2") * v + re.c("one_minus_beta2") * sumsq));
    auto& ob = discharge(out, "P3.adamw_partials",
                         "AdamW's v is not affine: stepping v on per-rank partials differs from the step on the sum",
                         Scope{"reals", "v >= 0, the per-rank gradients G_r",
                               "R = " + std::to_string(R) + " ranks, " + fixed_params(params, {"beta2"}), ""},
                         q, Answer::Sat, opt.timeout_ms);
    if (ob.smt_answer() == Answer::Sat) {
      double s = 0, ss = 0;
      for (long r = 0; r < R; ++r) {
        double g = model_double(ob, "G" + std::to_string(r));
        s += g;
        ss += g * g;
      }
      Counterexample cx = counterexample_from(ob, "(sum G_r)^2 != sum G_r^2");
      cx.replay = {{"(sum G_r)^2", fmt_exact(s * s)}, {"sum G_r^2", fmt_exact(ss)}};
      cx.replay_confirms = s * s != ss;
      out.counterexample = cx;
    }
  }
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  const auto& ob = out.obligations;
  if (ob[4].smt_answer() == Answer::Sat)
    out.notes.push_back("the trick is for affine A only: AdamW's quadratic v on per-rank partials is wrong "
                        "(counterexample), so the checker refuses it");
  if (opt.witnesses) {
    auto w = witness::reduce_into_state(params);
    set_witness(out, spec, w.protocol, w.figures, out.params_overridden);
  }
}

}  // namespace fusecert::verifier::props
