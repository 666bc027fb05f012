// The interactive loop over libedit's readline interface.
#include "shell/repl.h"

#include <editline/readline.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "support/diag/render.h"
#include "verifier/smt/query.h"

namespace fusecert::shell {

namespace {
Session* g_session = nullptr;
std::vector<std::string> g_matches;
char g_word_breaks[] = " \t\n";

// Ctrl-C at the prompt discards the line being typed and shows a fresh
// prompt (like bash). SIGINT is caught only while readline() waits for
// input: the handler jumps back to read_command (psql does the same with
// libedit), and libedit's next readline() resets its line buffer and
// display. libedit's own signal handling is off (rl_catch_signals = 0): it
// would re-raise SIGINT to the whole process group and leave its handlers
// installed when we jump out. While a command runs, the first Ctrl-C asks
// the solver to stop (smt::request_interrupt: the running check and every
// later one in the command answer "interrupted", inconclusive — never
// proved) and the shell returns to its prompt when the command ends; a
// second Ctrl-C, for a command stuck outside the solver, ends the shell
// (status 130).
sigjmp_buf g_prompt_jmp;
volatile sig_atomic_t g_at_prompt = 0;
struct sigaction g_old_sigint;  // restored after each readline (a global: it must survive the jump)

void on_sigint(int) {
  if (g_at_prompt) {
    g_at_prompt = 0;
    siglongjmp(g_prompt_jmp, 1);
  }
  signal(SIGINT, SIG_DFL);
  raise(SIGINT);
}

void on_sigint_running(int) {
  if (!smt::interrupt_requested()) {
    smt::request_interrupt();
    static const char kMsg[] = " stopping the solver (Ctrl-C again ends the shell)\r\n";  // after the echoed ^C
    (void)!write(STDOUT_FILENO, kMsg, sizeof kMsg - 1);
    return;
  }
  signal(SIGINT, SIG_DFL);
  raise(SIGINT);
}

/// Runs one command with on_sigint_running as the SIGINT handler; says so
/// when Ctrl-C stopped it, and clears the request for the next command.
Reply execute_interruptible(Session& s, const std::string& cmd) {
  struct sigaction sa {}, old {};
  sa.sa_handler = on_sigint_running;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);
  Reply r = s.execute(cmd);
  sigaction(SIGINT, &old, nullptr);
  if (smt::interrupt_requested()) {
    r.text += "interrupted: queries stopped by Ctrl-C are inconclusive (timeout), never proved\n";
    smt::clear_interrupt();
  }
  return r;
}

/// readline() that answers nullptr with *interrupted set when Ctrl-C is
/// pressed while it waits.
char* readline_interruptible(const char* prompt, bool* interrupted) {
  *interrupted = false;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  if (sigsetjmp(g_prompt_jmp, 1) != 0) {
    sigaction(SIGINT, &g_old_sigint, nullptr);
    static const char kMsg[] = "^C\r\n";
    (void)!write(STDOUT_FILENO, kMsg, sizeof kMsg - 1);
    *interrupted = true;
    return nullptr;
  }
  sigaction(SIGINT, &sa, &g_old_sigint);
  g_at_prompt = 1;
  char* line = readline(prompt);
  g_at_prompt = 0;
  sigaction(SIGINT, &g_old_sigint, nullptr);
  return line;
}

char* match_generator(const char*, int state) {
  static size_t next = 0;
  if (state == 0) next = 0;
  return next < g_matches.size() ? strdup(g_matches[next++].c_str()) : nullptr;
}

char** attempt_completion(const char* text, int, int end) {
  rl_attempted_completion_over = 1;  // never fall back to libedit's own file names
  std::string before(rl_line_buffer, rl_line_buffer + std::max(0, end));
  g_matches = g_session->complete(before);
  if (g_matches.empty()) return nullptr;
  bool open = std::all_of(g_matches.begin(), g_matches.end(), [](const std::string& m) {
    return !m.empty() && (m.back() == '=' || m.back() == '/' || m.back() == '.');
  });
  rl_completion_append_character = open ? '\0' : ' ';
  return rl_completion_matches(text, match_generator);
}

/// Reads one command, continuing `solve` lines while parentheses are open.
/// Returns false on end of input with nothing read. Ctrl-C discards what was
/// typed (continuation lines included) and reads a fresh command.
bool read_command(std::string& out) {
  bool interrupted = false;
  char* line = nullptr;
  while (!(line = readline_interruptible("fusecert> ", &interrupted)) && interrupted) {
  }
  if (!line) return false;
  out = line;
  free(line);
  while (needs_continuation(out)) {
    char* more = readline_interruptible("     ...> ", &interrupted);
    if (interrupted) return read_command(out);
    if (!more) break;
    out += "\n";
    out += more;
    free(more);
  }
  return true;
}
}  // namespace

std::optional<std::string> history_refusal(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::nullopt;  // absent: written fresh
  if (S_ISLNK(st.st_mode)) return path + " is a symbolic link; the history is neither read from nor written through it";
  if (!S_ISREG(st.st_mode)) return path + " is not a regular file; the history is neither read from nor written to it";
  return std::nullopt;
}

bool save_history_file(const std::string& path, std::string& err) {
  if (auto why = history_refusal(path)) {
    err = *why;
    return false;
  }
  // A fresh file beside it (O_EXCL: never an existing file or a link), then
  // rename over the path: rename replaces a link planted meanwhile instead of
  // following it, and a failed write never truncates the old history.
  std::string tmpl = path + ".XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) {
    err = path + ": cannot create a temporary file beside it: " + std::strerror(errno);
    return false;
  }
  ::close(fd);
  if (write_history(buf.data()) != 0 || ::rename(buf.data(), path.c_str()) != 0) {
    err = path + ": cannot write the history: " + std::strerror(errno);
    ::unlink(buf.data());
    return false;
  }
  return true;
}

std::string default_history_file() {
  if (const char* h = std::getenv("FUSECERT_HISTORY")) return h;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.fusecert_history";
  return "";
}

namespace {
/// `PATH: warning: WHY [shell.history]`: the history is not read or written.
void warn_history(const std::string& path, std::string why) {
  if (why.rfind(path, 0) == 0) why.erase(0, why.compare(path.size(), 2, ": ") == 0 ? path.size() + 2 : path.size() + 1);
  std::cerr << diag::TextRenderer().render(diag::warning({path}, "shell.history", why));
}
}  // namespace

int run_repl(Session& s, const ReplOptions& opt) {
  g_session = &s;
  rl_readline_name = const_cast<char*>("fusecert");
  rl_completer_word_break_characters = g_word_breaks;
  rl_basic_word_break_characters = g_word_breaks;  // libedit splits words with this one
  rl_attempted_completion_function = attempt_completion;
  rl_catch_signals = 0;  // SIGINT at the prompt is ours (readline_interruptible)
  using_history();
  stifle_history(2000);
  if (!opt.history_file.empty()) {
    if (auto why = history_refusal(opt.history_file)) warn_history(opt.history_file, *why);
    else read_history(opt.history_file.c_str());
  }
  if (!opt.banner.empty()) std::cout << opt.banner << std::flush;

  std::string cmd;
  while (read_command(cmd)) {
    if (cmd.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    add_history(cmd.c_str());
    Reply r = execute_interruptible(s, cmd);
    std::cout << r.text << std::flush;
    if (r.quit) break;
  }
  if (std::string err; !opt.history_file.empty() && !save_history_file(opt.history_file, err))
    warn_history(opt.history_file, err);
  std::cout << "\n" << std::flush;
  g_session = nullptr;
  return 0;
}

int run_script(Session& s, std::istream& in, std::ostream& out, std::ostream& err) {
  int worst = 0;
  std::string line, cmd;
  while (std::getline(in, line)) {
    cmd = line;
    while (needs_continuation(cmd) && std::getline(in, line)) cmd += "\n" + line;
    Reply r = s.execute(cmd);
    (r.status == kAnswered ? out : err) << r.text << std::flush;
    worst = worse_status(worst, r.status);
    if (r.quit) break;
  }
  return worst;
}

}  // namespace fusecert::shell
