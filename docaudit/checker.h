// The checker: expands the paths to documents, loads and parses them in
// parallel, establishes proposition verdicts once, runs every rule family on
// every document in parallel, applies suppressions, and returns the findings
// in a deterministic order (independent of thread count and scheduling).
#pragma once
#include <chrono>
#include <filesystem>
#include <set>
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

/// A PATH named on the command line that cannot be read or listed (missing,
/// no permission): reported at the path, as input.unreadable.
struct UnreadablePath : UsageError {
  UnreadablePath(std::string p, std::string why) : UsageError(p + ": " + why), path(std::move(p)), cause(std::move(why)) {}
  std::string path, cause;
};

struct CheckOptions {
  std::filesystem::path repo_root;               ///< must exist
  std::vector<std::filesystem::path> paths;      ///< files or folders; empty = the audit root
  std::chrono::sys_days today;
  unsigned jobs = 0;                             ///< 0 = hardware concurrency
  VerdictOracle* oracle = nullptr;               ///< required when a doc has a verdict table
  /// Paths (deleted or renamed away) whose referrers are checked too: every
  /// live doc under the audit root that links or names one of them gets the
  /// routing and link rules (routing.*, anchor.*). With no `paths`, only those.
  std::vector<std::filesystem::path> removed;
  /// Also check every document of the audit root, as a tree run does (the
  /// hook: the staged files plus the tree they change, so that a change
  /// which orphans or breaks an unstaged document fails as CI would). A
  /// missing audit root is then nothing to check, unless `require_tree`.
  bool with_tree = false;
  bool require_tree = false;  ///< with_tree: a missing audit root is a UsageError
  /// Skip files git ignores (`.gitignore`, `.git/info/exclude`) when
  /// expanding folders and globs; needs `git` when the root holds `.git`.
  bool respect_gitignore = true;
};

struct CheckResult {
  std::vector<diag::Diagnostic> findings;                 ///< sorted
  std::size_t files = 0;                         ///< documents checked
  std::size_t skipped = 0;  ///< files of the PATHs not checked: excluded, or generated (by path or marker)
  std::uintmax_t bytes = 0;                      ///< their total size
  std::size_t errors() const;
  std::size_t warnings() const;
};

/// Runs the checker. Throws UsageError or ConfigError (exit 2); bad input
/// files are findings, never exceptions.
CheckResult run_check(const RuleSet& rules, const CheckOptions& opt);

class Repo;
/// Expands `paths` into the documents to check, the same way for a tree run,
/// a folder, a glob and a file, so the hook (files) and CI (the tree) agree:
/// a file is taken whatever its extension; a folder contributes its files
/// with a configured extension, recursively, without following folder
/// symlinks; a PATH with glob characters that names no file is a glob
/// (`docs/**/*.md`; `*` and `?` stay within a folder, `**` crosses folders)
/// matched from the current folder (a glob matching nothing is a
/// UsageError). From all three, the excluded files of the audit root
/// (generated/**, **/archive/**, the generated dashboards) and the files in
/// `ignored` (git's ignore rules; folders and globs only) are dropped; the
/// excluded and generated ones are also added to `skipped` when given.
/// Sorted, unique.
std::vector<std::filesystem::path> collect_documents(const std::vector<std::filesystem::path>& paths,
                                                     const RuleSet& rules, const Repo& repo,
                                                     const std::vector<std::string>* ignored = nullptr,
                                                     std::set<std::filesystem::path>* skipped = nullptr);

/// The paths git ignores below `root` (`git ls-files --others --ignored
/// --exclude-standard --directory`, repository-relative; a folder ends in
/// `/`), or an empty list when `root` holds no `.git`, its `.git` is no
/// repository, or git is not installed. Throws UsageError when git fails
/// otherwise.
std::vector<std::string> git_ignored(const std::filesystem::path& root);
/// Every path a commit reachable from HEAD deleted (`git log --diff-filter=D`)
/// and every deletion staged in the index (`git diff --cached
/// --diff-filter=D`), repository-relative, when `root` holds `.git`; empty
/// without `.git`, when `.git` is no repository of `root`'s own, and
/// (history) before the first commit. Their first folders stay path roots
/// (anchor.broken-path). Throws UsageError when git cannot be run or fails.
std::vector<std::filesystem::path> git_deleted(const std::filesystem::path& root);

}  // namespace fusecert::docaudit
