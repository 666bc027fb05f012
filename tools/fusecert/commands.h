// Subcommand registration. Each subcommand lives in its own cmd_*.cpp and
// registers itself on the CLI11 app; `exit_code` receives its result, from
// the one exit-code table (support/diag/exit_code.h), which every --help
// prints.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "support/diag/diagnostic.h"
#include "support/diag/file_diagnostics.h"
#include "support/diag/exit_code.h"

namespace fusecert::cli {

/// Prints `d` to stderr through the diagnostic engine; a diagnostic about no
/// file names `tool` ("fusecert certify") where a compiler names itself.
void report(const std::string& tool, const diag::Diagnostic& d);
/// A usage error: prints `tool: error: message [usage]` and returns the exit
/// code of `why` (default: usage or input error).
int fail(const std::string& tool, const std::string& message, diag::Exit why = diag::Exit::InputError);
/// As fail, with another rule id (rules/catalog.yaml): `tool: error: message [rule]`.
int fail_with(const std::string& tool, const std::string& rule, const std::string& message,
              diag::Exit why = diag::Exit::InputError);
/// `path: error: cannot read: CAUSE [input.unreadable]` for the error `e`
/// met reading `path`; returns 2.
int fail_unreadable(const std::string& tool, const std::string& path, const std::exception& e);
/// `path: error: cannot write: CAUSE [output.unwritable]`; returns 2.
int fail_unwritable(const std::string& tool, const std::string& path, const std::exception& e);
/// The same when only the error knows the file (support::FileError names
/// it: a temporary, a folder): at the path its text starts with, else at
/// `fallback`; returns 2.
int fail_unwritable_at(const std::string& tool, const std::exception& e, const std::string& fallback);
/// An input error at a place in a file: `FILE:LINE:COL: error: MESSAGE
/// [RULE]` (diag::located); returns 2.
int fail_located(const std::string& tool, const diag::Location& at, const std::string& rule,
                 const std::string& message);
/// The same from a library's error text that names `file` itself
/// (`FILE:LINE:COL: …`; diag::located_text); returns 2.
int fail_located_text(const std::string& tool, const std::string& file, const std::string& rule,
                      const std::string& text);

/// --dialect FILE.yaml, repeatable (dialect_option.cpp).
void add_dialect_option(CLI::App* cmd, std::vector<std::string>& files);
/// Puts every --dialect table in force; 0, or the exit code of the error it
/// printed (a table that does not load is an input error).
int load_dialects(const std::string& tool, const std::vector<std::string>& files);

/// --assume KEY=VALUE, repeatable (assume_option.cpp).
void add_assume_option(CLI::App* cmd, std::vector<std::string>& kvs);
/// Puts every --assume in force, then the `ir.assume:` entries of the
/// .fusecert.yaml of the repository holding `start` (the first input; empty:
/// the current folder) for the keys not given; 0, or the exit code of the
/// error it printed (an unknown key or value is a usage error, in the file
/// at its line and column).
int load_assumptions(const std::string& tool, const std::vector<std::string>& kvs, const std::string& start);

/// Puts the exit-code table at the end of `cmd`'s --help.
CLI::App* with_exit_codes(CLI::App* cmd);

void add_prove_command(CLI::App& app, int& exit_code);
/// `fusecert docs`: the audit-document linter (docaudit/, tools/fusecert/cmd_docs.cpp).
void add_docs_command(CLI::App& app, int& exit_code);
void add_kernels_command(CLI::App& app, int& exit_code);
/// `fusecert certify` / `fusecert check-cert`: IR checking and legality
/// certificates (verifier/ir, verifier/guards, verifier/cert).
void add_certify_command(CLI::App& app, int& exit_code);
void add_check_cert_command(CLI::App& app, int& exit_code);
/// `fusecert shell` and `fusecert query`: the proof shell (shell/, cmd_shell.cpp).
void add_shell_command(CLI::App& app, int& exit_code);
/// `fusecert hook install|uninstall`: the git pre-commit hook (cmd_hook.cpp).
void add_hook_command(CLI::App& app, int& exit_code);
/// `fusecert validate`: translation validation of fusion rewrites (verifier/tv, cmd_validate.cpp).
void add_validate_command(CLI::App& app, int& exit_code);

}  // namespace fusecert::cli
