// Shared set-up for prover tests: the shipped registry, one proof per id.
#pragma once
#include <filesystem>

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

}  // namespace fusecert::test
