// Fail closed on the kernels runner's output (`fusecert kernels evidence`,
// issue #13): a pass is a complete evidence document whose verdict agrees
// with the runner's exit status, nothing less. Missing, malformed or partial
// output, a verdict that disagrees with the exit status, a crash or an exit
// status outside the runner's table is an input error `[kernels.runner]`
// (exit 2), never the runner's 0.
#pragma once
#include <optional>
#include <string>

#include "support/diag/diagnostic.h"

namespace fusecert::cli::kernels {

/// How the runner ended and what it printed on stdout.
struct RunnerOutcome {
  bool ran = false;       ///< it was started and waited for
  int status = 0;         ///< its exit status, when it exited
  int signal = 0;         ///< the signal that ended it, or 0
  std::string out;        ///< its stdout (captured)
  std::string why;        ///< when !ran: why it could not be run
};

/// The rows the runner writes (kernels/tools/runner_main.cpp): 1..4, in order.
inline constexpr int kEvidenceRows = 4;

/// `kernels evidence --format FORMAT` (text or json): nullopt when `r` is a
/// complete evidence document of that format (every row 1..4 once, in order,
/// each PASS or FAIL, and the overall verdict their conjunction) whose
/// verdict is the exit status (0 all pass, 1 one failed); otherwise the
/// diagnostic `… error: … [kernels.runner]` (about no file: the
/// caller reports it under its subcommand's name).
std::optional<diag::Diagnostic> check_evidence(const std::string& format, const RunnerOutcome& r);

/// `kernels evidence --distributed`: nullopt when `r` exited 0 or 1 and
/// printed a JSON object with a boolean "passed"; otherwise the diagnostic.
/// A setup failure (exit 2) is reported too: the runner's own reason is on
/// its stderr and in its `{"error"}` document.
std::optional<diag::Diagnostic> check_distributed(const RunnerOutcome& r);

/// Any runner run that did not exit 0 or 1 (not started, a crash, a setup
/// failure, 127 = it could not be executed, an exit status outside the table): the diagnostic; else nullopt.
std::optional<diag::Diagnostic> check_ended(const RunnerOutcome& r);

}  // namespace fusecert::cli::kernels
