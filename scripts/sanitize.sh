#!/usr/bin/env bash
# The ASan + UBSan suite (issue #7): builds fusecert and the test programs of
# the tests below (not the CUDA kernels: nvcc takes no -fsanitize) into
# build-asan/ and runs those tests there. A sanitizer report fails the test
# that triggered it (exitcode 99; UBSan halts on the first report). .ci/run
# calls it after the normal suite; run it by hand the same way:
#   ./scripts/sanitize.sh [ctest args...]
# The build has no NDEBUG: LLVM's and MLIR's assertions are on too.
#
# What runs under the sanitizers: the tests that feed hostile, malformed or
# varied input to fusecert's parsers, checkers and diagnostics (every IR
# fixture through certify and check-cert, the fail-closed and bad-input
# cases, the fuzz regressions, the corpora, the docaudit fixtures, the CLI's
# exit codes, diagnostics and SARIF). Left to the normal suite: the tests
# whose time is the solver's or a re-run of the same code on more inputs
# (the prover units, the catalogue and pipeline runs, determinism, the shell
# and hook drivers, install, schemas): the sanitizers instrument fusecert,
# not Z3 or MLIR, and .ci/run must stay inside its time budget.
set -euo pipefail
cd "$(dirname "$0")/.."
TESTS='^(ir\.(lit|units|recognition_remark|checkcert|table_reads|bounds|assume|scalar_fn|stablehlo)|failclosed\..+|bad\..+|FuzzSeeds\..+|corpus\..+|cli\.(exit_codes|diagnostic_form|sarif)|docaudit\.(corpus|cli\..+|unit\..+))$'
TARGETS=(fusecert fusecert_ir_tests fusecert_recognition_remark_tests fusecert_check_cert_tests
         fusecert_table_reads_tests fusecert_input_bounds_tests fusecert_assumptions_tests
         fusecert_scalar_fn_tests fusecert_stablehlo_tests fuzz_regressions_test z3_check_shim
         docaudit_unit_tests docaudit_cli_tests)
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFUSECERT_SANITIZE=ON -DFUSECERT_SKIP=kernels \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" >/dev/null
cmake --build build-asan -j"$(nproc)" --target "${TARGETS[@]}"

# LeakSanitizer needs to stop the process's threads (ptrace-like); some
# containers forbid that and LSan then aborts every process. Probe once with
# the built binary and say so rather than fail every test for the sandbox.
leaks=1
if ! ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/.ci/lsan.supp \
     ./build-asan/fusecert --version > /tmp/fusecert-lsan-probe.$$ 2>&1; then
  if grep -q "LeakSanitizer has encountered a fatal error" /tmp/fusecert-lsan-probe.$$; then
    echo "sanitize.sh: LeakSanitizer cannot run in this environment (ptrace denied): leak checking off, ASan/UBSan on" >&2
    leaks=0
  else
    cat /tmp/fusecert-lsan-probe.$$ >&2
    rm -f /tmp/fusecert-lsan-probe.$$
    exit 1
  fi
fi
rm -f /tmp/fusecert-lsan-probe.$$

export ASAN_OPTIONS="detect_leaks=$leaks:exitcode=99:abort_on_error=0:detect_stack_use_after_return=0"
export LSAN_OPTIONS="suppressions=$PWD/.ci/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=99"
# A selected test whose program is not among TARGETS fails here ("Could not
# find executable"), never silently skipped; none selected is an error too.
ctest --test-dir build-asan --output-on-failure -j2 --no-tests=error -R "$TESTS" "$@"
