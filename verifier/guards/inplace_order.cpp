// P7 guard, in-place order: after bufferization the optimizer writes W in
// place, and every read of W (e.g. the ΔX = ΔY·Wᵀ GEMM) must precede that
// write in program order — otherwise it reads the updated weights (a
// write-after-read violation). With value semantics (tensors) W and W' are
// distinct SSA values and the hazard cannot occur.
#include <algorithm>

#include "verifier/guards/guards.h"

namespace fusecert::guards {

namespace {
bool is_memref(const ir::Module& m, int v) { return v >= 0 && m.values[v].type.kind == ir::Type::Kind::MemRef; }
}  // namespace

void guard_inplace_order(GuardContext& g) {
  const ir::Op* cons = g.consumer();
  if (!cons) return;
  const std::string id = "P7.inplace_order";
  const std::string claim = "every read of W precedes the in-place update of W";
  // The buffers the update writes in place.
  std::vector<int> written;
  if (cons->name == "linalg.generic") {
    for (int v : ir::inits(*cons))
      if (is_memref(g.m, v)) written.push_back(v);
  } else if (cons->results.empty()) {
    int w = g.out.weight_value;
    if (is_memref(g.m, w)) written.push_back(w);
  }
  if (written.empty()) {
    g.structural(id, claim, "holds",
                 "value semantics: " + cons->name + " returns the updated weights as new SSA values; every read of W "
                 "reads the old W");
    return;
  }
  const int W = std::find(written.begin(), written.end(), g.out.weight_value) != written.end() ? g.out.weight_value
                                                                                                : written.front();
  std::vector<const ir::Op*> late, early;
  for (int oid : g.m.funcs[cons->func].ops) {
    const ir::Op& op = g.m.ops[oid];
    if (op.id == cons->id || op.name == "memref.dealloc") continue;
    bool reads = false;
    auto ins = op.num_inputs >= 0 ? ir::inputs(op) : op.operands;
    if (op.num_inputs < 0 && op.name == "func.return") ins.clear();
    for (int v : ins) reads = reads || v == W;
    if (!reads) continue;
    (op.index > cons->index ? late : early).push_back(&op);
  }
  std::string ev = "in-place update of " + g.m.values[W].type.text + " at position " + std::to_string(cons->index) +
                   "; reads of W at positions";
  for (auto* r : early) ev += " " + std::to_string(r->index);
  for (auto* r : late) ev += " " + std::to_string(r->index) + "(late)";
  if (early.empty() && late.empty()) ev += " (none)";
  if (late.empty()) {
    g.structural(id, claim, "holds", ev);
    return;
  }
  g.structural(id, claim, "violated", ev);
  auto& d = g.error("P7", id, late.front()->loc,
                    late.front()->name + " reads W after the in-place update at line " + std::to_string(cons->loc.line) + ":" +
                        std::to_string(cons->loc.col) +
                        " wrote it: it sees the updated weights (write-after-read ordering violated)");
  d.notes.push_back({cons->loc, "in-place update of W here; legal if every read of W (the ΔX GEMM) is scheduled "
                                "before it, or if the update writes a new buffer"});
  d.notes.push_back(g.producer_note("weight-gradient producer of this candidate"));
}

}  // namespace fusecert::guards
