#include "docaudit/finding.h"

#include <algorithm>
#include <tuple>

namespace fusecert::docaudit {

std::string to_string(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Off: return "off";
  }
  return "error";
}

bool operator<(const Finding& a, const Finding& b) {
  return std::tie(a.path, a.line, a.col, a.rule, a.message) <
         std::tie(b.path, b.line, b.col, b.rule, b.message);
}

bool operator==(const Finding& a, const Finding& b) {
  return std::tie(a.path, a.line, a.col, a.rule, a.message, a.severity) ==
         std::tie(b.path, b.line, b.col, b.rule, b.message, b.severity);
}

void sort_findings(std::vector<Finding>& findings) {
  std::sort(findings.begin(), findings.end());
  findings.erase(std::unique(findings.begin(), findings.end()), findings.end());
}

}  // namespace fusecert::docaudit
