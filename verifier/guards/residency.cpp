// P8 guard, residency (fused IR only), by dataflow (issue #16: "the fused op
// holds no value derived from the gradient at full size; an m or v of W's
// shape is state, not an escaped gradient"). Inside a fused op the gradient
// is never an SSA value, so a gradient-derived value can reach memory only
// through the op: a gradient-sized result beyond the updated (W, state...)
// (an escape), a gradient-sized operand beyond the roles of its table entry
// (a buffer the op, opaque beyond those roles, may write the gradient into),
// or an allocation in the function that receives a value computed from an
// escaped result. An allocation filled from no such value (a zero tensor, a
// buffer computed from the updated state) holds nothing of the gradient and
// does not count, whatever its size. The certificate names what was counted.
#include <algorithm>
#include <optional>
#include <set>

#include "verifier/guards/guards.h"

namespace fusecert::guards {

namespace {
/// Static element count of a shaped type; nullopt when a dimension is dynamic.
std::optional<int64_t> elements(const ir::Type& t) {
  int64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 0) return std::nullopt;
    n *= d;
  }
  return n;
}

/// The values of function `func` computed from `seed` (the seed included):
/// results of every op with an operand in the set, to a fixed point (program
/// order makes one pass enough outside loops).
std::set<int> forward_closure(const ir::Module& m, int func, std::set<int> seed) {
  for (bool grew = true; grew;) {
    grew = false;
    for (int oid : m.funcs[func].ops) {
      const ir::Op& op = m.ops[oid];
      if (std::none_of(op.operands.begin(), op.operands.end(), [&](int v) { return seed.count(v) > 0; })) continue;
      for (int r : op.results) grew = seed.insert(r).second || grew;
    }
  }
  return seed;
}
}  // namespace

void guard_residency(GuardContext& g) {
  if (g.c.form != ir::Form::Fused) return;
  const ir::Op& f = g.producer();
  const std::string id = "P8.residency";
  const std::string claim = "no gradient-shaped value or allocation exists outside the fused op and the gradient "
                            "tile does not escape it (residency = tile)";
  // Which operand is W, and how many the op is meant to take, are its
  // table entry's (operands: roles), never fixed positions.
  const ir::OpSpec* spec = g.facts.producer_spec;
  const int w_pos = spec ? spec->operand("W") : -1;
  if (!spec || w_pos < 0 || f.operands.size() < spec->operands.size()) {
    const std::string roles = spec ? std::to_string(spec->operands.size()) + " operands its table entry names" : "";
    g.structural(id, claim, "missing",
                 f.name + (w_pos < 0 ? " has no operand of role W in its table entry"
                                     : " has fewer operands than the " + roles));
    g.error("P8", id, f.loc, f.name + " must take the operands its table entry names, one of them W");
    return;
  }
  const ir::Type& wt = g.m.values[f.operands[w_pos]].type;
  // Gradient-sized: a shaped value (any shape: transposed, flattened,
  // reshaped) with at least as many elements as the gradient (= W), or one
  // whose element count is not static (it may be that large: fail closed).
  const std::optional<int64_t> grad_elems = elements(wt);
  auto grad_sized = [&](const ir::Type& t) {
    if (t.kind != ir::Type::Kind::Tensor && t.kind != ir::Type::Kind::MemRef) return false;
    auto n = elements(t);
    return !n || !grad_elems || *n >= *grad_elems;
  };
  const size_t expect_in = spec->operands.size();
  std::vector<std::string> found;
  const ir::Loc* first = nullptr;
  std::set<int> counted_defs;
  for (size_t i = expect_in; i < f.operands.size(); ++i) {
    const ir::Value& v = g.m.values[f.operands[i]];
    if (!grad_sized(v.type)) continue;
    std::string what = "operand " + std::to_string(i) + " (" + v.type.text + ")";
    if (v.def_op >= 0) {
      const ir::Op& d = g.m.ops[v.def_op];
      what += " allocated by " + d.name + " at " + d.loc.str();
      if (!first) first = &d.loc;
      counted_defs.insert(d.id);
    }
    found.push_back(what);
  }
  size_t expect_out = f.results.empty() ? 0 : 1 + g.facts.state_values.size();
  for (size_t i = expect_out; i < f.results.size(); ++i) {
    const ir::Value& v = g.m.values[f.results[i]];
    if (grad_sized(v.type)) found.push_back("result " + std::to_string(i) + " (" + v.type.text + ") escapes the op");
  }
  // The values computed from an escaped result (the only gradient-derived
  // values outside the op): an allocation counts when an op writes such a
  // value into it or into a value computed from it (a linalg op's outs, a
  // memref.copy or store target). The function's return and a dealloc write
  // nothing. Allocations filled from anything else are not the gradient's.
  std::set<int> escaped;
  for (size_t i = expect_out; i < f.results.size(); ++i) escaped.insert(f.results[i]);
  escaped = forward_closure(g.m, f.func, escaped);
  size_t uncounted = 0;
  for (int oid : g.m.funcs[f.func].ops) {
    const ir::Op& op = g.m.ops[oid];
    if (op.kind != ir::Op::Kind::Alloc || counted_defs.count(op.id) || op.results.empty()) continue;
    const ir::Value& v = g.m.values[op.results[0]];
    if (!grad_sized(v.type)) continue;
    const std::set<int> held = forward_closure(g.m, f.func, {op.results[0]});
    const ir::Op* writer = nullptr;
    for (int uid : g.m.funcs[f.func].ops) {
      const ir::Op& u = g.m.ops[uid];
      if (u.is_return || u.kind == ir::Op::Kind::Dealloc || u.id == op.id) continue;
      auto in = [&](const std::set<int>& s) {
        return std::any_of(u.operands.begin(), u.operands.end(), [&](int x) { return s.count(x) > 0; });
      };
      if (in(held) && in(escaped)) {
        writer = &u;
        break;
      }
    }
    if (!writer) {
      ++uncounted;
      continue;
    }
    found.push_back("allocation " + op.name + " (" + v.type.text + ") at " + op.loc.str() +
                    " receives a value computed from an escaped result (" + writer->name + " at " +
                    writer->loc.str() + ")");
    if (!first) first = &op.loc;
  }
  std::string ev = "counted gradient-sized values (at least the " +
                   (grad_elems ? std::to_string(*grad_elems) : std::string("?")) + " elements of " + wt.text +
                   ", any shape): operands beyond (X, dY, W" +
                   std::string(g.facts.state_values.empty() ? "" : ", state") + "), results beyond the updated " +
                   "state, and allocations in the function that receive a value computed from such a result " +
                   "(dataflow): " + std::to_string(found.size()) +
                   (uncounted ? "; " + std::to_string(uncounted) + " gradient-sized allocation(s) hold no value "
                                "derived from the gradient (not counted)"
                              : std::string());
  for (auto& s : found) ev += "; " + s;
  if (found.empty()) {
    g.structural(id, claim, "holds", ev);
    return;
  }
  g.structural(id, claim, "violated", ev);
  auto& d = g.error("P8", id, f.loc,
                    "the fused op materialises a gradient-shaped buffer: " + found.front() +
                        "; the gradient tile must stay in registers / shared memory (residency = tile)");
  if (first) d.notes.push_back({*first, "gradient-shaped allocation here; remove it (the epilogue consumes each tile "
                                        "in place)"});
}

}  // namespace fusecert::guards
