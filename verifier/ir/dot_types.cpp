#include "verifier/ir/dot_types.h"

#include <algorithm>

#include "verifier/ir/dialect_table.h"
#include "verifier/ir/opaque_attrs.h"

namespace fusecert::ir {

std::vector<diag::Diagnostic> dot_type_diags(const Module& m) {
  std::vector<diag::Diagnostic> out;
  for (const Op& op : m.ops) {
    const OpSpec* spec = dialects().find(op.name);
    if (!spec || spec->role != OpRole::Contraction) continue;
    for (const auto& [key, ks] : spec->attrs) {
      // precision_config: one precision per operand (lhs, rhs) or none
      // (StableHLO spec, dot_general C11 `size(precision_config) = 2`; the
      // reference verifier also takes an empty or absent one, and accepts a
      // single entry, which the spec does not: fail closed on it).
      if (std::find(ks.kinds.begin(), ks.kinds.end(), AttrKind::Precisions) != ks.kinds.end()) {
        const Attr* p = op.attr(key);
        if (p && p->kind == Attr::Kind::Array && p->items.size() != 0 && p->items.size() != 2)
          out.push_back(diag::error(
              op.loc, "input.dot_dims",
              op.name + ": its " + key + " has " + std::to_string(p->items.size()) +
                  (p->items.size() == 1 ? " entry" : " entries") + "; StableHLO gives one precision per operand (lhs, rhs), so 2, or none; fusecert cannot "
                  "tell which operand each entry is for, so no candidate in this module can be certified"));
        continue;
      }
      if (std::find(ks.kinds.begin(), ks.kinds.end(), AttrKind::DotDims) == ks.kinds.end()) continue;
      const Attr* a = op.attr(key);
      std::string why;
      std::optional<DotDimensions> d = a ? parse_dot_dimensions(*a, why) : std::nullopt;
      if (!d) continue;  // absent or unreadable: the attribute boundary's error
      std::string problem;
      if (op.operands.size() != 2 || op.results.size() != 1)
        problem = "it takes two operands (lhs, rhs) and returns one result; it has " +
                  std::to_string(op.operands.size()) + " operand(s) and " + std::to_string(op.results.size()) +
                  " result(s)";
      else
        problem = dot_dimensions_problem(*d, m.values[op.operands[0]].type, m.values[op.operands[1]].type,
                                         m.values[op.results[0]].type);
      if (problem.empty()) continue;
      diag::Diagnostic e = diag::error(
          op.loc, "input.dot_dims",
          op.name + ": its " + key + " contradict its operand and result types: " + problem +
              "; fusecert cannot tell what it contracts (whether it is the weight gradient, or what it reads), so "
              "no candidate in this module can be certified");
      e.notes.push_back({op.loc, "the dimension numbers: " + (a->kind == Attr::Kind::Opaque
                                                                  ? "#" + a->dialect + "." + a->data
                                                                  : a->text)});
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace fusecert::ir
