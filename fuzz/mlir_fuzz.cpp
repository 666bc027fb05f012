// mlir_fuzz: libFuzzer harness for the IR front end and everything that walks
// its model: parse_mlir (MLIR 19's parser + fusecert's translation), the
// candidate finder, the unknown-op check, and every fusion guard with its
// obligations (check_candidate), then the certificate and diagnostic
// renderers. Inputs that MLIR's parser rejects stop early (that parser is not
// ours); mutations of the fixtures/ir seeds mostly stay accepted and so reach
// fusecert's own walkers. SMT queries run with a 200 ms limit: a guard that
// times out must answer inconclusive, which the harness checks.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "verifier/cert/certify.h"
#include "verifier/guards/guards.h"
#include "verifier/ir/candidates.h"
#include "verifier/ir/model.h"

namespace fc = fusecert;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  fc::ir::LoadResult lr = fc::ir::parse_mlir(text, "fuzz.mlir");
  if (lr.module) {
    (void)fc::ir::find_candidates(*lr.module);
    (void)fc::ir::unknown_ops(*lr.module);
  }
  // The full certify pipeline over the same text (guards, obligations,
  // certificates, renderers). certify_text parses again; that is its API.
  fc::cert::InputReport rep = fc::cert::certify_text(text, "fuzz.mlir", 200);
  std::vector<fc::cert::InputReport> all{rep};
  (void)fc::cert::exit_code(all);
  (void)fc::cert::render_text(all);
  (void)fc::cert::render_json(all, "fuzz");
  (void)fc::cert::render_sarif(all, "fuzz");
  for (size_t i = 0; i < rep.candidates.size(); ++i) {
    // Fail closed: "legal" only when every deciding obligation is definite
    // and holds (a timeout/unknown/error answer must never pass).
    const auto& c = rep.candidates[i];
    if (c.verdict == "legal")
      for (const auto& o : c.obligations)
        if (o.decides && (!o.decided() || !o.holds())) std::abort();
    auto j = fc::cert::certificate(rep, i, "fuzz");
    (void)fc::cert::dump(j);
    (void)fc::cert::certificate_name(rep, i);
  }
  return 0;
}
