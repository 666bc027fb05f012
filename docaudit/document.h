// One Markdown document, loaded with the input checks that keep bad bytes
// away from the parsers (unreadable, empty, binary, invalid UTF-8, too large),
// then split into frontmatter and a cmark-gfm outline.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "docaudit/finding.h"
#include "docaudit/frontmatter.h"
#include "docaudit/outline.h"
#include "docaudit/repo.h"
#include "docaudit/ruleset.h"

namespace fusecert::docaudit {

struct Document {
  fs::path abs;              ///< absolute, lexically normal
  std::string display;       ///< path in findings (repository-relative when inside)
  bool authored = false;     ///< an authored doc under the audit root
  bool parsed = false;       ///< passed the input checks; fm and outline are valid
  /// A generated dashboard: under the generated folder, a configured
  /// dashboard path, or a file with no frontmatter whose opening names a
  /// generated marker ("AUTO-GENERATED ... do not edit"). Not authored prose.
  bool generated = false;
  std::uintmax_t bytes = 0;
  Frontmatter fm;
  Outline outline;
  /// Findings of the input checks (these are not suppressible: the file was
  /// not parsed, so its comments are unknown).
  std::vector<diag::Diagnostic> input_findings;

  /// Scalar value of a frontmatter key ("" when absent or not a scalar).
  std::string meta(const std::string& key) const;
  /// The declared audit role ("" when absent).
  std::string role(const RuleSet& rules) const { return meta(rules.role_key); }
};

/// Loads and parses one file. Never throws for bad input: every problem is a
/// finding in `input_findings` (rule ids input.*).
Document load_document(const fs::path& abs, const Repo& repo, const RuleSet& rules);

}  // namespace fusecert::docaudit
