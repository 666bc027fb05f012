// The prover's entry point: run the encoders of the requested propositions
// with parameter overrides, a per-query timeout, and optional witnesses.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "verifier/core/result.h"
#include "verifier/core/spec.h"

namespace fusecert::verifier {

struct ProveOptions {
  unsigned timeout_ms = 20000;            ///< per query; 0 = no limit
  bool witnesses = true;                  ///< run the numeric witness protocols
  std::map<std::string, Param> overrides; ///< --param name=value
  /// Deliberately wrong encodings, for mutation tests only (e.g.
  /// "P1.fused_k_order", "P2.swap_beta"): each must change the verdict.
  std::set<std::string> mutations;
};

/// Parameter names no selected proposition knows (fail closed: usage error).
std::vector<std::string> unknown_params(const Registry& reg, const std::vector<std::string>& ids,
                                        const std::map<std::string, Param>& overrides);

/// Ids the prover has an encoder for, in registry order.
std::vector<std::string> known_ids(const Registry& reg);

/// Proves each id (all known ids if `ids` is empty). Throws
/// std::invalid_argument for an id with no spec or no encoder.
std::vector<PropositionResult> prove(const Registry& reg, const std::vector<std::string>& ids,
                                     const ProveOptions& opt);

/// An encoder: given its spec and effective parameters, fills the result's
/// obligations, verdict, counterexample, witness and notes. The table of
/// encoders is verifier/props/props.h (one file per proposition).
using Encoder = void (*)(const PropositionSpec&, const std::map<std::string, Param>&,
                         const ProveOptions&, PropositionResult&);

}  // namespace fusecert::verifier
