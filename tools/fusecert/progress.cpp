#include "tools/fusecert/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "tools/fusecert/terminal.h"

namespace fusecert::cli {

namespace {
using Clock = std::chrono::steady_clock;

size_t columns() {
  winsize ws{};
  if (::ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10) return ws.ws_col;
  return 80;
}
}  // namespace

Progress::Progress(std::string task) : task_(std::move(task)) {
  active_ = ::isatty(2) == 1;
  if (active_) thread_ = std::thread([this] { run(); });
}

Progress::~Progress() {
  if (!active_) return;
  {
    std::lock_guard<std::mutex> g(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  std::lock_guard<std::mutex> g(terminal::lock());
  terminal::erase_progress_line();
}

void Progress::step(const std::string& label, size_t index, size_t total) {
  if (!active_) return;
  std::lock_guard<std::mutex> g(m_);
  label_ = label;
  index_ = index;
  total_ = total;
}

void Progress::run() {
  const auto start = Clock::now();
  std::unique_lock<std::mutex> lk(m_);
  // Nothing for the first second: a quick run draws no line at all.
  // FUSECERT_PROGRESS_DELAY_MS changes that delay (tests draw at once).
  long delay_ms = 1000;
  if (const char* d = std::getenv("FUSECERT_PROGRESS_DELAY_MS"); d && *d) {
    char* end = nullptr;
    const long v = std::strtol(d, &end, 10);
    if (end && *end == '\0' && v >= 0 && v <= 60000) delay_ms = v;
  }
  if (cv_.wait_for(lk, std::chrono::milliseconds(delay_ms), [this] { return stop_; })) return;
  for (;;) {
    const double secs = std::chrono::duration<double>(Clock::now() - start).count();
    std::string line = task_;
    if (!label_.empty()) line += ": " + label_;
    if (total_ > 0) line += " (" + std::to_string(index_) + "/" + std::to_string(total_) + ")";
    char t[32];
    std::snprintf(t, sizeof t, ", %.1f s", secs);
    line += t;
    const size_t width = columns() - 1;
    if (line.size() > width) line = "..." + line.substr(line.size() - (width - 3));
    {
      std::lock_guard<std::mutex> g(terminal::lock());
      const std::string draw = "\r\033[K" + line;
      [[maybe_unused]] ssize_t n = ::write(2, draw.data(), draw.size());
      terminal::progress_shown = true;
    }
    if (cv_.wait_for(lk, std::chrono::milliseconds(200), [this] { return stop_; })) return;
  }
}

}  // namespace fusecert::cli
