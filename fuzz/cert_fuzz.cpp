// cert_fuzz: libFuzzer harness for the certificate reader behind
// `fusecert check-cert` (cert::check_certificate): JSON parsing, schema and
// digest checks, the verdict/obligation consistency checks and the re-run of
// every embedded SMT query with the Z3 library (200 ms limit each).
// The first input byte picks whether the matching .mlir input is supplied
// (odd: fixtures/ir/adamw_tessera.mlir, enabling the hash check and the
// re-derivation of obligations). Contract: never throws; a certificate whose
// checks did not all pass is reported invalid with at least one problem.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "verifier/cert/certify.h"

namespace fc = fusecert;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string ir_text = [] {
    std::ifstream f(std::string(FUSECERT_SOURCE_DIR) + "/fixtures/ir/adamw_tessera.mlir", std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }();
  if (size == 0) return 0;
  std::optional<std::pair<std::string, std::string>> ir;
  if (data[0] & 1) ir = std::make_pair(ir_text, std::string("fixtures/ir/adamw_tessera.mlir"));
  std::string cert(reinterpret_cast<const char*>(data) + 1, size - 1);
  fc::cert::Solver z3{"z3"};
  fc::cert::CheckOutcome out = fc::cert::check_certificate(cert, ir, z3, 200);
  if (!out.valid && out.problems.empty()) std::abort();  // invalid must say why
  return 0;
}
