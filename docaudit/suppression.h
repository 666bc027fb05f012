// Inline suppressions, written as HTML comments so they never render:
//   <!-- docaudit-disable-next-line claim.overclaim: quoting the paper -->
//   <!-- docaudit-disable-file anchor.broken-path, anchor.broken-link: partial tree -->
// The reason after the colon is mandatory; a directive without one, or naming
// an unknown rule, is itself a finding and suppresses nothing. So is any other
// comment opening with `docaudit-` (any case): a misspelt directive.
#pragma once
#include <string>
#include <vector>

#include "docaudit/finding.h"
#include "docaudit/outline.h"
#include "docaudit/ruleset.h"

namespace fusecert::docaudit {

struct Suppression {
  enum class Scope { NextLine, File } scope = Scope::NextLine;
  std::vector<std::string> rules;
  std::string reason;
  Pos pos;              ///< of the comment
  int target_line = 0;  ///< the line a NextLine directive covers
  bool used = false;
};

/// Reads the directives among `comments`; malformed ones become findings in
/// `problems` (suppress.missing-reason / suppress.unknown-rule /
/// suppress.malformed).
std::vector<Suppression> read_suppressions(const std::vector<Comment>& comments, const RuleSet& rules,
                                           const std::string& path, std::vector<diag::Diagnostic>& problems);

/// Removes the findings a directive covers (suppress.* findings are never
/// suppressed) and reports unused directives (suppress.unused).
void apply_suppressions(std::vector<Suppression>& sups, std::vector<diag::Diagnostic>& findings, const RuleSet& rules,
                        const std::string& path);

}  // namespace fusecert::docaudit
