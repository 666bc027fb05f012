// fusecert: one binary, subcommands registered from cmd_*.cpp.
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "tools/fusecert/commands.h"
#include "tools/fusecert/help_format.h"
#include "tools/fusecert/terminal.h"
#include "tools/fusecert/version.h"

namespace {
/// "fusecert", or the subcommands parsed so far ("fusecert kernels bench").
std::string parsed_command(const CLI::App& app) {
  std::string name = "fusecert";
  for (const CLI::App* at = &app;;) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) return name;
    at = subs.back();
    name += " " + at->get_name();
  }
}
/// The first word of the command line, when it is no subcommand (`fusecert
/// frob`): CLI11 then says only that a subcommand is required.
std::optional<std::string> unknown_subcommand(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if (w.empty() || w[0] == '-') {
      if (w == "--") return std::nullopt;
      // An option's value (`--color never`) is no subcommand name.
      const CLI::Option* opt = w.find('=') == std::string::npos ? app.get_option_no_throw(w) : nullptr;
      if (opt && opt->get_type_size() > 0) ++i;
      continue;
    }
    for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; }))
      if (s->check_name(w)) return std::nullopt;
    return w;
  }
  return std::nullopt;
}
/// The first option of the command line that the top level does not know
/// (`fusecert --bogus`), before any subcommand: CLI11 then says only that a
/// subcommand is required.
std::optional<std::string> unknown_option(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if (w == "--") return std::nullopt;
    if (w.size() < 2 || w[0] != '-') return std::nullopt;  // a subcommand (or its absence) comes first
    const std::string name = w.substr(0, w.find('='));
    const CLI::Option* opt = app.get_option_no_throw(name);
    if (!opt) return name;
    if (w.find('=') == std::string::npos && opt->get_type_size() > 0) ++i;
  }
  return std::nullopt;
}
}  // namespace

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
    // --help / --version print and give 0; a parse error (an unknown option,
    // a missing argument, a value not allowed) is a usage error in the one
    // form, named for the subcommand it was met in.
    if (e.get_exit_code() == 0) {
      rc = app.exit(e);
    } else {
      const std::string tool = parsed_command(app);
      fusecert::diag::Diagnostic d = fusecert::diag::error({}, "usage", e.what());
      d.note({}, "run '" + tool + " --help' for the options");
      if (tool == "fusecert") {
        if (auto opt = unknown_option(app, argc, argv)) {
          d = fusecert::diag::error({}, "usage", "unknown option '" + *opt + "'");
          d.note({}, "run 'fusecert --help' for the options");
        } else if (auto word = unknown_subcommand(app, argc, argv)) {
          std::string subs;
          for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; }))
            subs += (subs.empty() ? "" : ", ") + s->get_name();
          d = fusecert::diag::error({}, "usage", "unknown subcommand '" + *word + "'");
          d.note({}, "the subcommands are " + subs + "; run 'fusecert --help' for the options");
        }
      }
      fusecert::cli::report(tool, d);
      rc = fusecert::diag::code(fusecert::diag::Exit::InputError);
    }
  }
  // A report that did not reach stdout (a full disk, /dev/full, a closed
  // pipe) is lost: exit 2, whatever the verdict was, never a silent 0.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    return fusecert::cli::fail_with(parsed_command(app), "output.unwritable", "cannot write the report to standard output");
  }
  return rc;
}
