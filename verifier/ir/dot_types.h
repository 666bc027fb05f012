// The typed check of contractions with dimension numbers (stablehlo's
// dot_general, issue #21): their dimension numbers must agree with the
// operand and result types, on every such op of the module. StableHLO ops
// are unregistered in MLIR 19, so MLIR's verifier never saw them; an
// ill-typed dot_general is malformed input wherever it is (the forward dot
// as much as the weight gradient), never "not a weight-gradient producer".
#pragma once
#include <vector>

#include "verifier/ir/model.h"

namespace fusecert::ir {

/// One `input.dot_dims` error per contraction (an op whose dialect-table
/// entry has role contraction and a key of kind dot-dims) whose dimension
/// numbers parse but contradict its types: a dimension out of range or named
/// twice, unpaired batching or contracting lists, extents that differ, a
/// result other than batch x lhs free x rhs free, or an operand count other
/// than two and one result. Dimension numbers that do not parse are the
/// attribute boundary's (input.attr.kind), not repeated here.
std::vector<diag::Diagnostic> dot_type_diags(const Module& m);

}  // namespace fusecert::ir
