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

bool digit(char c) { return c >= '0' && c <= '9'; }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool alnum(char c) { return digit(c) || alpha(c); }

/// `name` at `at` of `text`, compared as the hardware rule does: names of one
/// or two characters (`A`, `MI`, `RX`) as written, longer ones in any case.
bool name_at(std::string_view text, std::size_t at, std::string_view name) {
  if (at + name.size() > text.size()) return false;
  const std::string_view got = text.substr(at, name.size());
  return name.size() <= 2 ? got == name : lower_ascii(got) == lower_ascii(name);
}

/// The text names hardware (hygiene.hardware_names: vendors, product lines
/// and model prefixes): a name, at a word start, followed by a model number,
/// either glued (`MI300X`, `gfx1151`, `sm_90`, `Apple7`, `A100`; a name of one
/// character needs two digits, so `A1` or `L2` is none) or as the next word
/// after a space or a hyphen, a word holding a digit (`RTX 4090`, `RTX 5070
/// Ti`, `Xeon 8480`, `NVIDIA H200`, `Apple M2`; not for one-character names:
/// "A 100-step sweep"). A product line of hygiene.hardware_lines names
/// hardware alone ("AMD EPYC", "a Xeon host"); a vendor alone ("on an NVIDIA
/// GPU"), "our GPU" or a dtype (`fp32`) names none.
bool names_hardware(std::string_view text, const std::vector<std::string>& names,
                    const std::vector<std::string>& lines) {
  for (const auto& line : lines)
    if (find_term(text, line) != std::string::npos) return true;
  for (const auto& name : names) {
    if (name.empty()) continue;
    for (std::size_t at = 0; at + name.size() <= text.size(); ++at) {
      if (at > 0 && (alnum(text[at - 1]) || text[at - 1] == '_')) continue;
      if (!name_at(text, at, name)) continue;
      std::size_t e = at + name.size();
      if (e < text.size() && digit(text[e])) {
        std::size_t d = e;
        while (d < text.size() && digit(text[d])) ++d;
        if (name.size() > 1 || d - e >= 2) return true;
        continue;
      }
      if (name.size() == 1 || alnum(name.back()) == false) continue;
      if (e < text.size() && (alnum(text[e]) || text[e] == '_')) continue;  // "Radeonic"
      if (e + 1 >= text.size() || (text[e] != ' ' && text[e] != '-')) continue;
      bool has = false;
      // The next word alone, up to a hyphen: in "APPLE-ATTN-BWD-PERF-1" (an
      // item id) "ATTN" holds no digit.
      for (std::size_t k = e + 1; k < text.size() && (alnum(text[k]) || text[k] == '_'); ++k)
        has = has || digit(text[k]);
      if (has) return true;
    }
  }
  return false;
}

/// A unit of hygiene.measurement_units at `at` (after a number and an
/// optional space), ending at a word boundary; its length, or 0. `x` and `×`
/// followed by a number are a dimension (`64 x 64`), not a speedup.
std::size_t unit_at(std::string_view text, std::size_t at, const std::vector<std::string>& units) {
  for (const auto& u : units) {
    if (u.empty() || at + u.size() > text.size() || lower_ascii(text.substr(at, u.size())) != lower_ascii(u)) continue;
    std::size_t e = at + u.size();
    if (e < text.size() && alnum(text[e]) && alnum(u.back())) continue;  // "3 sets" is no `s`
    if (u == "x" || u == "\xC3\x97") {
      std::size_t k = e;
      while (k < text.size() && text[k] == ' ') ++k;
      if (k < text.size() && digit(text[k])) continue;
    }
    return u.size();
  }
  return 0;
}

/// A table cell holds a timing: a number (not part of a word: `R2`, `P2`,
/// `S64` are names) followed by a unit (`2.5 ms`, `11.0x`, `120 cycles`), or,
/// when the column's header names a unit (`Latency (ms)`, `Cycles`,
/// `Speedup`), a cell that opens with a number (`0.41`, `**6.0**`, `~4.5`).
/// A digit elsewhere ("rung 3 ✅", "✅ (2 lanes)", "step 4") is no timing.
bool timing_cell(std::string_view cell, bool header_gives_unit, const std::vector<std::string>& units) {
  for (std::size_t i = 0; i < cell.size(); ++i) {
    if (!digit(cell[i]) || (i > 0 && (alnum(cell[i - 1]) || cell[i - 1] == '_'))) continue;
    std::size_t e = i;
    while (e < cell.size() && (digit(cell[e]) || ((cell[e] == '.' || cell[e] == ',') && e + 1 < cell.size() && digit(cell[e + 1]))))
      ++e;
    std::size_t u = e;
    if (u < cell.size() && cell[u] == ' ') ++u;
    if (unit_at(cell, u, units) > 0) return true;
    i = e;
  }
  if (!header_gives_unit) return false;
  std::size_t i = 0;
  while (i < cell.size() && !alnum(cell[i])) ++i;  // `**`, `~`, `≈`, spaces
  return i < cell.size() && digit(cell[i]);
}

/// A column whatever its header (`| kernel | Result |`) holds timings when
/// most of its non-empty cells (more than half) are a number with a time
/// unit (hygiene.time_units: `2.5 ms`, `310 µs`, `1.2 s`). A unit the header
/// gives does not count here, nor a speedup or a rate (`11.0x`, `GB/s`): a
/// column of those is a measurement by its header alone.
bool timing_column(const Table& t, std::size_t c, const RuleSet& r) {
  std::size_t filled = 0, timed = 0;
  for (const auto& row : t.rows) {
    if (c >= row.size() || trim(row[c].text).empty()) continue;
    ++filled;
    if (timing_cell(row[c].text, false, r.time_units)) ++timed;
  }
  return timed > 0 && 2 * timed > filled;
}

/// A table is a measurement table when a header cell names a measurement
/// term and the column under it holds a timing (timing_cell: a number with a
/// unit, or under a header that gives the unit), or when a column of any
/// header holds timings in most of its cells (timing_column: "Result" over
/// `2.5 ms`, `310 µs`): a "Runtime" column of ✅/❌ proof rungs ("rung 3 ✅")
/// is not a timing table. Its provenance is a method
/// (hygiene.provenance_terms: modelled, simulated, analytical, ...) or the
/// hardware the numbers were measured on, named (names_hardware: "measured
/// on named hardware", the spec says; "Measured." alone is none), in its
/// caption (the paragraph after it), the paragraph right before it, any
/// heading it sits under, or its header cells (the spec: "caption, heading or
/// the paragraph before it"), or a sentence scoping it to every table of
/// its section or the document ("Every number here is measured on gfx1151")
/// in a paragraph before it in its section or a section it sits under
/// (covered_by_intro); any other intro further up does not cover every table
/// below it.
/// A clause (split at `.`, `,`, `;`, `:`, brackets and line breaks) of the
/// text names a method or hardware, and no contrast term
/// (hygiene.provenance_contrast_terms: "unlike", "instead of", "we once
/// had") in that clause says the numbers are not from it ("Unlike the A100
/// numbers we once had, these timings are from our lab machine").
bool states_provenance(const std::string& text, const RuleSet& r) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && std::string_view(".,;:()[]\n").find(text[i]) == std::string_view::npos) continue;
    const std::string clause = text.substr(start, i - start);
    start = i + 1;
    if (any_term(clause, r.provenance_contrast_terms)) continue;
    if (any_term(clause, r.provenance_terms) || names_hardware(clause, r.hardware_names, r.hardware_lines)) return true;
  }
  return false;
}

/// The sentences of `text`: split after '.', '!' or '?' followed by a space
/// (`2.9 GHz` stays whole).
std::vector<std::string> sentences_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((text[i] == '.' || text[i] == '!' || text[i] == '?') && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
      out.push_back(text.substr(start, i + 1 - start));
      start = i + 1;
    }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

/// A sentence that states provenance for every table after it in its scope:
/// a quantifier (hygiene.provenance_scope_quantifiers), a noun of numbers
/// (hygiene.provenance_scope_nouns) within 40 bytes after it, a place
/// (hygiene.provenance_scope_places) after the quantifier, and the provenance itself ("Every
/// number here is measured on gfx1151", "All timings below are modelled").
bool scope_statement(const std::string& sentence, const RuleSet& r) {
  for (const auto& q : r.provenance_scope_quantifiers) {
    const std::size_t at = find_term(sentence, q);
    if (at == std::string::npos) continue;
    const std::string rest = sentence.substr(at + q.size());
    bool noun = false;  // "All timings", "every GEMM number": not "Each table below is reported"
    for (const auto& n : r.provenance_scope_nouns) {
      const std::size_t k = find_term(rest, n);
      noun = noun || (k != std::string::npos && k <= 40);
    }
    if (noun && any_term(rest, r.provenance_scope_places)) return states_provenance(sentence, r);
  }
  return false;
}

/// A sentence that scopes the numbers of its section to their provenance: a
/// noun of numbers (hygiene.provenance_scope_nouns: "claims", "numbers",
/// "results") followed, within 40 bytes in its clause, by a scoping phrase
/// (hygiene.provenance_scope_verbs: "scoped to", "measured on", "on") after
/// which its clause states the provenance ("Performance claims are scoped
/// to the gfx1151 WSL system above", "Results were measured on an MI300X").
/// That clause holds no contrast term ("Performance numbers are scoped to
/// the lab box, not on gfx1151" scopes nothing) and no negation before the
/// phrase (hygiene.provenance_scope_negations: "No Mac claim was measured on
/// gfx1151" scopes nothing), and provenance named before
/// the phrase ("gfx1151 numbers are scoped to our lab") or in a later clause
/// ("where its numbers come from; each is reported") is none.
bool scoping_sentence(const std::string& sentence, const RuleSet& r) {
  constexpr std::string_view breaks = ".,;:()[]\n";
  for (const auto& n : r.provenance_scope_nouns)
    for (std::size_t k = find_term(sentence, n); k != std::string::npos;) {
      const std::size_t from = k + n.size();
      std::size_t end = std::min(sentence.size(), from + 40);
      for (std::size_t i = from; i < end; ++i)
        if (breaks.find(sentence[i]) != std::string_view::npos) end = i;
      const std::string window = sentence.substr(from, end - from);
      for (const auto& v : r.provenance_scope_verbs) {
        const std::size_t j = find_term(window, v);
        if (j == std::string::npos) continue;
        const std::size_t at = from + j + v.size();
        std::size_t cs = from + j, ce = at;  // the phrase's clause
        while (cs > 0 && breaks.find(sentence[cs - 1]) == std::string_view::npos) --cs;
        while (ce < sentence.size() && breaks.find(sentence[ce]) == std::string_view::npos) ++ce;
        if (any_term(sentence.substr(cs, ce - cs), r.provenance_contrast_terms)) continue;
        if (any_term(sentence.substr(cs, from + j - cs), r.provenance_scope_negations)) continue;
        if (states_provenance(sentence.substr(at, ce - at), r)) return true;
      }
      const std::size_t next = find_term(std::string_view(sentence).substr(from), n);
      k = next == std::string::npos ? next : from + next;
    }
  return false;
}

/// A paragraph before table `t`, in its section or one it sits under (or
/// before the first heading: the document's intro), holds a scope statement
/// or a scoping sentence.
bool covered_by_intro(const Outline& o, const Table& t, const RuleSet& r) {
  for (const auto& p : o.prose) {
    if (p.anchors.empty()) continue;
    if (p.anchors.front().pos.line >= t.pos.line) break;
    if (!p.paragraph || (p.section >= 0 && !o.within(t.section, p.section))) continue;
    for (const auto& s : sentences_of(p.text))
      if (scope_statement(s, r) || scoping_sentence(s, r)) return true;
  }
  return false;
}

void check_measurement_tables(const Document& doc, const Context& ctx, Sink& sink) {
  const RuleSet& r = ctx.rules;
  const Outline& o = doc.outline;
  for (const auto& t : o.tables) {
    std::string term;
    bool measurement = false;
    for (std::size_t c = 0; c < t.header.size() && !measurement; ++c) {
      std::string which;
      if (!any_term(t.header[c].text, r.measurement_terms, &which)) continue;
      const bool header_unit = any_term(t.header[c].text, r.measurement_units);
      for (const auto& row : t.rows)
        if (c < row.size() && timing_cell(row[c].text, header_unit, r.measurement_units)) {
          measurement = true;
          term = which;
          break;
        }
    }
    for (std::size_t c = 0; c < t.header.size() && !measurement; ++c)
      if (timing_column(t, c, r)) {
        measurement = true;
        term = "timing";
      }
    if (!measurement) continue;
    std::string context = t.before + "\n" + t.after;
    for (int h = 0; h <= t.section && h < static_cast<int>(o.headings.size()); ++h)
      if (o.within(t.section, h)) context += "\n" + o.headings[h].text;
    for (const auto& h : t.header) context += "\n" + h.text;
    if (states_provenance(context, r) || covered_by_intro(o, t, r)) continue;
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
