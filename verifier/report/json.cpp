#include <z3.h>

#include "verifier/report/report.h"

#include "support/diag/report_format.h"
#include "support/sha256.h"

namespace fusecert::verifier::report {

using nlohmann::ordered_json;

std::string z3_version() {
  unsigned a, b, c, d;
  Z3_get_version(&a, &b, &c, &d);
  return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
}

std::string tool_version() { return FUSECERT_VERSION; }

static ordered_json model_json(const std::vector<smt::ModelValue>& vs) {
  ordered_json arr = ordered_json::array();
  for (const auto& v : vs) {
    ordered_json o{{"name", v.name}, {"sort", v.sort}, {"value", v.value}};
    if (!v.bits.empty()) o["bits"] = v.bits;
    arr.push_back(o);
  }
  return arr;
}

ordered_json counterexample_json(const std::optional<Counterexample>& cx) {
  if (!cx) return nullptr;
  ordered_json replay = ordered_json::object();
  for (const auto& [k, v] : cx->replay) replay[k] = v;
  return {{"obligation", cx->obligation},
          {"summary", cx->summary},
          {"values", model_json(cx->values)},
          {"replay", replay},
          {"replay_confirms", cx->replay_confirms}};
}

// Non-vacuity: the answer to the premises alone (unsat results), else null.
static ordered_json premises_json(const Obligation& o) {
  return o.premises.empty() ? ordered_json(nullptr) : ordered_json(o.premises);
}

// What the answer covers (issue #19): theory, symbolic, fixed, what it
// assumes, and whether it is evidence or a sanity check that holds by
// construction.
static ordered_json scope_json(const Scope& s) {
  return {{"theory", s.theory},
          {"symbolic", s.symbolic},
          {"fixed", s.fixed},
          {"assumed", s.assumed},
          {"evidence", s.evidence()},
          {"definitional", s.evidence() ? ordered_json(nullptr) : ordered_json(s.definitional)}};
}

static ordered_json witness_json(const std::optional<Witness>& w) {
  if (!w) return nullptr;
  ordered_json o = ordered_json::object();
  for (const auto& f : w->figures) o[f.name] = f.value;
  return o;
}

static ordered_json witness_detail_json(const std::optional<Witness>& w) {
  if (!w) return nullptr;
  ordered_json figs = ordered_json::array();
  for (const auto& f : w->figures) {
    ordered_json o{{"name", f.name}, {"value", f.value}, {"meaning", f.meaning}};
    o["range"] = {f.lo ? ordered_json(*f.lo) : ordered_json(nullptr), f.hi ? ordered_json(*f.hi) : ordered_json(nullptr)};
    o["quoted"] = f.quoted ? ordered_json(*f.quoted) : ordered_json(nullptr);
    o["range_applies"] = f.range_applies;
    o["in_range"] = f.in_range();
    figs.push_back(o);
  }
  return {{"protocol", w->protocol}, {"figures", figs}};
}

static ordered_json params_json(const PropositionResult& r) {
  ordered_json o = ordered_json::object();
  for (const auto& [k, v] : r.params) o[k] = v;
  return o;
}

ordered_json render_json(const std::vector<PropositionResult>& rs, const Registry& reg) {
  ordered_json props = ordered_json::array();
  for (const auto& r : rs) {
    ordered_json obs = ordered_json::array();
    for (const auto& o : r.obligations) {
      ordered_json j{{"id", o.id},
                     {"claim", o.claim},
                     {"scope", scope_json(o.scope)},
                     {"smt2", o.query()},
                     {"expected", o.expected},
                     {"answer", o.answer},
                     {"time_ms", o.time_ms}};
      j["premises"] = premises_json(o);
      if (!o.reason.empty()) j["reason"] = o.reason;
      if (!o.premises_reason.empty()) j["premises_reason"] = o.premises_reason;
      if (!o.model.empty()) j["model"] = model_json(o.model);
      obs.push_back(j);
    }
    props.push_back({{"id", r.id},
                     {"title", r.title},
                     {"statement", r.statement},
                     {"verdict", to_string(r.verdict)},
                     {"expected", to_string(r.expected)},
                     {"assessment_wording", r.assessment_wording},
                     {"matches_expected", r.matches_expected()},
                     {"params", params_json(r)},
                     {"params_overridden", r.params_overridden},
                     {"obligations", obs},
                     {"counterexample", counterexample_json(r.counterexample)},
                     {"witness", witness_json(r.witness)},
                     {"witness_detail", witness_detail_json(r.witness)},
                     {"notes", r.notes},
                     {"time_ms", r.time_ms}});
  }
  return {{"schema", diag::kProveReportFormat},
          {"tool", {{"name", "fusecert"}, {"version", tool_version()}, {"z3", z3_version()}}},
          {"rules_sha256", reg.sha256},
          {"propositions", props}};
}

ordered_json render_certificate(const PropositionResult& r, const Registry& reg) {
  ordered_json obs = ordered_json::array();
  for (const auto& o : r.obligations)
    obs.push_back({{"id", o.id},
                   {"claim", o.claim},
                   {"scope", scope_json(o.scope)},
                   {"how", "smt"},
                   {"smt2", o.query()},
                   {"expected", o.expected},
                   {"answer", o.answer},
                   {"premises", premises_json(o)}});
  ordered_json c = {{"schema", diag::kPropositionCertificateFormat},
          {"tool", {{"name", "fusecert"}, {"version", tool_version()}}},
          {"z3_version", z3_version()},
          {"rules_sha256", reg.sha256},
          {"id", r.id},
          {"statement", r.statement},
          {"params", params_json(r)},
          {"verdict", to_string(r.verdict)},
          {"expected", to_string(r.expected)},
          {"obligations", obs},
          {"counterexample", counterexample_json(r.counterexample)},
          {"witness", witness_detail_json(r.witness)},
          {"notes", r.notes}};
  c["digest"] = proposition_digest(nlohmann::json(c));
  return c;
}

std::string proposition_digest(nlohmann::json j) {
  // As a legality certificate's: SHA-256 of the compact, sorted-key JSON of
  // every other field. It detects corruption; only re-running the prover
  // decides validity (check-cert).
  j.erase("digest");
  return support::sha256_hex(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace fusecert::verifier::report
