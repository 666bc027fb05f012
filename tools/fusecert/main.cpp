// fusecert: one binary, subcommands registered from cmd_*.cpp.
#include <cstdio>
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
  int rc = exit_code;
  fusecert::cli::with_exit_codes(&app);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    fusecert::cli::with_exit_codes(sub);
    for (CLI::App* nested : sub->get_subcommands([](CLI::App*) { return true; })) fusecert::cli::with_exit_codes(nested);
  }
  try {
    app.parse(argc, argv);
    rc = exit_code;
  } catch (const CLI::ParseError& e) {
    // --help / --version print and give 0; a usage error prints CLI11's message
    rc = app.exit(e) == 0 ? 0 : fusecert::diag::code(fusecert::diag::Exit::InputError);
  }
  // A report that did not reach stdout (a full disk, /dev/full, a closed
  // pipe) is lost: exit 2, whatever the verdict was, never a silent 0.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    return fusecert::cli::fail("fusecert", "cannot write the report to standard output");
  }
  return rc;
}
