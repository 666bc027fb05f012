#include "verifier/ir/candidates.h"

#include <algorithm>

#include "verifier/ir/dependence.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/opaque_attrs.h"

namespace fusecert::ir {

std::string to_string(Form f) {
  switch (f) {
    case Form::Linalg: return "linalg";
    case Form::Table: return "table";
    case Form::Bufferized: return "bufferized";
    case Form::Fused: return "fused";
    case Form::Dag: return "dag";
  }
  return "?";
}

std::optional<Form> form_from_string(const std::string& s) {
  for (Form f : {Form::Linalg, Form::Table, Form::Bufferized, Form::Fused, Form::Dag})
    if (to_string(f) == s) return f;
  return std::nullopt;
}

// Which ops are optimizers, collectives or fused producers is the dialect
// tables' (rules/dialects/*.yaml), not a list of names here.
namespace {
bool has_role(const std::string& n, OpRole r) {
  const OpSpec* s = dialects().find(n);
  return s && s->role == r;
}
}  // namespace

bool is_tessera_optimizer(const std::string& n) { return has_role(n, OpRole::Optimizer); }

bool is_known_tessera(const std::string& n) { return dialects().find(n) != nullptr; }

bool is_tessera_collective(const std::string& n) { return has_role(n, OpRole::Collective); }

namespace {
bool is_fused_wgrad(const std::string& n) { return has_role(n, OpRole::Fused); }
}  // namespace

bool is_unlisted_fused(const Module& m, const Op& op) {
  if (op.registered || dialects().find(op.name) || !dialects().table_of(op.name)) return false;
  auto mat = [&](int v, int64_t& r, int64_t& c) {
    const Type& t = m.values[v].type;
    if ((t.kind != Type::Kind::Tensor && t.kind != Type::Kind::MemRef) || t.shape.size() != 2 || t.shape[0] < 0 ||
        t.shape[1] < 0)
      return false;
    r = t.shape[0];
    c = t.shape[1];
    return true;
  };
  const auto& ops = op.operands;
  for (size_t x = 0; x < ops.size(); ++x)
    for (size_t y = 0; y < ops.size(); ++y) {
      int64_t k1, mm, k2, nn;
      if (x == y || !mat(ops[x], k1, mm) || !mat(ops[y], k2, nn) || k1 != k2) continue;
      for (size_t w = 0; w < ops.size(); ++w) {
        int64_t wr, wc;
        if (w == x || w == y || !mat(ops[w], wr, wc) || wr != mm || wc != nn) continue;
        const Type& wt = m.values[ops[w]].type;
        for (int r : op.results)
          if (m.values[r].type.text == wt.text) return true;
      }
    }
  return false;
}

std::vector<KeyProblem> collective_key_problems(const Module& m, const Op& op) {
  std::vector<KeyProblem> out;
  // What the collective computes and how its dialect spells each key are its
  // table entry's (rules/dialects/*.yaml), never its name.
  const OpSpec* spec = spec_of(op);
  const bool scatter = spec && spec->collective == CollectiveKind::ReduceScatter;
  const bool all_reduce = spec && spec->collective == CollectiveKind::AllReduce;
  const std::string k_reduction = key_of(op, "reduction"), k_op = key_of(op, "op"), k_axis = key_of(op, "axis"),
                    k_ranks = key_of(op, "ranks"), k_scatter = key_of(op, "scatter_dim");
  // Tessera's own spelling (TesseraOps.td, Tessera_CollectiveOp) is
  // {axis, op}: `op` names the reduction, `axis` the mesh axis whose ranks
  // take part. fusecert's own is {reduction, ranks}. Either names the
  // reduction; giving both is ambiguous.
  const Attr* red = op.attr(k_reduction);
  const Attr* red_op = op.attr(k_op);
  const Attr* axis = op.attr(k_axis);
  std::string red_key = k_reduction;
  if (red && red_op) {
    out.push_back({k_op, op.name + ": both '" + k_reduction + "' and '" + k_op + "' name the reduction; give one"});
  } else if (!red && red_op) {
    red = red_op;
    red_key = k_op;
  }
  if (!red)
    out.push_back({k_reduction, "missing semantic key '" + k_reduction + "' on " + op.name +
                                    ": fusecert does not assume a default (the element-wise reduction; only \"sum\" "
                                    "is modelled)",
                   true});
  else if (red->kind != Attr::Kind::String || red->text != "sum")
    out.push_back({red_key, op.name + ": " + red_key + " = " + (red->kind == Attr::Kind::String ? "\"" + red->text + "\"" : red->text) +
                                    " is not modelled (only \"sum\")"});
  if (axis && axis->kind != Attr::Kind::String)
    out.push_back({k_axis, op.name + ": " + k_axis + " = " + axis->text + " is not a string (the mesh axis name)"});
  const Attr* ranks = op.attr(k_ranks);
  // With a mesh axis and no `ranks`, an all-reduce sums over however many
  // ranks the axis has: the P3 identity is proven for two ranks and holds
  // for any R by induction, so R is not needed. A reduce-scatter's shard
  // shape needs R.
  const bool ranks_from_axis = !ranks && axis && axis->kind == Attr::Kind::String && all_reduce;
  if (!ranks && !ranks_from_axis)
    out.push_back({k_ranks, "missing semantic key '" + k_ranks + "' on " + op.name +
                                ": fusecert does not assume a default (the number of ranks R >= 1 the collective "
                                "reduces over)",
                   true});
  else if (ranks && (ranks->kind != Attr::Kind::Int || ranks->num < 1))
    out.push_back({k_ranks, op.name + ": " + k_ranks + " = " +
                                (ranks->kind == Attr::Kind::String ? "\"" + ranks->text + "\"" : ranks->text) +
                                " is not an integer >= 1"});
  if (op.operands.size() != 1 || op.results.size() > 1)
    out.push_back({"", op.name + " takes one operand and returns at most one result (it has " +
                           std::to_string(op.operands.size()) + " operands, " + std::to_string(op.results.size()) +
                           " results)"});
  for (const auto& [k, v] : op.attrs) {
    if (k == k_reduction || k == k_ranks || k == k_op || k == k_axis) continue;
    if (k == k_scatter && scatter) {
      if (v.kind != Attr::Kind::Int || v.num < 0)
        out.push_back({k, op.name + ": " + k_scatter + " = " + v.text + " is not an integer >= 0"});
      continue;
    }
    out.push_back({k, op.name + ": attribute '" + k +
                          "' is not a key whose semantics fusecert models (known: " + k_reduction + " or " + k_op + ", " + k_ranks +
                          ", " + k_axis + std::string(scatter ? ", " + k_scatter : "") +
                          "); an unknown key may change what the collective computes, so it is not ignored"});
  }
  // The types must agree with the keys (fail closed: a collective whose
  // shapes contradict its ranks or dimension is not one fusecert can model).
  if (op.operands.size() == 1 && ranks && ranks->kind == Attr::Kind::Int && ranks->num >= 1) {
    const Type& in = m.values[op.operands[0]].type;
    const std::string shape_of = op.name + ": the operand's type " + in.text;
    const bool dynamic = std::any_of(in.shape.begin(), in.shape.end(), [](int64_t d) { return d < 0; });
    if ((in.kind != Type::Kind::Tensor && in.kind != Type::Kind::MemRef) || dynamic) {
      out.push_back({"", shape_of + " is not a ranked tensor or memref of static shape"});
    } else {
      std::vector<int64_t> want = in.shape;
      const Attr* sd = op.attr(k_scatter);
      const int64_t d = sd && sd->kind == Attr::Kind::Int ? static_cast<int64_t>(sd->num) : 0;
      bool ok = true;
      if (scatter) {
        if (d < 0 || d >= static_cast<int64_t>(in.shape.size())) {
          out.push_back({k_scatter, op.name + ": " + k_scatter + " = " + std::to_string(d) + " is outside " + in.text +
                                            " (rank " + std::to_string(in.shape.size()) + ")"});
          ok = false;
        } else if (in.shape[d] % static_cast<int64_t>(ranks->num) != 0) {
          out.push_back({k_ranks, op.name + ": dimension " + std::to_string(d) + " of " + in.text + " (" +
                                      std::to_string(in.shape[d]) + ") is not divisible by " + k_ranks + " = " +
                                      std::to_string(static_cast<long long>(ranks->num)) +
                                      ": fusecert does not model uneven shards"});
          ok = false;
        } else {
          want[d] /= static_cast<int64_t>(ranks->num);
        }
      }
      if (ok && op.results.size() == 1) {
        const Type& r = m.values[op.results[0]].type;
        if (r.shape != want || r.kind != in.kind)
          out.push_back({"", op.name + ": result type " + r.text + " does not match the operand " + in.text +
                                 (scatter
                                      ? " with dimension " + std::to_string(d) + " divided by " + k_ranks + " = " +
                                            std::to_string(static_cast<long long>(ranks->num))
                                      : std::string(" (an all-reduce keeps the shape)"))});
      }
    }
  }
  return out;
}

std::vector<int> inputs(const Op& op) {
  if (op.num_inputs < 0) return {};
  return {op.operands.begin(), op.operands.begin() + std::min<size_t>(op.operands.size(), op.num_inputs)};
}
std::vector<int> inits(const Op& op) {
  if (op.num_inputs < 0 || static_cast<size_t>(op.num_inputs) > op.operands.size()) return {};
  return {op.operands.begin() + op.num_inputs, op.operands.end()};
}

std::vector<std::pair<int, int>> through_calls(const Module& m, const std::vector<std::pair<int, int>>& uses) {
  std::vector<std::pair<int, int>> out;
  std::vector<std::pair<int, int>> work(uses.rbegin(), uses.rend());
  std::vector<std::pair<int, int>> seen;
  while (!work.empty()) {
    auto u = work.back();
    work.pop_back();
    if (std::find(seen.begin(), seen.end(), u) != seen.end()) continue;  // recursion
    seen.push_back(u);
    const Op& op = m.ops[u.first];
    std::vector<std::pair<int, int>> next;
    if (op.callee >= 0 && static_cast<size_t>(u.second) < m.funcs[op.callee].args.size()) {
      // The callee's argument stands for the operand: its uses are the value's.
      next = m.values[m.funcs[op.callee].args[u.second]].uses;
    } else if (op.is_return && op.func >= 0) {
      // Returned: the value's uses are those of every call's result.
      bool called = false;
      for (const Op& call : m.ops)
        if (call.callee == op.func) {
          called = true;
          if (static_cast<size_t>(u.second) < call.results.size())
            for (auto& r : m.values[call.results[u.second]].uses) next.push_back(r);
        }
      // What a public function (the entry) or an uncalled one returns leaves
      // the module whole: the return is a use of its own.
      if (!called || m.funcs[op.func].is_public) out.push_back(u);
    } else {
      out.push_back(u);
      continue;
    }
    for (auto it = next.rbegin(); it != next.rend(); ++it) work.push_back(*it);
  }
  return out;
}

bool leaves_module(const Module& m, int func) {
  if (func < 0 || static_cast<size_t>(func) >= m.funcs.size()) return false;
  if (m.funcs[func].is_public) return true;
  return std::none_of(m.ops.begin(), m.ops.end(), [&](const Op& op) { return op.callee == func; });
}

namespace {

bool reads_reduction(const AffineExpr& e, const std::vector<std::string>& it) {
  std::vector<int64_t> ds;
  e.dims(ds);
  for (auto d : ds)
    if (d >= 0 && static_cast<size_t>(d) < it.size() && it[d] == "reduction") return true;
  return false;
}

/// A generic's body is C + A·B: it yields one value, the sum of its init's
/// block argument and the product of its two inputs' (mulf + addf, in
/// either operand order), by the body's typed ops, not by the op's name.
bool is_mul_add_body(const Op& op) {
  if (!op.body || op.num_inputs != 2 || op.operands.size() != 3) return false;
  const Body& b = *op.body;
  if (b.yields.size() != 1 || b.yields[0] < 0 || !b.unsupported.empty()) return false;
  auto arg_of = [&](int n) { return n >= 0 && b.nodes[n].kind == BodyNode::Kind::Arg ? b.nodes[n].arg : -1; };
  const BodyNode& y = b.nodes[b.yields[0]];
  if (y.kind != BodyNode::Kind::Op || y.fn != ScalarFn::Add || y.operands.size() != 2) return false;
  for (int i = 0; i < 2; ++i) {
    const int acc = y.operands[i], prod = y.operands[1 - i];
    if (arg_of(acc) != 2 || prod < 0) continue;
    const BodyNode& p = b.nodes[prod];
    if (p.kind != BodyNode::Kind::Op || p.fn != ScalarFn::Mul || p.operands.size() != 2) continue;
    const int a0 = arg_of(p.operands[0]), a1 = arg_of(p.operands[1]);
    if ((a0 == 0 && a1 == 1) || (a0 == 1 && a1 == 0)) return true;
  }
  return false;
}

/// An op that only permutes its one input into its init: linalg.transpose,
/// or a linalg.generic (what --linalg-generalize-named-ops makes of one)
/// whose loops are all parallel, whose init is written at the identity and
/// whose body yields its input's block argument. Its input map, one result
/// per dimension of the input, each a distinct loop dimension: stored
/// dimension r of the input is the result's dimension perm[r]; nullopt
/// otherwise.
std::optional<std::vector<int64_t>> permutation_of(const Op& op) {
  if (op.kind != Op::Kind::Transpose && op.kind != Op::Kind::Generic) return std::nullopt;
  if (op.num_inputs != 1 || op.operands.size() != 2 || op.maps.size() != 2 || op.results.size() > 1)
    return std::nullopt;
  if (std::any_of(op.iterators.begin(), op.iterators.end(), [](const std::string& i) { return i != "parallel"; }))
    return std::nullopt;
  if (op.kind == Op::Kind::Generic) {
    if (!op.body) return std::nullopt;
    const Body& b = *op.body;
    if (b.yields.size() != 1 || b.yields[0] < 0 || b.nodes[b.yields[0]].kind != BodyNode::Kind::Arg ||
        b.nodes[b.yields[0]].arg != 0)
      return std::nullopt;
  }
  const AffineMap& in = op.maps[0];
  const AffineMap& out = op.maps[1];
  const size_t n = op.iterators.size();
  if (in.results.size() != n || out.results.size() != n) return std::nullopt;
  std::vector<int64_t> perm;
  std::vector<bool> seen(n, false);
  for (size_t r = 0; r < n; ++r) {
    const AffineExpr& o = out.results[r];
    const AffineExpr& i = in.results[r];
    if (o.kind != AffineExpr::Kind::Dim || o.value != static_cast<int64_t>(r)) return std::nullopt;
    if (i.kind != AffineExpr::Kind::Dim || i.value < 0 || static_cast<size_t>(i.value) >= n || seen[i.value])
      return std::nullopt;
    seen[i.value] = true;
    perm.push_back(i.value);
  }
  return perm;
}

/// A linalg.generic computing C += A·B (is_mul_add_body) with A read
/// K-major: A's first reduction (K) index comes before its last index that
/// the output also carries (A = [K, M], or [S, K, M] when split). A is its
/// first input, or what a permutation of that input reads (permutation_of:
/// generalized matmul(transpose(X), dY) reads X = [K, M]): the maps of the
/// value as it is stored, composed through the permutation.
bool is_kmajor_contraction(const Module& m, const Op& op) {
  if (op.kind != Op::Kind::Generic || !is_mul_add_body(op)) return false;
  if (std::count(op.iterators.begin(), op.iterators.end(), "reduction") < 1) return false;
  if (op.maps.size() != 3 || op.maps[0].results.empty()) return false;
  std::vector<AffineExpr> a = op.maps[0].results;
  const int d = m.values[op.operands[0]].def_op;
  if (d >= 0)
    if (auto perm = permutation_of(m.ops[d]); perm && perm->size() == a.size()) {
      // Stored dimension r of X is dimension perm[r] of A: read at A's
      // index expression perm[r].
      std::vector<AffineExpr> stored(a.size());
      for (size_t r = 0; r < a.size(); ++r) stored[r] = a[(*perm)[r]];
      a = std::move(stored);
    }
  std::vector<int64_t> out_dims;
  for (auto& e : op.maps[2].results) e.dims(out_dims);
  int first_k = -1, last_m = -1;
  for (size_t r = 0; r < a.size(); ++r) {
    std::vector<int64_t> ds;
    a[r].dims(ds);
    if (first_k < 0 && reads_reduction(a[r], op.iterators)) first_k = static_cast<int>(r);
    for (auto d : ds)
      if (std::find(out_dims.begin(), out_dims.end(), d) != out_dims.end() && op.iterators[d] == "parallel")
        last_m = static_cast<int>(r);
  }
  return first_k >= 0 && last_m > first_k;
}

/// A generic that only sums its single input over reduction dims (split-K's
/// second stage).
bool is_sum_reduction(const Op& op) {
  if (op.kind != Op::Kind::Generic || !op.body || op.num_inputs != 1) return false;
  if (std::count(op.iterators.begin(), op.iterators.end(), "reduction") < 1) return false;
  const Body& b = *op.body;
  return b.yields.size() == 1 && b.yields[0] >= 0 && b.nodes[b.yields[0]].kind == BodyNode::Kind::Op &&
         b.nodes[b.yields[0]].fn == ScalarFn::Add;
}

/// A contraction with dimension numbers (dot_general) computing dW = Xᵀ·dY:
/// no batching, rank-2 operands, and both contract their leading axis (the
/// token axis K: X is [K, H], dY is [K, N]). The forward X·W contracts
/// X's dimension 1, and dX = dY·Wᵀ contracts dY's dimension 1: neither is.
bool is_dot_wgrad(const Module& m, const Op& op) {
  const OpSpec* spec = dialects().find(op.name);
  if (!spec || spec->role != OpRole::Contraction || !spec->attrs.count("dot_dimension_numbers")) return false;
  const Attr* a = op.attr("dot_dimension_numbers");
  std::string why;
  auto d = a ? parse_dot_dimensions(*a, why) : std::nullopt;
  if (!d || op.operands.size() != 2 || op.results.size() != 1) return false;
  const Type& l = m.values[op.operands[0]].type;
  const Type& r = m.values[op.operands[1]].type;
  if (!dot_dimensions_problem(*d, l, r, m.values[op.results[0]].type).empty()) return false;
  // The token axis may be several leading dimensions (JAX's activations
  // x[B, S, H] and dY[B, S, N] contract [0, 1] x [0, 1]): B and S flattened
  // are one K, paired in order on the two sides, with one free dimension
  // left on each (H, N).
  if (!d->lhs_batching.empty() || d->lhs_contracting.empty() || d->lhs_contracting != d->rhs_contracting ||
      l.shape.size() != d->lhs_contracting.size() + 1 || r.shape.size() != d->rhs_contracting.size() + 1)
    return false;
  for (size_t k = 0; k < d->lhs_contracting.size(); ++k)
    if (d->lhs_contracting[k] != static_cast<int64_t>(k)) return false;
  return true;
}

/// A batched dot_general whose batch a reduce then sums away: split-K
/// written as a batch of partial products (dY and X reshaped to [S, K/S,
/// ...], one contraction per batch element, the S partials added by a
/// reduce over the batch). Its batch dimensions lead on both sides, its
/// contracting dimensions follow them, in order, one free dimension is left
/// on each side, and the result's one use is a reduce adding over exactly
/// the batch dimensions: one weight gradient over K = batch times the
/// contracted extent, in partial sums. The reduce, or -1.
int dot_batch_split_reduce(const Module& m, const Op& op) {
  const OpSpec* spec = dialects().find(op.name);
  if (!spec || spec->role != OpRole::Contraction || !spec->attrs.count("dot_dimension_numbers")) return -1;
  const Attr* a = op.attr("dot_dimension_numbers");
  std::string why;
  auto d = a ? parse_dot_dimensions(*a, why) : std::nullopt;
  if (!d || op.operands.size() != 2 || op.results.size() != 1) return -1;
  const Type& l = m.values[op.operands[0]].type;
  const Type& r = m.values[op.operands[1]].type;
  if (!dot_dimensions_problem(*d, l, r, m.values[op.results[0]].type).empty()) return -1;
  const size_t nb = d->lhs_batching.size(), nk = d->lhs_contracting.size();
  if (nb == 0 || nk == 0 || d->lhs_batching != d->rhs_batching || d->lhs_contracting != d->rhs_contracting ||
      l.shape.size() != nb + nk + 1 || r.shape.size() != nb + nk + 1)
    return -1;
  for (size_t k = 0; k < nb + nk; ++k)
    if ((k < nb ? d->lhs_batching[k] : d->lhs_contracting[k - nb]) != static_cast<int64_t>(k)) return -1;
  const auto& u = m.values[op.results[0]].uses;
  if (u.size() != 1 || u[0].second != 0) return -1;
  const Op& red = m.ops[u[0].first];
  const OpSpec* rs = dialects().find(red.name);
  const Attr* dims = red.attr("dimensions");
  if (!rs || rs->role != OpRole::Reduce || red.results.size() != 1 || !dims || dims->kind != Attr::Kind::Ints ||
      dims->ints.size() != nb || m.values[red.results[0]].type.shape.size() != 2)
    return -1;
  for (size_t k = 0; k < nb; ++k)
    if (dims->ints[k] != static_cast<int64_t>(k)) return -1;
  // Its body adds (a sum of the partials, not a max of them).
  std::vector<const Op*> body;
  for (const Op& o : m.ops)
    if (o.parent == red.id) body.push_back(&o);
  const OpSpec* comb = body.empty() ? nullptr : dialects().find(body[0]->name);
  return comb && comb->role == OpRole::Elementwise && comb->computes == ScalarFn::Add ? red.id : -1;
}

/// Bufferized: buffer `buf`, read by `reader`, holds a transpose. The one
/// op writing into it before `reader` (an init operand, in the same
/// function, at function level like the reader) is a linalg.transpose, and
/// nothing else writes it or takes a view of it.
bool transposed_into(const Module& m, int buf, const Op& reader) {
  int writer = -1;
  for (const auto& [u, no] : m.values[buf].uses) {
    const Op& w = m.ops[u];
    if (u == reader.id || w.kind == Op::Kind::Dealloc) continue;
    if (w.func != reader.func || w.parent != reader.parent) return false;
    if (w.num_inputs < 0 || no < w.num_inputs) {
      if (w.access == Op::Access::Inputs && w.index > reader.index) continue;  // read after the product
      return false;  // a view, or an op that may write it
    }
    if (writer >= 0 || w.index > reader.index) return false;
    writer = u;
  }
  return writer >= 0 && m.ops[writer].kind == Op::Kind::Transpose;
}

bool is_wgrad_producer(const Module& m, const Op& op) {
  // C += Aᵀ·B, and its grouped form C[b] += A[b]ᵀ·B[b] (one weight gradient
  // per group: conditional by structure, verifier/ir/routed_structure.h).
  if (op.kind == Op::Kind::MatmulTransposeA || op.kind == Op::Kind::BatchMatmulTransposeA) return true;
  if (op.kind == Op::Kind::Matmul && !op.operands.empty()) {
    int d = m.values[op.operands[0]].def_op;
    if (d >= 0 && m.ops[d].kind == Op::Kind::Transpose) return true;
    return m.values[op.operands[0]].type.kind == Type::Kind::MemRef && transposed_into(m, op.operands[0], op);
  }
  if (op.kind == Op::Kind::Generic) return is_kmajor_contraction(m, op);
  if (is_dot_wgrad(m, op) || dot_batch_split_reduce(m, op) >= 0) return true;
  if (has_role(op.name, OpRole::Contraction)) {
    if (const OpSpec* s = dialects().find(op.name); s && s->attrs.count("dot_dimension_numbers")) return false;
    // A table contraction computes Xᵀ·dY when its first operand is read
    // transposed (dW = Xᵀ·dY, tokens = K).
    const Attr* t = op.attr(key_of(op, "transposeA"));
    return t && t->kind == Attr::Kind::Bool && t->num != 0;
  }
  return false;
}

std::vector<std::pair<int, int>> uses_of(const Module& m, int v, int producer) {
  std::vector<std::pair<int, int>> out;
  for (auto& u : m.values[v].uses) {
    if (u.first == producer) continue;
    if (m.ops[u.first].func == m.ops[producer].func && m.ops[u.first].index < m.ops[producer].index)
      continue;  // e.g. the zero fill of the gradient buffer
    if (m.ops[u.first].kind == Op::Kind::Dealloc) continue;
    out.push_back(u);
  }
  if (m.values[v].type.kind == Type::Kind::MemRef) {
    // A bufferized consumer may write its results into the gradient buffer
    // itself (one-shot-bufferize reuses it): a linalg.generic that reads the
    // buffer as an input and also takes it as an init, every loop parallel,
    // overwrites every element after reading it. Its init operand is not a
    // second use, and the ops after it read its results, not the gradient.
    int overwrite = -1;
    for (const auto& u : out) {
      const Op& op = m.ops[u.first];
      if (op.kind != Op::Kind::Generic || op.func != m.ops[producer].func || u.second < op.num_inputs) continue;
      const bool reads = std::any_of(out.begin(), out.end(), [&](const auto& w) {
        return w.first == u.first && w.second < op.num_inputs;
      });
      const bool parallel = std::all_of(op.iterators.begin(), op.iterators.end(),
                                        [](const std::string& it) { return it == "parallel"; });
      if (reads && parallel && (overwrite < 0 || op.index < m.ops[overwrite].index)) overwrite = u.first;
    }
    if (overwrite >= 0) {
      const Op& w = m.ops[overwrite];
      std::vector<std::pair<int, int>> kept;
      for (const auto& u : out) {
        const Op& op = m.ops[u.first];
        if (u.first == overwrite && u.second >= w.num_inputs) continue;
        if (op.func == w.func && op.index > w.index) continue;
        kept.push_back(u);
      }
      out = std::move(kept);
    }
  }
  return through_calls(m, out);
}

bool may_be_optimizer(const Op& op) { return is_tessera_optimizer(op.name) || op.kind == Op::Kind::Generic; }

/// A linalg.generic that only adds its two inputs element-wise: every loop
/// parallel, every map the identity, its body yields the sum of its two
/// inputs' block arguments (what --linalg-generalize-named-ops makes of a
/// linalg.add), by its maps, iterators and body, not by name.
bool is_elementwise_add(const Op& op) {
  if (op.kind != Op::Kind::Generic || !op.body || op.num_inputs != 2 || op.operands.size() != 3 ||
      op.results.size() != 1 || op.maps.size() != 3)
    return false;
  if (std::any_of(op.iterators.begin(), op.iterators.end(), [](const std::string& i) { return i != "parallel"; }))
    return false;
  for (const AffineMap& mp : op.maps) {
    if (mp.results.size() != op.iterators.size()) return false;
    for (size_t r = 0; r < mp.results.size(); ++r)
      if (mp.results[r].kind != AffineExpr::Kind::Dim || mp.results[r].value != static_cast<int64_t>(r)) return false;
  }
  const Body& b = *op.body;
  if (b.yields.size() != 1 || b.yields[0] < 0 || !b.unsupported.empty()) return false;
  const BodyNode& y = b.nodes[b.yields[0]];
  if (y.kind != BodyNode::Kind::Op || y.fn != ScalarFn::Add || y.operands.size() != 2) return false;
  std::vector<int> args;
  for (int o : y.operands)
    if (o >= 0 && b.nodes[o].kind == BodyNode::Kind::Arg) args.push_back(b.nodes[o].arg);
  std::sort(args.begin(), args.end());
  return args == std::vector<int>{0, 1};
}

/// Follows single-result element-wise users (add, clip) to an optimizer.
int find_downstream(const Module& m, int op_id, int depth = 0) {
  if (depth > 4) return -1;
  const Op& op = m.ops[op_id];
  for (int r : op.results)
    for (auto& u : through_calls(m, m.values[r].uses)) {
      if (may_be_optimizer(m.ops[u.first])) return u.first;
      int d = find_downstream(m, u.first, depth + 1);
      if (d >= 0) return d;
    }
  return -1;
}

}  // namespace

std::vector<Candidate> find_candidates(const Module& m, std::vector<Candidate>* no_optimizer) {
  std::vector<Candidate> out;
  for (const Func& f : m.funcs)
    for (int id : f.ops) {
      const Op& op = m.ops[id];
      Candidate c;
      c.func = op.func;
      c.producer = id;
      if (is_fused_wgrad(op.name)) {
        c.form = Form::Fused;
        c.consumer = id;
        out.push_back(c);
        continue;
      }
      if (!is_wgrad_producer(m, op)) continue;
      if (const int split = dot_batch_split_reduce(m, op); is_dot_wgrad(m, op) || split >= 0) {
        // The consumer is the DAG to the step's results. A transpose of the
        // contraction's result into W's layout is part of the producer: the
        // tiles of its result are the transposed tiles.
        c.form = Form::Dag;
        auto transposed = [&](int g) {
          const auto& u = m.values[g].uses;
          if (u.size() != 1) return g;
          const Op& t = m.ops[u[0].first];
          const OpSpec* ts = dialects().find(t.name);
          const Attr* perm = t.attr("permutation");
          if (ts && ts->role == OpRole::Transpose && t.results.size() == 1 && perm &&
              perm->kind == Attr::Kind::Ints && perm->ints == std::vector<int64_t>{1, 0})
            return t.results[0];
          return g;
        };
        // Split-K as a batch: the gradient is the sum of the partials.
        c.split_reduce = split;
        c.grad = transposed(split >= 0 ? m.ops[split].results[0] : op.results[0]);
        // A gradient that a private helper only returns (JAX's nested jit:
        // the dot is the helper's body) is the result of the one call to it:
        // the optimizer DAG is the caller's (ir::returned_to_caller). A
        // helper called from several places stays where it is, and
        // analyze_dag fails closed on it.
        for (size_t k = 0; k <= m.funcs.size(); ++k) {
          const int up = returned_to_caller(m, c.grad);
          if (up < 0) break;
          c.grad = transposed(up);
          c.func = m.values[up].def_op >= 0 ? m.ops[m.values[up].def_op].func : c.func;
        }
        c.uses = uses_of(m, c.grad, id);
        const Dag dag = analyze_dag(m, c.func, c.grad);
        // An update: a result that combines the gradient with something
        // else the step reads (W, its state). A result computed from the
        // gradient and constants alone (the gradient returned, scaled or
        // cast) offers nothing to fuse.
        bool updates = !dag.problem.empty();
        for (const auto& o : dag.outputs) updates = updates || !o.dep.pure;
        if (!updates) {
          if (no_optimizer) no_optimizer->push_back(c);
          continue;
        }
        c.consumer = dag.update_op >= 0 ? dag.update_op : c.uses.empty() ? -1 : c.uses[0].first;
        if (c.consumer < 0) {
          if (no_optimizer) no_optimizer->push_back(c);
          continue;
        }
        out.push_back(c);
        continue;
      }
      c.form = dialects().find(op.name) ? Form::Table : Form::Linalg;
      if (!op.results.empty()) {
        c.result_no = 0;
        c.grad = op.results[0];
      } else {
        auto in = inits(op);
        if (in.empty()) continue;
        c.form = Form::Bufferized;
        c.grad = in[0];
        c.result_no = static_cast<int>(op.operands.size() - in.size());
      }
      c.uses = uses_of(m, c.grad, id);
      // split-K over a loop: the contraction accumulates into the loop's
      // iteration argument and yields the sum back to it, so each iteration
      // adds a partial product over a slice of K. The gradient is the
      // loop's result, and K is not whole in the producer.
      if (c.form == Form::Linalg && op.parent >= 0 && m.ops[op.parent].kind == Op::Kind::Loop && c.uses.size() == 1 &&
          m.ops[c.uses[0].first].kind == Op::Kind::LoopYield && m.ops[c.uses[0].first].parent == op.parent) {
        const Op& loop = m.ops[op.parent];
        const size_t i = static_cast<size_t>(c.uses[0].second);
        const auto in = inits(op);
        if (i < loop.iter_args.size() && i < loop.results.size() &&
            std::find(in.begin(), in.end(), loop.iter_args[i]) != in.end()) {
          c.k_loop = loop.id;
          c.grad = loop.results[i];
          c.uses = uses_of(m, c.grad, loop.id);
        }
      }
      // The same on buffers: the contraction accumulates into the loop's
      // iteration argument, and the loop yields that buffer back unchanged
      // (one-shot-bufferize's form of the loop above). The gradient is the
      // loop's result, the buffer after the last iteration.
      if (c.form == Form::Bufferized && op.parent >= 0 && m.ops[op.parent].kind == Op::Kind::Loop) {
        const Op& loop = m.ops[op.parent];
        for (size_t i = 0; i < loop.iter_args.size() && i < loop.results.size(); ++i) {
          if (loop.iter_args[i] != c.grad) continue;
          bool yielded = false;
          for (const auto& [u, no] : m.values[c.grad].uses)
            if (m.ops[u].kind == Op::Kind::LoopYield && m.ops[u].parent == loop.id && static_cast<size_t>(no) == i)
              yielded = true;
          if (!yielded) break;
          c.k_loop = loop.id;
          c.grad = loop.results[i];
          c.uses = uses_of(m, c.grad, loop.id);
          break;
        }
      }
      // split-K in linalg form: partial products over a split dimension, then
      // a sum over it. The sum's result is the gradient.
      if (c.form == Form::Linalg && c.uses.size() == 1 && is_sum_reduction(m.ops[c.uses[0].first]) &&
          m.values[c.grad].type.shape.size() == 3) {
        c.split_reduce = c.uses[0].first;
        c.grad = m.ops[c.split_reduce].results.at(0);
        c.uses = uses_of(m, c.grad, c.split_reduce);
      }
      // An element-wise add of the gradient and an addend (the gradient of
      // earlier micro-batches) whose sum goes on to an optimizer is the
      // epilogue's input, not the consumer, as a linalg.add is: the consumer
      // is the op computing the updated values (the dependence slice below).
      const bool addend = c.form == Form::Linalg && c.uses.size() == 1 &&
                          is_elementwise_add(m.ops[c.uses[0].first]) && find_downstream(m, c.uses[0].first) >= 0;
      if (c.uses.size() == 1 && may_be_optimizer(m.ops[c.uses[0].first]) && !addend) {
        c.consumer = c.uses[0].first;
        c.consumer_operand = c.uses[0].second;
      } else {
        for (auto& u : c.uses) {
          if (may_be_optimizer(m.ops[u.first]) && !addend) { c.downstream = u.first; break; }
          int d = find_downstream(m, u.first);
          if (d >= 0) { c.downstream = d; break; }
        }
      }
      // Linalg on tensors, the gradient not the one input of a generic: an
      // addend (gradient accumulation), or several uses (row and column
      // statistics, a norm). When the dependence analysis follows every op
      // from the gradient to the step's results and finds no second
      // contraction, the consumer is that slice, and the op computing the
      // first updated result stands for it (its facts: the DAG's).
      if (c.form == Form::Linalg && c.consumer < 0 && c.downstream >= 0) {
        const Dag dag = analyze_dag(m, op.func, c.grad);
        bool updates = false, returned = false;
        for (const auto& o : dag.outputs) updates = updates || !o.dep.pure;
        // The gradient (or an element-wise image of it) returned by the
        // entry is a use beside the update, not part of it (P1.single_use).
        for (const auto& o : dag.outputs) returned = returned || (o.dep.local() && leaves_module(m, op.func));
        const int at = dag.update_op;
        if (dag.problem.empty() && dag.tied_at < 0 && dag.other_contraction < 0 && updates && !returned && at >= 0 &&
            m.ops[at].kind == Op::Kind::Generic)
          for (int k = 0; k < m.ops[at].num_inputs && k < static_cast<int>(m.ops[at].operands.size()); ++k)
            if (depends_on(m, m.ops[at].operands[k], c.grad)) {
              c.consumer = at;
              c.consumer_operand = k;
              c.downstream = -1;
              break;
            }
      }
      // A weight gradient that reaches no optimizer (returned, stored, or
      // unused) offers nothing to fuse: not a candidate, and not an alarm.
      if (c.consumer < 0 && c.downstream < 0) {
        if (no_optimizer) no_optimizer->push_back(c);
        continue;
      }
      out.push_back(c);
    }
  return out;
}

std::vector<int> unknown_op_ids(const Module& m) {
  std::vector<int> out;
  for (const Op& op : m.ops)
    if ((!op.registered && !is_known_tessera(op.name)) || op.opaque_call) out.push_back(op.id);
  return out;
}

/// How a diagnostic names an op fusecert has no semantics for: an unknown
/// op, or a call whose callee has no body in the module (opaque as well).
static std::string unknown_what(const Op& op) {
  if (!op.opaque_call) return "unknown op '" + op.name + "'";
  const Attr* callee = op.attr("callee");
  return "call '" + op.name + "'" + (callee ? " of " + callee->text : std::string()) +
         " to a function with no body in this module";
}

static diag::Diagnostic unknown_op_error(const Op& op) {
  return diag::error(op.loc, "input.unknown_op",
                     unknown_what(op) + ": fusecert has no semantics for it (it may read or write any "
                     "buffer), so no candidate whose slice holds it can be certified");
}

std::vector<diag::Diagnostic> unknown_ops(const Module& m) {
  std::vector<diag::Diagnostic> out;
  for (int id : unknown_op_ids(m)) out.push_back(unknown_op_error(m.ops[id]));
  return out;
}

/// Calls and returns by function, built once per walk (linear in the
/// module) so that a backward walk across calls does not rescan every
/// function's arguments and every op for each value it visits.
struct CallIndex {
  std::vector<std::vector<int>> funcs_of_arg;  ///< by value id: the functions taking it as an argument
  std::vector<std::vector<int>> calls;         ///< by function: the ops calling it, in program order
  std::vector<std::vector<int>> returns;       ///< by function: its return ops, in its op order
  explicit CallIndex(const Module& m)
      : funcs_of_arg(m.values.size()), calls(m.funcs.size()), returns(m.funcs.size()) {
    for (size_t f = 0; f < m.funcs.size(); ++f) {
      for (int a : m.funcs[f].args)
        if (a >= 0 && static_cast<size_t>(a) < m.values.size() &&
            (funcs_of_arg[a].empty() || funcs_of_arg[a].back() != static_cast<int>(f)))
          funcs_of_arg[a].push_back(static_cast<int>(f));
      for (int id : m.funcs[f].ops)
        if (m.ops[id].is_return && m.ops[id].func == static_cast<int>(f)) returns[f].push_back(id);
    }
    for (const Op& op : m.ops)
      if (op.callee >= 0 && static_cast<size_t>(op.callee) < m.funcs.size()) calls[op.callee].push_back(op.id);
  }
};

/// The values one step above `v` in a backward walk that crosses calls: a
/// call's result is its callee's returned value (the callee's body computes
/// it), and a function argument is each call site's operand. Without this a
/// walk stops at a call (an op computing an operand inside a helper, as
/// optax's `@_where`, is missed) or at a helper's argument.
static std::vector<int> defs_through_calls(const Module& m, const CallIndex& ix, int v) {
  std::vector<int> out;
  const Value& val = m.values[v];
  if (val.def_op >= 0) {
    const Op& d = m.ops[val.def_op];
    if (d.callee >= 0 && val.result_no >= 0)
      for (int id : ix.returns[d.callee])
        if (static_cast<size_t>(val.result_no) < m.ops[id].operands.size())
          out.push_back(m.ops[id].operands[val.result_no]);
    return out;
  }
  if (val.arg_no < 0) return out;
  for (int f : ix.funcs_of_arg[v])
    for (int call : ix.calls[f])
      if (static_cast<size_t>(val.arg_no) < m.ops[call].operands.size())
        out.push_back(m.ops[call].operands[val.arg_no]);
  return out;
}

std::vector<bool> candidate_slice(const Module& m, const std::vector<Candidate>& cands) {
  std::vector<bool> on(m.ops.size(), false);
  std::vector<bool> seen(m.values.size(), false);
  std::vector<int> work;
  // Forward from every gradient: whatever reads it, directly or not, across
  // calls and returns.
  for (const auto& c : cands)
    if (c.grad >= 0) work.push_back(c.grad);
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    if (v < 0 || seen[v]) continue;
    seen[v] = true;
    for (const auto& u : through_calls(m, m.values[v].uses))
      // An op in a region (a stablehlo.case branch returning the value) is
      // read by the op holding it: that op reads the value, and its results
      // may carry it.
      for (int at = u.first; at >= 0; at = m.ops[at].parent) {
        on[at] = true;
        for (int r : m.ops[at].results) work.push_back(r);
      }
  }
  const CallIndex calls(m);
  // Backward from the operands of the producer and of the consumer (X, dY,
  // W, the state): whatever computes them. Their direct readers are on the
  // slice too (an op that reads or writes W or its state beside the update).
  std::fill(seen.begin(), seen.end(), false);
  for (const auto& c : cands)
    for (int id : {c.producer, c.consumer, c.downstream, c.split_reduce}) {
      if (id < 0) continue;
      on[id] = true;
      for (int o : m.ops[id].operands) {
        work.push_back(o);
        if (id == c.consumer || id == c.downstream)
          for (const auto& u : through_calls(m, m.values[o].uses)) on[u.first] = true;
      }
    }
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    if (v < 0 || seen[v]) continue;
    seen[v] = true;
    for (int u : defs_through_calls(m, calls, v)) work.push_back(u);
    int d = m.values[v].def_op;
    if (d < 0) continue;
    on[d] = true;
    for (int o : m.ops[d].operands) work.push_back(o);
  }
  // An unknown op on buffers may write any of them (an alias of W, of the
  // gradient buffer): in a module with a bufferized candidate it is on the
  // slice wherever it is.
  for (const auto& c : cands)
    if (c.form == Form::Bufferized)
      for (const Op& op : m.ops)
        for (int o : op.operands)
          if (m.values[o].type.kind == Type::Kind::MemRef) on[op.id] = true;
  return on;
}

std::vector<UnknownOpDiag> unknown_op_diags(const Module& m, const std::vector<Candidate>& cands,
                                            const std::vector<Candidate>& no_optimizer) {
  std::vector<UnknownOpDiag> out;
  for (int id : unknown_op_ids(m)) out.push_back({id, unknown_op_error(m.ops[id])});
  if (out.empty()) return out;
  if (!cands.empty()) {
    // With candidates: an unknown op is an error on a candidate's slice
    // (candidate_slice) and a note off it.
    const std::vector<bool> on = candidate_slice(m, cands);
    for (auto& [id, d] : out) {
      if (on[id]) continue;
      d.severity = diag::Severity::Remark;
      d.message = unknown_what(m.ops[id]) +
                       ": fusecert has no semantics for it; it neither reads nor computes any candidate's gradient, "
                       "weight or state, so it is off every candidate's slice";
    }
    return out;
  }
  // No candidate: an unknown op matters only where a candidate may hide.
  std::vector<bool> near(m.ops.size(), false);
  // Forward from every weight gradient that reached no known optimizer: an
  // unknown op it reaches may be that optimizer.
  std::vector<int> work;
  std::vector<bool> seen(m.values.size(), false);
  for (const auto& c : no_optimizer)
    if (c.grad >= 0) work.push_back(c.grad);
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    if (v < 0 || seen[v]) continue;
    seen[v] = true;
    for (const auto& u : through_calls(m, m.values[v].uses))
      for (int at = u.first; at >= 0; at = m.ops[at].parent) {  // and the op holding its region
        near[at] = true;
        for (int r : m.ops[at].results) work.push_back(r);
      }
  }
  const CallIndex calls(m);
  // Backward from the gradient operand of every optimizer a table knows: an
  // unknown op that computes it may be a weight-gradient producer.
  std::fill(seen.begin(), seen.end(), false);
  // The gradient operand is the one the entry names g (a dialect may take
  // (g, W, m, v)); an entry that names none: every operand may be it.
  for (const Op& op : m.ops)
    if (const OpSpec* s = spec_of(op); s && s->role == OpRole::Optimizer) {
      const int g = s->operand("g");
      if (g >= 0 && static_cast<size_t>(g) < op.operands.size())
        work.push_back(op.operands[g]);
      else
        for (int o : op.operands) work.push_back(o);
    }
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    if (v < 0 || seen[v]) continue;
    seen[v] = true;
    for (int u : defs_through_calls(m, calls, v)) work.push_back(u);
    int d = m.values[v].def_op;
    if (d < 0) continue;
    near[d] = true;
    for (int o : m.ops[d].operands) work.push_back(o);
  }
  for (auto& [id, d] : out) {
    if (near[id]) continue;
    d.severity = diag::Severity::Remark;
    d.message = unknown_what(m.ops[id]) +
                     ": fusecert has no semantics for it; no weight gradient reaches it and it feeds no optimizer's "
                     "gradient, so it is off every candidate's slice (the module has no candidate)";
  }
  return out;
}

std::vector<int> unknown_ops_reached(const Module& m, int grad) {
  std::vector<bool> on(m.ops.size(), false), seen(m.values.size(), false);
  std::vector<int> work{grad};
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    if (v < 0 || static_cast<size_t>(v) >= m.values.size() || seen[v]) continue;
    seen[v] = true;
    for (const auto& u : through_calls(m, m.values[v].uses)) {
      on[u.first] = true;
      for (int r : m.ops[u.first].results) work.push_back(r);
    }
  }
  std::vector<int> out;
  for (int id : unknown_op_ids(m))
    if (on[id]) out.push_back(id);
  return out;
}

std::vector<diag::Diagnostic> collective_key_diags(const Module& m, const std::vector<int>& reported) {
  std::vector<diag::Diagnostic> out;
  for (const Op& op : m.ops) {
    if (!is_tessera_collective(op.name) || std::find(reported.begin(), reported.end(), op.id) != reported.end()) continue;
    for (auto& p : collective_key_problems(m, op))
      out.push_back(diag::error(op.loc, "input.collective",
                                p.message + "; fusecert has no semantics for this collective, so no candidate in "
                                            "this module can be certified"));
  }
  return out;
}

}  // namespace fusecert::ir
