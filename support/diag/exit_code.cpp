#include "support/diag/exit_code.h"

namespace fusecert::diag {

namespace {
int rank(Exit e) {
  switch (e) {
    case Exit::Clean: return 0;
    case Exit::NotVerified: return 1;
    case Exit::Inconclusive: return 2;
    case Exit::Findings: return 3;
    case Exit::InputError: return 4;
  }
  return 4;
}
}  // namespace

Exit worse(Exit a, Exit b) { return rank(a) >= rank(b) ? a : b; }

const char* const kExitCodeTable =
    "Exit codes (every subcommand):\n"
    "  0  clean / legal / equivalent / as expected\n"
    "  1  findings / illegal / not equivalent / differs from expected / invalid certificate\n"
    "  2  usage, configuration or input error\n"
    "  3  inconclusive (solver timeout or unknown; a fact neither shown nor assumed)\n"
    "  4  not verified (check-cert: consistent, but not re-derived from the input; pass --ir)\n";

}  // namespace fusecert::diag
