// tv_bench FILE K TIMEOUT_MS: one `fusecert validate FILE --k K --timeout-ms
// TIMEOUT_MS` run through the library (same report text), for bench.py when
// the full fusecert binary is not built. Exit codes as fusecert validate.
#include <iostream>
#include <string>

#include "verifier/tv/validate.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: tv_bench FILE K TIMEOUT_MS\n";
    return 2;
  }
  fusecert::tv::ValidateOptions o;
  o.k_bound = std::stoi(argv[2]);
  o.timeout_ms = static_cast<unsigned>(std::stoul(argv[3]));
  auto v = fusecert::tv::validate_files(argv[1], "", o);
  std::cout << fusecert::tv::render_text(v);
  return fusecert::tv::exit_code(v);
}
