// Declared reference semantics of the ops a dialect table lists
// (rules/dialects/*.yaml, --dialect; ../shared/spec/ir-and-certificates.md),
// per output element (i, j). What an op is comes from its table entry — its
// role, the role of each operand, its body — and every key is read by its
// meaning through the entry (ir::key_of, verifier/ir/table_reads.h), so a
// dialect that renames the ops and keys (acme.*) validates the same:
//  role contraction, operands (A, B) {transposeA, numeric_policy = {accum,
//    storage}, split_k?, k_whole?}
//    g = round_storage(Σ_k A[k,i]·B[k,j]) accumulated in `accum` from +0 in
//    ascending k (split_k = N: N contiguous partial sums from +0, then added
//    to +0 left to right), then converted to the result element type.
//  role optimizer, body adamw, operands (W, g, m, v) {lr, beta1, beta2, eps,
//    weight_decay, step, state_dtype, grad_clip_scope, grad_clip_scale when
//    the scope is not "none"}
//    the AdamW step of verifier/model/optimizer.h in `state_dtype`, on
//    g·grad_clip_scale when clipped.
//  role fused, body adamw, operands (X, dY, W, m, v) {the keys of both}
//    the contraction above feeding the AdamW above; an epilogue key
//    (`epilogue = @fn`) names a scalar func.func (W, g, m, v) -> (W1, m1, v1)
//    that replaces the AdamW reference (the epilogue as the compiler
//    generated it).
// Keys the table gives but validate does not model (tile_k, transposeB, ...)
// fail closed: they may change what the op computes.
#include <set>
#include <stdexcept>
#include <string>

#include "verifier/ir/dialect_table.h"
#include "verifier/ir/table_reads.h"
#include "verifier/model/hyper.h"
#include "verifier/model/optimizer.h"
#include "verifier/tv/side.h"

namespace fusecert::tv {

namespace {

// The meanings each role's declared semantics reads (ir::meanings()). Any
// other key fails closed: a key the table gives but validate does not model
// may change what the op computes, and validating as if it were absent could
// certify a rewrite as equivalent. `routing` and `state_locality` are
// certify's guard keys (P5, P9): accepted here, since they do not change the
// per-element value.
const std::set<std::string> kContractionMeanings = {"transposeA", "k_whole", "numeric_policy", "split_k"};
const std::set<std::string> kPolicyMeanings = {"accum", "storage"};
const std::set<std::string> kAdamwMeanings = {"lr", "beta1", "beta2", "eps", "weight_decay", "step", "state_dtype",
                                              "grad_clip_scope", "grad_clip_scale", "routing", "state_locality"};

/// The table that lists `op` (the dispatch in side.cpp found its entry there).
const ir::DialectTable& listing_table(const ir::Op& op) {
  const ir::DialectTable* t = ir::table_of(op);
  if (!t) throw std::logic_error("tv: " + op.name + " has a table entry but no table");
  return *t;
}

std::string joined(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

/// The spellings on `op` of `meanings`.
std::set<std::string> spelt(const ir::Op& op, const std::set<std::string>& meanings) {
  std::set<std::string> out;
  for (const auto& m : meanings) out.insert(ir::key_of(op, m));
  return out;
}

/// Fails on any attribute of `op` whose meaning is outside `meanings`, and on
/// any numeric policy entry other than accum / storage.
void known_keys(const SideTranslator& t, const ir::Op& op, const std::set<std::string>& meanings) {
  const std::set<std::string> all = spelt(op, meanings), policy = spelt(op, kPolicyMeanings);
  const std::string k_policy = ir::key_of(op, "numeric_policy");
  for (const auto& [k, v] : op.attrs) {
    if (!all.count(k))
      t.fail(op.loc, op.name + ": attribute '" + k + "' is not a key whose semantics fusecert models (known: " +
                         joined(all) + "); an unknown key may change what the op computes, so it is not ignored");
    if (k == k_policy)
      for (const auto& e : v.items)
        if (!policy.count(e.first))
          t.fail(op.loc, op.name + ": " + k_policy + "." + e.first + " is not a key fusecert models (known: " +
                             joined(policy) + ")");
  }
}

/// Operand position of `role` in `spec`, or a failure naming the entry.
int operand_of(const SideTranslator& t, const ir::Op& op, const ir::OpSpec& spec, const std::string& role) {
  if (op.operands.size() != spec.operands.size())
    t.fail(op.loc, op.name + " has " + std::to_string(op.operands.size()) + " operands; its table entry gives " +
                       std::to_string(spec.operands.size()) + " roles");
  const int pos = spec.operand(role);
  if (pos < 0 || static_cast<size_t>(pos) >= op.operands.size())
    t.fail(op.loc, op.name + ": its table entry gives no operand the role " + role + " (operands: " +
                       std::to_string(op.operands.size()) + "); fusecert validate cannot tell which operand it is");
  return op.operands[static_cast<size_t>(pos)];
}

Fmt policy_fmt(const SideTranslator& t, const ir::Op& op, const ir::Attr& policy, const std::string& meaning) {
  const std::string key = ir::key_of(op, meaning), k_policy = ir::key_of(op, "numeric_policy");
  const ir::Attr* a = policy.get(key);
  if (!a) t.fail(op.loc, op.name + ": " + k_policy + " lacks '" + key + "' (the " + meaning + " dtype); no default is assumed");
  Fmt f;
  if (!parse_fmt(a->text, f))
    t.fail(op.loc, op.name + ": " + k_policy + "." + key + " = \"" + a->text + "\" is not modelled (f32, bf16)");
  return f;
}

/// The gradient of a contraction-like op (role contraction or fused) with
/// operands a, b, in the K order its K-split fact states.
int table_gradient(SideTranslator& t, const ir::Op& op, const ir::OpSpec& spec, int a, int b) {
  const ir::Attr& pol = t.require(op, ir::key_of(op, "numeric_policy"), "accumulator and storage dtypes of the gradient");
  Fmt accum = policy_fmt(t, op, pol, "accum"), storage = policy_fmt(t, op, pol, "storage");
  const ir::KSplit ks = ir::k_split(t.module(), op, spec);
  int splits = 1;
  switch (ks.state) {
    case ir::KSplit::State::Undeclared:
    case ir::KSplit::State::Whole: break;
    case ir::KSplit::State::Split: splits = static_cast<int>(ks.splits); break;
    case ir::KSplit::State::NotWhole:
      t.fail(op.loc, ks.evidence + ": the op's result is not the whole K sum, and fusecert validate does not model "
                                   "a partial contraction");
    case ir::KSplit::State::Refused:
      t.fail(op.loc, op.name + ": attribute '" + ks.key + "' was refused at the attribute boundary (input.attr.*)");
    case ir::KSplit::State::Unreadable:
    case ir::KSplit::State::Unverified: t.fail(op.loc, ks.why);
  }
  t.side().abstractions.insert(
      listing_table(op).dialect + " contraction: the declared K order (ascending k from +0 in the accumulator dtype; " +
      ir::key_of(op, "split_k") + " = N as N contiguous partial sums)");
  int acc = t.contraction(op, a, b, ir::flag(op, "transposeA"), accum, t.program().constant(0.0, accum), splits);
  return t.program().convert(acc, storage);
}

std::vector<int> to_result_types(SideTranslator& t, const ir::Op& op, std::vector<int> r) {
  if (r.size() != op.results.size())
    t.fail(op.loc, op.name + " has " + std::to_string(op.results.size()) + " results; its semantics give " + std::to_string(r.size()));
  for (size_t i = 0; i < r.size(); ++i)
    r[i] = t.program().convert(r[i], t.fmt_of(t.module().values.at(static_cast<size_t>(op.results[i])).type, op.loc));
  return r;
}

/// The reference body of an optimizer or fused entry: adamw is modelled.
void require_adamw_body(const SideTranslator& t, const ir::Op& op, const ir::OpSpec& spec) {
  if (spec.body.empty())
    t.fail(op.loc, "no semantics for '" + op.name + "': its " + listing_table(op).dialect + " table entry (" +
                       listing_table(op).source + ") gives it no body, so what it computes is not known (opaque)");
  if (spec.body != "adamw")
    t.fail(op.loc, "no semantics for '" + op.name + "': fusecert validate models the adamw body; its table entry "
                       "gives the body '" + spec.body + "'");
}

}  // namespace

std::vector<int> SideTranslator::adamw_reference(const ir::Op& op, int W, int g, int m, int v) {
  auto key = [&](const char* meaning) { return ir::key_of(op, meaning); };
  const ir::Attr& sd = require(op, key("state_dtype"), "the dtype the optimizer state and update are computed in");
  Fmt s;
  if (!parse_fmt(sd.text, s))
    fail(op.loc, op.name + ": " + key("state_dtype") + " = \"" + sd.text + "\" is not modelled (f32, bf16)");
  model::Hyper h;
  h.lr = number(op, key("lr"), "learning rate η");
  h.beta1 = number(op, key("beta1"), "first-moment decay β₁");
  h.beta2 = number(op, key("beta2"), "second-moment decay β₂");
  h.eps = number(op, key("eps"), "ε, added outside the square root");
  h.lam = number(op, key("weight_decay"), "decoupled weight decay λ");
  const auto step = model::step_value(number(op, key("step"), "the step t of the bias corrections 1−βᵗ"));
  if (!step) fail(op.loc, op.name + ": " + key("step") + " must be a whole number from 1 to 2^31-1");
  h.step = *step;
  if (auto bad = model::hyper_problem(h)) fail(op.loc, op.name + ": " + *bad);
  const ir::Attr& scope = require(op, key("grad_clip_scope"), "none | layer | global");
  Program& p = p_;
  int gs = p.convert(g, s);
  if (scope.text != "none") {
    double c = number(op, key("grad_clip_scale"),
                      "the clip factor applied to the gradient when " + key("grad_clip_scope") + " is not none");
    gs = p.op(Node::Kind::Mul, gs, p.constant(c, s));
  }
  side_.abstractions.insert(listing_table(op).dialect + " adamw body: declared reference semantics (verifier/model/optimizer.h, "
                            "decoupled decay W·(1−ηλ) after the moments, ε outside √v̂, constants rounded once to the "
                            "state dtype)");
  Builder b(p, s, h.constants());
  model::AdamWState<int> st{p.convert(W, s), p.convert(m, s), p.convert(v, s)};
  auto r = model::adamw_step(b, st, gs);
  return {r.W, r.m, r.v};
}

std::vector<int> SideTranslator::table_contraction(const ir::Op& op, const ir::OpSpec& spec) {
  if (op.results.size() != 1) fail(op.loc, op.name + " takes (A, B) and returns one tensor");
  known_keys(*this, op, kContractionMeanings);
  int g = table_gradient(*this, op, spec, operand_of(*this, op, spec, "A"), operand_of(*this, op, spec, "B"));
  return {p_.convert(g, fmt_of(m_.values.at(static_cast<size_t>(op.results[0])).type, op.loc))};
}

std::vector<int> SideTranslator::table_optimizer(const ir::Op& op, const ir::OpSpec& spec) {
  require_adamw_body(*this, op, spec);
  known_keys(*this, op, kAdamwMeanings);
  std::vector<int> in;
  for (const char* role : {"W", "g", "m", "v"}) in.push_back(element(operand_of(*this, op, spec, role)));
  return to_result_types(*this, op, adamw_reference(op, in[0], in[1], in[2], in[3]));
}

std::vector<int> SideTranslator::table_fused(const ir::Op& op, const ir::OpSpec& spec) {
  require_adamw_body(*this, op, spec);
  std::set<std::string> fused = kAdamwMeanings;
  fused.insert(kContractionMeanings.begin(), kContractionMeanings.end());
  fused.insert("epilogue");
  known_keys(*this, op, fused);
  int g = table_gradient(*this, op, spec, operand_of(*this, op, spec, "X"), operand_of(*this, op, spec, "dY"));
  int W = element(operand_of(*this, op, spec, "W")), m = element(operand_of(*this, op, spec, "m")),
      v = element(operand_of(*this, op, spec, "v"));
  const ir::Epilogue epi = ir::epilogue(op, spec);
  if (epi.state == ir::Epilogue::State::Unreadable) fail(op.loc, epi.why);
  if (epi.state == ir::Epilogue::State::Named) {
    side_.abstractions.insert(op.name + ": " + epi.key + " @" + epi.callee +
                              " encoded from its arith/math body (the clip scale and hyper-parameter keys of the op "
                              "are then not used)");
    return to_result_types(*this, op, scalar_call(epi.callee, {W, g, m, v}, op, nullptr));
  }
  return to_result_types(*this, op, adamw_reference(op, W, g, m, v));
}

}  // namespace fusecert::tv
