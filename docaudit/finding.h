// A finding: one diagnostic of the audit-document checker, positioned like a
// compiler diagnostic (`path:line:col: error|warning [rule-id] message`).
#pragma once
#include <string>
#include <vector>

namespace fusecert::docaudit {

/// How a rule's findings are reported; `Off` disables the rule.
enum class Severity { Error, Warning, Off };

/// "error" | "warning" | "off".
std::string to_string(Severity s);

/// One diagnostic. `path` is repository-relative when the file lies under the
/// repository root, else as given; `line` and `col` are 1-based (0 = whole file).
struct Finding {
  std::string path;
  int line = 0;
  int col = 0;
  Severity severity = Severity::Error;
  std::string rule;     ///< stable rule id, e.g. "claim.overclaim"
  std::string message;
};

/// Total order used for deterministic output: path, line, col, rule, message.
bool operator<(const Finding& a, const Finding& b);
bool operator==(const Finding& a, const Finding& b);

/// Sorts and removes exact duplicates.
void sort_findings(std::vector<Finding>& findings);

}  // namespace fusecert::docaudit
