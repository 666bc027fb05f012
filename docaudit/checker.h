// The checker: expands the paths to documents, loads and parses them in
// parallel, establishes proposition verdicts once, runs every rule family on
// every document in parallel, applies suppressions, and returns the findings
// in a deterministic order (independent of thread count and scheduling).
#pragma once
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "docaudit/finding.h"
#include "docaudit/ruleset.h"
#include "docaudit/verdicts.h"

namespace fusecert::docaudit {

/// A usage error (a path that does not exist, a bad --today): exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CheckOptions {
  std::filesystem::path repo_root;               ///< must exist
  std::vector<std::filesystem::path> paths;      ///< files or folders; empty = the audit root
  std::chrono::sys_days today;
  unsigned jobs = 0;                             ///< 0 = hardware concurrency
  VerdictOracle* oracle = nullptr;               ///< required when a doc has a verdict table
};

struct CheckResult {
  std::vector<Finding> findings;                 ///< sorted
  std::size_t files = 0;                         ///< documents checked
  std::uintmax_t bytes = 0;                      ///< their total size
  std::size_t errors() const;
  std::size_t warnings() const;
};

/// Runs the checker. Throws UsageError or ConfigError (exit 2); bad input
/// files are findings, never exceptions.
CheckResult run_check(const RuleSet& rules, const CheckOptions& opt);

class Repo;
/// Expands `paths` into the documents to check: a file is taken as given
/// (whatever its extension); a folder contributes its files with a configured
/// extension, recursively, without following folder symlinks, and without the
/// excluded files of the audit root (generated/**, **/archive/**). Sorted, unique.
std::vector<std::filesystem::path> collect_documents(const std::vector<std::filesystem::path>& paths,
                                                     const RuleSet& rules, const Repo& repo);

}  // namespace fusecert::docaudit
