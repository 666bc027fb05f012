// param_fuzz: libFuzzer harness for `--param name=value`
// (verifier::parse_param_assignment, used by `fusecert prove` and the shell's
// `prove`/`cx`). Contract: returns a non-empty name and a finite value, or
// throws std::invalid_argument — anything else is a finding.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "verifier/core/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto [name, prm] = fusecert::verifier::parse_param_assignment(text);
    if (name.empty()) std::abort();  // contract: an empty name is rejected
    if (!std::isfinite(prm.value)) std::abort();  // contract: finite values only
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
