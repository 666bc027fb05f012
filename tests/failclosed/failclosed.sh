#!/usr/bin/env bash
# Fail-closed proof discipline: each case forces a solver failure and checks
# that fusecert answers inconclusive / invalid / an error — never holds,
# legal or a valid certificate.
#   failclosed.sh FUSECERT SOURCE_DIR CASE
# Cases: prove_timeout, certify_timeout, checkcert_unknown, checkcert_segv,
#        checkcert_kill9, checkcert_unsat_then_crash, checkcert_missing_solver,
#        checkcert_garbage_solver, checkcert_timeout, checkcert_unsat_then_exit1,
#        checkcert_unsat_then_error, checkcert_two_answers, checkcert_hang.
# A missing solver is a tool error (exit 2); a solver that times out leaves the
# certificate unverified (exit 2, "timeout"), never valid and never "invalid".
set -uo pipefail
BIN=$1 SRC=$2 CASE=$3
W=$(mktemp -d "${TMPDIR:-/tmp}/fusecert-failclosed.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL [$CASE]: $*"; exit 1; }
IR=$SRC/fixtures/ir/adamw_tessera.mlir   # legal with Z3: every obligation holds

# A fake SMT-LIB2 solver binary: its body is the case's misbehaviour.
fake() { printf '#!/bin/sh\n%s\n' "$1" > "$W/fake-solver"; chmod +x "$W/fake-solver"; }
# A fresh, valid certificate for $IR (Z3, generous timeout); checks it is valid first.
make_cert() {
  "$BIN" certify --out "$W/certs" "$IR" > "$W/certify.out" 2>&1 || fail "certify of $IR failed: $(cat "$W/certify.out")"
  CERT=$(ls "$W"/certs/*.cert.json | head -1)
  "$BIN" check-cert "$CERT" --ir "$IR" > "$W/ok.out" 2>&1 || fail "baseline check-cert is not valid: $(cat "$W/ok.out")"
}
# check-cert with the fake solver must say invalid (exit 1) or error (exit 2).
expect_not_valid() {
  "$BIN" check-cert "$CERT" --solver "$1" --timeout-ms 5000 > "$W/cc.out" 2>&1
  rc=$?; cat "$W/cc.out"
  [ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "check-cert exit $rc with a broken solver (expected 1 invalid or 2 error)"
  grep -qiE 'invalid|error' "$W/cc.out" || fail "no invalid/error diagnostic"
  ! grep -qiE '(^|[^n])valid certificate|: valid' "$W/cc.out" || fail "reported a certificate valid"
}

case $CASE in
  prove_timeout)
    for p in P1 P2 P6; do
      "$BIN" prove "$p" --timeout-ms 1 --no-witness --format json > "$W/p.json" 2>/dev/null
      rc=$?
      [ $rc -eq 2 ] || fail "$p: exit $rc with --timeout-ms 1 (expected 2, inconclusive)"
      grep -q '"verdict": *"inconclusive"' "$W/p.json" || fail "$p: no inconclusive verdict"
      ! grep -qE '"verdict": *"(holds|refuted|conditional)"' "$W/p.json" || fail "$p: a definite verdict from a timed-out solver"
    done ;;
  certify_timeout)
    "$BIN" certify --timeout-ms 1 --format json --out "$W/out" "$SRC/fixtures/ir/adamw_linalg.mlir" > "$W/c.json" 2>"$W/c.err"
    rc=$?; cat "$W/c.err"
    [ $rc -eq 2 ] || fail "certify exit $rc with --timeout-ms 1 (expected 2: inconclusive)"
    grep -q 'inconclusive' "$W/c.json" || fail "no inconclusive candidate in the JSON"
    for c in "$W"/out/*.cert.json; do
      [ -e "$c" ] || continue
      ! grep -qE '"verdict": *"legal"' "$c" || fail "$(basename "$c") says legal after a 1 ms timeout"
      # and check-cert must not accept a timed-out certificate as proving legality
      if "$BIN" check-cert "$c" > "$W/cc.out" 2>&1; then
        grep -qE '"verdict": *"(inconclusive|illegal)"' "$c" || fail "check-cert accepts $(basename "$c")"
      fi
    done ;;
  checkcert_unknown)         make_cert; fake 'echo unknown'; expect_not_valid "$W/fake-solver" ;;
  checkcert_segv)            make_cert; fake 'kill -SEGV $$'; expect_not_valid "$W/fake-solver" ;;
  checkcert_kill9)           make_cert; fake 'kill -9 $$'; expect_not_valid "$W/fake-solver" ;;
  checkcert_unsat_then_crash) make_cert; fake 'echo unsat; kill -SEGV $$'; expect_not_valid "$W/fake-solver" ;;
  checkcert_garbage_solver)  make_cert; fake 'echo "(error \"line 1: something\")"; exit 1'; expect_not_valid "$W/fake-solver" ;;
  # Found by a new-user test: each of these printed "unsat" first and was taken
  # at its word (valid), or never returned.
  checkcert_unsat_then_exit1) make_cert; fake 'echo unsat; exit 1'; expect_not_valid "$W/fake-solver" ;;
  checkcert_unsat_then_error) make_cert; fake 'echo unsat; echo "(error \"line 3: bad\")"'; expect_not_valid "$W/fake-solver" ;;
  checkcert_two_answers)      make_cert; fake 'echo unsat; echo sat'; expect_not_valid "$W/fake-solver" ;;
  checkcert_hang)
    # A solver that ignores every limit: killed after --timeout-ms (+2 s grace).
    make_cert; fake 'sleep 1000'
    start=$(date +%s)
    timeout -s KILL 60 "$BIN" check-cert "$CERT" --solver "$W/fake-solver" --timeout-ms 1000 > "$W/cc.out" 2>&1
    rc=$?; cat "$W/cc.out"; took=$(( $(date +%s) - start ))
    [ $rc -ne 137 ] || fail "check-cert hung on a solver that never answers (killed after 60 s)"
    [ $rc -eq 2 ] || fail "check-cert exit $rc with a hanging solver (expected 2: unverified)"
    [ $took -le 30 ] || fail "check-cert took $took s with --timeout-ms 1000"
    grep -q ': unverified' "$W/cc.out" || fail "not reported unverified"
    ! grep -qiE ': valid|: invalid' "$W/cc.out" || fail "a hanging solver judged the certificate" ;;
  checkcert_missing_solver)
    make_cert
    "$BIN" check-cert "$CERT" --solver "$W/no-such-dir/cvc5" > "$W/cc.out" 2>&1
    rc=$?; cat "$W/cc.out"
    [ $rc -eq 2 ] || fail "check-cert exit $rc with a missing solver (expected 2: a tool error)"
    grep -q 'error: solver .* does not exist or is not executable' "$W/cc.out" || fail "no clear missing-solver message"
    ! grep -qiE ': (valid|invalid)' "$W/cc.out" || fail "judged a certificate with no solver to run" ;;
  checkcert_timeout)
    # cvc5 1.0.3 at --tlimit: prints this line, then aborts (SIGABRT).
    make_cert; fake 'echo "cvc5 interrupted by timeout."; kill -ABRT $$'
    "$BIN" check-cert "$CERT" --solver "$W/fake-solver" --timeout-ms 5000 > "$W/cc.out" 2>&1
    rc=$?; cat "$W/cc.out"
    [ $rc -eq 2 ] || fail "check-cert exit $rc with a timed-out solver (expected 2: unverified)"
    grep -q ': unverified' "$W/cc.out" || fail "not reported unverified"
    grep -q 'timeout' "$W/cc.out" || fail "the timeout is not named"
    ! grep -qiE 'killed|signal|: valid|: invalid' "$W/cc.out" || fail "a timeout reported as a crash, valid or invalid" ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$CASE]"
