// Bounds on a module's text, checked before MLIR's parser sees it. MLIR's
// parser is recursive descent and its attribute / affine-expression
// builders are recursive too, so a hostile module of a few hundred KB can
// exhaust the stack or run for minutes; these checks are linear scans that
// refuse such input with a located diagnostic instead (fail closed).
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "verifier/ir/model.h"

namespace fusecert::ir {

/// Deepest real nesting MLIR's parser is handed: open brackets ( [ { < plus,
/// inside an affine_map / affine_set, the operators of the expression being
/// parsed (each unary `-` and each `+ - * floordiv ceildiv mod` in a chain
/// is one more level of parser recursion and one more level of the
/// AffineExpr tree). Real modules nest < 20 levels.
inline constexpr int kMaxNesting = 256;

/// Longest numeric literal (a token that starts with a digit: integers,
/// floats, hex) in characters. APInt / APFloat parsing is super-linear in
/// the digit count (a 30,000-digit integer hung certify, a 100,000-digit
/// float crashed it); no real constant needs more than a few dozen.
inline constexpr std::size_t kMaxLiteralChars = 1000;

/// The first bound `text` breaks, as an error diagnostic located in
/// `filename`: ill-formed UTF-8, nesting deeper than kMaxNesting, a literal
/// longer than kMaxLiteralChars, more than kMaxInputBytes, or no text at all.
/// nullopt when the text is within every bound.
std::optional<diag::Diagnostic> check_input_bounds(const std::string& text, const std::string& filename);

}  // namespace fusecert::ir
