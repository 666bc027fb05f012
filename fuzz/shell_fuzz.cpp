// shell_fuzz: libFuzzer harness for the proof shell's command parser
// (shell::split_words, needs_continuation, Session::complete and
// Session::execute). Each input line is one command; up to 8 lines run in one
// session that has fixtures/ir/adamw_tessera.mlir loaded, so `candidates`,
// `why` and `show` reach real state. Commands that start proofs (prove, cx,
// obligations) and `load` (reads arbitrary paths) are parsed and completed but
// not executed, to keep executions fast; `solve` runs with a 100 ms limit.
// Contract: execute never throws (bad input is an error reply).
#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>

#include "shell/session.h"
#include "verifier/core/spec.h"

namespace sh = fusecert::shell;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static sh::Session* s = [] {
    auto* p = new sh::Session(fusecert::verifier::load_registry());
    p->set_timeout_ms(100);
    p->execute(std::string("load ") + FUSECERT_SOURCE_DIR + "/fixtures/ir/adamw_tessera.mlir");
    return p;
  }();
  static const std::set<std::string> skipped{"prove", "cx", "obligations", "load"};
  std::string all(reinterpret_cast<const char*>(data), size);
  size_t pos = 0;
  for (int n = 0; n < 8 && pos <= all.size(); ++n) {
    size_t nl = all.find('\n', pos);
    std::string line = all.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? all.size() + 1 : nl + 1;
    (void)s->complete(line);
    (void)sh::needs_continuation(line);
    std::vector<std::string> w;
    try {
      w = sh::split_words(line);
    } catch (const std::invalid_argument&) {
      // documented: unterminated quote
    }
    if (!w.empty() && skipped.count(w[0])) continue;
    sh::Reply r = s->execute(line);
    if (r.quit) break;
  }
  s->set_timeout_ms(100);  // `set timeout ...` lines must not slow later inputs
  return 0;
}
