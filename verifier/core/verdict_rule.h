// Applying a proposition's verdict rule (PropositionSpec::rule, kept as data
// in rules/propositions.yaml, issue #14) to the answers its encoder got.
#pragma once
#include "verifier/core/result.h"
#include "verifier/core/spec.h"

namespace fusecert::verifier {

/// Decides `out.verdict` from `out.obligations` by `spec.rule`, and adds a
/// note saying why whenever the verdict is inconclusive:
///  - an obligation that is not decided (timeout, unknown, error, or an unsat
///    answer whose premises are not sat: "vacuous");
///  - answers that match no case of the rule (sanity checks are not part
///    of any case: they never decide a verdict);
///  - a sanity check that answers otherwise than it must (a broken encoding);
///  - a counterexample its C++ replay does not confirm, or a case that rests
///    on a counterexample the encoder did not replay.
/// Throws SpecError when the encoder's obligations are not exactly the rule's
/// (one outside the rule, one missing, or a different expected answer): the
/// rules file and the encoder disagree, and no verdict is read from them.
void apply_verdict_rule(const PropositionSpec& spec, PropositionResult& out);

}  // namespace fusecert::verifier
