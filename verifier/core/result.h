// The result structure every proposition encoder fills and every renderer
// (text, JSON, certificate) reads. Source of the contract: issue #2 and
// ../shared/spec/propositions.md.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verifier/smt/answer.h"
#include "verifier/smt/query.h"

namespace fusecert::verifier {

/// The verdict vocabulary. `Inconclusive` whenever a deciding query timed
/// out, answered unknown or failed — never silently promoted.
enum class Verdict { Holds, Refuted, Conditional, Inconclusive };
std::string to_string(Verdict v);
/// "holds" | "refuted" | "conditional" | "inconclusive"; nullopt otherwise.
std::optional<Verdict> parse_verdict(const std::string& s);

/// What an obligation's answer covers (issue #19), stated with every result
/// in the manner of Alive2's approximation disclosure: the theory it is
/// decided in, what ranges over every value, what is fixed to one value, and
/// whether it holds by construction of the encoding.
struct Scope {
  std::string theory;    ///< "reals", "binary32", "bf16", "integers", ...
  std::string symbolic;  ///< what the answer covers for every value (e.g. "tile sizes T, S")
  std::string fixed;     ///< what is fixed to one value ("K unrolled to 4; beta1 = 0.9"); "" = nothing
  /// Empty for evidence. Otherwise why the answer follows from the encoding
  /// itself (congruence, a goal that is false, a definition restated): a
  /// sanity check of the encoding, never evidence for the verdict.
  std::string definitional;
  bool evidence() const { return definitional.empty(); }
};

/// One SMT obligation: the query text, the answer that supports the
/// assessment's reading, and the answer the solver gave.
struct Obligation {
  std::string id;           ///< e.g. "P1.tiling.binary32"
  std::string claim;        ///< what the expected answer establishes
  Scope scope;              ///< what the answer covers, and whether it is evidence
  std::string smt2;         ///< the exact SMT-LIB2 text solved
  smt::Answer expected = smt::Answer::Unsat;
  smt::Answer answer = smt::Answer::Error;
  double time_ms = 0;
  std::string reason;       ///< solver's reason for unknown / error text
  std::vector<smt::ModelValue> model;  ///< satisfying assignment (sat only)
  bool cached = false;
  /// Non-vacuity (verifier/smt): the answer to the premises alone, for an
  /// unsat result only; unsat proves the claim only when this is sat.
  std::optional<smt::Answer> premises;
  std::string premises_reason;  ///< why the premise check was not sat
  /// sat, or unsat with satisfiable premises.
  bool decided() const { return answer == smt::Answer::Sat || (answer == smt::Answer::Unsat && premises == smt::Answer::Sat); }
  /// Decided, and the answer is the expected one.
  bool as_expected() const { return decided() && answer == expected; }
};

/// A concrete counterexample: the model of a sat obligation, and what
/// evaluating it back in C++ showed (each entry "name" → "value").
struct Counterexample {
  std::string obligation;   ///< id of the sat obligation it came from
  std::string summary;      ///< one line: what the values break
  std::vector<smt::ModelValue> values;
  std::vector<std::pair<std::string, std::string>> replay;  ///< C++ evaluation
  bool replay_confirms = false;  ///< the C++ evaluation violates the claim too
};

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
