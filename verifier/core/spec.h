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

struct PropositionSpec {
  std::string id, title, statement, assessment_wording;
  Verdict expected = Verdict::Inconclusive;
  std::vector<std::string> assumptions;
  std::map<std::string, Param> params;          ///< symbolic + witness parameters
  std::string witness_protocol;
  std::vector<FigureSpec> figures;
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
/// file and the key on any missing or ill-typed entry (fail closed).
Registry load_registry(const std::filesystem::path& dir = rules_dir());

/// Parses "name=value" into (name, Param). Throws std::invalid_argument for a
/// missing '=', an empty name, or a value that is not a finite number.
std::pair<std::string, Param> parse_param_assignment(const std::string& text);

}  // namespace fusecert::verifier
