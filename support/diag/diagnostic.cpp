#include "support/diag/diagnostic.h"

#include <tuple>

namespace fusecert::diag {

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
    case Severity::Remark: return "remark";
  }
  return "error";
}

std::optional<Severity> parse_severity(std::string_view s) {
  for (Severity v : {Severity::Error, Severity::Warning, Severity::Note, Severity::Remark})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

Diagnostic make(Severity s, Location at, std::string rule, std::string message) {
  Diagnostic d;
  d.loc = std::move(at);
  d.severity = s;
  d.rule = std::move(rule);
  d.message = std::move(message);
  return d;
}

bool operator<(const Diagnostic& a, const Diagnostic& b) {
  return std::tie(a.loc.file, a.loc.line, a.loc.col, a.rule, a.message) <
         std::tie(b.loc.file, b.loc.line, b.loc.col, b.rule, b.message);
}

bool operator==(const Diagnostic& a, const Diagnostic& b) {
  return a.loc.file == b.loc.file && a.loc.line == b.loc.line && a.loc.col == b.loc.col &&
         a.severity == b.severity && a.rule == b.rule && a.message == b.message;
}

bool any_error(const std::vector<Diagnostic>& ds) {
  for (const auto& d : ds)
    if (d.is_error()) return true;
  return false;
}

}  // namespace fusecert::diag
