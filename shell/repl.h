// Front ends of the shell: the interactive loop (libedit: line editing,
// history, tab completion) and the line-by-line script runner used when
// standard input is not a terminal.
#pragma once
#include <iosfwd>
#include <optional>
#include <string>

#include "shell/session.h"

namespace fusecert::shell {

struct ReplOptions {
  std::string history_file;  ///< "" = no history file (history still works in-session)
  std::string banner;        ///< printed once at start
};

/// Reads commands with libedit until `quit` or Ctrl-D on an empty line;
/// prints each reply. Returns 0.
int run_repl(Session& s, const ReplOptions& opt);

/// Runs one command per line of `in` (a `solve` whose parentheses are open
/// continues on the next lines); answers go to `out`, errors to `err`.
/// Returns the highest status of any command (0 all answered).
int run_script(Session& s, std::istream& in, std::ostream& out, std::ostream& err);

/// Why the history file `path` may be neither read nor written (a symbolic
/// link, a FIFO, a folder: the history never follows or truncates one), or
/// nullopt (a regular file, or none yet).
std::optional<std::string> history_refusal(const std::string& path);

/// Writes the session's history to `path` through a new file renamed into
/// place; false with `err` set when refused (history_refusal) or failed.
bool save_history_file(const std::string& path, std::string& err);

/// The history file to use: $FUSECERT_HISTORY, else $HOME/.fusecert_history,
/// else "" (none).
std::string default_history_file();

}  // namespace fusecert::shell
