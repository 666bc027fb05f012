// The production VerdictOracle: fusecert's prover (verifier/prover.h). The
// verdict of each id comes from Z3 (prove() with witnesses off), never from
// the registry's expected verdict.
#pragma once
#include "docaudit/verdicts.h"

namespace fusecert::docaudit {

class ProverVerdicts : public VerdictOracle {
 public:
  /// Loads the proposition registry (rules/propositions.yaml) lazily, on the
  /// first establish(); a registry that cannot be loaded is a ConfigError.
  std::map<std::string, OracleAnswer> establish(const std::set<std::string>& ids) override;
};

}  // namespace fusecert::docaudit
