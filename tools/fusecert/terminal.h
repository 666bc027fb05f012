// What fusecert does differently on a terminal: colour and the progress line.
//
// Colour: `--color=auto|always|never` on every (sub)command (default auto).
// auto colours a stream that is a terminal (not TERM=dumb), unless NO_COLOR is
// set and not empty (https://no-color.org); always and never override both.
// Only the severity of a diagnostic is coloured (`error:` red, `warning:`
// magenta, `note:` cyan, `remark:` green) and its `file:line:col:` bold;
// stdout is coloured only when the command writes text there (never JSON or
// SARIF, whatever --color says), and never in the interactive shell.
//
// Progress (progress.h) draws one line on stderr when stderr is a terminal;
// the line filters installed here erase it before any other output reaches
// the terminal, so findings and the progress line never mix.
#pragma once
#include <CLI/CLI.hpp>
#include <mutex>
#include <string>

namespace fusecert::cli::terminal {

/// Adds --color to `app` and every subcommand (after all are registered) and
/// arranges for setup() to run once parsing is done, before the command.
void add_color_options(CLI::App& app);

/// `text` with the diagnostic severities coloured (ANSI SGR); exposed for tests.
std::string colourize(const std::string& text);

/// The terminal lock shared with the progress line: whoever holds it may write
/// to the terminal. `progress_shown` is true while a progress line is drawn.
std::mutex& lock();
extern bool progress_shown;
/// Erases the progress line if one is drawn (call with lock() held).
void erase_progress_line();

}  // namespace fusecert::cli::terminal
