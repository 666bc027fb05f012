// fusecert: one binary, subcommands registered from cmd_*.cpp.
#include <iostream>

#include "tools/fusecert/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"fusecert — static verifier for optimizer-into-wgrad epilogue fusion"};
  app.require_subcommand(1);
  app.set_version_flag("--version", FUSECERT_VERSION);
  int exit_code = 0;
  fusecert::cli::add_prove_command(app, exit_code);
  fusecert::cli::add_docs_command(app, exit_code);
  fusecert::cli::add_kernels_command(app, exit_code);
  fusecert::cli::add_certify_command(app, exit_code);
  fusecert::cli::add_check_cert_command(app, exit_code);
  fusecert::cli::add_shell_command(app, exit_code);
  fusecert::cli::add_hook_command(app, exit_code);
  fusecert::cli::add_validate_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}
