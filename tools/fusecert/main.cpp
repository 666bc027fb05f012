// fusecert: one binary, subcommands registered from cmd_*.cpp.
#include <iostream>

#include "tools/fusecert/commands.h"
#include "tools/fusecert/help_format.h"
#include "tools/fusecert/terminal.h"
#include "tools/fusecert/version.h"

int main(int argc, char** argv) {
  // Named, not argv[0]: the usage lines (and the man page made from them) say `fusecert`.
  CLI::App app{"fusecert — static verifier for optimizer-into-wgrad epilogue fusion", "fusecert"};
  app.formatter(fusecert::cli::help_formatter());  // before the subcommands: they copy it
  app.require_subcommand(1);
  int exit_code = 0;
  fusecert::cli::add_prove_command(app, exit_code);
  fusecert::cli::add_docs_command(app, exit_code);
  fusecert::cli::add_kernels_command(app, exit_code);
  fusecert::cli::add_certify_command(app, exit_code);
  fusecert::cli::add_check_cert_command(app, exit_code);
  fusecert::cli::add_shell_command(app, exit_code);
  fusecert::cli::add_hook_command(app, exit_code);
  fusecert::cli::add_validate_command(app, exit_code);
  fusecert::cli::add_version_flags(app);
  fusecert::cli::terminal::add_color_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}
