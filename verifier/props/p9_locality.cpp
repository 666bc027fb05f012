// P9 — fusing a consumer into a tiled producer is legal iff the consumer's read
// locality is no coarser than the producer's tile partition. Source:
// propositions.md §P9. The queries are built by verifier/ir/locality.h, the
// same code the IR checker runs on real linalg.generic indexing maps: integer
// arithmetic (QF_LIA) with symbolic tile sizes and tile origins.
//
//  P9.coordinate   (unsat) AdamW/SGD (identity maps): every output point reads only its own tile
//  P9.row          (sat)   Adafactor row statistics: some tile size makes a row read leave the tile
//  P9.row_panels   (unsat) the same row consumer on a producer whose tiles span whole rows is local
//                          (the "if" direction: locality ⊑ partition ⇒ legal)
//  P9.global       (sat)   a global (tensor-wide) reduction, as a global-norm clip needs
#include "verifier/ir/locality.h"
#include "verifier/props/common.h"
#include "verifier/props/props.h"

namespace fusecert::verifier::props {
namespace {
using smt::Answer;

}  // namespace

FUSECERT_ENCODER(encode_P9) {
  (void)spec;
  const long rows = iparam(params, "rows", 1, 1 << 20), cols = iparam(params, "cols", 1, 1 << 20);
  const std::vector<int64_t> shape = {rows, cols};
  const Scope scope{"integers (QF_LIA)", "tile sizes, tile origins, the output point and the elements it reads",
                    fixed_params(params, {"rows", "cols"}) + " (the gradient shape of the reference maps)", ""};
  Scope identity = scope;
  identity.definitional =
      "with identity indexing maps the element read is the output point itself, which the tile computed: unsat by "
      "congruence (the same query on a consumer's own maps, in certify, is where the evidence is)";
  discharge(out, "P9.coordinate",
                 "a consumer with identity indexing maps (AdamW, SGD, momentum) reads, for every tile size and every "
                 "output point, only gradient elements of the tile that computed that point",
                 identity, ir::locality_query(ir::problem_for(ir::Locality::Coordinate, shape)), Answer::Unsat, opt.timeout_ms);
  auto& row = discharge(out, "P9.row",
                             "a row-statistics consumer (Adafactor) reads outside the producer tile for some tile size",
                             scope, ir::locality_query(ir::problem_for(ir::Locality::Row, shape)), Answer::Sat,
                             opt.timeout_ms);
  if (row.smt_answer() == Answer::Sat) {
    // Replay in C++: the row problem's maps are out(x) = (x0, x1), grad(x) = (x0, x2).
    auto v = [&](const char* n) { return static_cast<long>(model_double(row, n)); };
    long x0 = v("x0"), x1 = v("x1"), x2 = v("x2"), y0 = v("y0"), y1 = v("y1"), y2 = v("y2");
    long T0 = v("T0"), T1 = v("T1"), o0 = v("o0"), o1 = v("o1");
    auto in_tile = [&](long a, long b) { return o0 <= a && a < o0 + T0 && o1 <= b && b < o1 + T1; };
    bool home = in_tile(x0, x1) && !in_tile(x0, x2);
    bool share = x0 == y0 && x1 == y1 && in_tile(x0, x2) && !in_tile(y0, y2);
    Counterexample cx = counterexample_from(
        row, "tile " + std::to_string(T0) + "x" + std::to_string(T1) + " at (" + std::to_string(o0) + ", " +
                 std::to_string(o1) + "): output (" + std::to_string(x0) + ", " + std::to_string(x1) +
                 ") needs gradient elements of its row outside that tile");
    cx.replay = {{"output_in_tile_reads_outside", home ? "true" : "false"},
                 {"one_output_reads_two_tiles", share ? "true" : "false"}};
    cx.replay_confirms = home || share;
    out.counterexample = cx;
  }
  ir::LocalityProblem panels = ir::problem_for(ir::Locality::Row, shape);
  panels.full_tiles = {false, true};
  discharge(out, "P9.row_panels",
                 "the same row consumer is local on a producer whose tiles span whole rows (row locality ⊑ row-panel "
                 "partition)",
                 scope, ir::locality_query(panels), Answer::Unsat, opt.timeout_ms);
  discharge(out, "P9.global",
                 "a tensor-wide reduction (global-norm clipping) reads outside the producer tile for some tile size",
                 scope, ir::locality_query(ir::problem_for(ir::Locality::Global, shape)), Answer::Sat, opt.timeout_ms);
  // The verdict is the rules file's (rules/propositions.yaml, verdict_rule).
  out.notes.push_back("coordinate ⊏ row/column ⊏ block ⊏ tensor ⊏ layer ⊏ global; `fusecert certify` runs the same "
                      "query on each linalg.generic consumer's own indexing maps (obligation P9.locality)");
}

}  // namespace fusecert::verifier::props
