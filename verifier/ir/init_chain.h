// Contractions chained through the accumulator's initial value (issue #16:
// "the producer is the set of contractions that sum into W's gradient;
// fusion is legal only when that set is one contraction, or a chain of
// contractions through the accumulator's initial value, taken in order").
// A contraction C += A·B reads its init (outs) at every point of its K
// loop: when that init is an earlier contraction's result, the two are
// one sum taken in order, and only the last link's result is W's gradient.
#pragma once
#include <string>
#include <vector>

#include "verifier/ir/model.h"

namespace fusecert::ir {

/// A contraction: a table op of role contraction, or a linalg op (named or
/// generic) with a reduction loop over two or more inputs.
bool is_contraction(const Op& op);

/// The chain ending at contraction `producer`: the earlier links, in order
/// (the first one's init is no contraction's result), then `producer`.
/// `other`, when given, is set to a contraction the first link's init is
/// computed from other than as a link (an init summing two contractions,
/// a scaled contraction), or -1: such an init is no chain.
std::vector<int> init_chain(const Module& m, int producer, int* other = nullptr);

/// "A at L -> B at L -> C at L": the links of a chain, in order.
std::string chain_text(const Module& m, const std::vector<int>& links);

}  // namespace fusecert::ir
