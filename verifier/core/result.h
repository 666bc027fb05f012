// The result structure every proposition encoder fills and every renderer
// (text, JSON, certificate) reads. Source of the contract: issue #2 and
// ../shared/spec/propositions.md.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verifier/core/obligation.h"
#include "verifier/smt/answer.h"
#include "verifier/smt/query.h"

namespace fusecert::verifier {

/// The verdict vocabulary. `Inconclusive` whenever a deciding query timed
/// out, answered unknown or failed — never silently promoted.
enum class Verdict { Holds, Refuted, Conditional, Inconclusive };
std::string to_string(Verdict v);
/// "holds" | "refuted" | "conditional" | "inconclusive"; nullopt otherwise.
std::optional<Verdict> parse_verdict(const std::string& s);

// Scope, Obligation and Counterexample: verifier/core/obligation.h, the
// one obligation type both layers (propositions and candidates) share.

/// One numeric witness figure, from running the protocol in C++.
struct Figure {
  std::string name;
  double value = 0;
  std::optional<double> lo, hi;   ///< the range the assessment's figure implies
  std::optional<double> quoted;   ///< the figure the assessment quotes
  std::string meaning;
  bool range_applies = true;      ///< false when parameters were overridden
  bool in_range() const { return (!lo || value >= *lo) && (!hi || value <= *hi); }
};

struct Witness {
  std::string protocol;           ///< the protocol, in one paragraph
  std::vector<Figure> figures;
};

/// Everything `fusecert prove` reports for one proposition.
struct PropositionResult {
  std::string id, title, statement, assessment_wording;
  Verdict verdict = Verdict::Inconclusive;
  Verdict expected = Verdict::Inconclusive;
  std::vector<Obligation> obligations;
  std::optional<Counterexample> counterexample;
  std::optional<Witness> witness;
  std::vector<std::string> notes;       ///< honest remarks (e.g. what β₁ = 0 changes)
  std::map<std::string, std::string> params;  ///< effective parameters, as given
  bool params_overridden = false;
  double time_ms = 0;
  /// The verdict equals the expected one, every obligation is decided with
  /// its expected answer, a counterexample (if any) is confirmed by its C++
  /// replay, and every witness figure that applies is in range.
  bool matches_expected() const;
};

}  // namespace fusecert::verifier
