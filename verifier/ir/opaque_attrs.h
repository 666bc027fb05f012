// A small grammar for the opaque attributes of StableHLO in generic form
// (issue #21). MLIR 19 has no StableHLO dialect, so `#stablehlo.dot<...>`
// and `#stablehlo<precision DEFAULT>` reach fusecert as OpaqueAttr: a
// dialect namespace and a string. This grammar reads the few forms the
// dialect table names and fails closed on anything else (an unknown field,
// a repeated field, a negative or non-decimal dimension, trailing text, an
// unknown enumerator): never a default, never "no dimensions".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/model.h"

namespace fusecert::ir {

/// #stablehlo.dot<lhs_batching_dimensions = [..], rhs_batching_dimensions = [..],
///                lhs_contracting_dimensions = [..], rhs_contracting_dimensions = [..]>
/// (each field optional, at most once; an absent one is empty, as in the
/// StableHLO specification).
struct DotDimensions {
  std::vector<int64_t> lhs_batching, rhs_batching, lhs_contracting, rhs_contracting;
};

/// Reads a dot_dimension_numbers attribute; on failure returns nullopt and
/// says why in `why`.
std::optional<DotDimensions> parse_dot_dimensions(const Attr& a, std::string& why);

/// Reads `#stablehlo<KEYWORD VALUE>` (precision, comparison_direction,
/// comparison_type) with VALUE one of `allowed`; nullopt and `why` otherwise.
std::optional<std::string> parse_enum_attr(const Attr& a, const std::string& keyword,
                                           const std::vector<std::string>& allowed, std::string& why);

/// The enumerators fusecert reads (the StableHLO specification's).
const std::vector<std::string>& precision_values();             // DEFAULT, HIGH, HIGHEST
const std::vector<std::string>& comparison_direction_values();  // EQ, NE, GE, GT, LE, LT
const std::vector<std::string>& comparison_type_values();       // NOTYPE, FLOAT, TOTALORDER, SIGNED, UNSIGNED

/// Where a dot_general's dimension numbers contradict its operand and result
/// types (a dimension out of range or repeated, contracting or batching
/// extents that differ, a result shape other than batch, lhs free, rhs free):
/// the reason, or empty when they agree. StableHLO ops are unregistered, so
/// MLIR's verifier never saw them.
std::string dot_dimensions_problem(const DotDimensions& d, const Type& lhs, const Type& rhs, const Type& result);

}  // namespace fusecert::ir
