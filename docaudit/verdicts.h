// Where proposition verdicts come from: an oracle that establishes, for each
// proposition id a document's verdict table names, what the prover decides.
// The production oracle runs fusecert's prover (prover_verdicts.h); tests of
// the rule engine may supply their own.
#pragma once
#include <map>
#include <set>
#include <string>

namespace fusecert::docaudit {

enum class ProvedVerdict { Holds, Refuted, Conditional, Inconclusive };
std::string to_string(ProvedVerdict v);

struct OracleAnswer {
  bool known = false;                 ///< the registry knows the id and has an encoder
  ProvedVerdict verdict = ProvedVerdict::Inconclusive;
  std::string detail;                 ///< e.g. the prover's title for the id
};

class VerdictOracle {
 public:
  virtual ~VerdictOracle() = default;
  /// Answers every id in `ids` (unknown ids with known = false). Throws
  /// ConfigError when the registry itself cannot be loaded.
  virtual std::map<std::string, OracleAnswer> establish(const std::set<std::string>& ids) = 0;
};

}  // namespace fusecert::docaudit
