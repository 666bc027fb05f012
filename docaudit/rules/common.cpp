#include <cctype>

#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {

void Sink::report(const std::string& rule, Pos pos, const std::string& message) {
  if (!rules_.enabled(rule)) return;
  out_.push_back(finding(path_, pos.line > 0 ? pos.line : 1, pos.col > 0 ? pos.col : 1, rules_.severity(rule), rule,
                         message));
}

namespace {

std::string percent_decode(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

LinkTarget split_link(const std::string& url, const RuleSet& rules) {
  LinkTarget t;
  auto opens_with = [&](const std::string& scheme) {  // ASCII case-insensitive, as lower_ascii
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (scheme.size() > url.size()) return false;
    for (std::size_t i = 0; i < scheme.size(); ++i)
      if (lower(url[i]) != lower(scheme[i])) return false;
    return true;
  };
  for (const auto& scheme : rules.external_schemes)
    if (opens_with(scheme)) {
      t.external = true;
      return t;
    }
  if (url.rfind("//", 0) == 0) {  // protocol-relative URL
    t.external = true;
    return t;
  }
  std::string u = url;
  if (auto q = u.find('?'); q != std::string::npos && q < u.find('#')) u.erase(q, u.find('#') - q);
  const std::size_t hash = u.find('#');
  t.file = percent_decode(u.substr(0, hash));
  if (hash != std::string::npos) t.anchor = percent_decode(u.substr(hash + 1));
  return t;
}

std::string resolve_link(const fs::path& doc, const std::string& file, const Repo& repo) {
  if (!file.empty() && file[0] == '/') return Repo::join(repo.root(), std::string_view(file).substr(1));
  return Repo::sibling(doc, file);
}

}  // namespace fusecert::docaudit
