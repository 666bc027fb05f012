// Shared set-up for prover tests: the shipped registry, one proof per id.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>

#include "verifier/prover.h"

namespace fusecert::test {

inline const verifier::Registry& registry() {
  static verifier::Registry reg = verifier::load_registry(std::filesystem::path(FUSECERT_SOURCE_DIR) / "rules");
  return reg;
}

inline verifier::PropositionResult prove_one(const std::string& id, verifier::ProveOptions opt = {}) {
  auto rs = verifier::prove(registry(), {id}, opt);
  return rs.at(0);
}

/// The obligation `id` of a proof's result; throws when it has none.
inline const verifier::Obligation& ob(const verifier::PropositionResult& r, const std::string& id) {
  for (const auto& o : r.obligations)
    if (o.id == id) return o;
  throw std::runtime_error("no obligation " + id);
}

}  // namespace fusecert::test
