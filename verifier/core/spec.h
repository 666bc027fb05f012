// Proposition metadata loaded at run time from rules/propositions.yaml:
// statements, expected verdicts, the assessment's wording, parameters and
// witness protocol figures. The encoders live in verifier/props/.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "verifier/core/result.h"

namespace fusecert::verifier {

/// Rules file missing, unreadable, or missing a required key.
struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A parameter: its numeric value and the text it was written as (so real
/// constants can be written exactly, "0.37" rather than 0.369999...).
struct Param {
  double value = 0;
  std::string text;
  std::string meaning;
};

/// The range a witness figure must fall in (at default parameters).
struct FigureSpec {
  std::string name, meaning;
  std::optional<double> lo, hi, quoted;
};

/// One case of a verdict rule: the answer every obligation needs, and the
/// verdict those answers mean.
struct VerdictCase {
  Verdict verdict = Verdict::Inconclusive;
  std::map<std::string, smt::Answer> answers;  ///< every obligation of the rule: sat or unsat
  std::string counterexample;  ///< obligation whose model must be replayed and confirmed ("" = none)
  std::string note;            ///< reported with the verdict when this case decides it
};

/// A proposition's complete verdict rule (rules/propositions.yaml keys
/// `obligations` and `verdict_rule`). Answers matching no case are
/// inconclusive: there is no fallback verdict.
struct VerdictRule {
  /// Every obligation the encoder discharges, in order, with the answer that
  /// supports the assessment's reading.
  std::vector<std::pair<std::string, smt::Answer>> obligations;
  /// Sanity checks (rules key `sanity_checks`, issue #19): obligations that
  /// hold by construction of the encoding (congruence, a definition
  /// restated), with the answer they must give. They are not evidence: no case
  /// names them, so they can never make a verdict; one that is undecided or
  /// answers otherwise makes the verdict inconclusive (the encoding is broken).
  std::vector<std::pair<std::string, smt::Answer>> sanity;
  std::vector<VerdictCase> cases;
  /// The expected answer of obligation or sanity check `id`; nullptr if the rule has neither.
  const smt::Answer* expected_answer(const std::string& id) const;
  bool is_sanity(const std::string& id) const;
};

struct PropositionSpec {
  std::string id, title, statement, assessment_wording;
  Verdict expected = Verdict::Inconclusive;
  std::vector<std::string> assumptions;
  std::map<std::string, Param> params;          ///< symbolic + witness parameters
  std::string witness_protocol;
  std::vector<FigureSpec> figures;
  VerdictRule rule;
};

struct Registry {
  std::vector<PropositionSpec> propositions;    ///< in file order
  std::string sha256;                           ///< of the rules file bytes
  std::filesystem::path path;
  const PropositionSpec* find(const std::string& id) const;
};

/// Folder holding the rules (support::rules_dir(): $FUSECERT_RULES_DIR, the
/// source tree's rules/ for a build-tree binary, else <exe>/../share/fusecert/rules).
std::filesystem::path rules_dir();

/// Loads and validates `dir`/propositions.yaml. Throws SpecError naming the
/// file and the key on any missing or ill-typed entry (fail closed), and on a
/// verdict rule that is not complete: a case that names an obligation outside
/// the rule or leaves one out, an answer other than sat/unsat, two cases with
/// the same answers, a counterexample that is not a sat obligation of its
/// case, or no case for the expected answers giving the expected verdict.
Registry load_registry(const std::filesystem::path& dir = rules_dir());

/// Parses "name=value" into (name, Param). Throws std::invalid_argument for a
/// missing '=', an empty name, or a value that is not a finite number.
std::pair<std::string, Param> parse_param_assignment(const std::string& text);

}  // namespace fusecert::verifier
