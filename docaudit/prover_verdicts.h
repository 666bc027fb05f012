// The production VerdictOracle: fusecert's prover (verifier/prover.h). The
// verdict of each id comes from Z3 (prove() with witnesses off), never from
// the registry's expected verdict.
#pragma once
#include "docaudit/verdicts.h"

namespace fusecert::docaudit {

class ProverVerdicts : public VerdictOracle {
 public:
  /// `use_embedded`: take the verdicts proved at build time
  /// (embedded_verdicts.h) when the loaded registry's SHA-256 and the linked
  /// Z3's version are the build's; prove the rest. False: prove everything.
  explicit ProverVerdicts(bool use_embedded = true) : use_embedded_(use_embedded) {}
  /// Ids answered from the build's verdicts / proved by this run, so far.
  std::size_t embedded_used() const { return embedded_used_; }
  std::size_t proved() const { return proved_; }
  /// Loads the proposition registry (rules/propositions.yaml) lazily, on the
  /// first establish(); a registry that cannot be loaded is a ConfigError.
  std::map<std::string, OracleAnswer> establish(const std::set<std::string>& ids) override;

 private:
  bool use_embedded_;
  std::size_t embedded_used_ = 0, proved_ = 0;
};

}  // namespace fusecert::docaudit
