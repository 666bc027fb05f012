// Where proposition verdicts come from: an oracle that establishes, for each
// question a document's verdict tables ask (a proposition id at the
// parameters its row states, the defaults when it states none), what the
// prover decides. The production oracle runs fusecert's prover
// (prover_verdicts.h); tests of the rule engine may supply their own.
#pragma once
#include <compare>
#include <map>
#include <set>
#include <string>

namespace fusecert::docaudit {

enum class ProvedVerdict { Holds, Refuted, Conditional, Inconclusive };
std::string to_string(ProvedVerdict v);

/// What one verdict row asks of the prover: proposition `id` with the
/// parameters named in `params` (name → value as written) changed from the
/// registry's defaults; no parameters: the defaults.
struct Question {
  std::string id;
  std::map<std::string, std::string> params;
  auto operator<=>(const Question&) const = default;
};
/// "P2" or "P2 with beta1=0, beta2=0".
std::string to_string(const Question& q);

struct OracleAnswer {
  bool known = false;                 ///< the registry knows the id and has an encoder
  ProvedVerdict verdict = ProvedVerdict::Inconclusive;
  std::string detail;                 ///< e.g. the prover's title for the id
  /// Non-empty when the question's parameters were refused (a name the
  /// proposition does not have, a value outside its meaning): nothing was
  /// proved, and `verdict` is Inconclusive.
  std::string param_error;
};

class VerdictOracle {
 public:
  virtual ~VerdictOracle() = default;
  /// Answers every question in `questions` (unknown ids with known = false).
  /// Throws ConfigError when the registry itself cannot be loaded.
  virtual std::map<Question, OracleAnswer> establish(const std::set<Question>& questions) = 0;
};

}  // namespace fusecert::docaudit
