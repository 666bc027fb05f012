// The progress line of a long run: on stderr, only when stderr is a terminal,
// only once the run has taken more than a second, redrawn a few times a second
// ("fusecert certify: models/a.mlir (3/12), 4.2 s") and erased when the run
// ends or before any other output (terminal.h's line filters). Piped or
// redirected stderr gets nothing, so logs and tests see the same bytes.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

namespace fusecert::cli {

class Progress {
 public:
  /// `task` names the run, e.g. "fusecert prove".
  explicit Progress(std::string task);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// The run is now at item `index` (1-based) of `total` (0: unknown), `label`.
  void step(const std::string& label, size_t index = 0, size_t total = 0);

 private:
  void run();
  std::string task_, label_;
  size_t index_ = 0, total_ = 0;
  bool active_ = false, stop_ = false;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace fusecert::cli
