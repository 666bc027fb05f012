// P1 — `producer = matmul ∧ consumer = optimizer ∧ single-use` is a sound
// fusion guard: the per-tile fused AdamW update is bitwise equal to the
// one-shot update for any tile partition when K stays whole.
// Source: propositions.md §P1; FORGE paper Prop. 1 and Rem. 2 (tied weights).
//
// Evidence (issue #19: the proof is about an implementation, not itself):
//  P1.partition.int    (unsat) the kernels' tile grid (kernels::partition) updates every element of W
//                      exactly once, ragged edges included, for symbolic N, H, T, S (integers).
//  P1.korder.kernels   (unsat) every fused simt configuration's declared K order (kernels::k_order) is
//                      the one-shot sequential order, for every BT up to a bound (integers).
//  P1.splitk.binary32  (sat)   a split-K (blocked) association of the same K sum differs.
//  P1.splitk.bf16      (sat)   the same in bf16 = (_ FloatingPoint 8 8).
//  P1.reversed.binary32 (sat)  the reversed K order differs.
//  P1.tied.reals       (sat)   stepping each tied path in turn ≠ one step on g1+g2.
// Sanity checks (hold by congruence; not evidence):
//  P1.tiling.binary32, P1.epilogue.binary32: the tile and the one-shot side are the same terms.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "fusecert/kernels/tiling.h"
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

// P1(a), the tile partition, as the kernels build it (kernels::partition,
// kernels/src/tiling.cpp): tiles at row a·T and column b·S while a·T < N and
// b·S < H, each clipped at the ragged edge to min(T, N − a·T) rows and
// min(S, H − b·S) columns; the fused kernel updates element (a·T + l, b·S + c)
// for local l < T, c < S inside the clipped extent. For symbolic N, H, T, S:
// every updated element lies in W, every element of W is updated, and no
// element is updated by two (tile, local index) pairs. Integer arithmetic.
void partition_obligation(const ProveOptions& opt, PropositionResult& out) {
  z3::context ctx;
  z3::expr N = ctx.int_const("N"), H = ctx.int_const("H"), T = ctx.int_const("T"), S = ctx.int_const("S");
  const bool local_bound = !opt.mutations.count("P1.partition_no_local_bound");
  const bool edge_clip = !opt.mutations.count("P1.partition_no_edge_clip");
  // A tile-local index l of tile a on an axis of length n split into tiles of t.
  auto valid = [&](const z3::expr& a, const z3::expr& l, const z3::expr& n, const z3::expr& t) {
    z3::expr v = a >= 0 && a * t < n && l >= 0;
    if (local_bound) v = v && l < t;          // the premise l < T (c < S)
    if (edge_clip) v = v && l < n - a * t;    // the ragged edge: min(T, N − a·T) rows
    return v;
  };
  smt::Query q(ctx);
  q.add(N > 0 && H > 0 && T > 0 && S > 0);
  std::vector<z3::expr> a, b, l, c;
  for (int k = 1; k <= 2; ++k) {
    auto n = [&](const char* s) { return ctx.int_const((std::string(s) + std::to_string(k)).c_str()); };
    a.push_back(n("a"));
    b.push_back(n("b"));
    l.push_back(n("l"));
    c.push_back(n("c"));
    q.add(valid(a.back(), l.back(), N, T) && valid(b.back(), c.back(), H, S));
  }
  z3::expr i = ctx.int_const("i"), j = ctx.int_const("j");
  q.add(i >= 0 && i < N && j >= 0 && j < H);
  auto row = [&](int k) { return a[k] * T + l[k]; };
  auto col = [&](int k) { return b[k] * S + c[k]; };
  z3::expr outside = !(row(0) >= 0 && row(0) < N && col(0) >= 0 && col(0) < H);
  z3::expr twice = row(0) == row(1) && col(0) == col(1) && !(a[0] == a[1] && l[0] == l[1] && b[0] == b[1] && c[0] == c[1]);
  // Element (i, j) belongs to tile (i div T, j div S) at local (i mod T, j mod S).
  z3::expr missed = !(valid(z3::to_expr(ctx, Z3_mk_div(ctx, i, T)), z3::mod(i, T), N, T) &&
                      valid(z3::to_expr(ctx, Z3_mk_div(ctx, j, S)), z3::mod(j, S), H, S));
  q.add(outside || twice || missed);
  discharge(out, "P1.partition.int",
            "the kernels' tile grid (kernels::partition) updates every element of W exactly once, ragged edge tiles "
            "included, and nothing outside W",
            Scope{"integers (nonlinear: a*T with T symbolic)",
                  "W's shape N, H > 0, tile sizes T, S > 0, the tiles and local indices, the element (i, j)", "", ""},
            q, Answer::Unsat, opt.timeout_ms);
}

// P1(a), the K order, from the implementation: the token chunks each fused
// simt kernel configuration sums in sequence (kernels::k_order, the declared
// per-element K order) against the one-shot GEMM's sequential order (one
// token per step, tokens 0, 1, ..., BT − 1), for every BT up to the bound.
// Integer facts read from the kernels' code; the claim is over every
// configuration, BT and step.
void korder_obligation(const std::map<std::string, Param>& params, const ProveOptions& opt, PropositionResult& out) {
  const long bt_max = iparam(params, "korder_max_tokens", 1, 64);
  z3::context ctx;
  z3::sort I = ctx.int_sort();
  z3::func_decl count = ctx.function("chunks", I, I, I);        // chunks(config, BT)
  z3::func_decl first = ctx.function("chunk_begin", I, I, I, I);  // chunk_begin(config, BT, step)
  z3::func_decl last = ctx.function("chunk_end", I, I, I, I);     // chunk_end(config, BT, step), exclusive
  const auto configs = kernels::simt_configs();
  smt::Query q(ctx);
  auto iv = [&](long v) { return ctx.int_val(static_cast<int>(v)); };
  for (size_t ci = 0; ci < configs.size(); ++ci)
    for (long bt = 1; bt <= bt_max; ++bt) {
      auto order = kernels::k_order(configs[ci], static_cast<int>(bt));
      if (opt.mutations.count("P1.kernel_k_reversed")) std::reverse(order.begin(), order.end());
      if (opt.mutations.count("P1.kernel_k_blocked") && bt >= 2) {  // 2-token blocks summed, then added
        std::vector<std::pair<int, int>> blocked;
        for (int t = 0; t < bt; t += 2) blocked.emplace_back(t, std::min<int>(static_cast<int>(bt), t + 2));
        order = blocked;
      }
      q.add(count(iv(static_cast<long>(ci)), iv(bt)) == iv(static_cast<long>(order.size())));
      for (size_t s = 0; s < order.size(); ++s) {
        q.add(first(iv(static_cast<long>(ci)), iv(bt), iv(static_cast<long>(s))) == iv(order[s].first));
        q.add(last(iv(static_cast<long>(ci)), iv(bt), iv(static_cast<long>(s))) == iv(order[s].second));
      }
    }
  z3::expr cfg = ctx.int_const("config"), bt = ctx.int_const("BT"), s = ctx.int_const("step");
  q.add(cfg >= 0 && cfg < iv(static_cast<long>(configs.size())) && bt >= 1 && bt <= iv(bt_max));
  // The one-shot side adds token s at step s: BT steps of one token each.
  q.add(!(count(cfg, bt) == bt &&
          z3::implies(s >= 0 && s < bt, first(cfg, bt, s) == s && last(cfg, bt, s) == s + 1)));
  discharge(out, "P1.korder.kernels",
            "every fused simt tile configuration (kernels::simt_configs) sums the K axis in the one-shot GEMM's "
            "sequential order, one token per step, tokens 0, 1, ..., BT-1 (kernels::k_order)",
            Scope{"integers",
                  "the tile configuration, the token count BT, the reduction step",
                  "BT <= " + params.at("korder_max_tokens").text +
                      " (kernels::k_order read for each BT up to this bound; beyond it, see docs/prover.md)",
                  ""},
            q, Answer::Unsat, opt.timeout_ms);
}

// P1(b), another K order: the tokens summed in reverse (a reversed K loop).
void reversed_obligation(const std::map<std::string, Param>& params, const ProveOptions& opt, PropositionResult& out) {
  z3::context ctx;
  smt::FpArith fp(ctx, 8, 24, {});
  const int K = static_cast<int>(iparam(params, "K", 2, 64));
  // The sums of the products themselves (no multiplication by 1, which only
  // slows the solver): the order of the additions is what differs.
  std::vector<z3::expr> prod;
  smt::Query q(ctx);
  for (int k = 0; k < K; ++k) {
    prod.push_back(fp.var("p" + std::to_string(k)));
    q.add(smt::FpArith::finite(prod.back()));
  }
  z3::expr seq = prod[0], rev = prod[static_cast<size_t>(K - 1)];
  for (int k = 1; k < K; ++k) {
    seq = fp.add(seq, prod[static_cast<size_t>(k)]);
    rev = fp.add(rev, prod[static_cast<size_t>(K - 1 - k)]);
  }
  q.add(smt::FpArith::finite(seq) && smt::FpArith::finite(rev));
  q.add(!(seq == rev));
  discharge(out, "P1.reversed.binary32",
            "summing the K products in reverse token order changes the binary32 bits (the K order must be the one-shot "
            "order, not merely the same tokens)",
            Scope{"binary32", "the K products p_k (every finite value)", "K = " + std::to_string(K), ""}, q,
            Answer::Sat, opt.timeout_ms);
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
  if (ob.smt_answer() != Answer::Sat || !record_cex) return;
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
  if (ob.smt_answer() == Answer::Sat && !out.counterexample) {
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
  // Sanity checks first (tests read obligations[0], the tiling query).
  tiling_obligation(params, opt, out);
  epilogue_obligation(params, opt, out);
  // The evidence: the partition, the implementation's K order, and a K order
  // that differs changing the bits.
  partition_obligation(opt, out);
  korder_obligation(params, opt, out);
  splitk_obligation<witness::F32Arith>(8, 24, "binary32", params, opt, out, true);
  splitk_obligation<witness::BF16Arith>(8, 8, "bf16", params, opt, out, false);
  reversed_obligation(params, opt, out);
  tied_obligation(params, opt, out);
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  for (const auto& o : out.obligations) {
    if (o.id == "P1.partition.int" && o.smt_answer() == Answer::Sat)
      out.notes.push_back("the kernels' tile grid misses, repeats or overruns an element: the partition fails");
    if (o.id == "P1.korder.kernels" && o.smt_answer() == Answer::Sat)
      out.notes.push_back("a fused simt configuration's declared K order (kernels::k_order) is not the one-shot "
                          "sequential order, so its bits need not equal the one-shot step's");
    if ((o.id == "P1.tiling.binary32" || o.id == "P1.epilogue.binary32") && o.smt_answer() == Answer::Sat)
      out.notes.push_back("the fused tile's bits differ from the one-shot step's: tiling independence fails");
  }
  if (opt.witnesses) {
    auto w = witness::tied_weight(params);
    set_witness(out, spec, w.protocol, w.figures, out.params_overridden);
  }
}

}  // namespace fusecert::verifier::props
