// P7 guard, in-place order: after bufferization the optimizer writes W in
// place, and every read of W (e.g. the ΔX = ΔY·Wᵀ GEMM) must precede that
// write in program order — otherwise it reads the updated weights (a
// write-after-read violation). With value semantics (tensors) W and W' are
// distinct SSA values and the hazard cannot occur.
#include <algorithm>
#include <set>
#include <string>

#include "verifier/guards/guards.h"

namespace fusecert::guards {

namespace {
bool is_memref(const ir::Module& m, int v) { return v >= 0 && m.values[v].type.kind == ir::Type::Kind::MemRef; }

/// How an op that takes W (or an alias of W) accesses it: the front end
/// reads it from MLIR's typed ops (ir::Op::access).
using Access = ir::Op::Access;
}  // namespace

void guard_inplace_order(GuardContext& g) {
  const ir::Op* cons = g.consumer();
  if (!cons) return;
  const std::string id = "P7.inplace_order";
  const std::string claim = "every read of W precedes the in-place update of W";
  // The buffers the update writes in place.
  std::vector<int> written;
  if (cons->kind == ir::Op::Kind::Generic) {
    // The gradient buffer the update writes into (one-shot-bufferize reuses
    // it) is not W, nor is a buffer allocated in the step (it holds no old
    // W): reads after it read the update's results.
    for (int v : ir::inits(*cons)) {
      const int def = g.m.values[v].def_op;
      const bool fresh = def >= 0 && g.m.ops[def].kind == ir::Op::Kind::Alloc;
      if (is_memref(g.m, v) && v != g.c.grad && !fresh) written.push_back(v);
    }
  } else if (cons->results.empty()) {
    int w = g.facts.weight_value;
    if (is_memref(g.m, w)) written.push_back(w);
  }
  if (written.empty()) {
    g.structural(id, claim, "holds",
                 "value semantics: " + cons->name + " returns the updated weights as new SSA values; every read of W "
                 "reads the old W");
    return;
  }
  const int W = std::find(written.begin(), written.end(), g.facts.weight_value) != written.end() ? g.facts.weight_value
                                                                                                : written.front();
  // Reads of W happen through W itself or through any alias of it: a view
  // (subview, cast, reinterpret_cast, expand/collapse_shape, transpose, view,
  // ...) made before or after the update reads W where the alias is read.
  // Aliases are tracked transitively; an op fusecert does not know that takes
  // W or an alias and returns a buffer might alias W: fail closed.
  std::set<int> alias{W};
  std::vector<const ir::Op*> late, early;
  std::vector<std::string> aliases;
  const ir::Op* unknown = nullptr;
  for (int oid : g.m.funcs[cons->func].ops) {
    const ir::Op& op = g.m.ops[oid];
    if (op.id == cons->id) continue;
    bool touches = false;
    for (int v : op.operands) touches = touches || alias.count(v);
    if (!touches) continue;
    const Access a = op.access;
    bool reads = false;
    switch (a) {
      case Access::None: break;
      case Access::View:
        for (int r : op.results) alias.insert(r);
        aliases.push_back(op.name + "@" + std::to_string(op.index));
        break;
      case Access::Operand0:
        reads = !op.operands.empty() && alias.count(op.operands[0]);
        break;
      case Access::Inputs:
        for (int v : ir::inputs(op)) reads = reads || alias.count(v);
        break;
      case Access::Unknown:
        reads = true;
        if (std::any_of(op.results.begin(), op.results.end(), [&](int r) { return is_memref(g.m, r) || g.m.values[r].type.kind == ir::Type::Kind::Tensor; }))
          if (!unknown) unknown = &op;
        break;
    }
    if (reads) (op.index > cons->index ? late : early).push_back(&op);
  }
  std::string ev = "in-place update of " + g.m.values[W].type.text + " at position " + std::to_string(cons->index) +
                   "; reads of W at positions";
  for (auto* r : early) ev += " " + std::to_string(r->index);
  for (auto* r : late) ev += " " + std::to_string(r->index) + "(late)";
  if (early.empty() && late.empty()) ev += " (none)";
  if (!aliases.empty()) {
    ev += "; aliases of W made by";
    for (auto& a : aliases) ev += " " + a;
  }
  if (unknown) {
    ev += "; " + unknown->name + " at position " + std::to_string(unknown->index) +
          " takes W (or an alias of it) and returns a value fusecert cannot tell apart from an alias";
    g.structural(id, claim, "missing", ev);
    auto& d = g.error("P7", id, unknown->loc,
                      "cannot check the in-place order: " + unknown->name +
                          " takes W (or an alias of it) and its result may alias W; fusecert does not know whether "
                          "later reads of that result read W (fail closed)");
    d.notes.push_back({cons->loc, "in-place update of W here"});
    return;
  }
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
