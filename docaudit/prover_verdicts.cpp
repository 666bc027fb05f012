#include "docaudit/prover_verdicts.h"

#include <algorithm>
#include <stdexcept>

#include "docaudit/ruleset.h"
#include "docaudit/embedded_verdicts.h"
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

}  // namespace

std::map<std::string, OracleAnswer> ProverVerdicts::establish(const std::set<std::string>& ids) {
  verifier::Registry reg;
  try {
    reg = verifier::load_registry();
  } catch (const verifier::SpecError& e) {
    throw ConfigError(std::string("proposition registry: ") + e.what());
  }
  const std::vector<std::string> provable = verifier::known_ids(reg);
  std::map<std::string, OracleAnswer> out;
  std::vector<std::string> to_prove;
  for (const auto& id : ids) {
    OracleAnswer a;
    a.known = reg.find(id) != nullptr && std::find(provable.begin(), provable.end(), id) != provable.end();
    if (a.known) to_prove.push_back(id);
    out[id] = a;
  }
  // The build's verdicts stand while the registry and the Z3 are the build's.
  if (use_embedded_ && reg.sha256 == embedded::kRegistrySha256 && verifier::report::z3_version() == embedded::kZ3Version) {
    std::vector<std::string> rest;
    for (const auto& id : to_prove) {
      const embedded::Verdict* hit = nullptr;
      for (std::size_t i = 0; i < embedded::kVerdictCount; ++i)
        if (id == embedded::kVerdicts[i].id) hit = &embedded::kVerdicts[i];
      if (!hit) {
        rest.push_back(id);
        continue;
      }
      OracleAnswer& a = out[id];
      a.verdict = hit->verdict;
      a.detail = hit->title;
      ++embedded_used_;
    }
    to_prove = rest;
  }
  if (to_prove.empty()) return out;
  proved_ += to_prove.size();
  verifier::ProveOptions opt;
  opt.witnesses = false;  // the symbolic verdict is what a document's table asserts
  for (const auto& r : verifier::prove(reg, to_prove, opt)) {
    OracleAnswer& a = out[r.id];
    a.known = true;
    a.verdict = from_verifier(r.verdict);
    a.detail = r.title;
  }
  return out;
}

}  // namespace fusecert::docaudit
