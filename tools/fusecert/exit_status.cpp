// What every subcommand shares at its edge: a tool-level error through the
// diagnostic engine, and the exit-code table at the end of --help.
#include <iostream>

#include "support/diag/render.h"
#include "tools/fusecert/commands.h"

namespace fusecert::cli {

int fail(const std::string& tool, const std::string& message, diag::Exit why) {
  std::cerr << diag::TextRenderer({}, tool).render(diag::error({}, "", message));
  return diag::code(why);
}

CLI::App* with_exit_codes(CLI::App* cmd) {
  cmd->footer(diag::kExitCodeTable);
  return cmd;
}

}  // namespace fusecert::cli
