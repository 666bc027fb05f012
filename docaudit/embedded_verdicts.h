// Proposition verdicts at default parameters, proved when fusecert was built
// (docaudit/embed_verdicts.cpp writes the definitions): facts of the build,
// valid while the registry's bytes (its SHA-256) and the Z3 version match.
#pragma once
#include <cstddef>

#include "docaudit/verdicts.h"

namespace fusecert::docaudit::embedded {

struct Verdict {
  const char* id;
  ProvedVerdict verdict;
  const char* title;
};

extern const char* const kRegistrySha256;  ///< of the propositions.yaml the build proved
extern const char* const kZ3Version;       ///< of the Z3 the build proved with
extern const Verdict kVerdicts[];
extern const std::size_t kVerdictCount;

}  // namespace fusecert::docaudit::embedded
