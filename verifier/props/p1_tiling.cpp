// P1 — `producer = matmul ∧ consumer = optimizer ∧ single-use` is a sound
// fusion guard: the per-tile fused AdamW update is bitwise equal to the
// one-shot update for any tile partition when K stays whole.
// Source: propositions.md §P1; FORGE paper Prop. 1 and Rem. 2 (tied weights).
//
// Obligations:
//  P1.tiling.binary32  (unsat) two symbolic tile partitions (T1, T2 > 0) and the
//                      one-shot GEMM compute the same gradient bits at a symbolic
//                      element (i, j), in IEEE binary32, inputs as uninterpreted
//                      functions, K unrolled.
//  P1.epilogue.binary32 (unsat) the AdamW epilogue maps equal element bits to
//                      equal W, m, v bits (element-local).
//  P1.korder.int       (unsat) the fused tile's K loop reads the one-shot order.
//  P1.splitk.binary32  (sat)   a split-K association of the same K sum differs.
//  P1.splitk.bf16      (sat)   the same in bf16 = (_ FloatingPoint 8 8).
//  P1.tied.reals       (sat)   stepping each tied path in turn ≠ one step on g1+g2.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"
#include "verifier/smt/arith.h"
#include "verifier/smt/values.h"
#include "verifier/witness/numeric.h"
#include "verifier/witness/protocols.h"

namespace fusecert::verifier::props {
namespace {

using smt::Answer;

// The element's K reduction, reading the inputs through the uninterpreted
// functions dY(token, row) and X(token, col) at (row, col).
z3::expr element_grad(smt::FpArith& fp, const z3::func_decl& dY, const z3::func_decl& X, const z3::expr& row,
                      const z3::expr& col, int K, bool reversed_k) {
  z3::context& ctx = row.ctx();
  std::vector<z3::expr> a, b;
  for (int k = 0; k < K; ++k) {
    int kk = reversed_k ? K - 1 - k : k;
    a.push_back(dY(ctx.int_val(kk), row));
    b.push_back(X(ctx.int_val(kk), col));
  }
  return model::dot_sequential(fp, a, b);
}

// P1(a), the K reduction: for two symbolic tile partitions (row tile T, column
// tile S each) the tile-local index maps back to (i, j) and the fused tile's
// gradient element has the one-shot element's bits.
void tiling_obligation(const std::map<std::string, Param>& params, const ProveOptions& opt, PropositionResult& out) {
  z3::context ctx;
  smt::FpArith fp(ctx, 8, 24, {});
  const int K = static_cast<int>(iparam(params, "K", 2, 64));
  z3::sort I = ctx.int_sort();
  z3::func_decl dY = ctx.function("dY", I, I, fp.sort());
  z3::func_decl X = ctx.function("X", I, I, fp.sort());
  z3::expr i = ctx.int_const("i"), j = ctx.int_const("j");
  smt::Query q(ctx);
  q.add(i >= 0 && j >= 0);
  z3::expr ref = element_grad(fp, dY, X, i, j, K, false);
  z3::expr differs = ctx.bool_val(false);
  for (int p = 1; p <= 2; ++p) {
    auto n = [&](const char* s) { return ctx.int_const((std::string(s) + std::to_string(p)).c_str()); };
    z3::expr T = n("T"), S = n("S"), t = n("t"), l = n("l"), u = n("u"), c = n("c");
    q.add(T > 0 && S > 0 && t >= 0 && u >= 0 && l >= 0 && l < T && c >= 0 && c < S);
    q.add(i == t * T + l && j == u * S + c);
    bool mutate = p == 2 && opt.mutations.count("P1.fused_k_order");
    differs = differs || !(element_grad(fp, dY, X, t * T + l, u * S + c, K, mutate) == ref);
  }
  q.add(differs);
  discharge(out, "P1.tiling.binary32",
            "for every tile partition, the fused tile computes the one-shot gradient element's bits (K = " +
                std::to_string(K) + ", same K order)",
            Scope{"binary32", "tile sizes T1, S1, T2, S2 > 0, tile coordinates, the element (i, j), the data dY, X "
                              "(uninterpreted)",
                  "K unrolled to " + std::to_string(K),
                  "congruence: both sides apply the same dot_sequential to the same element's data, so the query "
                  "stays unsat with every floating-point operation uninterpreted"},
            q, Answer::Unsat, opt.timeout_ms);
}

// P1(a), the K order: with K symbolic (K whole: the tile's K loop covers all
// tokens) the token the fused tile reads at reduction step s is the one the
// one-shot GEMM reads at step s. Integer arithmetic.
void korder_obligation(const ProveOptions& opt, PropositionResult& out) {
  z3::context ctx;
  z3::expr K = ctx.int_const("K"), s = ctx.int_const("s");
  bool mutate = opt.mutations.count("P1.fused_k_order") > 0;
  z3::expr tile_token = mutate ? K - 1 - s : s;  // the fused tile's K loop: sequential over tokens
  z3::expr oneshot_token = s;
  smt::Query q(ctx);
  q.add(K > 0 && s >= 0 && s < K);
  q.add(tile_token != oneshot_token);
  discharge(out, "P1.korder.int",
            "for every K and reduction step s, the fused tile reads the same token as the one-shot GEMM",
            Scope{"integers", "K, the reduction step s", "",
                  "the fused tile's token and the one-shot token are the same term s: the query is (distinct s s)"},
            q, Answer::Unsat, opt.timeout_ms);
}

// P1(a), the whole fused step: the K reduction and the AdamW epilogue on the
// element's state W0, m0, v0 (uninterpreted functions of the element index),
// one-shot vs a symbolic tile partition: equal W, m, v bits.
void epilogue_obligation(const std::map<std::string, Param>& params, const ProveOptions& opt, PropositionResult& out) {
  z3::context ctx;
  auto h = hyper_from(params);
  smt::FpArith fp(ctx, 8, 24, h.constants());
  const int K = static_cast<int>(iparam(params, "K", 2, 64));
  z3::sort I = ctx.int_sort();
  z3::func_decl dY = ctx.function("dY", I, I, fp.sort()), X = ctx.function("X", I, I, fp.sort());
  z3::func_decl W0 = ctx.function("W0", I, I, fp.sort()), m0 = ctx.function("m0", I, I, fp.sort()),
                v0 = ctx.function("v0", I, I, fp.sort());
  z3::expr i = ctx.int_const("i"), j = ctx.int_const("j"), T = ctx.int_const("T"), S = ctx.int_const("S");
  z3::expr t = ctx.int_const("t"), l = ctx.int_const("l"), u = ctx.int_const("u"), c = ctx.int_const("c");
  smt::Query q(ctx);
  q.add(i >= 0 && j >= 0 && T > 0 && S > 0 && t >= 0 && u >= 0 && l >= 0 && l < T && c >= 0 && c < S);
  q.add(i == t * T + l && j == u * S + c);
  bool mutate = opt.mutations.count("P1.fused_k_order") > 0;
  z3::expr ti = t * T + l, tj = u * S + c;
  auto ref = model::adamw_step(fp, {W0(i, j), m0(i, j), v0(i, j)}, element_grad(fp, dY, X, i, j, K, false));
  auto tile = model::adamw_step(fp, {W0(ti, tj), m0(ti, tj), v0(ti, tj)}, element_grad(fp, dY, X, ti, tj, K, mutate));
  q.add(!(tile.W == ref.W && tile.m == ref.m && tile.v == ref.v));
  discharge(out, "P1.epilogue.binary32",
            "the fused tile's AdamW epilogue yields the one-shot step's W, m, v bits (element-local state, same K "
            "order)",
            Scope{"binary32", "tile sizes T, S > 0, tile coordinates, the element (i, j), dY, X, W0, m0, v0 "
                              "(uninterpreted)",
                  "K unrolled to " + std::to_string(K) + "; " +
                      fixed_params(params, {"beta1", "beta2", "eps", "lam", "lr", "step"}),
                  "congruence: the same K sum and the same AdamW terms on both sides"},
            q, Answer::Unsat, opt.timeout_ms);
}

// P1(b): split-K. The products p_k = dY[k,i]·X[k,j] are the same in every
// association, so the obligation ranges over the products themselves (any
// binary32 value is a product: p·1); the sums are what split-K reassociates.
template <class Native>
void splitk_obligation(unsigned eb, unsigned sb, const std::string& fmt_name, const std::map<std::string, Param>& params,
                       const ProveOptions& opt, PropositionResult& out, bool record_cex) {
  z3::context ctx;
  smt::FpArith fp(ctx, eb, sb, {});
  const int K = static_cast<int>(iparam(params, "K", 2, 64));
  // model::dot_split_k sums contiguous chunks of ceil(K/splits) products. When
  // every chunk after the first holds one product (splits = K, or K = 3 with
  // 2 splits), adding the partials left to right is the sequential order
  // again, and the "split-K" query would compare an order with itself.
  const int splits = static_cast<int>(iparam(params, "splits", 2, 64));
  const int chunk = (K + splits - 1) / splits;
  if (chunk < 2 || K - chunk < 2)
    throw std::invalid_argument("parameters K = " + std::to_string(K) + ", splits = " + std::to_string(splits) +
                                " give chunks of " + std::to_string(chunk) +
                                " product(s) whose left-to-right sum is the sequential order: split-K needs "
                                "ceil(K/splits) >= 2 and K - ceil(K/splits) >= 2 (e.g. splits = 2 with K >= 4)");
  std::vector<z3::expr> prod, one;
  smt::Query q(ctx);
  for (int k = 0; k < K; ++k) {
    prod.push_back(fp.var("p" + std::to_string(k)));
    one.push_back(fp.num(1.0));
    q.add(smt::FpArith::finite(prod.back()));
  }
  z3::expr seq = model::dot_sequential(fp, prod, one), split = model::dot_split_k(fp, prod, one, splits);
  q.add(smt::FpArith::finite(seq) && smt::FpArith::finite(split));
  q.add(!(seq == split));
  auto& ob = discharge(out, "P1.splitk." + fmt_name,
                       "a " + std::to_string(splits) + "-way split-K association of the K sum of products p_k = "
                       "dY[k,i]*X[k,j] changes the " + fmt_name + " bits (so K must stay whole)",
                       Scope{fmt_name, "the K products p_k (every finite value)",
                             "K = " + std::to_string(K) + ", splits = " + std::to_string(splits), ""},
                       q, Answer::Sat, opt.timeout_ms);
  if (ob.result != Answer::Sat || !record_cex) return;
  // Replay bit-exactly in C++: dY[k,i] = p_k, X[k,j] = 1.
  Native nat({});
  std::vector<double> pv, ones(static_cast<size_t>(K), 1.0);
  for (int k = 0; k < K; ++k) pv.push_back(model_double(ob, "p" + std::to_string(k)));
  double s1 = model::dot_sequential(nat, pv, ones), s2 = model::dot_split_k(nat, pv, ones, splits);
  Counterexample cx = counterexample_from(ob, "split-K (" + std::to_string(splits) +
                                                  " partial sums) rounds differently from the sequential K order "
                                                  "(dY[k,i] = p_k, X[k,j] = 1)");
  cx.replay = {{"sequential_" + fmt_name, smt::format_fp(s1)}, {"split_k_" + fmt_name, smt::format_fp(s2)}};
  cx.replay_confirms = s1 != s2;
  out.counterexample = cx;
}

void tied_obligation(const std::map<std::string, Param>& params, const ProveOptions& opt, PropositionResult& out) {
  z3::context ctx;
  auto h = hyper_from(params);
  smt::RealArith re(ctx, h.constants());
  z3::expr W = re.var("W"), m = re.var("m"), v = re.var("v"), g1 = re.var("g1"), g2 = re.var("g2");
  auto one = model::adamw_step(re, {W, m, v}, g1 + g2);
  auto first = model::adamw_step(re, {W, m, v}, g1);
  auto second = model::adamw_step(re, first, g2);
  smt::Query q(ctx);
  for (unsigned k = 0; k < re.side().size(); ++k) q.add(re.side()[k]);
  q.add(v >= 0);
  q.add(!(one.W == second.W && one.m == second.m && one.v == second.v));
  auto& ob = discharge(out, "P1.tied.reals",
                       "a tied weight (gradient g1 + g2, two consumers): stepping each path in turn is not one step "
                       "on the sum, so the single-use guard must reject it",
                       Scope{"reals", "W, m, v >= 0, g1, g2",
                             fixed_params(params, {"beta1", "beta2", "eps", "lam", "lr", "step"}), ""},
                       q, Answer::Sat, opt.timeout_ms);
  if (ob.result == Answer::Sat && !out.counterexample) {
    witness::F64Arith d(h.constants());
    double Wd = model_double(ob, "W"), md = model_double(ob, "m"), vd = model_double(ob, "v");
    double a = model_double(ob, "g1"), b = model_double(ob, "g2");
    auto o = model::adamw_step(d, {Wd, md, vd}, a + b);
    auto s = model::adamw_step(d, model::adamw_step(d, {Wd, md, vd}, a), b);
    Counterexample cx = counterexample_from(ob, "two consecutive steps on g1, g2 differ from one step on g1+g2");
    cx.replay = {{"m_one_step", fmt_exact(o.m)}, {"m_two_steps", fmt_exact(s.m)}, {"W_one_step", fmt_exact(o.W)}, {"W_two_steps", fmt_exact(s.W)}};
    cx.replay_confirms = o.m != s.m || o.W != s.W || o.v != s.v;
    out.counterexample = cx;
  }
}

}  // namespace

FUSECERT_ENCODER(encode_P1) {
  tiling_obligation(params, opt, out);
  epilogue_obligation(params, opt, out);
  korder_obligation(opt, out);
  splitk_obligation<witness::F32Arith>(8, 24, "binary32", params, opt, out, true);
  splitk_obligation<witness::BF16Arith>(8, 8, "bf16", params, opt, out, false);
  tied_obligation(params, opt, out);
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  const Obligation &tiling = out.obligations[0], &epilogue = out.obligations[1];
  if (tiling.result == Answer::Sat || epilogue.result == Answer::Sat)
    out.notes.push_back("the fused tile's bits differ from the one-shot step's: tiling independence fails");
  if (opt.witnesses) {
    auto w = witness::tied_weight(params);
    set_witness(out, spec, w.protocol, w.figures, out.params_overridden);
  }
}

}  // namespace fusecert::verifier::props
