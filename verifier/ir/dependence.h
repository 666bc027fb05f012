// Dependence of a step's results on the weight gradient, through an
// element-wise DAG of table ops (issue #21; the rules are issue #16's "P9 is
// a dependence rule"). The consumer of a StableHLO weight gradient is no
// single op: it is every op from the gradient value to the function's
// results (the updated weight and state), followed through func.call into
// private helpers. For every value the analysis computes which gradient
// elements an element of it reads, as affine maps from the value's
// coordinates (plus the dimensions a reduction or contraction sums over) to
// the gradient's, and which reductions the read crossed. It reads each op
// only through its dialect-table role (elementwise, broadcast, transpose,
// reshape, reduce, contraction, constant): no op or optimizer name decides
// anything. The guards turn these facts into obligations: P9 (every output
// element reads only its own tile: a Z3 query over the maps), P2 (a norm of
// the gradient that scales the gradient), P1 (one contraction sums into
// the gradient).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/model.h"

namespace fusecert::ir {

/// One way an element of a value reads the gradient: the element at
/// coordinates (d0 .. d_{r-1}) reads gradient element map(d0 .. d_{r-1},
/// e0 .. e_{k-1}) for every e in `extra` (the dimensions r .. r+k-1 of `map`,
/// summed or maxed by the reductions in `via`).
struct GradRead {
  AffineMap map;
  std::vector<int64_t> extra;  ///< extent of each extra dimension
  std::vector<int> via;        ///< the reduce / contraction ops the read crossed (op ids), in order
};

/// What the analysis knows about one value.
struct ValueDep {
  std::vector<GradRead> reads;  ///< empty: the value does not depend on the gradient
  /// Reads no function argument except through the gradient (constants and
  /// the gradient only).
  bool pure = true;
  /// The contractions (op ids) whose results this value is computed from,
  /// by any path: true when every path from that contraction crossed a
  /// reduction (a reduce, or another contraction), false when some path is
  /// element-wise (layout, dtype, element-wise ops with any operands). A
  /// second producer summing into the gradient, or any other contraction
  /// reaching the step's updated values, is found here.
  std::map<int, bool> contractions;
  /// Local: depends on the gradient and constants only, with no reduction
  /// on the way (g, g², g / 2, ...).
  bool local() const;
};

/// A reduction (a reduce, or a contraction inside the consumer) across
/// gradient elements.
struct Reduction {
  int op = -1;
  bool exact = false;        ///< max / min: the same bits in any order of the partials
  bool full = false;         ///< every dimension of its input is reduced (a scalar per tensor)
  bool pure_input = false;   ///< its input depends on the gradient and constants only
  bool returned_only = false;  ///< it is an output itself, and no other output depends on it
  /// A norm of the gradient (full, rounded, pure input) read by an
  /// element-wise op that also reads the local gradient: the norm scales the
  /// gradient (global-norm clipping, P2). The op doing it:
  int scales = -1;
  /// A reduce's body function (add, mul, max, ...); Unknown for a contraction.
  ScalarFn fn = ScalarFn::Unknown;
  /// What an element of its result reads of the gradient (its own
  /// coordinates, then the dimensions it and earlier reductions reduce):
  /// whether the reduction itself is coarser than a tile, where P9 fails.
  std::vector<GradRead> result_reads;
};

/// One result of the step function that depends on the gradient.
struct DagOutput {
  int result_no = -1;
  int value = -1;
  ValueDep dep;
  /// The output is the result of an exact reduce (max / min) on which no
  /// other output of the step depends (by the DAG: no other output's read
  /// crossed it); its own reads are its input's (`exempt_input`),
  /// the partial maxima of the tiles combine exactly (SM3's new statistics).
  int exempt_reduce = -1;
  ValueDep exempt_input;
};

/// A value read along one axis only: `base` sliced (stablehlo.slice, or
/// dynamic_slice) on dimension `axis`, every other dimension whole. The
/// window is [start, limit) by `stride` when the start is known (a slice, or
/// a dynamic_slice whose start is a constant, clamped as the op clamps it),
/// else the dynamic start value `start_value` and the size.
struct AxisWindow {
  int base = -1;
  int axis = -1;
  bool known = false;
  int64_t start = 0, limit = 0, stride = 1;
  int start_value = -1;
  int64_t size = 0;
  bool operator==(const AxisWindow&) const = default;
};

struct Dag {
  int func = -1;               ///< the function holding the gradient
  int grad = -1;               ///< the gradient value
  std::vector<DagOutput> outputs;
  std::vector<Reduction> reductions;
  int producer = -1;           ///< the contraction whose result `grad` is (directly or transposed)
  int tied_at = -1;            ///< an op summing a second contraction into the gradient (element-wise)
  int tied_with = -1;          ///< ... that contraction (op id), not a token-slice split of the producer
  /// ... and how its operands relate to the producer's: the producer's own
  /// (the same values, or the same token windows of the same X and dY:
  /// same_operands), so the same product is summed twice; token windows of
  /// the same X and dY that overlap the producer's without being equal
  /// (overlapping_windows: the tokens of both are counted twice, so it is no
  /// partition of K); or other operands.
  /// The contraction it is compared with is the producer, or a split-K
  /// partner of it whose tokens it repeats (`tied_of`).
  /// Unseen: it reads (or slices) an argument of a helper that several
  /// ops call (`tied_unseen`, a function index), which is no one value, so
  /// how its operands relate to the producer's is not known.
  enum class Tied { Other, Same, Overlapping, Unseen };
  Tied tied_operands = Tied::Other;
  int tied_of = -1;
  int tied_unseen = -1;
  AxisWindow of_window, tied_window;  ///< Tied::Overlapping: tied_of's token window, then tied_with's
  /// Split-K written out: the contractions (op ids) summed element-wise into
  /// the gradient that contract token-axis slices of the same X and dY as
  /// the producer (split_partner), and the first op summing one in. They
  /// are one contraction over K in partial sums, not a second producer.
  std::vector<int> split_partners;
  int split_at = -1;
  /// A later contraction (op id) accumulating into a value computed from
  /// the gradient (its init): the gradient is a partial sum of a chain
  /// through the accumulator's init, not W's gradient (ir/init_chain.h).
  int init_of = -1;
  /// Another contraction (op id) whose result reaches a result of the step
  /// that reads the gradient, by a path other than a sum into the gradient
  /// (a product with it, a norm of it, ...): fusecert does not decide what
  /// such a step produces, so the candidate is inconclusive.
  int other_contraction = -1;
  int other_output = -1;       ///< ... the result number it reaches
  bool other_reduced = false;  ///< ... and every path from it crossed a reduction
  /// Contractions other than the producer in the factor that a norm of the
  /// gradient scales it by (global-norm clipping over several layers: the
  /// norm sums every layer's squares). One reaching the updated values only
  /// so, every path through a reduction, is part of that norm (P2's), not a
  /// second producer, and is not `other_contraction` while the norm is P2's.
  std::vector<int> norm_contractions;
  int weight = -1;             ///< W: a function argument the step returns as W + u
  int weight_result = -1;      ///< the result number of the updated W
  int update_op = -1;          ///< the op computing the updated W (or the first output's)
  std::string problem;         ///< non-empty: the analysis could not follow (fail closed)
  Loc problem_loc;
  const Reduction* reduction(int op) const;
};

/// `v` as a window of a larger value along one axis (by its defining op's
/// table role), or nullopt: not a slice, a slice along several axes, or a
/// slice that takes a whole dimension everywhere.
std::optional<AxisWindow> axis_window(const Module& m, int v);

/// The window along its contracting axis of an operand of contraction `op`
/// (a token-axis slice of X or dY: axis_window on that axis), or nullopt.
/// A contraction over one reduces part of K, whatever its attributes say.
std::optional<AxisWindow> token_window(const Module& m, int op);

/// Whether contraction `other` is the producer's contraction over another
/// part of the same K: each of the two contracts, on each side, a window
/// along its one contracting axis of the same base value as the other's
/// (X of X, dY of dY), with equal token windows on its two sides (the same
/// tokens of X and dY), and the two windows differ without sharing a token
/// when both are known (stablehlo.slice / dynamic_slice semantics). Two
/// contractions over other operands are not, nor two over overlapping windows
/// (overlapping_windows).
bool split_partner(const Module& m, int producer, int other);

/// Whether contraction `other` contracts, like `producer`, a window of the
/// same X and dY along the same axes (as split_partner), known windows that
/// differ and share a token: the producer's window, then the other's.
/// Their sum counts the shared tokens twice: it is no split of one K.
std::optional<std::pair<AxisWindow, AxisWindow>> overlapping_windows(const Module& m, int producer, int other);

/// `v`, or, when `v` is an argument of a function that exactly one op of the
/// module calls, that call's operand in its place (repeatedly: a helper's
/// helper). An argument of a function called from several places, or from
/// none (the entry), stays itself: it is no one value, so nothing is read
/// through it (fail closed). Windows and same-operand tests see through it.
int through_one_call(const Module& m, int v);

/// When `v`'s one use is the top-level return of a function that exactly
/// one op calls, that call's result standing for it; else -1.
int returned_to_caller(const Module& m, int v);

/// When `v`'s one use is the top-level return of a function that two or
/// more ops call, that function (index); else -1. Each call computes a value
/// of its own, which one SSA value in the helper does not tell apart.
int returned_to_several(const Module& m, int v);

/// The function (index) with two or more call sites one of whose
/// arguments `op` reads, directly, through through_one_call, or as the base
/// of an axis_window; -1 when none.
int shared_helper(const Module& m, const Op& op);

/// Whether contraction `other` reads the same inputs as `producer`: the
/// same values in order, or, operand by operand, the same window
/// (axis_window: base, axis, start, limit, stride) of the same value.
bool same_operands(const Module& m, int producer, int other);

/// Analyses the step function holding `grad` (a value of function `func`).
/// Never throws on hostile input: what it cannot follow is `problem`.
Dag analyze_dag(const Module& m, int func, int grad);

/// Whether `value` is computed from `source`, directly or not (through the
/// operands of the ops defining it, within its function).
bool depends_on(const Module& m, int value, int source);

/// The printed form of an affine map, "(d0, d1, d2) -> (d1, d2)".
std::string to_text(const AffineMap& m);

}  // namespace fusecert::ir
