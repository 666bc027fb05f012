// A finding of the audit-document checker is fusecert's one diagnostic type
// (support/diag): location (path relative to the repository root when the
// file lies under it, else absolute; line and col 1-based), severity, the
// stable rule id ("claim.overclaim") and the message. This header holds what
// is docaudit's own: a rule's configured level (which can be `off`) and the
// deterministic order of a report.
#pragma once
#include <string>
#include <vector>

#include "support/diag/diagnostic.h"

namespace fusecert::docaudit {

/// How a rule's findings are reported (its configured level); `Off`
/// disables the rule.
enum class Severity { Error, Warning, Off };

/// "error" | "warning" | "off".
std::string to_string(Severity s);

/// The diagnostic severity of an enabled rule's level (Error or Warning).
diag::Severity to_diag(Severity s);

/// A finding at `path:line:col` (1-based; 0 = whole file) of rule `rule`.
diag::Diagnostic finding(std::string path, int line, int col, Severity level, std::string rule, std::string message);

/// Sorts (path, line, col, rule, message) and removes exact duplicates.
void sort_findings(std::vector<diag::Diagnostic>& findings);

}  // namespace fusecert::docaudit
