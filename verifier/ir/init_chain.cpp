#include "verifier/ir/init_chain.h"

#include <algorithm>
#include <set>

#include "verifier/ir/candidates.h"
#include "verifier/ir/dialect_table.h"

namespace fusecert::ir {

bool is_contraction(const Op& op) {
  if (const OpSpec* s = dialects().find(op.name)) return s->role == OpRole::Contraction;
  return op.kind == Op::Kind::Matmul || op.kind == Op::Kind::MatmulTransposeA ||
         op.kind == Op::Kind::BatchMatmulTransposeA ||
         (op.num_inputs >= 2 && std::count(op.iterators.begin(), op.iterators.end(), "reduction") > 0);
}

namespace {
/// The contraction defining `v` as its result, or -1.
int contraction_of(const Module& m, int v) {
  const int d = v >= 0 && v < static_cast<int>(m.values.size()) ? m.values[v].def_op : -1;
  return d >= 0 && is_contraction(m.ops[d]) ? d : -1;
}

/// A contraction `v` is computed from, directly or not, or -1.
int contraction_behind(const Module& m, int v) {
  std::vector<int> work{v};
  std::set<int> seen;
  while (!work.empty()) {
    const int x = work.back();
    work.pop_back();
    if (x < 0 || !seen.insert(x).second) continue;
    const int d = m.values[x].def_op;
    if (d < 0) continue;
    if (is_contraction(m.ops[d])) return d;
    for (int o : m.ops[d].operands) work.push_back(o);
  }
  return -1;
}
}  // namespace

std::vector<int> init_chain(const Module& m, int producer, int* other) {
  std::vector<int> links{producer};
  if (other) *other = -1;
  for (size_t step = 0; step < m.ops.size(); ++step) {
    const auto in = inits(m.ops[links.front()]);
    if (in.size() != 1) break;
    const int prev = contraction_of(m, in[0]);
    if (prev < 0 || std::find(links.begin(), links.end(), prev) != links.end()) {
      if (other) *other = contraction_behind(m, in[0]);
      break;
    }
    links.insert(links.begin(), prev);
  }
  return links;
}

std::string chain_text(const Module& m, const std::vector<int>& links) {
  std::string s;
  for (int c : links) s += (s.empty() ? "" : " -> ") + m.ops[c].name + " at " + m.ops[c].loc.str();
  return s;
}

}  // namespace fusecert::ir
