// What a scalar op computes (issue #15): set once, by the MLIR front end
// from MLIR's typed ops (isa<arith::AddFOp>, isa<math::SqrtOp>, ...) for
// upstream ops, and by a dialect table's `computes:` for the ops of an
// unregistered dialect (stablehlo.add). Decision code (candidates,
// dependence, recognition, the translation validator) reads only this,
// never an op's name: a custom op named like "arith.addf" computes nothing
// fusecert knows (Unknown), whatever its name says.
#pragma once
#include <optional>
#include <string>

namespace fusecert::ir {

enum class ScalarFn {
  Unknown,  ///< an op fusecert has no scalar semantics for
  Add,      ///< x + y (arith.addf, stablehlo.add)
  Sub,      ///< x − y
  Mul,      ///< x · y
  Div,      ///< x / y
  Neg,      ///< −x
  Max,      ///< maximum, NaN-propagating (arith.maximumf, stablehlo.maximum)
  Min,      ///< minimum, NaN-propagating
  MaxNum,   ///< maxNum: a NaN operand loses (arith.maxnumf)
  MinNum,   ///< minNum
  Sqrt,     ///< √x
  Rsqrt,    ///< 1/√x
  Convert,  ///< a float conversion (arith.extf, arith.truncf): the value, rounded to the result type
  And,      ///< bitwise / logical and
  Or,       ///< bitwise / logical or
  Xor,      ///< bitwise / logical xor
};

/// The table spelling (`computes: add`), also used in messages.
const char* to_string(ScalarFn f);
/// The ScalarFn a table spells `s`, or nullopt (Unknown is not a spelling).
std::optional<ScalarFn> scalar_fn_of(const std::string& s);
/// Every spelling, for a table error's note ("add, sub, ...").
std::string scalar_fn_spellings();

/// The result is the sum or difference of the operands (a second
/// contraction added to the gradient is a second producer).
inline bool sums(ScalarFn f) { return f == ScalarFn::Add || f == ScalarFn::Sub; }
/// As a reduce body: the same bits in any order of the partials
/// (associative, commutative and exact: max, min, and, or, xor).
inline bool exact_reduction(ScalarFn f) {
  return f == ScalarFn::Max || f == ScalarFn::Min || f == ScalarFn::MaxNum || f == ScalarFn::MinNum ||
         f == ScalarFn::And || f == ScalarFn::Or || f == ScalarFn::Xor;
}
/// As a reduce body: associative and commutative over the reals, rounded in
/// floating point (a float sum or product depends on the order of partials).
inline bool rounded_reduction(ScalarFn f) { return f == ScalarFn::Add || f == ScalarFn::Mul; }
/// A reduction fusecert models (exact or rounded).
inline bool is_reduction(ScalarFn f) { return exact_reduction(f) || rounded_reduction(f); }

}  // namespace fusecert::ir
