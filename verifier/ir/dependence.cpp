#include "verifier/ir/dependence.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "verifier/ir/candidates.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/init_chain.h"
#include "verifier/ir/opaque_attrs.h"

namespace fusecert::ir {

bool ValueDep::local() const {
  if (reads.empty() || !pure) return false;
  return std::all_of(reads.begin(), reads.end(), [](const GradRead& r) { return r.via.empty(); });
}

const Reduction* Dag::reduction(int op) const {
  for (const auto& r : reductions)
    if (r.op == op) return &r;
  return nullptr;
}

namespace {

using K = AffineExpr::Kind;

void expr_text(const AffineExpr& e, std::string& out) {
  switch (e.kind) {
    case K::Dim: out += "d" + std::to_string(e.value); return;
    case K::Symbol: out += "s" + std::to_string(e.value); return;
    case K::Const: out += std::to_string(e.value); return;
    default: break;
  }
  const char* op = e.kind == K::Add ? " + " : e.kind == K::Mul ? " * " : e.kind == K::FloorDiv ? " floordiv "
                   : e.kind == K::CeilDiv ? " ceildiv " : " mod ";
  out += "(";
  expr_text(*e.lhs, out);
  out += op;
  expr_text(*e.rhs, out);
  out += ")";
}

/// `e` with dim d replaced by repl[d].
AffineExpr subst(const AffineExpr& e, const std::vector<AffineExpr>& repl) {
  if (e.kind == K::Dim) return repl.at(static_cast<size_t>(e.value));
  if (!e.lhs) return e;
  return AffineExpr::bin(e.kind, subst(*e.lhs, repl), subst(*e.rhs, repl));
}

AffineMap make_map(unsigned dims, std::vector<AffineExpr> results) {
  AffineMap m;
  m.num_dims = dims;
  m.results = std::move(results);
  m.text = to_text(m);
  return m;
}

struct Failure {
  std::string why;
  Loc loc;
};

/// A scalar body op that adds or subtracts its operands (a second
/// contraction summed into the gradient is found at one), by its typed op.
bool body_sums(const BodyNode& n) { return n.kind == BodyNode::Kind::Op && sums(n.fn); }
/// A scalar body op whose reduction is exact and order-independent.
bool body_exact(const BodyNode& n) { return n.kind == BodyNode::Kind::Op && exact_reduction(n.fn); }

class Analyzer {
 public:
  Analyzer(const Module& m, Dag& d) : m_(m), d_(d), tables_(dialects()) {}

  /// Evaluates function `f` with its arguments bound to `args` (missing:
  /// not the gradient) and the gradient value `grad` (-1: none in it).
  std::vector<ValueDep> run(int f, const std::vector<ValueDep>& args, int grad, int depth,
                            std::map<int, ValueDep>* env_out = nullptr) {
    if (depth > 8) throw Failure{"calls nest deeper than 8 (recursion?)", m_.funcs[f].loc};
    std::map<int, ValueDep> env;
    const Func& fn = m_.funcs[f];
    for (size_t i = 0; i < fn.args.size(); ++i) {
      ValueDep a;
      a.pure = false;  // a function argument: W, the state, X, dY, hyper-parameters
      env[fn.args[i]] = i < args.size() ? args[i] : a;
    }
    std::vector<ValueDep> results;
    for (int id : fn.ops) {
      const Op& op = m_.ops[id];
      if (op.parent >= 0) {
        // A region's ops are read by the op that holds them (a reduce's body
        // reads only its block arguments). One that reads a value computed
        // from the gradient directly, from inside a region, carries that
        // dependence past its holder's operands: not modelled.
        for (int v : op.operands)
          if (!get(env, v, grad).reads.empty())
            throw Failure{op.name + " inside the region of " + m_.ops[op.parent].name +
                              " reads a value computed from the weight gradient, which fusecert does not follow",
                          op.loc};
        continue;
      }
      if (op.is_return) {
        for (int v : op.operands) results.push_back(get(env, v, grad));
        continue;
      }
      std::vector<ValueDep> out = eval(op, env, grad, depth);
      for (size_t r = 0; r < op.results.size() && r < out.size(); ++r) env[op.results[r]] = std::move(out[r]);
    }
    if (env_out) *env_out = std::move(env);
    return results;
  }

 private:
  const Module& m_;
  Dag& d_;
  const DialectTables& tables_;

  ValueDep get(std::map<int, ValueDep>& env, int v, int grad) {
    if (v == grad) {
      ValueDep g;
      const auto& shape = m_.values[v].type.shape;
      std::vector<AffineExpr> id;
      for (size_t i = 0; i < shape.size(); ++i) id.push_back(AffineExpr::dim(static_cast<int64_t>(i)));
      g.reads.push_back({make_map(static_cast<unsigned>(shape.size()), id), {}, {}});
      return g;
    }
    auto it = env.find(v);
    if (it != env.end()) return it->second;
    ValueDep x;
    x.pure = false;  // defined outside what was evaluated (a region argument): not known to be constant
    return x;
  }

  static void add_read(ValueDep& d, GradRead r, const Op& op) {
    for (const auto& have : d.reads)
      if (have.map.text == r.map.text && have.extra == r.extra && have.via == r.via) return;
    if (d.reads.size() >= 64) throw Failure{"more than 64 distinct gradient reads reach one value", op.loc};
    d.reads.push_back(std::move(r));
  }

  const std::vector<int64_t>& shape(int v) const { return m_.values[v].type.shape; }

  void static_shape(const Op& op, int v) const {
    const Type& t = m_.values[v].type;
    if (t.kind != Type::Kind::Tensor || std::any_of(t.shape.begin(), t.shape.end(), [](int64_t x) { return x < 0; }))
      throw Failure{op.name + ": " + t.text + " is not a tensor of static shape", op.loc};
  }

  const Attr& need_ints(const Op& op, const std::string& key) const {
    const Attr* a = op.attr(key);
    if (!a || a->kind != Attr::Kind::Ints) throw Failure{op.name + " lacks its '" + key + "' (array<i64: ...>)", op.loc};
    return *a;
  }

  /// Reads of an operand of rank `r`, re-expressed in the result's
  /// coordinates: operand coordinate k becomes coord[k] (an expression over
  /// the result's `rank` dims and `new_extra` new dims after them); the
  /// read's own extra dims follow.
  GradRead remap(const GradRead& in, size_t r, const std::vector<AffineExpr>& coord, unsigned rank,
                 const std::vector<int64_t>& new_extra) {
    GradRead out;
    out.via = in.via;
    out.extra = new_extra;
    std::vector<AffineExpr> repl = coord;
    const unsigned base = rank + static_cast<unsigned>(new_extra.size());
    for (size_t e = 0; e < in.extra.size(); ++e) {
      repl.push_back(AffineExpr::dim(static_cast<int64_t>(base + e)));
      out.extra.push_back(in.extra[e]);
    }
    if (repl.size() != r + in.extra.size()) throw Failure{"internal: a read's arity does not match its value", {}};
    std::vector<AffineExpr> res;
    for (const auto& e : in.map.results) res.push_back(subst(e, repl));
    out.map = make_map(base + static_cast<unsigned>(in.extra.size()), res);
    return out;
  }

  /// Evaluates `op`, then records which contractions each result is
  /// computed from: its operands' (a call: its callee's results'), plus the
  /// op itself when it is a contraction that does not read the gradient.
  std::vector<ValueDep> eval(const Op& op, std::map<int, ValueDep>& env, int grad, int depth) {
    std::vector<ValueDep> outs = eval_op(op, env, grad, depth);
    if (op.callee >= 0) return outs;  // the callee's results carry their own
    const OpSpec* spec = tables_.find(op.name);
    const bool reduces = (spec && (spec->role == OpRole::Reduce || spec->role == OpRole::Contraction)) ||
                         (!spec && reduces_loops(op));
    std::map<int, bool> from;
    for (int v : op.operands)
      for (const auto& [c, reduced] : get(env, v, grad).contractions) {
        auto it = from.find(c);
        const bool r = reduced || reduces;
        if (it == from.end()) from[c] = r;
        else it->second = it->second && r;
      }
    bool reads = false;
    for (const auto& o : outs) reads = reads || !o.reads.empty();
    // A contraction of inputs independent of the gradient accumulating into
    // a value computed from it element-wise (its init): the gradient is a
    // partial sum of a chain through the accumulator's init
    // (ir/init_chain.h), not W's gradient. A product of the gradient is P9's.
    auto elementwise = [&](int v) {
      const ValueDep dv = get(env, v, grad);
      return !dv.reads.empty() && std::all_of(dv.reads.begin(), dv.reads.end(),
                                              [](const GradRead& r) { return r.via.empty(); });
    };
    const std::vector<int> ins = inputs(op);
    if (is_contraction(op) && reads && d_.init_of < 0 &&
        std::none_of(ins.begin(), ins.end(), [&](int v) { return !get(env, v, grad).reads.empty(); }))
      for (int v : inits(op))
        if (elementwise(v)) d_.init_of = op.id;
    if (is_contraction(op) && !reads) {
      // A split-K partner is the producer over other tokens: what its
      // operands are computed from (the forward pass behind dY) is the
      // producer's input, as the producer's own operands are, not a second
      // contraction reaching the update.
      if (d_.producer >= 0 && split_partner(m_, d_.producer, op.id)) from.clear();
      from[op.id] = false;
    }
    for (auto& o : outs) o.contractions = from;
    return outs;
  }

  std::vector<ValueDep> eval_op(const Op& op, std::map<int, ValueDep>& env, int grad, int depth) {
    std::vector<ValueDep> ins;
    bool any = false, pure = true;
    for (int v : op.operands) {
      ins.push_back(get(env, v, grad));
      any = any || !ins.back().reads.empty();
      pure = pure && ins.back().pure;
    }
    const OpSpec* spec = tables_.find(op.name);
    std::vector<ValueDep> outs(op.results.size());
    if (!any) {
      // Independent of the gradient whatever the op computes (the
      // contractions it is computed from are recorded by eval).
      for (auto& o : outs) o.pure = pure;
      if (op.callee >= 0) {
        // Through a helper: its results may still carry a contraction.
        std::vector<ValueDep> r = run(op.callee, ins, -1, depth + 1);
        for (size_t i = 0; i < outs.size() && i < r.size(); ++i) outs[i].contractions = r[i].contractions;
      }
      return outs;
    }
    if (op.callee >= 0) {
      std::vector<ValueDep> r = run(op.callee, ins, -1, depth + 1);
      if (r.size() != outs.size()) throw Failure{"the callee of " + op.name + " returns " + std::to_string(r.size()) +
                                                     " values for " + std::to_string(outs.size()) + " results", op.loc};
      return r;
    }
    // An upstream linalg op (generic or named): its indexing maps and its
    // scalar body say which operand elements each result element reads.
    if (!spec && op.num_inputs >= 0 && !op.maps.empty()) return structured(op, ins);
    if (!spec && op.kind == Op::Kind::Add && op.operands.size() == 2 && op.results.size() == 1)
      return {sum_of(op, ins)};
    if (!spec && op.window && op.window->insert && op.operands.size() >= 2 && op.results.size() == 1)
      return {inserted(op, ins)};
    if (!spec)
      throw Failure{"'" + op.name + "' reads a value computed from the weight gradient, and no dialect table gives "
                    "its dependence semantics", op.loc};
    if (outs.size() != 1) throw Failure{op.name + " has " + std::to_string(outs.size()) + " results (one modelled)", op.loc};
    ValueDep& out = outs[0];
    out.pure = pure;
    const int res = op.results[0];
    static_shape(op, res);
    for (int v : op.operands) static_shape(op, v);
    const auto& rs = shape(res);
    const unsigned R = static_cast<unsigned>(rs.size());
    switch (spec->role) {
      case OpRole::Elementwise: {
        for (size_t i = 0; i < ins.size(); ++i) {
          // A rank-0 operand (select's predicate, clamp's bounds) is read by
          // every element of the result.
          const bool scalar = shape(op.operands[i]).empty() && !rs.empty();
          if (shape(op.operands[i]) != rs && !scalar)
            throw Failure{op.name + ": operand " + std::to_string(i) + " (" + m_.values[op.operands[i]].type.text +
                              ") and result (" + m_.values[res].type.text + ") differ in shape",
                          op.loc};
          for (const auto& r : ins[i].reads) add_read(out, scalar ? remap(r, 0, {}, R, {}) : r, op);
        }
        note_elementwise(op, ins, sums(spec->computes));
        return outs;
      }
      case OpRole::Broadcast: {
        const Attr& dims = need_ints(op, "broadcast_dimensions");
        const auto& os = shape(op.operands[0]);
        if (dims.ints.size() != os.size())
          throw Failure{op.name + ": broadcast_dimensions names " + std::to_string(dims.ints.size()) +
                            " dimensions for an operand of rank " + std::to_string(os.size()), op.loc};
        std::vector<AffineExpr> coord;
        for (size_t k = 0; k < os.size(); ++k) {
          const int64_t d = dims.ints[k];
          if (d < 0 || d >= static_cast<int64_t>(R))
            throw Failure{op.name + ": broadcast dimension " + std::to_string(d) + " is outside the result", op.loc};
          if (os[k] == rs[d]) coord.push_back(AffineExpr::dim(d));
          else if (os[k] == 1) coord.push_back(AffineExpr::cst(0));
          else throw Failure{op.name + ": operand dimension " + std::to_string(k) + " (" + std::to_string(os[k]) +
                                 ") neither equals result dimension " + std::to_string(d) + " nor is 1", op.loc};
        }
        for (const auto& r : ins[0].reads) add_read(out, remap(r, os.size(), coord, R, {}), op);
        return outs;
      }
      case OpRole::Transpose: {
        const Attr& perm = need_ints(op, "permutation");
        const auto& os = shape(op.operands[0]);
        std::vector<int64_t> sorted = perm.ints;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 0; i < sorted.size(); ++i)
          if (sorted[i] != static_cast<int64_t>(i) || perm.ints.size() != os.size() || os.size() != R)
            throw Failure{op.name + ": permutation is not a permutation of the operand's dimensions", op.loc};
        // result dim d is operand dim perm[d].
        std::vector<AffineExpr> coord(os.size(), AffineExpr::cst(0));
        for (size_t d = 0; d < perm.ints.size(); ++d) {
          if (rs[d] != os[perm.ints[d]]) throw Failure{op.name + ": result shape is not the permuted operand's", op.loc};
          coord[perm.ints[d]] = AffineExpr::dim(static_cast<int64_t>(d));
        }
        for (const auto& r : ins[0].reads) add_read(out, remap(r, os.size(), coord, R, {}), op);
        return outs;
      }
      case OpRole::Reshape: {
        const auto& os = shape(op.operands[0]);
        int64_t n_in = 1, n_out = 1;
        for (auto x : os) n_in *= x;
        for (auto x : rs) n_out *= x;
        if (n_in != n_out) throw Failure{op.name + ": operand and result hold different numbers of elements", op.loc};
        // Row-major linear index of the result, split into operand coordinates.
        AffineExpr lin = AffineExpr::cst(0);
        for (unsigned d = 0; d < R; ++d)
          lin = d == 0 ? AffineExpr::dim(0)
                       : AffineExpr::bin(K::Add, AffineExpr::bin(K::Mul, lin, AffineExpr::cst(rs[d])), AffineExpr::dim(d));
        std::vector<AffineExpr> coord;
        int64_t stride = n_in;
        for (size_t k = 0; k < os.size(); ++k) {
          stride /= os[k];
          if (os[k] == 1) { coord.push_back(AffineExpr::cst(0)); continue; }
          AffineExpr e = stride == 1 ? lin : AffineExpr::bin(K::FloorDiv, lin, AffineExpr::cst(stride));
          if (k > 0) e = AffineExpr::bin(K::Mod, e, AffineExpr::cst(os[k]));
          coord.push_back(e);
        }
        // A reshape that only adds or drops unit dimensions keeps plain dims.
        std::vector<int64_t> a, b;
        for (auto x : os) if (x != 1) a.push_back(x);
        for (auto x : rs) if (x != 1) b.push_back(x);
        if (a == b) {
          coord.clear();
          unsigned d = 0;
          for (size_t k = 0; k < os.size(); ++k) {
            if (os[k] == 1) { coord.push_back(AffineExpr::cst(0)); continue; }
            while (d < R && rs[d] == 1) ++d;
            coord.push_back(AffineExpr::dim(d++));
          }
        }
        for (const auto& r : ins[0].reads) add_read(out, remap(r, os.size(), coord, R, {}), op);
        return outs;
      }
      case OpRole::Reduce: return {reduce(op, ins, out, R)};
      case OpRole::Contraction: return {contract(op, ins, out, R)};
      default:
        throw Failure{op.name + " (role " + to_string(spec->role) + ") reads a value computed from the weight "
                      "gradient, and its dependence is not modelled", op.loc};
    }
  }

  /// A linalg op with a reduction loop (linalg.generic with a "reduction"
  /// iterator, linalg.matmul, ...): what it computes crosses a reduction.
  static bool reduces_loops(const Op& op) {
    return op.num_inputs >= 0 && std::count(op.iterators.begin(), op.iterators.end(), "reduction") > 0;
  }

  static ValueDep merged(const std::vector<const ValueDep*>& ins, const Op& op) {
    ValueDep out;
    for (const ValueDep* in : ins) {
      out.pure = out.pure && in->pure;
      for (const auto& r : in->reads) add_read(out, r, op);
      for (const auto& [c, reduced] : in->contractions) {
        auto it = out.contractions.find(c);
        if (it == out.contractions.end()) out.contractions[c] = reduced;
        else it->second = it->second && reduced;
      }
    }
    return out;
  }

  /// tensor.insert_slice (its typed Window): the result is operand 1 (the
  /// destination) with operand 0 (the source) written into a window of it.
  /// Modelled only where the window takes every dimension the source keeps
  /// whole (offset 0, stride 1, the destination's size) and drops the
  /// others at any offset (one matrix of a stack at a runtime index): the
  /// result element at (d0 .. d_{R-1}) then reads the source at its kept
  /// dimensions, or the destination at its own coordinates. Both reads are
  /// kept (which one an element takes depends on the offset), so the reads
  /// over-approximate; any other window is not modelled (inconclusive).
  ValueDep inserted(const Op& op, const std::vector<ValueDep>& ins) {
    const Window& w = *op.window;
    const int src = op.operands[0], dst = op.operands[1], res = op.results[0];
    for (int v : {src, dst, res}) static_shape(op, v);
    const auto& ds = shape(dst);
    const unsigned R = static_cast<unsigned>(ds.size());
    if (shape(res) != ds || w.offsets.size() != R || w.sizes.size() != R || w.strides.size() != R ||
        w.dropped.size() != R)
      throw Failure{op.name + ": its window does not fit its destination " + m_.values[dst].type.text, op.loc};
    std::vector<AffineExpr> coord;
    for (unsigned k = 0; k < R; ++k) {
      if (w.dropped[k]) continue;
      if (w.offsets[k] != 0 || w.strides[k] != 1 || w.sizes[k] != ds[k])
        throw Failure{op.name + " writes a window that does not take dimension " + std::to_string(k) + " of " +
                          m_.values[dst].type.text + " whole; its dependence is not modelled",
                      op.loc};
      coord.push_back(AffineExpr::dim(k));
    }
    if (coord.size() != shape(src).size())
      throw Failure{op.name + ": its source " + m_.values[src].type.text + " does not fit the window", op.loc};
    ValueDep from_src;
    from_src.pure = ins[0].pure;
    from_src.contractions = ins[0].contractions;
    for (const auto& r : ins[0].reads) add_read(from_src, remap(r, coord.size(), coord, R, {}), op);
    std::vector<const ValueDep*> parts{&from_src, &ins[1]};
    for (size_t k = 2; k < ins.size(); ++k) parts.push_back(&ins[k]);  // the dynamic offsets
    return merged(parts, op);
  }

  /// arith.addf / arith.subf on tensors of one shape.
  ValueDep sum_of(const Op& op, const std::vector<ValueDep>& ins) {
    const int res = op.results[0];
    static_shape(op, res);
    for (int v : op.operands)
      if (static_shape(op, v), shape(v) != shape(res))
        throw Failure{op.name + ": operand and result differ in shape", op.loc};
    note_elementwise(op, ins, true);
    return merged({&ins[0], &ins[1]}, op);
  }

  /// A linalg op (generic or named) reading the gradient. Each block
  /// argument reads its operand at the operand's indexing map, so its reads
  /// are re-expressed over the loop dimensions; the scalar body combines
  /// them element-wise (a named op without a body: every result reads every
  /// operand); a result reads at its own map, and the loops its map omits
  /// (the reduction loops) become the read's extra dimensions: a reduction
  /// across those elements, exact only for a max / min combiner of the
  /// result's own accumulator.
  std::vector<ValueDep> structured(const Op& op, const std::vector<ValueDep>& ins) {
    const unsigned n = static_cast<unsigned>(op.iterators.size());
    if (op.maps.size() != op.operands.size() || static_cast<size_t>(op.num_inputs) > op.operands.size() ||
        op.operands.size() - op.num_inputs != op.results.size())
      throw Failure{op.name + ": its indexing maps, operands and results do not match", op.loc};
    std::vector<int64_t> extent(n, -1);
    for (size_t k = 0; k < op.operands.size(); ++k) {
      const Type& t = m_.values[op.operands[k]].type;
      if (t.kind == Type::Kind::Scalar) continue;
      static_shape(op, op.operands[k]);
      if (op.maps[k].num_dims != n || op.maps[k].results.size() != t.shape.size())
        throw Failure{op.name + ": indexing map " + op.maps[k].text + " does not fit operand " + t.text, op.loc};
      for (size_t r = 0; r < t.shape.size(); ++r)
        if (op.maps[k].results[r].kind == K::Dim) extent[op.maps[k].results[r].value] = t.shape[r];
    }
    for (unsigned d = 0; d < n; ++d)
      if (extent[d] < 0) throw Failure{op.name + ": the extent of loop d" + std::to_string(d) + " is not known", op.loc};
    std::vector<ValueDep> arg(op.operands.size());
    for (size_t k = 0; k < op.operands.size(); ++k) {
      arg[k].pure = ins[k].pure;
      arg[k].contractions = ins[k].contractions;
      const size_t rank = m_.values[op.operands[k]].type.kind == Type::Kind::Scalar ? 0 : shape(op.operands[k]).size();
      for (const auto& r : ins[k].reads)
        add_read(arg[k], remap(r, rank, rank ? op.maps[k].results : std::vector<AffineExpr>{}, n, {}), op);
    }
    // The value each result yields, over the loop dimensions.
    std::vector<ValueDep> yielded;
    std::vector<int> combiner(op.results.size(), -1);  // the yield's body node
    if (op.body) {
      const Body& b = *op.body;
      std::vector<ValueDep> node(b.nodes.size());
      for (size_t i = 0; i < b.nodes.size(); ++i) {
        const BodyNode& bn = b.nodes[i];
        if (bn.kind == BodyNode::Kind::Arg) {
          if (bn.arg < 0 || static_cast<size_t>(bn.arg) >= arg.size())
            throw Failure{op.name + ": its body reads a block argument it has no operand for", op.loc};
          node[i] = arg[bn.arg];
          continue;
        }
        if (bn.kind == BodyNode::Kind::Const) continue;
        // A scalar op: each operand at the same loop point. An operand from
        // outside the body is not the gradient (run() refuses a region op
        // reading a gradient-derived value), but not known to be constant.
        ValueDep outside;
        outside.pure = false;
        std::vector<const ValueDep*> from;
        std::vector<ValueDep> copies;
        for (int o : bn.operands) copies.push_back(o >= 0 && static_cast<size_t>(o) < i ? node[o] : outside);
        for (const auto& c : copies) from.push_back(&c);
        note_elementwise(op, copies, body_sums(bn));
        node[i] = merged(from, op);
      }
      if (b.yields.size() != op.results.size())
        throw Failure{op.name + ": its body yields " + std::to_string(b.yields.size()) + " values for " +
                          std::to_string(op.results.size()) + " results", op.loc};
      for (size_t k = 0; k < b.yields.size(); ++k) {
        if (b.yields[k] < 0) throw Failure{op.name + ": its body yields a value defined outside it", op.loc};
        yielded.push_back(node[b.yields[k]]);
        combiner[k] = b.yields[k];
      }
    } else {
      std::vector<const ValueDep*> from;
      for (const auto& a : arg) from.push_back(&a);
      note_elementwise(op, arg, op.kind == Op::Kind::Add);
      yielded.assign(op.results.size(), merged(from, op));
    }
    std::vector<ValueDep> outs(op.results.size());
    bool recorded = false;
    for (size_t k = 0; k < op.results.size(); ++k) {
      const int res = op.results[k];
      static_shape(op, res);
      const AffineMap& om = op.maps[op.num_inputs + k];
      const unsigned R = static_cast<unsigned>(shape(res).size());
      std::vector<AffineExpr> coord(n, AffineExpr::cst(0));
      std::vector<bool> kept(n, false);
      if (om.results.size() != R) throw Failure{op.name + ": result " + std::to_string(k) + "'s map does not fit it", op.loc};
      for (unsigned p = 0; p < R; ++p) {
        const AffineExpr& e = om.results[p];
        if (e.kind != K::Dim || kept[e.value])
          throw Failure{op.name + ": result " + std::to_string(k) + "'s indexing map " + om.text +
                            " is not a projected permutation", op.loc};
        kept[e.value] = true;
        coord[e.value] = AffineExpr::dim(p);
      }
      std::vector<int64_t> extra;
      for (unsigned d = 0; d < n; ++d)
        if (!kept[d]) {
          coord[d] = AffineExpr::dim(static_cast<int64_t>(R + extra.size()));
          extra.push_back(extent[d]);
        }
      const ValueDep& y = yielded[k];
      outs[k].pure = y.pure;
      for (const auto& r : y.reads) {
        GradRead g = remap(r, n, coord, R, extra);
        if (!extra.empty()) g.via.push_back(op.id);
        add_read(outs[k], g, op);
      }
      if (!extra.empty() && !y.reads.empty() && !recorded) {
        Reduction red;
        red.op = op.id;
        // Exact only when the result is max / min of its own accumulator and
        // the value (every partial combines the same in any order).
        const int acc = op.num_inputs + static_cast<int>(k);
        red.exact = op.body && combiner[k] >= 0 && body_exact(op.body->nodes[combiner[k]]) &&
                    std::any_of(op.body->nodes[combiner[k]].operands.begin(), op.body->nodes[combiner[k]].operands.end(),
                                [&](int o) { return o >= 0 && op.body->nodes[o].kind == BodyNode::Kind::Arg &&
                                                    op.body->nodes[o].arg == acc; });
        red.full = R == 0;
        red.pure_input = y.pure;
        if (op.body && combiner[k] >= 0) red.fn = op.body->nodes[combiner[k]].fn;
        red.result_reads = outs[k].reads;
        d_.reductions.push_back(red);
        recorded = true;
      }
    }
    return outs;
  }

  /// What an element-wise combination of `ins` at `op` shows: a norm of the
  /// gradient read beside the local gradient scales it (P2); a sum (`sums`)
  /// of the local gradient and a value computed element-wise from a second
  /// contraction is a second producer (P1).
  void note_elementwise(const Op& op, const std::vector<ValueDep>& ins, bool sums) {
    // A norm of the gradient read beside the local gradient scales it. A
    // norm sums (a reduce adding, or a contraction summing products); a
    // product of the gradient's elements is no norm: a reduction across
    // tiles, P9's.
    bool local = false;
    for (const auto& in : ins) local = local || in.local();
    if (local)
      for (const auto& in : ins)
        for (const auto& r : in.reads)
          for (int v : r.via)
            for (auto& red : d_.reductions)
              if (red.op == v && red.full && !red.exact && (red.fn == ScalarFn::Unknown || ir::sums(red.fn)) &&
                  red.pure_input && red.scales < 0)
                red.scales = op.id;
    // The contractions (not the producer) the scaling factor is computed
    // from through a reduction: other layers' gradients in a global norm.
    if (local)
      for (const auto& in : ins) {
        const bool via_norm = std::any_of(in.reads.begin(), in.reads.end(), [&](const GradRead& r) {
          return std::any_of(r.via.begin(), r.via.end(), [&](int v) {
            return std::any_of(d_.reductions.begin(), d_.reductions.end(),
                               [&](const Reduction& red) { return red.op == v && red.scales == op.id; });
          });
        });
        if (!via_norm) continue;
        for (const auto& [c, reduced] : in.contractions)
          if (reduced && c != d_.producer &&
              std::find(d_.norm_contractions.begin(), d_.norm_contractions.end(), c) == d_.norm_contractions.end())
            d_.norm_contractions.push_back(c);
      }
    // A second contraction summed into the gradient: one operand reads the
    // gradient element-wise (no reduction on the way), another is computed
    // element-wise from a contraction without reading the gradient (through
    // constants, arguments, layout or dtype changes). A contraction over
    // other token slices of the producer's X and dY is a split of its K
    // (split_partner), any other a second producer.
    if (sums) {
      bool g_side = false;
      std::vector<int> others;
      for (const auto& in : ins) {
        if (!in.reads.empty() &&
            std::all_of(in.reads.begin(), in.reads.end(), [](const GradRead& r) { return r.via.empty(); }))
          g_side = true;
        else if (in.reads.empty())
          for (const auto& [c, reduced] : in.contractions)
            if (!reduced && c != d_.producer) others.push_back(c);
      }
      for (int c : g_side ? others : std::vector<int>{}) {
        if (std::find(d_.split_partners.begin(), d_.split_partners.end(), c) != d_.split_partners.end()) continue;
        // A partition of K: apart from the producer's tokens and from every
        // partner's so far.
        const bool apart = d_.producer >= 0 && split_partner(m_, d_.producer, c) &&
                           std::all_of(d_.split_partners.begin(), d_.split_partners.end(),
                                       [&](int p) { return split_partner(m_, p, c); });
        if (apart) {
          d_.split_partners.push_back(c);
          if (d_.split_at < 0) d_.split_at = op.id;
        } else if (d_.tied_at < 0) {
          d_.tied_at = op.id;
          d_.tied_with = c;
          std::vector<int> counted{d_.producer};
          counted.insert(counted.end(), d_.split_partners.begin(), d_.split_partners.end());
          for (int p : d_.producer >= 0 ? counted : std::vector<int>{}) {
            if (same_operands(m_, p, c)) {
              d_.tied_operands = Dag::Tied::Same;
            } else if (auto w = overlapping_windows(m_, p, c)) {
              d_.tied_operands = Dag::Tied::Overlapping;
              d_.of_window = w->first;
              d_.tied_window = w->second;
            } else {
              continue;
            }
            d_.tied_of = p;
            break;
          }
          if (d_.tied_operands == Dag::Tied::Other) d_.tied_unseen = shared_helper(m_, m_.ops[c]);
          if (d_.tied_unseen >= 0) d_.tied_operands = Dag::Tied::Unseen;
        }
      }
    }
  }

  ValueDep reduce(const Op& op, const std::vector<ValueDep>& ins, ValueDep& out, unsigned R) {
    if (op.operands.size() != 2)
      throw Failure{op.name + " with " + std::to_string(op.operands.size()) + " operands (one input and one init "
                    "are modelled)", op.loc};
    if (!ins[1].reads.empty()) throw Failure{op.name + ": its init value depends on the weight gradient", op.loc};
    // The body: one elementwise op of a table with a reduction kind, applied
    // to the region's two arguments, then a return of its result.
    std::vector<const Op*> body;
    for (const Op& o : m_.ops)
      if (o.parent == op.id) body.push_back(&o);
    const OpSpec* comb = body.size() == 2 ? tables_.find(body[0]->name) : nullptr;
    const OpSpec* ret = body.size() == 2 ? tables_.find(body[1]->name) : nullptr;
    bool ok = comb && ret && comb->role == OpRole::Elementwise && is_reduction(comb->computes) &&
              ret->role == OpRole::Return && body[0]->operands.size() == 2 && body[0]->results.size() == 1 &&
              body[1]->operands.size() == 1 && body[1]->operands[0] == body[0]->results[0];
    for (int v : ok ? body[0]->operands : std::vector<int>{})
      ok = ok && m_.values[v].def_op < 0 &&
           std::find(m_.funcs[op.func].args.begin(), m_.funcs[op.func].args.end(), v) == m_.funcs[op.func].args.end();
    if (ok && body[0]->operands[0] == body[0]->operands[1]) ok = false;
    if (!ok)
      throw Failure{op.name + ": its body is not one element-wise reduction of its two arguments followed by a "
                    "return, which is all fusecert models", op.loc};
    const Attr& dims = need_ints(op, "dimensions");
    const auto& is = shape(op.operands[0]);
    std::vector<bool> reduced(is.size(), false);
    for (auto d : dims.ints) {
      if (d < 0 || d >= static_cast<int64_t>(is.size()) || reduced[d])
        throw Failure{op.name + ": dimension " + std::to_string(d) + " is outside its input or given twice", op.loc};
      reduced[d] = true;
    }
    std::vector<AffineExpr> coord;
    std::vector<int64_t> extra, kept;
    unsigned next = 0;
    for (size_t k = 0; k < is.size(); ++k) {
      if (reduced[k]) {
        coord.push_back(AffineExpr::dim(static_cast<int64_t>(R + extra.size())));
        extra.push_back(is[k]);
      } else {
        coord.push_back(AffineExpr::dim(next++));
        kept.push_back(is[k]);
      }
    }
    if (kept != shape(op.results[0])) throw Failure{op.name + ": result shape is not its input's kept dimensions", op.loc};
    Reduction red;
    red.op = op.id;
    red.exact = exact_reduction(comb->computes);
    red.full = kept.empty();
    red.pure_input = ins[0].pure;
    red.fn = comb->computes;
    for (const auto& r : ins[0].reads) {
      GradRead g = remap(r, is.size(), coord, R, extra);
      g.via.push_back(op.id);
      add_read(out, g, op);
    }
    red.result_reads = out.reads;
    d_.reductions.push_back(red);
    out.pure = ins[0].pure && ins[1].pure;
    return out;
  }

  ValueDep contract(const Op& op, const std::vector<ValueDep>& ins, ValueDep& out, unsigned R) {
    std::string why;
    const Attr* a = op.attr("dot_dimension_numbers");
    std::optional<DotDimensions> dd = a ? parse_dot_dimensions(*a, why) : std::nullopt;
    if (!dd || op.operands.size() != 2)
      throw Failure{op.name + ": its dimension numbers cannot be read" + (why.empty() ? "" : " (" + why + ")"), op.loc};
    const Type& lt = m_.values[op.operands[0]].type;
    const Type& rt = m_.values[op.operands[1]].type;
    if (auto p = dot_dimensions_problem(*dd, lt, rt, m_.values[op.results[0]].type); !p.empty())
      throw Failure{op.name + ": " + p, op.loc};
    std::vector<int64_t> extra;
    for (auto c : dd->lhs_contracting) extra.push_back(lt.shape[c]);
    unsigned next = static_cast<unsigned>(dd->lhs_batching.size());
    auto side = [&](int s, const std::vector<int64_t>& batch, const std::vector<int64_t>& contr, const Type& t) {
      std::vector<AffineExpr> coord(t.shape.size(), AffineExpr::cst(0));
      for (size_t k = 0; k < batch.size(); ++k) coord[batch[k]] = AffineExpr::dim(static_cast<int64_t>(k));
      for (size_t k = 0; k < contr.size(); ++k) coord[contr[k]] = AffineExpr::dim(static_cast<int64_t>(R + k));
      for (size_t i = 0; i < t.shape.size(); ++i)
        if (std::find(batch.begin(), batch.end(), static_cast<int64_t>(i)) == batch.end() &&
            std::find(contr.begin(), contr.end(), static_cast<int64_t>(i)) == contr.end())
          coord[i] = AffineExpr::dim(next++);
      for (const auto& r : ins[s].reads) {
        GradRead g = remap(r, t.shape.size(), coord, R, extra);
        g.via.push_back(op.id);
        add_read(out, g, op);
      }
    };
    side(0, dd->lhs_batching, dd->lhs_contracting, lt);
    side(1, dd->rhs_batching, dd->rhs_contracting, rt);
    Reduction red;
    red.op = op.id;
    // Every dimension of both operands contracted (no batch, no free
    // dimension: a scalar), like a reduce over every dimension: g·g is the
    // squared norm written as a dot (docs/ir-checking.md, P2).
    red.full = R == 0;
    red.pure_input = ins[0].pure && ins[1].pure;
    red.result_reads = out.reads;
    d_.reductions.push_back(red);
    return out;
  }
};

}  // namespace

bool depends_on(const Module& m, int value, int source) {
  std::vector<int> work{value};
  std::set<int> seen;
  while (!work.empty()) {
    const int v = work.back();
    work.pop_back();
    if (v == source) return true;
    if (v < 0 || !seen.insert(v).second) continue;
    const int def = m.values[v].def_op;
    if (def >= 0)
      for (int o : m.ops[def].operands) work.push_back(o);
  }
  return false;
}

int through_one_call(const Module& m, int v) {
  // Each step moves to a caller's operand; a chain longer than the number of
  // functions is a cycle (recursion), where the argument stays itself.
  for (size_t step = 0; step <= m.funcs.size(); ++step) {
    if (v < 0 || v >= static_cast<int>(m.values.size()) || m.values[v].def_op >= 0 || m.values[v].arg_no < 0) return v;
    int func = -1;
    for (size_t f = 0; f < m.funcs.size() && func < 0; ++f)
      if (std::find(m.funcs[f].args.begin(), m.funcs[f].args.end(), v) != m.funcs[f].args.end())
        func = static_cast<int>(f);
    if (func < 0) return v;  // a region's argument (a reduce body's), not a function's
    int call = -1, calls = 0;
    for (const Op& op : m.ops)
      if (op.callee == func) {
        call = op.id;
        ++calls;
      }
    const int arg = m.values[v].arg_no;
    if (calls != 1 || static_cast<size_t>(arg) >= m.ops[call].operands.size()) return v;
    v = m.ops[call].operands[arg];
  }
  return v;
}

namespace {
/// The function whose top-level return is `v`'s one use, with its call
/// sites: (function, number of calls, the one call when there is one).
std::tuple<int, int, int> returned_by(const Module& m, int v, int* result_no) {
  if (v < 0 || v >= static_cast<int>(m.values.size())) return {-1, 0, -1};
  const auto& u = m.values[v].uses;
  if (u.size() != 1) return {-1, 0, -1};
  const Op& r = m.ops[u[0].first];
  if (!r.is_return || r.parent >= 0 || r.func < 0) return {-1, 0, -1};
  int call = -1, calls = 0;
  for (const Op& op : m.ops)
    if (op.callee == r.func) {
      call = op.id;
      ++calls;
    }
  *result_no = u[0].second;
  return {r.func, calls, call};
}

/// `v`, or, when a call op defines it, the value its callee returns in its
/// place (repeatedly).
int through_call_result(const Module& m, int v) {
  for (size_t step = 0; step <= m.funcs.size(); ++step) {
    if (v < 0 || v >= static_cast<int>(m.values.size()) || m.values[v].def_op < 0) return v;
    const Op& call = m.ops[m.values[v].def_op];
    if (call.callee < 0) return v;
    const int k = static_cast<int>(std::find(call.results.begin(), call.results.end(), v) - call.results.begin());
    int ret = -1;
    for (int id : m.funcs[call.callee].ops)
      if (m.ops[id].is_return && m.ops[id].parent < 0) ret = id;
    if (ret < 0 || k >= static_cast<int>(m.ops[ret].operands.size())) return v;
    v = m.ops[ret].operands[k];
  }
  return v;
}
}  // namespace

int returned_to_caller(const Module& m, int v) {
  int k = -1;
  const auto [f, calls, call] = returned_by(m, v, &k);
  if (f < 0 || calls != 1 || k < 0 || k >= static_cast<int>(m.ops[call].results.size())) return -1;
  return m.ops[call].results[k];
}

int returned_to_several(const Module& m, int v) {
  int k = -1;
  const auto [f, calls, call] = returned_by(m, v, &k);
  (void)call;
  return f >= 0 && calls >= 2 ? f : -1;
}

int shared_helper(const Module& m, const Op& op) {
  auto calls = [&](int v) {
    int n = 0;
    for (size_t f = 0; f < m.funcs.size(); ++f)
      if (std::find(m.funcs[f].args.begin(), m.funcs[f].args.end(), v) != m.funcs[f].args.end()) {
        for (const Op& o : m.ops) n += o.callee == static_cast<int>(f);
        if (n >= 2) return static_cast<int>(f);
      }
    return -1;
  };
  for (int o : op.operands) {
    const int v = through_one_call(m, o);
    const std::optional<AxisWindow> w = axis_window(m, v);
    for (int u : {v, w ? w->base : -1})
      if (u >= 0 && m.values[u].def_op < 0)
        if (const int f = calls(u); f >= 0) return f;
  }
  return -1;
}

namespace {

/// axis_window of an upstream slice op (tensor.extract_slice,
/// memref.subview; its typed Window): result[i] = operand[offset + i *
/// stride] along the one dimension it does not take whole, every size and
/// stride static, no dimension dropped.
std::optional<AxisWindow> linalg_window(const Module& m, const Op& op, int v) {
  const Window& win = *op.window;
  const auto& in = m.values[op.operands[0]].type.shape;
  const auto& out = m.values[v].type.shape;
  const size_t r = in.size();
  if (out.size() != r || win.offsets.size() != r || win.sizes.size() != r || win.strides.size() != r ||
      std::any_of(in.begin(), in.end(), [](int64_t x) { return x < 0; }) ||
      std::any_of(win.dropped.begin(), win.dropped.end(), [](bool d) { return d; }))
    return std::nullopt;
  AxisWindow w;
  w.base = op.operands[0];
  for (size_t k = 0; k < r; ++k) {
    const int64_t off = win.offsets[k], n = win.sizes[k], st = win.strides[k];
    if (n < 0 || st < 1 || n != out[k]) return std::nullopt;
    if (off == 0 && n == in[k] && st == 1) continue;  // this dimension whole
    if (w.axis >= 0) return std::nullopt;             // sliced along two axes
    w.axis = static_cast<int>(k);
    if (off >= 0) {
      if (n == 0 || off + (n - 1) * st >= in[k]) return std::nullopt;
      w.known = true;
      w.start = off;
      w.limit = off + (n - 1) * st + 1;
      w.stride = st;
    } else {
      if (st != 1 || win.offset_values[k] < 0) return std::nullopt;
      w.start_value = win.offset_values[k];
      w.size = n;
    }
  }
  return w.axis >= 0 ? std::optional<AxisWindow>(w) : std::nullopt;
}

/// The contracting axis of each input of a linalg contraction (named, or a
/// generic of two inputs and one result): its one reduction loop, read by
/// one dimension of each input; none when a parallel loop indexes both
/// inputs (a batch: one product per group, not a split of one K).
std::optional<std::pair<int, int>> linalg_contracting_axes(const Op& op) {
  if ((op.kind != Op::Kind::Matmul && op.kind != Op::Kind::MatmulTransposeA && op.kind != Op::Kind::Generic) ||
      op.num_inputs != 2 || op.maps.size() != 3 || op.results.size() != 1)
    return std::nullopt;
  int red = -1;
  for (size_t d = 0; d < op.iterators.size(); ++d)
    if (op.iterators[d] == "reduction") {
      if (red >= 0) return std::nullopt;
      red = static_cast<int>(d);
    }
  if (red < 0) return std::nullopt;
  auto axis_of = [&](const AffineMap& map, int64_t d) {
    int at = -1;
    for (size_t k = 0; k < map.results.size(); ++k) {
      std::vector<int64_t> ds;
      map.results[k].dims(ds);
      if (std::find(ds.begin(), ds.end(), d) == ds.end()) continue;
      if (at >= 0 || map.results[k].kind != AffineExpr::Kind::Dim) return -2;
      at = static_cast<int>(k);
    }
    return at;
  };
  for (size_t d = 0; d < op.iterators.size(); ++d)
    if (op.iterators[d] == "parallel" && axis_of(op.maps[0], d) != -1 && axis_of(op.maps[1], d) != -1)
      return std::nullopt;
  const int l = axis_of(op.maps[0], red), r = axis_of(op.maps[1], red);
  if (l < 0 || r < 0) return std::nullopt;
  return std::make_pair(l, r);
}

}  // namespace

std::optional<AxisWindow> axis_window(const Module& m, int v) {
  v = through_one_call(m, v);
  if (v < 0 || v >= static_cast<int>(m.values.size()) || m.values[v].def_op < 0) return std::nullopt;
  const Op& op = m.ops[m.values[v].def_op];
  if (op.window && !op.window->insert && !op.operands.empty()) return linalg_window(m, op, v);
  const OpSpec* s = dialects().find(op.name);
  if (!s || (s->role != OpRole::Slice && s->role != OpRole::DynamicSlice) || op.operands.empty()) return std::nullopt;
  const auto& in = m.values[op.operands[0]].type.shape;
  const auto& out = m.values[v].type.shape;
  const size_t r = in.size();
  if (out.size() != r || std::any_of(in.begin(), in.end(), [](int64_t x) { return x < 0; })) return std::nullopt;
  AxisWindow w;
  w.base = through_one_call(m, op.operands[0]);
  auto ints = [&](const char* key) -> const std::vector<int64_t>* {
    const Attr* a = op.attr(key);
    return a && a->kind == Attr::Kind::Ints && a->ints.size() == r ? &a->ints : nullptr;
  };
  if (s->role == OpRole::Slice) {
    // result[i] = operand[start + i * stride], extent ceil((limit - start) / stride).
    const auto *start = ints("start_indices"), *limit = ints("limit_indices"), *stride = ints("strides");
    if (!start || !limit || !stride) return std::nullopt;
    for (size_t k = 0; k < r; ++k) {
      const int64_t a = (*start)[k], b = (*limit)[k], st = (*stride)[k];
      if (a < 0 || a > b || b > in[k] || st < 1 || out[k] != (b - a + st - 1) / st) return std::nullopt;
      if (a == 0 && b == in[k] && st == 1) continue;  // this dimension whole
      if (w.axis >= 0) return std::nullopt;             // sliced along two axes
      w.axis = static_cast<int>(k);
      w.known = true;
      w.start = a;
      w.limit = b;
      w.stride = st;
    }
    return w.axis >= 0 ? std::optional<AxisWindow>(w) : std::nullopt;
  }
  // dynamic_slice(operand, start_0 .. start_{r-1}): result[i] = operand[s + i],
  // s_k = clamp(start_k, 0, extent_k - slice_sizes[k]).
  const auto* sizes = ints("slice_sizes");
  if (!sizes || op.operands.size() != r + 1) return std::nullopt;
  for (size_t k = 0; k < r; ++k) {
    const int64_t n = (*sizes)[k];
    if (n < 0 || n > in[k] || out[k] != n) return std::nullopt;
    if (n == in[k]) continue;  // whole: the clamp makes its start 0
    if (w.axis >= 0) return std::nullopt;
    w.axis = static_cast<int>(k);
    w.size = n;
    const int sv = through_one_call(m, op.operands[k + 1]);
    const int def = m.values[sv].def_op;
    const Attr* c = def >= 0 && dialects().find(m.ops[def].name) &&
                            dialects().find(m.ops[def].name)->role == OpRole::Constant
                        ? m.ops[def].attr("value")
                        : nullptr;
    const Type& st = m.values[sv].type;
    const bool int_scalar = st.shape.empty() && !st.elem.empty() && (st.elem[0] == 'i' || st.elem[0] == 'u') &&
                            st.elem != "index";
    if (c && c->kind == Attr::Kind::Elements && c->splat && int_scalar) {
      w.known = true;
      w.start = std::clamp(static_cast<int64_t>(c->num), int64_t{0}, in[k] - n);
      w.limit = w.start + n;
      w.stride = 1;
    } else {
      w.start_value = sv;
    }
  }
  return w.axis >= 0 ? std::optional<AxisWindow>(w) : std::nullopt;
}

namespace {

/// One contraction's two token windows (X's and dY's, along each one's
/// contracting axis), when it is one contraction over a window of the
/// same tokens on both sides.
struct TokenSides {
  AxisWindow lhs, rhs;
};

std::optional<TokenSides> token_sides(const Module& m, int id) {
  const Op& op = m.ops[id];
  const OpSpec* s = dialects().find(op.name);
  const Attr* a = op.attr("dot_dimension_numbers");
  std::string why;
  std::optional<DotDimensions> dd = s && s->role == OpRole::Contraction && a ? parse_dot_dimensions(*a, why)
                                                                            : std::nullopt;
  // The contracting axis of each side: the dimension numbers (a table
  // contraction), or the reduction loop of a linalg contraction.
  // Several contracting dimensions (JAX's x[B, S, H]: [0, 1] x [0, 1]) are
  // one token axis; a window on one of them, the same position on both
  // sides, is a window of the tokens.
  int la = -1, ra = -1;
  std::optional<AxisWindow> l = axis_window(m, op.operands[0]), r = axis_window(m, op.operands[1]);
  if (!l || !r) return std::nullopt;
  if (dd) {
    if (op.operands.size() != 2 || !dd->lhs_batching.empty() || !dd->rhs_batching.empty() ||
        dd->lhs_contracting.empty() || dd->lhs_contracting.size() != dd->rhs_contracting.size())
      return std::nullopt;
    for (size_t i = 0; i < dd->lhs_contracting.size(); ++i)
      if (dd->lhs_contracting[i] == l->axis && dd->rhs_contracting[i] == r->axis) {
        la = l->axis;
        ra = r->axis;
      }
  } else if (!s) {
    const auto axes = linalg_contracting_axes(op);
    if (!axes) return std::nullopt;
    std::tie(la, ra) = *axes;
  } else {
    return std::nullopt;
  }
  if (l->axis != la || r->axis != ra) return std::nullopt;
  // The same tokens on both sides: X's rows and dY's rows of one window.
  AxisWindow lw = *l, rw = *r;
  lw.base = rw.base = -1;
  lw.axis = rw.axis = 0;
  if (!(lw == rw)) return std::nullopt;
  if (m.values[l->base].type.shape[l->axis] != m.values[r->base].type.shape[r->axis]) return std::nullopt;
  return TokenSides{*l, *r};
}

/// Whether two known windows share an index: some start_a + i * stride_a
/// below limit_a equals some start_b + j * stride_b below limit_b. The
/// indices of `a` from the larger start on are walked over one period of
/// b's stride (after stride_b steps the residues mod stride_b repeat).
bool windows_meet(const AxisWindow& a, const AxisWindow& b) {
  const int64_t hi = std::min(a.limit, b.limit);
  int64_t x = a.start;
  if (x < b.start) x += (b.start - x + a.stride - 1) / a.stride * a.stride;
  for (int64_t step = 0; step < b.stride && x < hi; ++step, x += a.stride)
    if (x >= b.start && (x - b.start) % b.stride == 0) return true;
  return false;
}

/// The two contractions contract windows of the same X and dY along the
/// same axes, and the windows differ.
std::optional<std::pair<TokenSides, TokenSides>> other_windows(const Module& m, int producer, int other) {
  if (producer == other) return std::nullopt;
  const std::optional<TokenSides> p = token_sides(m, producer), o = token_sides(m, other);
  if (!p || !o || p->lhs.base != o->lhs.base || p->rhs.base != o->rhs.base || p->lhs.axis != o->lhs.axis ||
      p->rhs.axis != o->rhs.axis || p->lhs == o->lhs)
    return std::nullopt;
  return std::pair{*p, *o};
}

}  // namespace

std::optional<AxisWindow> token_window(const Module& m, int id) {
  const Op& op = m.ops[id];
  if (op.operands.size() < 2) return std::nullopt;
  int la = -1, ra = -1;
  const OpSpec* s = dialects().find(op.name);
  const Attr* a = op.attr("dot_dimension_numbers");
  std::string why;
  if (std::optional<DotDimensions> dd = s && s->role == OpRole::Contraction && a ? parse_dot_dimensions(*a, why)
                                                                                 : std::nullopt) {
    if (dd->lhs_contracting.size() != 1 || dd->rhs_contracting.size() != 1) return std::nullopt;
    la = static_cast<int>(dd->lhs_contracting[0]);
    ra = static_cast<int>(dd->rhs_contracting[0]);
  } else if (const auto axes = s ? std::nullopt : linalg_contracting_axes(op)) {
    std::tie(la, ra) = *axes;
  } else {
    return std::nullopt;
  }
  for (auto [k, axis] : {std::pair{0, la}, std::pair{1, ra}})
    if (std::optional<AxisWindow> w = axis_window(m, op.operands[k]); w && w->axis == axis) return w;
  return std::nullopt;
}

bool split_partner(const Module& m, int producer, int other) {
  const auto w = other_windows(m, producer, other);
  return w && !(w->first.lhs.known && w->second.lhs.known && windows_meet(w->first.lhs, w->second.lhs));
}

std::optional<std::pair<AxisWindow, AxisWindow>> overlapping_windows(const Module& m, int producer, int other) {
  const auto w = other_windows(m, producer, other);
  if (!w || !w->first.lhs.known || !w->second.lhs.known || !windows_meet(w->first.lhs, w->second.lhs))
    return std::nullopt;
  return std::pair{w->first.lhs, w->second.lhs};
}

bool same_operands(const Module& m, int producer, int other) {
  if (producer == other) return false;
  const Op &p = m.ops[producer], &o = m.ops[other];
  auto inputs = [](const Op& op) {
    return op.num_inputs >= 0 && static_cast<size_t>(op.num_inputs) <= op.operands.size()
               ? static_cast<size_t>(op.num_inputs)
               : op.operands.size();
  };
  const size_t n = inputs(p);
  if (n == 0 || n != inputs(o)) return false;
  for (size_t k = 0; k < n; ++k) {
    if (through_one_call(m, p.operands[k]) == through_one_call(m, o.operands[k])) continue;
    const std::optional<AxisWindow> a = axis_window(m, p.operands[k]), b = axis_window(m, o.operands[k]);
    if (!a || !b || !(*a == *b)) return false;
  }
  return true;
}

std::string to_text(const AffineMap& m) {
  std::string s = "(";
  for (unsigned d = 0; d < m.num_dims; ++d) s += (d ? ", d" : "d") + std::to_string(d);
  s += ") -> (";
  for (size_t i = 0; i < m.results.size(); ++i) {
    if (i) s += ", ";
    expr_text(m.results[i], s);
  }
  return s + ")";
}

Dag analyze_dag(const Module& m, int func, int grad) {
  Dag d;
  d.func = func;
  d.grad = grad;
  try {
    // The producer: the contraction defining the gradient, or the one a
    // transpose of it reads.
    // Either may be the result of a call to a helper (JAX's nested jit),
    // which stands for the value the helper returns.
    if (grad >= 0 && grad < static_cast<int>(m.values.size())) {
      if (const int f = returned_to_several(m, grad); f >= 0) {
        int calls = 0;
        for (const Op& op : m.ops) calls += op.callee == f;
        throw Failure{"the weight gradient is a result of @" + m.funcs[f].name + ", which " + std::to_string(calls) +
                          " ops call: each call computes a gradient of its own, and fusecert does not tell the calls "
                          "apart (fail closed; one function per call, or the helper inlined, is followed)",
                      m.funcs[f].loc};
      }
      int def = m.values[through_call_result(m, grad)].def_op;
      const OpSpec* s = def >= 0 ? dialects().find(m.ops[def].name) : nullptr;
      if (s && s->role == OpRole::Transpose && m.ops[def].operands.size() == 1) {
        def = m.values[through_call_result(m, m.ops[def].operands[0])].def_op;
        s = def >= 0 ? dialects().find(m.ops[def].name) : nullptr;
      }
      // Split-K as a batch: a reduce summing a batched contraction's
      // partial products (the candidate's split_reduce).
      if (s && s->role == OpRole::Reduce && !m.ops[def].operands.empty()) {
        const int p = m.values[m.ops[def].operands[0]].def_op;
        const OpSpec* ps = p >= 0 ? dialects().find(m.ops[p].name) : nullptr;
        if (ps && ps->role == OpRole::Contraction) {
          def = p;
          s = ps;
        }
      }
      if (s && s->role == OpRole::Contraction) d.producer = def;
      if (!s && def >= 0 && (m.ops[def].kind == Op::Kind::Matmul || m.ops[def].kind == Op::Kind::MatmulTransposeA ||
                             m.ops[def].kind == Op::Kind::BatchMatmulTransposeA ||
                             (m.ops[def].kind == Op::Kind::Generic && m.ops[def].num_inputs >= 2 &&
                              std::count(m.ops[def].iterators.begin(), m.ops[def].iterators.end(), "reduction") > 0)))
        d.producer = def;
    }
    Analyzer a(m, d);
    std::map<int, ValueDep> env;
    std::vector<ValueDep> results = a.run(func, {}, grad, 0, &env);
    // The function's return operands, in order.
    std::vector<int> returned;
    for (int id : m.funcs[func].ops)
      if (m.ops[id].is_return && m.ops[id].parent < 0) returned = m.ops[id].operands;
    const DialectTables& tables = dialects();
    for (size_t i = 0; i < results.size() && i < returned.size(); ++i) {
      if (results[i].reads.empty()) continue;
      DagOutput o;
      o.result_no = static_cast<int>(i);
      o.value = returned[i];
      o.dep = results[i];
      const int def = m.values[returned[i]].def_op;
      if (def >= 0) {
        const Op& op = m.ops[def];
        const OpSpec* s = tables.find(op.name);
        const Reduction* red = d.reduction(def);
        // An exact reduce that no other output depends on (by the DAG: no
        // other output's gradient read crossed it).
        bool others_read = false;
        for (size_t j = 0; j < results.size() && red; ++j)
          if (j != i && (j >= returned.size() || returned[j] != returned[i]))
            for (const auto& r : results[j].reads)
              others_read = others_read || std::find(r.via.begin(), r.via.end(), def) != r.via.end();
        // A reduce of a table, or a linalg reduction of one input.
        const bool one_input = (s && s->role == OpRole::Reduce) || (!s && op.num_inputs == 1);
        if (one_input && red && red->exact && !others_read) {
          o.exempt_reduce = def;
          auto it = env.find(op.operands[0]);
          if (op.operands[0] == grad) {
            // The gradient itself, maxed: its reads are the identity.
            o.exempt_input.reads.push_back({make_map(static_cast<unsigned>(m.values[grad].type.shape.size()), [&] {
              std::vector<AffineExpr> id;
              for (size_t k = 0; k < m.values[grad].type.shape.size(); ++k) id.push_back(AffineExpr::dim(k));
              return id;
            }()), {}, {}});
          } else if (it != env.end()) {
            o.exempt_input = it->second;
          }
          for (auto& r : d.reductions)
            if (r.op == def) r.returned_only = true;
        }
        // The updated weight: W + u for a function argument W of its type.
        if (d.weight < 0 && s && sums(s->computes) && op.operands.size() == 2)
          for (int v : op.operands)
            if (m.values[v].def_op < 0 && m.values[v].type.text == m.values[returned[i]].type.text &&
                std::find(m.funcs[func].args.begin(), m.funcs[func].args.end(), v) != m.funcs[func].args.end() &&
                results[i].reads.size() > 0) {
              d.weight = v;
              d.weight_result = static_cast<int>(i);
              d.update_op = def;
            }
      }
      d.outputs.push_back(std::move(o));
    }
    // A norm of the gradient that scales it is clipping (P2) only when it is
    // the step's one coarse read: when some result also reads the gradient
    // across a reduction that is not such a norm (a row sum, a product over
    // the matrix, a statistic of the update), the step is coarser than the
    // tile whatever the norm does, and the norm is one of those reads (P9).
    bool other_coarse = false;
    for (const auto& o : d.outputs)
      for (const auto& r : (o.exempt_reduce >= 0 ? o.exempt_input : o.dep).reads) {
        bool norm = false;
        for (int v : r.via)
          if (const Reduction* red = d.reduction(v); red && red->scales >= 0) norm = true;
        other_coarse = other_coarse || (!norm && !r.via.empty());
      }
    if (other_coarse)
      for (auto& red : d.reductions) red.scales = -1;
    // Any other contraction reaching a result that reads the gradient,
    // other than summed into it (tied_at), leaves the step undecided; one
    // that reaches it only through the norm scaling the gradient, while that
    // norm is P2's, is part of the global norm (norm_contractions).
    const bool norm_scales =
        std::any_of(d.reductions.begin(), d.reductions.end(), [](const Reduction& r) { return r.scales >= 0; });
    if (!norm_scales) d.norm_contractions.clear();
    auto via_norm = [&](const GradRead& r) {
      return std::any_of(r.via.begin(), r.via.end(), [&](int v) {
        const Reduction* red = d.reduction(v);
        return red && red->scales >= 0;
      });
    };
    if (d.tied_at < 0)
      for (const auto& o : d.outputs) {
        // An output that reads the gradient only through the norm scaling
        // it (another layer's update under a global clip) reads it through
        // P2's norm alone: what else it is computed from is not a second
        // producer of this gradient.
        if (norm_scales && !o.dep.reads.empty() && std::all_of(o.dep.reads.begin(), o.dep.reads.end(), via_norm))
          continue;
        for (const auto& [c, reduced] : o.dep.contractions)
          if (c != d.producer &&
              std::find(d.split_partners.begin(), d.split_partners.end(), c) == d.split_partners.end() &&
              !(reduced && std::find(d.norm_contractions.begin(), d.norm_contractions.end(), c) !=
                               d.norm_contractions.end())) {
            d.other_contraction = c;
            d.other_output = o.result_no;
            d.other_reduced = reduced;
            break;
          }
        if (d.other_contraction >= 0) break;
      }
    if (d.update_op < 0)
      for (const auto& o : d.outputs)
        if (m.values[o.value].def_op >= 0) { d.update_op = m.values[o.value].def_op; break; }
  } catch (const Failure& f) {
    d.problem = f.why;
    d.problem_loc = f.loc;
  }
  return d;
}

}  // namespace fusecert::ir
