#include "verifier/ir/routed_structure.h"

#include <algorithm>
#include <set>

namespace fusecert::ir {

namespace {

/// The dimension at which `w` picks one matrix of a stack by a runtime index: dropped by the
/// window's type and at an SSA offset; -1 when none.
int runtime_pick(const Window& w) {
  for (size_t d = 0; d < w.offsets.size() && d < w.dropped.size(); ++d)
    if (w.dropped[d] && w.offsets[d] < 0) return static_cast<int>(d);
  return -1;
}

std::string pick_text(const Module& m, const Op& op, int d, const std::string& of) {
  const int iv = op.window->offset_values[d];
  const std::string idx = iv >= 0 ? "a runtime index (" + m.values[iv].type.text + " value)" : "a runtime index";
  return of + " is " + (op.window->insert ? "written into" : "taken from") + " one matrix of a stack (dimension " +
         std::to_string(d) + " of " + m.values[op.operands[op.window->insert ? 1 : 0]].type.text + ") at " + idx +
         " by " + op.name + " at " + op.loc.str() + ": an expert-indexed weight";
}

/// Follows `v` back through the ops that only re-view it (memref casts, subviews of one buffer)
/// and through extract windows to the first op that picks one matrix of a stack, or a gather.
std::optional<RoutedStructure> picked(const Module& m, int v, const std::string& of) {
  std::set<int> seen;
  while (v >= 0 && seen.insert(v).second) {
    const int d = m.values[v].def_op;
    if (d < 0) return std::nullopt;
    const Op& op = m.ops[d];
    if (op.kind == Op::Kind::Gather)
      return RoutedStructure{op.id, of + " is gathered by " + op.name + " at " + op.loc.str() +
                                        " at runtime indices: an expert-indexed weight"};
    if (op.window && !op.window->insert && !op.operands.empty()) {
      const int at = runtime_pick(*op.window);
      if (at >= 0) return RoutedStructure{op.id, pick_text(m, op, at, of)};
      v = op.operands[0];
      continue;
    }
    if (op.access == Op::Access::View && !op.operands.empty()) {
      v = op.operands[0];
      continue;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

/// A loop dimension every input and the result of linalg contraction `op` carry: one product
/// per group. On tensors the op has one result; bufferized, none (its init buffer is the
/// result): the maps say the same either way.
bool grouped(const Op& op) {
  if (op.num_inputs < 2 || op.maps.size() != op.operands.size() || op.results.size() > 1 ||
      std::count(op.iterators.begin(), op.iterators.end(), "reduction") < 1)
    return false;
  for (size_t d = 0; d < op.iterators.size(); ++d) {
    if (op.iterators[d] != "parallel") continue;
    bool all = true;
    for (const auto& map : op.maps) {
      bool has = false;
      for (const auto& e : map.results) has = has || (e.kind == AffineExpr::Kind::Dim && e.value == static_cast<int64_t>(d));
      all = all && has;
    }
    if (all) return true;
  }
  return false;
}

}  // namespace

std::optional<RoutedStructure> routed_structure(const Module& m, const Candidate& c, const std::vector<int>& held) {
  if (c.producer < 0) return std::nullopt;
  const Op& p = m.ops[c.producer];
  if (c.split_reduce < 0 && grouped(p))
    return RoutedStructure{p.id, p.name + " at " + p.loc.str() +
                                     " contracts one product per group (a loop dimension both operands and the "
                                     "gradient carry): a grouped weight gradient"};
  for (int v : held)
    if (auto r = picked(m, v, "the weight or its state (" + m.values[v].type.text + ")")) return r;
  if (c.grad >= 0)
    if (auto r = picked(m, c.grad, "the weight gradient")) return r;
  for (int k = 0; k < p.num_inputs && k < static_cast<int>(p.operands.size()); ++k)
    if (auto r = picked(m, p.operands[k], "operand " + std::to_string(k) + " of " + p.name)) return r;
  // The updated weight or state written back into a stack at a runtime index.
  if (c.consumer >= 0)
    for (int r : m.ops[c.consumer].results)
      for (const auto& [u, n] : m.values[r].uses) {
        const Op& op = m.ops[u];
        if (op.window && op.window->insert && n == 0) {
          const int at = runtime_pick(*op.window);
          if (at >= 0) return RoutedStructure{op.id, pick_text(m, op, at, "the updated weight or state")};
        }
      }
  return std::nullopt;
}

}  // namespace fusecert::ir
