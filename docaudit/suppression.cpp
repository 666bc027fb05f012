#include "docaudit/suppression.h"

#include <algorithm>

#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

constexpr std::string_view kNextLine = "docaudit-disable-next-line";
constexpr std::string_view kFile = "docaudit-disable-file";
constexpr std::string_view kFamily = "docaudit-";

/// `body` opens with the directive keyword `kw` as a whole word (followed by
/// the end, a blank or the reason's colon): `docaudit-disable-next-lines` is
/// not `docaudit-disable-next-line`.
bool opens_with(const std::string& body, std::string_view kw) {
  if (body.compare(0, kw.size(), kw) != 0) return false;
  if (body.size() == kw.size()) return true;
  const char c = body[kw.size()];
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':';
}

}  // namespace

std::vector<Suppression> read_suppressions(const std::vector<Comment>& comments, const RuleSet& rules,
                                           const std::string& path, std::vector<diag::Diagnostic>& problems) {
  std::vector<Suppression> out;
  auto problem = [&](const std::string& rule, Pos p, const std::string& msg) {
    if (rules.enabled(rule)) problems.push_back(finding(path, p.line, p.col, rules.severity(rule), rule, msg));
  };
  for (const auto& c : comments) {
    const std::string body = trim(c.body);
    Suppression s;
    std::string rest;
    if (opens_with(body, kNextLine)) {
      s.scope = Suppression::Scope::NextLine;
      rest = body.substr(kNextLine.size());
    } else if (opens_with(body, kFile)) {
      s.scope = Suppression::Scope::File;
      rest = body.substr(kFile.size());
    } else {
      // A misspelt directive (`docaudit-disable-nextline`, `docaudit-disable`,
      // `DOCAUDIT-DISABLE-NEXT-LINE`) would otherwise suppress nothing, silently.
      if (lower_ascii(body.substr(0, kFamily.size())) == kFamily) {
        const std::string word = body.substr(0, body.find_first_of(" \t\r\n:"));
        problem("suppress.malformed", c.pos,
                "`" + word + "` is not a directive; write `docaudit-disable-next-line RULE: why` or "
                "`docaudit-disable-file RULE: why`");
      }
      continue;
    }
    s.pos = c.pos;
    s.target_line = c.end_line + 1;
    const std::size_t colon = rest.find(':');
    const std::string ids = trim(rest.substr(0, colon));
    s.reason = colon == std::string::npos ? "" : trim(rest.substr(colon + 1));
    if (s.reason.empty()) {
      problem("suppress.missing-reason", c.pos,
              "suppression without a reason; write `<!-- docaudit-disable-next-line RULE: why -->`");
      continue;
    }
    bool ok = true;
    std::size_t a = 0;
    while (a <= ids.size()) {
      std::size_t b = ids.find_first_of(", ", a);
      if (b == std::string::npos) b = ids.size();
      std::string id = ids.substr(a, b - a);
      if (!id.empty()) {
        if (!rules.rules.count(id)) {
          problem("suppress.unknown-rule", c.pos, "suppression names unknown rule `" + id + "`");
          ok = false;
        } else {
          s.rules.push_back(id);
        }
      }
      a = b + 1;
    }
    if (s.rules.empty()) {
      if (ok) problem("suppress.unknown-rule", c.pos, "suppression names no rule id");
      continue;
    }
    if (ok) out.push_back(std::move(s));
  }
  return out;
}

void apply_suppressions(std::vector<Suppression>& sups, std::vector<diag::Diagnostic>& findings, const RuleSet& rules,
                        const std::string& path) {
  auto covered = [&](const diag::Diagnostic& f) {
    if (f.rule.rfind("suppress.", 0) == 0) return false;
    bool hit = false;
    for (auto& s : sups) {
      if (std::find(s.rules.begin(), s.rules.end(), f.rule) == s.rules.end()) continue;
      if (s.scope == Suppression::Scope::File || static_cast<int>(f.loc.line) == s.target_line) {
        s.used = true;
        hit = true;
      }
    }
    return hit;
  };
  findings.erase(std::remove_if(findings.begin(), findings.end(), covered), findings.end());
  if (!rules.enabled("suppress.unused")) return;
  for (const auto& s : sups)
    if (!s.used)
      findings.push_back(finding(path, s.pos.line, s.pos.col, rules.severity("suppress.unused"), "suppress.unused",
                                 "suppression of " + s.rules.front() + (s.rules.size() > 1 ? ", ..." : "") +
                                     " covers no finding; remove it"));
}

}  // namespace fusecert::docaudit
