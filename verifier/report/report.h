// Renderers of the prover's result structure: a terminal table, the JSON of
// `fusecert prove --format json`, and deterministic proposition certificates.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "verifier/core/result.h"
#include "verifier/core/spec.h"

namespace fusecert::verifier::report {

/// Table (id / statement / verdict / expected / time), then per proposition
/// its notes, counterexample (every variable, with replay) and witness figures.
std::string render_text(const std::vector<PropositionResult>& rs, bool verbose);

/// {"tool":..., "propositions":[{id, verdict, expected, obligations:[{id, smt2,
/// expected, result, time_ms, ...}], counterexample|null, witness|null, ...}]}.
nlohmann::ordered_json render_json(const std::vector<PropositionResult>& rs, const Registry& reg);

/// One counterexample as JSON (null when absent).
nlohmann::ordered_json counterexample_json(const std::optional<Counterexample>& cx);

/// A proposition certificate: deterministic (no times, no paths, sorted
/// keys where order is free), with tool and Z3 versions, the rules file's
/// SHA-256 and every obligation's SMT-LIB2 and answer.
nlohmann::ordered_json render_certificate(const PropositionResult& r, const Registry& reg);
/// The digest a proposition certificate carries (SHA-256 of the compact
/// sorted-key JSON of every field but "digest").
std::string proposition_digest(nlohmann::json j);

/// "4.8.12" — the linked Z3's version.
std::string z3_version();
/// fusecert's version (CMake project version).
std::string tool_version();

}  // namespace fusecert::verifier::report
