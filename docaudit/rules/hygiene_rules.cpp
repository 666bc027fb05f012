// Non-claim hygiene: overclaim phrases in prose need a STATUS: disclaimer on
// their line (or a declared status that allows them); measurement tables say
// where their numbers come from; plans carry a non-claims section.
#include <algorithm>
#include <set>

#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

bool any_term(const std::string& text, const std::vector<std::string>& terms, std::string* which = nullptr) {
  for (const auto& t : terms)
    if (find_term(text, t) != std::string::npos) {
      if (which) *which = t;
      return true;
    }
  return false;
}

void check_overclaims(const Document& doc, const Context& ctx, Sink& sink) {
  const RuleSet& r = ctx.rules;
  const std::string status = normalize_words(doc.meta(r.status_key));
  for (const auto& allowed : r.overclaim_allowed_statuses)
    if (starts_with_word(status, normalize_words(allowed))) return;

  std::set<int> disclaimed;
  for (const auto& p : doc.outline.prose)
    for (std::size_t at = p.text.find(r.disclaimer_marker); at != std::string::npos;
         at = p.text.find(r.disclaimer_marker, at + 1))
      disclaimed.insert(p.locate(at).line);

  for (const auto& p : doc.outline.prose) {
    for (const auto& phrase : r.overclaim_phrases) {
      std::size_t from = 0;
      while (from < p.text.size()) {
        const std::size_t hit = find_term(std::string_view(p.text).substr(from), phrase);
        if (hit == std::string::npos) break;
        const std::size_t at = from + hit;
        from = at + phrase.size();
        const Pos pos = p.locate(at);
        if (disclaimed.count(pos.line)) continue;
        // A negated phrase or one used as a criterion is not a claim.
        std::size_t clause = at;
        while (clause > 0 && at - clause < 40 && p.text[clause - 1] != '.' && p.text[clause - 1] != ';' &&
               p.text[clause - 1] != ',')
          --clause;
        const std::string before = p.text.substr(clause, at - clause);
        const std::string after = p.text.substr(at + phrase.size(), 30);
        if (any_term(before, r.overclaim_qualifiers_before) || any_term(after, r.overclaim_qualifiers_after)) continue;
        sink.report("claim.overclaim", pos,
                    "overclaim phrase \"" + p.text.substr(at, phrase.size()) + "\" in prose; state the evidence, or "
                    "mark the line with an explicit `" + r.disclaimer_marker + "` disclaimer");
      }
    }
  }
}

bool has_digit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A table is a measurement table when a header cell names a measurement
/// term and the column under it holds a number: a "Runtime" column of ✅/❌
/// proof rungs is not a timing table. Its provenance may be stated in its
/// caption (the paragraph after it), the paragraph right before it, any
/// heading it sits under, or its header cells (the spec: "caption, heading or
/// the paragraph before it"); an intro further up does not cover every table
/// below it.
void check_measurement_tables(const Document& doc, const Context& ctx, Sink& sink) {
  const RuleSet& r = ctx.rules;
  const Outline& o = doc.outline;
  for (const auto& t : o.tables) {
    std::string term;
    bool measurement = false;
    for (std::size_t c = 0; c < t.header.size() && !measurement; ++c) {
      std::string which;
      if (!any_term(t.header[c].text, r.measurement_terms, &which)) continue;
      for (const auto& row : t.rows)
        if (c < row.size() && has_digit(row[c].text)) {
          measurement = true;
          term = which;
          break;
        }
    }
    if (!measurement) continue;
    std::string context = t.before + "\n" + t.after;
    for (int h = 0; h <= t.section && h < static_cast<int>(o.headings.size()); ++h)
      if (o.within(t.section, h)) context += "\n" + o.headings[h].text;
    for (const auto& h : t.header) context += "\n" + h.text;
    if (any_term(context, r.provenance_terms)) continue;
    sink.report("claim.measurement-provenance", t.pos,
                "table of " + term + " figures does not say where its numbers come from (modelled, simulated, "
                "analytical, or measured on named hardware) in its caption, heading or the paragraph before it");
  }
}

void check_non_claims(const Document& doc, const Context& ctx, Sink& sink) {
  const RuleSet& r = ctx.rules;
  const std::string role = doc.role(r);
  if (role.empty() || std::find(r.non_claims_roles.begin(), r.non_claims_roles.end(), role) == r.non_claims_roles.end())
    return;
  for (const auto& h : doc.outline.headings)
    if (any_term(h.text, r.non_claims_headings)) return;
  if (r.accept_bold_label)
    for (const auto& b : doc.outline.bold_labels)
      if (any_term(b.label, r.non_claims_headings)) return;
  auto v = doc.fm.get(r.role_key);
  sink.report("claim.non-claims-section", v ? Pos{v->line, v->col} : Pos{1, 1},
              "a " + role + " must carry an explicit non-claims / out-of-scope section (a heading such as \"" +
                  r.non_claims_headings.front() + "\")");
}

}  // namespace

void check_hygiene(const Document& doc, const Context& ctx, Sink& sink) {
  if (!doc.parsed) return;
  check_overclaims(doc, ctx, sink);
  check_measurement_tables(doc, ctx, sink);
  check_non_claims(doc, ctx, sink);
}

}  // namespace fusecert::docaudit
