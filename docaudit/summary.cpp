#include "docaudit/summary.h"

#include "docaudit/document.h"
#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {

bool Summary::within(int s, int h) const {
  if (h < 0 || s < h) return false;
  for (int k = h + 1; k <= s; ++k)
    if (sections[k].level <= sections[h].level) return false;
  return true;
}

std::vector<int> Summary::find_sections(const std::vector<std::string>& titles) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < sections.size(); ++i)
    for (const auto& n : titles)
      if (starts_with_word(sections[i].words, normalize_words(n))) {
        out.push_back(static_cast<int>(i));
        break;
      }
  return out;
}

bool Summary::has_slug(std::string_view slug) const {
  for (const auto& h : sections)
    if (h.slug == slug) return true;
  return false;
}

Summary summarize(const Document& doc, const RuleSet& rules, const Repo& repo) {
  Summary s;
  s.abs = doc.abs;
  s.display = doc.display;
  s.authored = doc.authored;
  s.parsed = doc.parsed;
  s.generated = doc.generated;
  s.bytes = doc.bytes;
  s.role = doc.role(rules);
  if (auto v = doc.fm.get(rules.role_key)) s.role_pos = Pos{v->line, v->col};
  const Outline& o = doc.outline;
  s.sections.reserve(o.headings.size());
  for (const auto& h : o.headings) s.sections.push_back({h.level, normalize_words(h.text), h.slug});
  s.links.reserve(o.links.size());
  for (const auto& l : o.links) {
    LinkTarget t = split_link(l.url, rules);
    Summary::LinkRef& r = s.links.emplace_back(Summary::LinkRef{l.url, l.pos, l.section, t.external, "", std::move(t.anchor)});
    if (!t.external && !t.file.empty()) r.target = resolve_link(doc.abs, t.file, repo);
  }
  s.code_spans.reserve(o.code_spans.size());
  for (const auto& c : o.code_spans) s.code_spans.push_back({trim(c.text), c.section});
  s.propositions = proposition_rows(doc, rules);
  return s;
}

}  // namespace fusecert::docaudit
