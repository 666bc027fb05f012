// Declared reference semantics of the tessera.* generic-form ops
// (../shared/spec/ir-and-certificates.md), per output element (i, j):
//  tessera.matmul(A, B) {transposeA, numeric_policy = {accum, storage}, split_k?}
//    g = round_storage(Σ_k A[k,i]·B[k,j]) accumulated in `accum` from +0 in
//    ascending k (split_k = N: N contiguous partial sums from +0, then added
//    to +0 left to right), then converted to the result element type.
//  tessera.adamw(W, g, m, v) {lr, beta1, beta2, eps, weight_decay, step,
//    state_dtype, grad_clip_scope, grad_clip_scale when the scope is not "none"}
//    the AdamW step of verifier/model/optimizer.h in `state_dtype`, on
//    g·grad_clip_scale when clipped.
//  tessera.training.wgrad_adamw(X, dY, W, m, v) {the keys of both}
//    the matmul above feeding the AdamW above; an `epilogue = @fn` attribute
//    names a scalar func.func (W, g, m, v) -> (W1, m1, v1) that replaces the
//    AdamW reference (the epilogue as the compiler generated it).
#include <set>
#include <string>

#include "verifier/model/hyper.h"
#include "verifier/model/optimizer.h"
#include "verifier/tv/side.h"

namespace fusecert::tv {

namespace {

Fmt policy_fmt(const SideTranslator& t, const ir::Op& op, const ir::Attr& policy, const std::string& key) {
  const ir::Attr* a = policy.get(key);
  if (!a) t.fail(op.loc, op.name + ": numeric_policy lacks '" + key + "' (the " + key + " dtype); no default is assumed");
  Fmt f;
  if (!parse_fmt(a->text, f)) t.fail(op.loc, op.name + ": numeric_policy." + key + " = \"" + a->text + "\" is not modelled (f32, bf16)");
  return f;
}

// The attribute keys each op's declared semantics reads. Any other key fails
// closed: an unknown or misspelt key (`splitK = 2`, `split_k` nested inside
// numeric_policy) may change what the op computes, and validating as if it
// were absent could certify a split-K rewrite as equivalent. `routing` and
// `state_locality` are certify's guard keys (P5, P9): accepted here, since they
// do not change the per-element value.
const std::set<std::string> kMatmulKeys = {"transposeA", "tessera.full_k", "numeric_policy", "split_k"};
const std::set<std::string> kPolicyKeys = {"accum", "storage"};
const std::set<std::string> kAdamwKeys = {"lr", "beta1", "beta2", "eps", "weight_decay", "step", "state_dtype",
                                          "grad_clip_scope", "grad_clip_scale", "routing", "state_locality"};

std::string joined(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

/// Fails on any attribute of `op` outside `a` ∪ `b`, and on any numeric_policy
/// entry outside accum/storage.
void known_keys(const SideTranslator& t, const ir::Op& op, const std::set<std::string>& a,
                const std::set<std::string>& b = {}) {
  std::set<std::string> all = a;
  all.insert(b.begin(), b.end());
  for (const auto& [k, v] : op.attrs) {
    if (!all.count(k))
      t.fail(op.loc, op.name + ": attribute '" + k + "' is not a key whose semantics fusecert models (known: " +
                         joined(all) + "); an unknown key may change what the op computes, so it is not ignored");
    if (k == "numeric_policy")
      for (const auto& e : v.items)
        if (!kPolicyKeys.count(e.first))
          t.fail(op.loc, op.name + ": numeric_policy." + e.first + " is not a key fusecert models (known: " +
                             joined(kPolicyKeys) + ")");
  }
}

bool flag(const ir::Op& op, const std::string& key) {
  const ir::Attr* a = op.attr(key);
  return a && (a->kind == ir::Attr::Kind::Unit || (a->kind == ir::Attr::Kind::Bool && a->num != 0));
}

/// The gradient of a tessera matmul-like op with operands a, b.
int tessera_gradient(SideTranslator& t, const ir::Op& op, int a, int b) {
  const ir::Attr& pol = t.require(op, "numeric_policy", "accumulator and storage dtypes of the gradient");
  Fmt accum = policy_fmt(t, op, pol, "accum"), storage = policy_fmt(t, op, pol, "storage");
  int splits = 1;
  if (const ir::Attr* s = op.attr("split_k")) splits = static_cast<int>(s->num);
  t.side().abstractions.insert(
      "tessera contraction: the declared K order (ascending k from +0 in the accumulator dtype; split_k = N as N "
      "contiguous partial sums)");
  int acc = t.contraction(op, a, b, flag(op, "transposeA"), accum, t.program().constant(0.0, accum), splits);
  return t.program().convert(acc, storage);
}

}  // namespace

std::vector<int> SideTranslator::adamw_reference(const ir::Op& op, int W, int g, int m, int v) {
  const ir::Attr& sd = require(op, "state_dtype", "the dtype the optimizer state and update are computed in");
  Fmt s;
  if (!parse_fmt(sd.text, s)) fail(op.loc, op.name + ": state_dtype = \"" + sd.text + "\" is not modelled (f32, bf16)");
  model::Hyper h;
  h.lr = number(op, "lr", "learning rate η");
  h.beta1 = number(op, "beta1", "first-moment decay β₁");
  h.beta2 = number(op, "beta2", "second-moment decay β₂");
  h.eps = number(op, "eps", "ε, added outside the square root");
  h.lam = number(op, "weight_decay", "decoupled weight decay λ");
  const auto step = model::step_value(number(op, "step", "the step t of the bias corrections 1−βᵗ"));
  if (!step) fail(op.loc, op.name + ": step must be a whole number from 1 to 2^31-1");
  h.step = *step;
  if (auto bad = model::hyper_problem(h)) fail(op.loc, op.name + ": " + *bad);
  const ir::Attr& scope = require(op, "grad_clip_scope", "none | layer | global");
  Program& p = p_;
  int gs = p.convert(g, s);
  if (scope.text != "none") {
    double c = number(op, "grad_clip_scale", "the clip factor applied to the gradient when grad_clip_scope is not none");
    gs = p.op(Node::Kind::Mul, gs, p.constant(c, s));
  }
  side_.abstractions.insert("tessera.adamw: declared reference semantics (verifier/model/optimizer.h, decoupled decay "
                            "W·(1−ηλ) after the moments, ε outside √v̂, constants rounded once to the state dtype)");
  Builder b(p, s, h.constants());
  model::AdamWState<int> st{p.convert(W, s), p.convert(m, s), p.convert(v, s)};
  auto r = model::adamw_step(b, st, gs);
  return {r.W, r.m, r.v};
}

std::vector<int> SideTranslator::tessera_matmul(const ir::Op& op) {
  if (op.operands.size() != 2 || op.results.size() != 1) fail(op.loc, "tessera.matmul takes (A, B) and returns one tensor");
  known_keys(*this, op, kMatmulKeys);
  int g = tessera_gradient(*this, op, op.operands[0], op.operands[1]);
  return {p_.convert(g, fmt_of(m_.values.at(static_cast<size_t>(op.results[0])).type, op.loc))};
}

namespace {
std::vector<int> to_result_types(SideTranslator& t, const ir::Op& op, std::vector<int> r) {
  if (r.size() != op.results.size())
    t.fail(op.loc, op.name + " has " + std::to_string(op.results.size()) + " results; its semantics give " + std::to_string(r.size()));
  for (size_t i = 0; i < r.size(); ++i)
    r[i] = t.program().convert(r[i], t.fmt_of(t.module().values.at(static_cast<size_t>(op.results[i])).type, op.loc));
  return r;
}
}  // namespace

std::vector<int> SideTranslator::tessera_adamw(const ir::Op& op) {
  if (op.operands.size() != 4) fail(op.loc, "tessera.adamw takes (W, g, m, v)");
  known_keys(*this, op, kAdamwKeys);
  std::vector<int> in;
  for (int v : op.operands) in.push_back(element(v));
  return to_result_types(*this, op, adamw_reference(op, in[0], in[1], in[2], in[3]));
}

std::vector<int> SideTranslator::tessera_wgrad_adamw(const ir::Op& op) {
  if (op.operands.size() != 5) fail(op.loc, "tessera.training.wgrad_adamw takes (X, dY, W, m, v)");
  std::set<std::string> fused = kAdamwKeys;
  fused.insert("epilogue");
  known_keys(*this, op, kMatmulKeys, fused);
  int g = tessera_gradient(*this, op, op.operands[0], op.operands[1]);
  int W = element(op.operands[2]), m = element(op.operands[3]), v = element(op.operands[4]);
  if (const ir::Attr* epi = op.attr("epilogue")) {
    std::string callee = epi->text;
    if (!callee.empty() && callee[0] == '@') callee = callee.substr(1);
    side_.abstractions.insert("tessera.training.wgrad_adamw: epilogue @" + callee +
                              " encoded from its arith/math body (the clip scale and hyper-parameter keys of the op "
                              "are then not used)");
    return to_result_types(*this, op, scalar_call(callee, {W, g, m, v}, op, nullptr));
  }
  return to_result_types(*this, op, adamw_reference(op, W, g, m, v));
}

}  // namespace fusecert::tv
