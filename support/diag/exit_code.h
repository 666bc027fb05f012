// The exit-code table of every fusecert subcommand, defined once: the CLI
// returns these, every --help prints kExitCodeTable, docs/diagnostics.md
// quotes it, and tests/cli checks each subcommand against it.
#pragma once
#include <string>

namespace fusecert::diag {

enum class Exit : int {
  Clean = 0,         ///< clean, legal, equivalent, every verdict as expected
  Findings = 1,      ///< findings, illegal, not equivalent, a verdict other than expected, an invalid certificate
  InputError = 2,    ///< usage, configuration or input error (nothing was decided)
  Inconclusive = 3,  ///< a solver timeout / unknown, or a fact neither shown nor assumed
  NotVerified = 4,   ///< check-cert only: consistent, but not re-derived from the input (no --ir)
};

inline constexpr int code(Exit e) { return static_cast<int>(e); }

/// The outcome of several results: an input error outranks findings, which
/// outrank inconclusive, which outranks not verified, which outranks clean.
Exit worse(Exit a, Exit b);

/// The table as --help prints it (trailing newline included).
extern const char* const kExitCodeTable;

}  // namespace fusecert::diag
