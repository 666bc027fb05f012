// Whether the IR shows a weight gradient to be per expert (issue #16: "Structure beats both: a
// grouped or expert-indexed weight gradient is conditional, whatever is assumed"). A routed
// expert's weight is updated only on the steps its tokens reach it, so the step's routing is
// conditional by the IR's own structure, whatever a `routing` attribute or `--assume routing=`
// says; the P5 guard then needs the unrouted reference (verifier/guards/routing.cpp).
// Decided from the ops' semantics (their typed windows, indexing maps and kinds), never from a
// name or an attribute:
//  - expert-indexed: the weight, its state, the gradient or an operand of the producer is one
//    matrix of a stack picked at a runtime index (a slice whose offset is an SSA value on a
//    dimension the slice drops: tensor.extract_slice / memref.subview; tensor.gather), or the
//    updated weight is written back into a stack at such an index (tensor.insert_slice);
//  - grouped: the producer contracts one product per group (a loop dimension that both inputs
//    and the result carry, linalg.batch_matmul_transpose_a or a generic of that shape), and the
//    groups are not partial sums of one K (split-K sums them; candidate.split_reduce).
// A tile of a tiled loop nest is a window at a runtime offset too, but it keeps every dimension:
// only a dropped (size-1) dimension picks one matrix of a stack.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/candidates.h"
#include "verifier/ir/model.h"

namespace fusecert::ir {

struct RoutedStructure {
  int op = -1;       ///< the op that shows it (the slice, the gather, or the grouped producer)
  std::string what;  ///< what it shows, for the diagnostic
};

/// The first op of candidate `c` that shows its weight gradient to be per expert, or nullopt.
/// `held`: W and its state (the consumer's inputs other than the gradient), as the facts know them.
std::optional<RoutedStructure> routed_structure(const Module& m, const Candidate& c, const std::vector<int>& held);

}  // namespace fusecert::ir
