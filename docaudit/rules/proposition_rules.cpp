// Proposition consistency: a verdict table row (`| P2 | ... | **False,
// provably** |`) must agree with the verdict fusecert's prover establishes for
// that id, at the parameters the row's parameters cell states (`beta1=0`;
// the defaults when it states none); an id the prover's registry does not
// know is an error, and so are parameters that cannot be read or proved.
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

/// Index of the first header cell naming one of `names` (-1: none).
int column_named(const Table& t, const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    const std::string h = normalize_words(t.header[i].text);
    for (const auto& name : names)
      if (starts_with_word(h, normalize_words(name))) return static_cast<int>(i);
  }
  return -1;
}

/// Reads a parameters cell, `name=value` items separated by `,` or `;`, into
/// `row.params`; what cannot be read goes to `row.params_error`.
void read_parameters(const std::string& cell, const RuleSet& rules, PropositionRow& row) {
  const std::string text = trim(cell);
  if (text.empty()) return;
  const std::string folded = lower_ascii(text);
  for (const auto& d : rules.parameter_defaults)
    if (folded == lower_ascii(trim(d))) return;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find_first_of(",;", at);
    if (end == std::string::npos) end = text.size();
    const std::string item = trim(std::string_view(text).substr(at, end - at));
    at = end + 1;
    const std::size_t eq = item.find('=');
    const std::string name = eq == std::string::npos ? "" : trim(std::string_view(item).substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trim(std::string_view(item).substr(eq + 1));
    if (item.empty() || name.empty() || value.empty()) {
      row.params_error = "the parameters \"" + text + "\" are not `name=value` items separated by `,` or `;`" +
                         (item.empty() ? "" : " (at \"" + item + "\")");
      row.params.clear();
      return;
    }
    if (!row.params.emplace(name, value).second) {
      row.params_error = "parameter '" + name + "' is given twice (" + row.params[name] + " and " + value + ")";
      row.params.clear();
      return;
    }
  }
}

}  // namespace

std::string to_string(const Question& q) {
  if (q.params.empty()) return q.id;
  std::string s = q.id + " with ";
  bool first = true;
  for (const auto& [name, value] : q.params) {
    s += (first ? "" : ", ") + name + "=" + value;
    first = false;
  }
  return s;
}

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
    const int verdict_col = column_named(t, rules.verdict_headers);
    if (verdict_col <= 0) continue;  // not a verdict table (or the verdict is the id column)
    int params_col = column_named(t, rules.parameter_headers);
    if (params_col == 0 || params_col == verdict_col) params_col = -1;
    for (const auto& row : t.rows) {
      if (row.empty() || static_cast<int>(row.size()) <= verdict_col) continue;
      // Ids are matched as written (case matters: P2a), emphasis removed.
      std::string raw;
      for (char c : trim(row[0].text))
        if (c != '*' && c != '_' && c != '`') raw.push_back(c);
      if (!rules.is_proposition_id(raw)) continue;
      PropositionRow r{raw, row[verdict_col].text, row[0].pos, row[verdict_col].pos, {}, {}, {}};
      if (params_col > 0) {
        // A row shorter than the header leaves the cell empty: the defaults.
        if (static_cast<int>(row.size()) > params_col) {
          r.params_pos = row[params_col].pos;
          read_parameters(row[params_col].text, rules, r);
        }
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

void check_propositions(const Summary& doc, const Context& ctx, Sink& sink) {
  // The checker asks the prover only for documents where one of these is on.
  if (!sink.enabled("claim.proposition-verdict") && !sink.enabled("claim.proposition-unknown") &&
      !sink.enabled("claim.proposition-parameters"))
    return;
  for (const auto& row : doc.propositions) {
    auto asserted = ctx.rules.asserted_verdict(row.wording);
    if (!asserted) {
      sink.report("claim.proposition-wording", row.verdict_pos,
                  "verdict wording \"" + row.wording + "\" for " + row.id +
                      " maps to no verdict; add it to propositions.wording");
      continue;
    }
    if (!row.params_error.empty()) {
      sink.report("claim.proposition-parameters", row.params_pos,
                  row.id + ": " + row.params_error + "; the document's verdict cannot be proved");
      continue;
    }
    if (!ctx.verdicts) throw std::logic_error("proposition verdicts were not established before the rules ran");
    const Question q{row.id, row.params};
    auto it = ctx.verdicts->find(q);
    if (it == ctx.verdicts->end()) throw std::logic_error("the prover was not asked " + to_string(q));
    if (!it->second.known) {
      sink.report("claim.proposition-unknown", row.id_pos,
                  "proposition " + row.id + " is not in fusecert's registry; the document's verdict cannot be proved");
      continue;
    }
    const OracleAnswer& a = it->second;
    if (!a.param_error.empty()) {
      sink.report("claim.proposition-parameters", row.params_pos,
                  to_string(q) + ": " + a.param_error + "; the document's verdict cannot be proved");
    } else if (a.verdict == ProvedVerdict::Inconclusive) {
      sink.report("claim.proposition-verdict", row.verdict_pos,
                  to_string(q) + ": the document says \"" + row.wording + "\" (" + to_string(*asserted) +
                      ") but the prover is inconclusive" + (q.params.empty() || a.detail.empty() ? "" : " (" + a.detail + ")") +
                      "; the verdict is asserted, not verified");
    } else if (!agrees(*asserted, a.verdict)) {
      sink.report("claim.proposition-verdict", row.verdict_pos,
                  to_string(q) + ": the document says \"" + row.wording + "\" (" + to_string(*asserted) +
                      ") but fusecert's prover establishes " + to_string(a.verdict));
    }
  }
}

}  // namespace fusecert::docaudit
