#include "verifier/prover.h"

#include <chrono>
#include <set>
#include <stdexcept>

#include "verifier/core/verdict_rule.h"
#include "verifier/props/props.h"

namespace fusecert::verifier {

namespace {
Encoder find_encoder(const std::string& id) {
  for (const auto& e : props::kEncoders)
    if (id == e.id) return e.fn;
  return nullptr;
}
}  // namespace

std::vector<std::string> known_ids(const Registry& reg) {
  std::vector<std::string> ids;
  for (const auto& p : reg.propositions)
    if (find_encoder(p.id)) ids.push_back(p.id);
  return ids;
}

std::vector<std::string> unknown_params(const Registry& reg, const std::vector<std::string>& ids,
                                        const std::map<std::string, Param>& overrides) {
  std::vector<std::string> sel = ids.empty() ? known_ids(reg) : ids;
  std::vector<std::string> bad;
  for (const auto& [name, _] : overrides) {
    bool known = false;
    for (const auto& id : sel)
      if (const auto* p = reg.find(id)) known |= p->params.count(name) > 0;
    if (!known) bad.push_back(name);
  }
  return bad;
}

std::vector<PropositionResult> prove(const Registry& reg, const std::vector<std::string>& ids, const ProveOptions& opt) {
  std::vector<std::string> sel = ids.empty() ? known_ids(reg) : ids;
  std::vector<PropositionResult> results;
  for (const auto& id : sel) {
    const PropositionSpec* spec = reg.find(id);
    if (!spec) throw std::invalid_argument("unknown proposition id '" + id + "'");
    Encoder enc = find_encoder(id);
    if (!enc) throw std::invalid_argument("proposition '" + id + "' has no encoder in this build");
    PropositionResult r;
    r.id = spec->id;
    r.title = spec->title;
    r.statement = spec->statement;
    r.assessment_wording = spec->assessment_wording;
    r.expected = spec->expected;
    std::map<std::string, Param> eff = spec->params;
    for (const auto& [name, p] : opt.overrides) {
      auto it = eff.find(name);
      if (it == eff.end()) continue;
      if (it->second.text != p.text) r.params_overridden = true;
      it->second.value = p.value;
      it->second.text = p.text;
    }
    for (const auto& [name, p] : eff) r.params[name] = p.text;
    auto t0 = std::chrono::steady_clock::now();
    enc(*spec, eff, opt, r);
    r.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    // An obligation the encoder says holds by construction is a sanity check
    // in the rules file, and only those are (issue #19): evidence never hides
    // among the checks, nor a check among the evidence.
    for (const auto& o : r.obligations)
      if (o.scope.evidence() == spec->rule.is_sanity(o.id))
        throw SpecError(spec->id + ": obligation " + o.id + " is " +
                        (o.scope.evidence() ? "evidence in the encoder but a sanity check"
                                            : "definitional in the encoder (" + o.scope.definitional +
                                                  ") but evidence") +
                        " in the rules file (rules/propositions.yaml)");
    // The verdict is the rule's, never the encoder's (rules/propositions.yaml).
    apply_verdict_rule(*spec, r);
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace fusecert::verifier
