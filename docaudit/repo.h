// The repository a run checks: its root, the audit root inside it, and how a
// path is classified (authored, excluded, generated) and resolved. Paths are
// compared lexically after normalization, and then by their real paths
// (symlinks followed): nothing outside the root resolves, whether it leaves
// through `../` or through a symlink.
//
// A run resolves every link and code span it reads, so the path arithmetic
// and the queries work on the string of a normal absolute path (Repo::normal's
// form): a std::filesystem::path splits itself into components (an allocation
// each) when it is built, and that was a tenth of a run's instructions.
#pragma once
#include <filesystem>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "docaudit/ruleset.h"

namespace fusecert::docaudit {

namespace fs = std::filesystem;

class Repo {
 public:
  /// `root` must exist; it is made absolute and normalized. Throws
  /// ConfigError when `tree.audit_root` resolves outside the root (lexically
  /// or through a symlink).
  ///
  /// `removed` (repository-relative or absolute) are paths the change being
  /// checked deletes: the first folder of each stays a path root, so a code
  /// span naming `src/x.py` is still a repository path, and reported broken,
  /// after `git rm -r src` (issue #18 acceptance, 2026-12-02).
  Repo(const fs::path& root, const RuleSet& rules, const std::vector<fs::path>& removed = {});

  const fs::path& root() const { return root_; }
  const fs::path& audit_root() const { return audit_root_; }
  const fs::path& generated_root() const { return generated_root_; }

  /// Absolute, lexically normal form of `p` (relative paths are taken from the
  /// current directory), with no trailing separator.
  static fs::path normal(const fs::path& p);
  /// normal(dir / rel) as a string: `rel` from the folder `dir` (an absolute
  /// `rel` is taken as it is).
  static std::string join(const fs::path& dir, std::string_view rel);
  /// normal(file.parent_path() / rel) as a string: `rel` from the folder of
  /// `file`.
  static std::string sibling(const fs::path& file, std::string_view rel);

  // The queries below take the string of a normal absolute path (normal(),
  // join(), sibling()); pass an fs::path as `p.native()`.

  /// True when `abs` is the root or lies below it (lexically).
  bool inside(std::string_view abs) const;
  /// True when `abs`, with every symlink of its existing part followed
  /// (std::filesystem::weakly_canonical), lies under the root's real path.
  /// Cached for the run; thread-safe.
  bool resolves_inside(std::string_view abs) const;
  /// `abs` is `dir` or lies below it, by whole segments (both normal).
  static bool is_under(std::string_view abs, std::string_view dir);
  /// Repository-relative generic path when inside, else `abs` as given.
  std::string display(std::string_view abs) const;
  /// Path relative to the audit root ("" when not under it).
  std::string audit_relative(std::string_view abs) const;
  /// Under the audit root and matching an exclusion glob or a configured
  /// generated dashboard.
  bool excluded(std::string_view abs) const;
  /// Under the generated folder, or a configured generated dashboard (by
  /// path; a document's own markers are read by load_document).
  bool generated(std::string_view abs) const;
  /// Under the audit root and not excluded: an authored doc (the frontmatter,
  /// routing and lifecycle rules apply).
  bool authored(std::string_view abs) const;
  /// A regular file or folder exists at `abs` (symlinks followed; a loop or
  /// any error counts as absent). Answers are cached for the run (documents
  /// cite the same targets many times); thread-safe.
  bool exists(std::string_view abs) const;
  /// `name` is a top-level folder of the repository, the first folder of a
  /// removed path, or a configured path root.
  bool is_path_root(const std::string& name) const;

 private:
  fs::path root_, real_root_, audit_root_, generated_root_;
  const RuleSet& rules_;
  std::vector<std::string> top_dirs_;  ///< sorted
  std::vector<std::string> dashboards_;  ///< tree.generated_dashboards, audit-root relative, normal
  /// Heterogeneous lookup: a query's string_view is looked up without a copy.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Answers = std::unordered_map<std::string, bool, Hash, std::equal_to<>>;
  mutable std::shared_mutex exists_mutex_;
  mutable Answers exists_cache_;
  mutable std::shared_mutex real_mutex_;
  mutable Answers real_inside_cache_;
};

/// Glob match in the style of .gitignore: `*` and `?` do not cross `/`,
/// `**` matches any number of folders, and a leading `**/` also matches none.
/// Uses POSIX fnmatch for each path segment.
bool glob_match(const std::string& pattern, const std::string& path);

}  // namespace fusecert::docaudit
