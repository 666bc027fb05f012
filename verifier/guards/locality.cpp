// P9 guard, state locality: the consumer's read locality must be no coarser
// than the producer's tile partition. For a linalg.generic consumer the
// locality is proven from its own indexing maps; for a tessera op (or a fused
// op) from the maps its declared `state_locality` implies, never finer than
// the op's own semantics (Adafactor's row statistics are row). The query is
// verifier/ir/locality.h's, the same code the prover's P9 uses.
#include <algorithm>

#include "verifier/guards/guards.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/locality.h"

namespace fusecert::guards {

namespace {

ir::LocalityProblem from_generic(const ir::Module& m, const ir::Op& op, int grad_operand) {
  ir::LocalityProblem p;
  for (auto& it : op.iterators) p.reduction.push_back(it == "reduction");
  p.dim_sizes.assign(p.reduction.size(), -1);
  for (size_t k = 0; k < op.maps.size() && k < op.operands.size(); ++k) {
    const auto& t = m.values[op.operands[k]].type;
    for (size_t r = 0; r < op.maps[k].results.size() && r < t.shape.size(); ++r) {
      const auto& e = op.maps[k].results[r];
      if (e.kind == ir::AffineExpr::Kind::Dim && t.shape[r] >= 0 && e.value < static_cast<int64_t>(p.dim_sizes.size()))
        p.dim_sizes[e.value] = t.shape[r];
    }
  }
  p.grad_map = op.maps.at(grad_operand);
  for (size_t k = op.num_inputs; k < op.maps.size(); ++k) p.out_maps.push_back(op.maps[k]);
  return p;
}

}  // namespace

void guard_locality(GuardContext& g) {
  const ir::Op* cons = g.consumer();
  if (!cons) return;
  const std::string id = "P9.locality";
  const std::string claim = "for every tile size and every output point, the consumer reads only gradient elements "
                            "of the producer tile that computed that point (read locality ⊑ tile partition)";
  ir::LocalityProblem prob;
  std::string source;
  if (cons->kind == ir::Op::Kind::Generic) {
    if (cons->maps.size() != cons->operands.size() || g.c.consumer_operand < 0) {
      g.structural(id, claim, "missing", "the consumer's indexing maps are not available");
      g.error("P9", id, cons->loc, "cannot read the indexing maps of this " + cons->name);
      return;
    }
    prob = from_generic(g.m, *cons, g.c.consumer_operand);
    source = "indexing maps of the " + cons->name + ": gradient " + prob.grad_map.text;
  } else {
    const std::string k_loc = ir::key_of(*cons, "state_locality");
    const ir::Attr* a = g.require(*cons, k_loc, "P9", id,
                                  "one of coordinate, row, column, block, tensor, layer, global");
    if (!a) return;
    auto decl = ir::parse_locality(a->text);
    if (!decl) {
      g.structural(id, claim, "missing", k_loc + " = " + a->text + " is not a lattice position");
      g.error("P9", id, cons->loc,
              k_loc + " = \"" + a->text +
                  "\" is not one of coordinate, row, column, block, tensor, layer, global");
      return;
    }
    // The declared position is checked as declared: every reference update
    // a table op's body can name (ir::references()) is element-wise, so it
    // reads no coarser than its coordinate; a table op without a body never
    // gets here (opaque: the single-use guard makes it inconclusive).
    const ir::Locality use = *decl;
    std::vector<int64_t> shape;
    if (g.c.grad >= 0) shape = g.m.values[g.c.grad].type.shape;
    else if (g.facts.weight_value >= 0) shape = g.m.values[g.facts.weight_value].type.shape;
    if (shape.size() != 2) shape = {-1, -1};
    prob = ir::problem_for(use, shape);
    source = k_loc + " = \"" + ir::to_string(use) + "\" on " + cons->name;
  }
  Obligation* o = nullptr;
  try {
    o = &g.smt(id, claim, ir::locality_query_shared(prob), "unsat", "QF_LIA");
  } catch (const std::exception& e) {
    g.structural(id, claim, "missing", std::string("cannot encode the indexing maps: ") + e.what());
    g.error("P9", id, cons->loc, std::string("cannot encode the consumer's indexing maps: ") + e.what());
    return;
  }
  o->evidence = source;
  if (o->actual != "sat") return;
  // Derive the coarsest position the consumer needs (informational queries).
  std::vector<bool> spreads;
  for (unsigned r = 0; r < prob.grad_map.results.size(); ++r) {
    auto& s = g.smt("P9.spread.d" + std::to_string(r),
                    "two iteration points writing one output element read the gradient at different indices along "
                    "gradient dimension " + std::to_string(r),
                    ir::spread_query(prob, r), "sat", "QF_LIA", /*decides=*/false);
    spreads.push_back(s.actual == "sat");
  }
  ir::Locality need = ir::classify(spreads);
  auto& d = g.error("P9", id, cons->loc,
                    "cannot fuse " + cons->name + " into the weight-gradient epilogue: its read locality is " +
                        ir::to_string(need) +
                        ", coarser than the producer's tile partition (an output point reads gradient elements "
                        "outside the tile that computed it)");
  d.notes.push_back(g.producer_note("gradient tiles are computed here; legal if the consumer reads only its own "
                                    "coordinate, or compute the " + ir::to_string(need) +
                                    " statistics in a pass after the GEMM"));
}

}  // namespace fusecert::guards
