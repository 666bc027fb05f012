// Subcommand registration. Each subcommand lives in its own cmd_*.cpp and
// registers itself on the CLI11 app; `exit_code` receives its result
// (0 success, 1 findings / mismatch, 2 usage, configuration or inconclusive).
#pragma once
#include <CLI/CLI.hpp>

namespace fusecert::cli {

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
