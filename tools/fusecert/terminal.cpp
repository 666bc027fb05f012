#include "tools/fusecert/terminal.h"

#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <streambuf>

#include <re2/re2.h>

namespace fusecert::cli::terminal {

bool progress_shown = false;

std::mutex& lock() {
  static std::mutex m;
  return m;
}

void erase_progress_line() {
  if (!progress_shown) return;
  static const char kErase[] = "\r\033[K";
  [[maybe_unused]] ssize_t n = ::write(2, kErase, sizeof kErase - 1);
  progress_shown = false;
}

std::string colourize(const std::string& text) {
  // A line `[indent][prefix: ]severity:`, where prefix is `file:line:col`,
  // `fusecert certify` or the like; the prefix is bold when it is a location.
  // RE2, line by line: messages quote input, and std::regex recursed on long
  // lines.
  static const RE2 kDiag(R"(^([ \t]*)([^\n]*?: )?(error|warning|note|remark):)");
  static const RE2 kLoc(R"(:[0-9]+(:[0-9]+)?: $)");
  std::string out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string::npos ? text.size() : nl;
    re2::StringPiece line(text.data() + pos, end - pos);
    std::string indent, prefix, sev;
    if (RE2::PartialMatch(line, kDiag, &indent, &prefix, &sev)) {
      const size_t matched = indent.size() + prefix.size() + sev.size() + 1;
      out += indent;
      out += RE2::PartialMatch(prefix, kLoc) ? "\033[1m" + prefix + "\033[0m" : prefix;
      const char* code = sev == "error" ? "\033[1;31m" : sev == "warning" ? "\033[1;35m"
                         : sev == "note" ? "\033[1;36m" : "\033[1;32m";
      out += code + sev + ":\033[0m";
      out.append(text, pos + matched, end - pos - matched);
    } else {
      out.append(text, pos, end - pos);
    }
    if (nl == std::string::npos) break;
    out += '\n';
    pos = nl + 1;
  }
  return out;
}

namespace {

/// Passes whole lines to `dest`, erasing the progress line first and
/// colouring them when asked; a flush passes what is pending.
class LineFilter : public std::streambuf {
 public:
  LineFilter(std::streambuf* dest, bool colour) : dest_(dest), colour_(colour) {}
  ~LineFilter() override { sync(); }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return sync() == 0 ? 0 : traits_type::eof();
    pending_ += static_cast<char>(c);
    if (c == '\n') emit();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    pending_.append(s, static_cast<size_t>(n));
    if (pending_.find('\n') != std::string::npos) emit();
    return n;
  }
  int sync() override {
    emit(true);
    return dest_->pubsync();
  }

 private:
  void emit(bool all = false) {
    const size_t end = all ? pending_.size() : pending_.rfind('\n') + 1;
    if (end == 0 || pending_.empty()) return;
    std::string chunk = pending_.substr(0, end);
    pending_.erase(0, end);
    std::lock_guard<std::mutex> g(lock());
    erase_progress_line();
    if (colour_) chunk = colourize(chunk);
    dest_->sputn(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    dest_->pubsync();
  }

  std::streambuf* dest_;
  bool colour_;
  std::string pending_;
};

struct Installed {
  std::unique_ptr<LineFilter> out, err;
  std::streambuf *old_out = nullptr, *old_err = nullptr;
  ~Installed() {
    if (out) std::cout.rdbuf(old_out);
    if (err) std::cerr.rdbuf(old_err);
  }
};
Installed g_installed;

bool colour_for(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  if (const char* nc = std::getenv("NO_COLOR"); nc && *nc) return false;
  if (const char* term = std::getenv("TERM"); term && std::string(term) == "dumb") return false;
  return ::isatty(fd) == 1;
}

/// The leaf subcommand that will run, and whether it writes text on stdout.
bool writes_text(const CLI::App& app, std::string* name) {
  const CLI::App* leaf = &app;
  for (;;) {
    auto subs = leaf->get_subcommands();
    if (subs.empty()) break;
    leaf = subs.front();
  }
  *name = leaf->get_name();
  if (const CLI::Option* f = leaf->get_option_no_throw("--format"); f && f->count() > 0) {
    const auto& res = f->results();
    return !res.empty() && res.back() == "text";
  }
  return true;  // every --format defaults to text
}

void setup(CLI::App& app, const std::string& mode) {
  std::string leaf;
  const bool text = writes_text(app, &leaf);
  const std::string top = app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name();
  // The interactive shell owns its terminal (libedit); kernels forks a runner
  // that writes to the same descriptors.
  if (top == "shell" || top == "kernels") return;
  const bool err_tty = ::isatty(2) == 1, out_tty = ::isatty(1) == 1;
  const bool err_colour = colour_for(mode, 2);
  const bool out_colour = text && colour_for(mode, 1);
  if (err_tty || err_colour) {
    g_installed.err = std::make_unique<LineFilter>(std::cerr.rdbuf(), err_colour);
    g_installed.old_err = std::cerr.rdbuf(g_installed.err.get());
  }
  if ((out_tty && err_tty) || out_colour) {
    g_installed.out = std::make_unique<LineFilter>(std::cout.rdbuf(), out_colour);
    g_installed.old_out = std::cout.rdbuf(g_installed.out.get());
  }
}

}  // namespace

void add_color_options(CLI::App& app) {
  auto mode = std::make_shared<std::string>("auto");
  const std::function<void(CLI::App&)> add = [&add, mode](CLI::App& a) {
    a.add_option("--color", *mode, "colour the diagnostics: auto (a terminal, unless NO_COLOR is set), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->type_name("WHEN");
    for (CLI::App* sub : a.get_subcommands([](CLI::App*) { return true; })) add(*sub);
  };
  add(app);
  app.parse_complete_callback([&app, mode] { setup(app, *mode); });
}

}  // namespace fusecert::cli::terminal
