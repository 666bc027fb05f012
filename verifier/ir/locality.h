// P9: read locality of a consumer against a tiled producer, decided by an
// integer-arithmetic Z3 query over the consumer's affine indexing maps with a
// symbolic tile size. The prover's P9 encoder and the IR checker (on real
// linalg.generic ops and on the maps implied by a tessera op's declared
// state_locality) build their obligations with this one piece of code.
//
// The locality lattice (propositions.md, P9):
//   coordinate ⊏ row/column ⊏ block ⊏ tensor ⊏ layer ⊏ global.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/model.h"

namespace fusecert::ir {

enum class Locality { Coordinate, Row, Column, Block, Tensor, Layer, Global };
std::string to_string(Locality l);
std::optional<Locality> parse_locality(const std::string& s);
/// Position in the lattice (row and column share a level).
int rank(Locality l);

/// A consumer's iteration space and the maps that matter for locality.
struct LocalityProblem {
  std::vector<bool> reduction;        ///< per iteration dimension
  std::vector<int64_t> dim_sizes;     ///< per iteration dimension; -1 = symbolic (≥ 1)
  AffineMap grad_map;                 ///< indexing map of the gradient (producer result) operand
  std::vector<AffineMap> out_maps;    ///< indexing maps of the consumer's outputs
  /// Optional: gradient dimensions whose producer tile spans the whole
  /// dimension (row panels: {false, true}); needs grad_sizes for those dims.
  std::vector<bool> full_tiles;
  std::vector<int64_t> grad_sizes;    ///< gradient extent per dimension (-1 = symbolic)
};

/// The obligation P9.locality as SMT-LIB2 (QF_LIA). It asserts the negation
/// of locality: there are tile sizes T_r ≥ 1 and a tile origin o_r for every
/// gradient dimension, and iteration points x, y inside the loop bounds, with
///  (home)  an output of the gradient's rank whose element out(x) lies in the
///          tile while the gradient element grad(x) it reads does not, or
///  (share) out(x) = out(y) for some output while grad(x) and grad(y) do not
///          lie in one tile.
/// `unsat` ⇔ for every tile size and placement, every output point reads only
/// gradient elements of the tile that computed it (coordinate locality).
/// A `sat` model is the counterexample: a tile size and two points.
/// Symbolic tile origins cover every tile placement (aligned grids included).
std::string locality_query(const LocalityProblem& p);
/// The same text, shared: equal problems return the same object (built once).
std::shared_ptr<const std::string> locality_query_shared(const LocalityProblem& p);

/// SMT-LIB2 (QF_LIA): two iteration points that write one output element but
/// read the gradient at different indices along gradient dimension `r`.
/// `sat` ⇔ the consumer's reads spread along dimension r.
std::string spread_query(const LocalityProblem& p, unsigned r);

/// The coarsest lattice position implied by the spread answers (one per
/// gradient dimension, true = sat) for a non-local consumer of a rank-2
/// gradient: spreads along columns only → row, rows only → column, both →
/// tensor, neither (a neighbourhood read) → block.
Locality classify(const std::vector<bool>& spreads);

/// P9 for a consumer that is a DAG (verifier/ir/dependence.h): every output
/// element reads the gradient through one or more maps. Each read has its
/// own block of iteration dimensions (the output's coordinates, then the
/// dimensions a reduction on the way sums or maxes over); `out` picks the
/// output coordinates out of that block, `grad` gives the gradient element.
struct DagRead {
  AffineMap grad, out;
  int output = 0;  ///< reads of one output share its coordinates
};
struct DagLocalityProblem {
  std::vector<int64_t> dim_sizes;  ///< every iteration dimension of every read (≥ 1, static)
  std::vector<DagRead> reads;
  size_t grad_rank = 0;
};
/// The obligation P9.locality over a DAG (QF_LIA), the negation of locality
/// as in locality_query: tile sizes T_r ≥ 1 and origins o_r, and either
/// (home) a read of an output of the gradient's rank whose output point lies
/// in the tile while the gradient element it reads does not, or (share) two
/// reads of one output at one output point, one inside the tile and one
/// outside. `unsat` ⇔ every output element reads only its own tile.
std::shared_ptr<const std::string> dag_locality_query(const DagLocalityProblem& p);
/// Informational: two reads of one output at one point differ along
/// gradient dimension r (sat = the reads spread along r).
std::string dag_spread_query(const DagLocalityProblem& p, unsigned r);

/// The maps that realise a declared locality for a rank-2 gradient of
/// `shape` (dims -1 = symbolic): coordinate → identity; row → out (i, j)
/// reads (i, k); column → (k, j); block → (i − i mod B + k) with B = 128;
/// tensor, layer, global → (k, l) for all k, l.
LocalityProblem problem_for(Locality l, const std::vector<int64_t>& shape);

}  // namespace fusecert::ir
