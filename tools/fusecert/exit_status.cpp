// What every subcommand shares at its edge: its diagnostics through the one
// engine (a diagnostic about no file is prefixed with the subcommand's name:
// `fusecert certify: error: … [usage]`), and the exit-code table at the end
// of --help.
#include <iostream>

#include "support/diag/render.h"
#include "tools/fusecert/commands.h"

namespace fusecert::cli {

void report(const std::string& tool, const diag::Diagnostic& d) {
  std::cerr << diag::TextRenderer({}, tool).render(d);
}

int fail_with(const std::string& tool, const std::string& rule, const std::string& message, diag::Exit why) {
  report(tool, diag::error({}, rule, message));
  return diag::code(why);
}

int fail(const std::string& tool, const std::string& message, diag::Exit why) {
  return fail_with(tool, "usage", message, why);
}

int fail_unreadable(const std::string& tool, const std::string& path, const std::exception& e) {
  report(tool, diag::unreadable(path, e.what()));
  return diag::code(diag::Exit::InputError);
}

int fail_unwritable(const std::string& tool, const std::string& path, const std::exception& e) {
  report(tool, diag::unwritable(path, e.what()));
  return diag::code(diag::Exit::InputError);
}

int fail_unwritable_at(const std::string& tool, const std::exception& e, const std::string& fallback) {
  report(tool, diag::unwritable_cause(e.what(), fallback));
  return diag::code(diag::Exit::InputError);
}

int fail_located(const std::string& tool, const diag::Location& at, const std::string& rule,
                 const std::string& message) {
  report(tool, diag::located(at, rule, message));
  return diag::code(diag::Exit::InputError);
}

int fail_located_text(const std::string& tool, const std::string& file, const std::string& rule,
                      const std::string& text) {
  report(tool, diag::located_text(file, rule, text));
  return diag::code(diag::Exit::InputError);
}

CLI::App* with_exit_codes(CLI::App* cmd) {
  cmd->footer(diag::kExitCodeTable);
  return cmd;
}

}  // namespace fusecert::cli
