#include "docaudit/finding.h"

#include <algorithm>

namespace fusecert::docaudit {

std::string to_string(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Off: return "off";
  }
  return "error";
}

diag::Severity to_diag(Severity s) { return s == Severity::Warning ? diag::Severity::Warning : diag::Severity::Error; }

diag::Diagnostic finding(std::string path, int line, int col, Severity level, std::string rule, std::string message) {
  return diag::make(to_diag(level),
                    diag::Location{std::move(path), static_cast<unsigned>(std::max(line, 0)),
                                   static_cast<unsigned>(std::max(col, 0))},
                    std::move(rule), std::move(message));
}

void sort_findings(std::vector<diag::Diagnostic>& findings) {
  std::sort(findings.begin(), findings.end());
  findings.erase(std::unique(findings.begin(), findings.end()), findings.end());
}

}  // namespace fusecert::docaudit
