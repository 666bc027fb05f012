// The production VerdictOracle: fusecert's prover (verifier/prover.h). The
// verdict of each question comes from Z3 (prove() with witnesses off), never
// from the registry's expected verdict.
#pragma once
#include <vector>

#include "docaudit/verdicts.h"

namespace fusecert::docaudit {

class ProverVerdicts : public VerdictOracle {
 public:
  /// `use_embedded`: answer a question at the default parameters from the
  /// verdicts proved at build time (embedded_verdicts.h) when the loaded
  /// registry's SHA-256 and the linked Z3's version are the build's; prove
  /// the rest. False: prove everything. `timeout_ms`: per query, as `prove
  /// --timeout-ms` (0 = no limit); a query that runs out is inconclusive.
  explicit ProverVerdicts(bool use_embedded = true, unsigned timeout_ms = 20000)
      : use_embedded_(use_embedded), timeout_ms_(timeout_ms) {}
  /// Questions answered from the build's verdicts / proved by this run, so
  /// far. A question is proved once however many rows ask it, and a
  /// parameter given at its default value asks the default question.
  std::size_t embedded_used() const { return embedded_used_; }
  std::size_t proved() const { return proved_.size(); }
  /// The questions proved, in the order they were proved (each with the
  /// parameters that differ from the defaults).
  const std::vector<Question>& proved_questions() const { return proved_; }
  /// Loads the proposition registry (rules/propositions.yaml) on each call;
  /// a registry that cannot be loaded is a ConfigError. For a question with
  /// parameters: each name must be a parameter of that proposition and each
  /// value a finite number within the parameter's meaning (the encoder's
  /// range), else the answer carries `param_error` and nothing is proved.
  /// Only the proposition asked is proved, with only the parameters asked.
  std::map<Question, OracleAnswer> establish(const std::set<Question>& questions) override;

 private:
  bool use_embedded_;
  unsigned timeout_ms_;
  std::size_t embedded_used_ = 0;
  std::vector<Question> proved_;
};

}  // namespace fusecert::docaudit
