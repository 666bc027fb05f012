// `fusecert shell [--timeout-ms N] [--witnesses] [--no-history]`: the
// interactive proof shell (shell/). On a terminal it uses libedit (history,
// tab completion); with standard input from a pipe or file it runs one
// command per line and exits with the worst status (support/diag/exit_code.h:
// 0 all answered, 2 any error, else 3 any inconclusive answer).
// `fusecert query "<command>"... [--format text|json]`: one or more shell
// commands, run in one session, non-interactively.
#include <unistd.h>

#include <iostream>

#include "shell/repl.h"
#include "shell/session.h"
#include "support/diag/report_format.h"
#include "tools/fusecert/commands.h"

#ifndef FUSECERT_VERSION
#define FUSECERT_VERSION "0"
#endif

namespace fusecert::cli {

namespace {
struct ShellArgs {
  unsigned timeout_ms = 20000;
  bool witnesses = false, no_history = false;
  std::vector<std::string> commands;
  std::string format = "text";
};

/// A session at the requested settings, or nullopt after printing why not.
std::optional<shell::Session> open_session(const ShellArgs& a, const char* who) {
  verifier::Registry reg;
  try {
    reg = verifier::load_registry();
  } catch (const verifier::SpecError& e) {
    fail_located_text(std::string("fusecert ") + who, (verifier::rules_dir() / "propositions.yaml").string(),
                      "input.config", e.what());
    return std::nullopt;
  }
  shell::Session s(std::move(reg), std::string("fusecert ") + who);
  s.set_timeout_ms(a.timeout_ms);
  if (a.witnesses) s.execute("set witnesses on");
  return s;
}

int run_shell(const ShellArgs& a) {
  auto s = open_session(a, "shell");
  if (!s) return diag::code(diag::Exit::InputError);
  if (!isatty(STDIN_FILENO)) return shell::run_script(*s, std::cin, std::cout, std::cerr);
  shell::ReplOptions o;
  o.history_file = a.no_history ? "" : shell::default_history_file();
  o.banner = "fusecert shell " FUSECERT_VERSION " — " + std::to_string(verifier::known_ids(s->registry()).size()) +
             " propositions. 'help' lists the commands, Tab completes, Ctrl-D leaves.\n";
  return shell::run_repl(*s, o);
}

int run_query(const ShellArgs& a) {
  auto s = open_session(a, "query");
  if (!s) return diag::code(diag::Exit::InputError);
  int worst = 0;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& c : a.commands) {
    shell::Reply r = s->execute(c);
    if (r.json.contains("command") || r.status != shell::kAnswered) r.json["input"] = c;
    worst = shell::worse_status(worst, r.status);
    if (a.format == "json") {
      nlohmann::ordered_json reply = {{"schema", diag::kQueryReplyFormat}};  // every reply, one or several
      reply.update(r.json);
      all.push_back(std::move(reply));
    } else if (r.status == shell::kAnswered) {
      std::cout << r.text;
    } else {
      std::cerr << r.text;  // the diagnostic in the one form, named `fusecert query`
    }
  }
  if (a.format == "json") std::cout << (all.size() == 1 ? all[0] : all).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return worst;
}
}  // namespace

void add_shell_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ShellArgs>();
  CLI::App* sh = app.add_subcommand("shell", "interactive proof shell: ask the prover questions (help inside)");
  sh->add_option("--timeout-ms", a->timeout_ms, "per-query solver timeout in ms (0 = none)");
  sh->add_flag("--witnesses", a->witnesses, "run the numeric witness protocols with every proof (slower)");
  sh->add_flag("--no-history", a->no_history, "do not read or write the history file");
  sh->callback([a, &exit_code] { exit_code = run_shell(*a); });

  auto q = std::make_shared<ShellArgs>();
  CLI::App* qu = app.add_subcommand("query", "run shell commands non-interactively, e.g. fusecert query \"prove P2 beta1=0\"");
  qu->add_option("command", q->commands, "one shell command per argument, run in order in one session")->required();
  qu->add_option("--format", q->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  qu->add_option("--timeout-ms", q->timeout_ms, "per-query solver timeout in ms (0 = none)");
  qu->add_flag("--witnesses", q->witnesses, "run the numeric witness protocols with every proof");
  qu->callback([q, &exit_code] { exit_code = run_query(*q); });
}

}  // namespace fusecert::cli
