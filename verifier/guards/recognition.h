// Recognition is a remark (issue #16): after the verdict of a candidate is
// decided from the dependence facts, fusecert tries to prove that a
// linalg.generic consumer's body equals one of its reference updates
// (verifier/ir/recognize.h: AdamW, SGD, momentum over the reals, with the
// body's binary32 constants and the op's hyper-parameter attributes). A
// proof names the optimizer in a remark and in the report
// (`recognized_as`); anything else (refuted, undecided, no query) says
// nothing about legality. No guard reads it: check_candidate calls
// remark_recognition after guards::decide, and a test replaces the
// recogniser with one that always fails and finds every verdict unchanged.
#pragma once
#include <functional>
#include <string>

#include "verifier/guards/guards.h"
#include "verifier/ir/recognize.h"

namespace fusecert::guards {

/// ir::recognize's signature.
using Recogniser = std::function<ir::Recognition(const ir::Body&, int grad_arg, int num_inputs,
                                                 const std::function<const ir::Attr*(const std::string&)>& attr,
                                                 unsigned timeout_ms)>;

/// For tests only: replaces the recogniser (an empty function restores
/// ir::recognize). Not thread-safe against a running certify.
void set_recogniser(Recogniser r);

/// After `r.verdict` is decided: recognition of the consumer of `c`, as the
/// non-deciding obligation P1.consumer_is_optimizer, a remark when it is
/// proven (and the report's `recognized`, `roles`, `outputs`), and a
/// warning when the op's `optimizer` attribute disagrees with the body.
void remark_recognition(const ir::Module& m, const ir::Candidate& c, unsigned timeout_ms, const Facts& facts,
                        CandidateReport& r);

}  // namespace fusecert::guards
