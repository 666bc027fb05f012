/* An LD_PRELOAD shim over Z3_solver_check: the solver fusecert links answers
 * what FUSECERT_SHIM_ANSWER says instead of what Z3 found, so the fail-closed
 * tests (nonanswers.sh) can show that no such answer yields holds / legal or
 * exit 0. Modes:
 *   unsat    every check answers unsat (premise checks included: vacuous)
 *   sat      Z3 runs, then the answer is sat (a real unsat has no model)
 *   unknown  every check answers unknown
 *   garbage  a value that is not a Z3_lbool
 *   error    the check raises a Z3 error (no answer at all)
 * Unset or anything else: the real Z3_solver_check. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <z3.h>

typedef Z3_lbool (*check_fn)(Z3_context, Z3_solver);

static Z3_lbool real_check(Z3_context c, Z3_solver s) {
  static check_fn real = 0;
  if (!real) real = (check_fn)dlsym(RTLD_NEXT, "Z3_solver_check");
  return real ? real(c, s) : Z3_L_UNDEF;
}

Z3_lbool Z3_API Z3_solver_check(Z3_context c, Z3_solver s) {
  const char* mode = getenv("FUSECERT_SHIM_ANSWER");
  if (!mode) return real_check(c, s);
  if (strcmp(mode, "unsat") == 0) return Z3_L_FALSE;
  if (strcmp(mode, "unknown") == 0) return Z3_L_UNDEF;
  if (strcmp(mode, "garbage") == 0) return (Z3_lbool)7;
  if (strcmp(mode, "sat") == 0) {
    (void)real_check(c, s);
    return Z3_L_TRUE;
  }
  if (strcmp(mode, "error") == 0) {
    Z3_set_error(c, Z3_EXCEPTION);
    return Z3_L_UNDEF;
  }
  return real_check(c, s);
}
