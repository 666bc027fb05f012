// Re-checking `fusecert prove --certify` certificates (one proposition's
// obligations; docs/prover.md) in check-cert, beside the legality
// certificates of certify (check.cpp).
#pragma once
#include <nlohmann/json.hpp>

#include "support/diag/report_format.h"
#include "verifier/cert/certify.h"

namespace fusecert::cert {

/// The `schema` of a proposition certificate (verifier/report/json.cpp writes it).
inline constexpr const char* kPropositionFormat = diag::kPropositionCertificateFormat;

/// Whether `j` is a proposition certificate of this version (by its `schema`).
bool is_proposition_certificate(const nlohmann::json& j);

/// Checks the fields, re-runs every obligation's SMT-LIB2 with `solver`
/// (`timeout_ms` per query) against the recorded answer, and checks that a
/// definite verdict has every obligation decided. A definite answer that
/// differs is invalid; a solver that cannot decide leaves it unverified.
CheckOutcome check_proposition_certificate(const nlohmann::json& j, const Solver& solver, unsigned timeout_ms);

}  // namespace fusecert::cert
