// Proposition consistency: a verdict table row (`| P2 | ... | **False,
// provably** |`) must agree with the verdict fusecert's prover establishes for
// that id; an id the prover's registry does not know is an error.
#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

/// Whether the prover's verdict satisfies the verdict the document asserts.
bool agrees(AssertedVerdict a, ProvedVerdict p) {
  switch (a) {
    case AssertedVerdict::Holds: return p == ProvedVerdict::Holds;
    case AssertedVerdict::Refuted: return p == ProvedVerdict::Refuted;
    case AssertedVerdict::Conditional: return p == ProvedVerdict::Conditional;
  }
  return false;
}

}  // namespace

std::string to_string(ProvedVerdict v) {
  switch (v) {
    case ProvedVerdict::Holds: return "holds";
    case ProvedVerdict::Refuted: return "refuted";
    case ProvedVerdict::Conditional: return "conditional";
    case ProvedVerdict::Inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

std::vector<PropositionRow> proposition_rows(const Document& doc, const RuleSet& rules) {
  std::vector<PropositionRow> out;
  if (!doc.parsed) return out;
  for (const auto& t : doc.outline.tables) {
    int verdict_col = -1;
    for (std::size_t i = 0; i < t.header.size() && verdict_col < 0; ++i) {
      const std::string h = normalize_words(t.header[i].text);
      for (const auto& name : rules.verdict_headers)
        if (starts_with_word(h, normalize_words(name))) {
          verdict_col = static_cast<int>(i);
          break;
        }
    }
    if (verdict_col <= 0) continue;  // not a verdict table (or the verdict is the id column)
    for (const auto& row : t.rows) {
      if (row.empty() || static_cast<int>(row.size()) <= verdict_col) continue;
      // Ids are matched as written (case matters: P2a), emphasis removed.
      std::string raw;
      for (char c : trim(row[0].text))
        if (c != '*' && c != '_' && c != '`') raw.push_back(c);
      if (!rules.is_proposition_id(raw)) continue;
      out.push_back(PropositionRow{raw, row[verdict_col].text, row[0].pos, row[verdict_col].pos});
    }
  }
  return out;
}

void check_propositions(const Summary& doc, const Context& ctx, Sink& sink) {
  for (const auto& row : doc.propositions) {
    auto asserted = ctx.rules.asserted_verdict(row.wording);
    if (!asserted) {
      sink.report("claim.proposition-wording", row.verdict_pos,
                  "verdict wording \"" + row.wording + "\" for " + row.id +
                      " maps to no verdict; add it to propositions.wording");
      continue;
    }
    if (!ctx.verdicts) throw std::logic_error("proposition verdicts were not established before the rules ran");
    auto it = ctx.verdicts->find(row.id);
    if (it == ctx.verdicts->end() || !it->second.known) {
      sink.report("claim.proposition-unknown", row.id_pos,
                  "proposition " + row.id + " is not in fusecert's registry; the document's verdict cannot be proved");
      continue;
    }
    const OracleAnswer& a = it->second;
    if (a.verdict == ProvedVerdict::Inconclusive) {
      sink.report("claim.proposition-verdict", row.verdict_pos,
                  row.id + ": the document says \"" + row.wording + "\" (" + to_string(*asserted) +
                      ") but the prover is inconclusive; the verdict is asserted, not verified");
    } else if (!agrees(*asserted, a.verdict)) {
      sink.report("claim.proposition-verdict", row.verdict_pos,
                  row.id + ": the document says \"" + row.wording + "\" (" + to_string(*asserted) +
                      ") but fusecert's prover establishes " + to_string(a.verdict));
    }
  }
}

}  // namespace fusecert::docaudit
