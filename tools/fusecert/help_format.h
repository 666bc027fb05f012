// The `--help` layout of every fusecert (sub)command: CLI11's, except that the
// usage line leaves out hidden positionals (an empty group), which CLI11 2.1
// prints as `[]` (`fusecert kernels [OPTIONS] [] SUBCOMMAND`).
#pragma once
#include <CLI/CLI.hpp>
#include <memory>

namespace fusecert::cli {

/// Set on the top-level app before subcommands are added: they copy it.
std::shared_ptr<CLI::Formatter> help_formatter();

}  // namespace fusecert::cli
