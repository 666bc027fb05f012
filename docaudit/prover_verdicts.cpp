#include "docaudit/prover_verdicts.h"

#include <algorithm>
#include <stdexcept>

#include "docaudit/embedded_verdicts.h"
#include "docaudit/ruleset.h"
#include "verifier/prover.h"
#include "verifier/report/report.h"

namespace fusecert::docaudit {
namespace {

ProvedVerdict from_verifier(verifier::Verdict v) {
  switch (v) {
    case verifier::Verdict::Holds: return ProvedVerdict::Holds;
    case verifier::Verdict::Refuted: return ProvedVerdict::Refuted;
    case verifier::Verdict::Conditional: return ProvedVerdict::Conditional;
    case verifier::Verdict::Inconclusive: return ProvedVerdict::Inconclusive;
  }
  return ProvedVerdict::Inconclusive;
}

std::string names_of(const verifier::PropositionSpec& spec) {
  std::string out;
  for (const auto& [name, _] : spec.params) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

/// The parameters of `q` that differ from the defaults, parsed as `prove
/// --param` parses them; throws std::invalid_argument naming what is wrong.
std::map<std::string, verifier::Param> changes(const Question& q, const verifier::PropositionSpec& spec) {
  std::map<std::string, verifier::Param> out;
  for (const auto& [name, text] : q.params) {
    auto def = spec.params.find(name);
    if (def == spec.params.end())
      throw std::invalid_argument(q.id + " has no parameter '" + name + "' (its parameters: " + names_of(spec) + ")");
    auto [_, p] = verifier::parse_param_assignment(name + "=" + text);
    // The encoders read the value, so a value equal to the default asks the
    // default question ("0.90" for 0.9).
    if (p.value != def->second.value) out[name] = p;
  }
  return out;
}

/// Why a proof was inconclusive, from its first undecided obligation.
std::string undecided(const verifier::PropositionResult& r) {
  for (const auto& o : r.obligations)
    if (!o.decided()) return o.id + (o.reason.empty() ? std::string(" undecided") : ": " + o.reason);
  return r.notes.empty() ? std::string() : r.notes.front();
}

}  // namespace

std::map<Question, OracleAnswer> ProverVerdicts::establish(const std::set<Question>& questions) {
  verifier::Registry reg;
  try {
    reg = verifier::load_registry();
  } catch (const verifier::SpecError& e) {
    throw ConfigError(std::string("proposition registry: ") + e.what());
  }
  const std::vector<std::string> provable = verifier::known_ids(reg);
  // The build's verdicts stand while the registry and the Z3 are the build's.
  const bool embedded_valid = use_embedded_ && reg.sha256 == embedded::kRegistrySha256 &&
                              verifier::report::z3_version() == embedded::kZ3Version;
  // Each distinct question (its parameters that differ from the defaults) is
  // answered once, however many rows ask it.
  std::map<Question, OracleAnswer> answered;
  std::map<Question, OracleAnswer> out;
  for (const Question& q : questions) {
    OracleAnswer& a = out[q];
    const verifier::PropositionSpec* spec = reg.find(q.id);
    a.known = spec && std::find(provable.begin(), provable.end(), q.id) != provable.end();
    if (!a.known) continue;
    std::map<std::string, verifier::Param> changed;
    try {
      changed = changes(q, *spec);
    } catch (const std::invalid_argument& e) {
      a.param_error = e.what();
      continue;
    }
    Question canonical{q.id, {}};
    for (const auto& [name, p] : changed) canonical.params[name] = p.text;
    if (auto it = answered.find(canonical); it != answered.end()) {
      a = it->second;
      continue;
    }
    OracleAnswer got;
    got.known = true;
    const embedded::Verdict* hit = nullptr;
    if (embedded_valid && changed.empty())
      for (std::size_t i = 0; i < embedded::kVerdictCount; ++i)
        if (q.id == embedded::kVerdicts[i].id) hit = &embedded::kVerdicts[i];
    if (hit) {
      got.verdict = hit->verdict;
      got.detail = hit->title;
      ++embedded_used_;
    } else {
      // Exactly this proposition, with exactly these parameters.
      verifier::ProveOptions opt;
      opt.witnesses = false;  // the symbolic verdict is what a document's table asserts
      opt.timeout_ms = timeout_ms_;
      opt.overrides = changed;
      try {
        std::vector<verifier::PropositionResult> rs = verifier::prove(reg, {q.id}, opt);
        proved_.push_back(canonical);
        if (rs.size() != 1) throw std::logic_error("the prover answered " + std::to_string(rs.size()) + " results for " + q.id);
        got.verdict = from_verifier(rs[0].verdict);
        got.detail = got.verdict == ProvedVerdict::Inconclusive ? undecided(rs[0]) : rs[0].title;
      } catch (const std::invalid_argument& e) {
        // A value outside the parameter's meaning (the encoder's range
        // check, before any query): nothing was proved.
        got.param_error = e.what();
        got.verdict = ProvedVerdict::Inconclusive;
      }
    }
    answered[canonical] = got;
    a = got;
  }
  return out;
}

}  // namespace fusecert::docaudit
