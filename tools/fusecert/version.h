// `fusecert --version` and `fusecert SUBCOMMAND --version`: the tool and the
// solvers and IR libraries its answers depend on.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace fusecert::cli {

/// "fusecert X.Y.Z" on the first line (help2man and scripts read it), then
/// Z3 (the linked library, run-time version), cvc5 (the binary on PATH that
/// `check-cert --solver cvc5` runs, or that none is found) and MLIR (the
/// libraries fusecert was built against).
std::string version_text();

/// The version line of the cvc5 on PATH ("1.0.3"), or empty when there is none
/// or it does not answer within a few seconds.
std::string cvc5_version();

/// Adds `--version` to `app` and to every subcommand below it (call after all
/// subcommands are registered).
void add_version_flags(CLI::App& app);

}  // namespace fusecert::cli
