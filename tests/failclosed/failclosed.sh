#!/usr/bin/env bash
# Fail-closed proof discipline: each case forces a solver failure and checks
# that fusecert answers inconclusive / invalid / an error — never holds,
# legal or a valid certificate.
#   failclosed.sh FUSECERT SOURCE_DIR CASE
# Cases: prove_timeout, certify_timeout, checkcert_unknown, checkcert_segv,
#        checkcert_kill9, checkcert_unsat_then_crash, checkcert_missing_solver,
#        checkcert_garbage_solver, checkcert_timeout, checkcert_unsat_then_exit1,
#        checkcert_unsat_then_error, checkcert_two_answers, checkcert_hang,
#        stdout_full, merge_dotdot, merge_absolute, merge_symlink_in,
#        merge_symlink_out, recertify_stale_tree, recertify_stale_single,
#        prove_param_small, validate_timeout.
# Exit codes (support/diag/exit_code.h): a missing solver is a tool error
# (exit 2); a solver that times out leaves the certificate unverified (exit 3,
# inconclusive, "timeout"), never valid and never "invalid".
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
# check-cert with the fake solver must say invalid (exit 1) or unverified
# (exit 3: the solver decided nothing).
expect_not_valid() {
  "$BIN" check-cert "$CERT" --solver "$1" --timeout-ms 5000 > "$W/cc.out" 2>&1
  rc=$?; cat "$W/cc.out"
  [ $rc -eq 1 ] || [ $rc -eq 3 ] || fail "check-cert exit $rc with a broken solver (expected 1 invalid or 3 unverified)"
  grep -qiE 'invalid|error' "$W/cc.out" || fail "no invalid/error diagnostic"
  ! grep -qiE '(^|[^n])valid certificate|: valid' "$W/cc.out" || fail "reported a certificate valid"
}

case $CASE in
  prove_timeout)
    for p in P1 P2 P6; do
      "$BIN" prove "$p" --timeout-ms 1 --no-witness --format json > "$W/p.json" 2>/dev/null
      rc=$?
      [ $rc -eq 3 ] || fail "$p: exit $rc with --timeout-ms 1 (expected 3, inconclusive)"
      grep -q '"verdict": *"inconclusive"' "$W/p.json" || fail "$p: no inconclusive verdict"
      ! grep -qE '"verdict": *"(holds|refuted|conditional)"' "$W/p.json" || fail "$p: a definite verdict from a timed-out solver"
    done ;;
  certify_timeout)
    "$BIN" certify --timeout-ms 1 --format json --out "$W/out" "$SRC/fixtures/ir/adamw_linalg.mlir" > "$W/c.json" 2>"$W/c.err"
    rc=$?; cat "$W/c.err"
    [ $rc -eq 3 ] || fail "certify exit $rc with --timeout-ms 1 (expected 3: inconclusive with no error diagnostic, a timeout; docs/diagnostics.md#exit-codes-every-subcommand)"
    grep -q 'inconclusive' "$W/c.json" || fail "no inconclusive candidate in the JSON"
    for c in "$W"/out/*.cert.json; do
      [ -e "$c" ] || continue
      ! grep -qE '"verdict": *"legal"' "$c" || fail "$(basename "$c") says legal after a 1 ms timeout"
      # and check-cert must not accept a timed-out certificate as proving
      # legality (without --ir, acceptance is exit 4: consistent, not verified)
      "$BIN" check-cert "$c" > "$W/cc.out" 2>&1
      ccrc=$?
      if [ $ccrc -eq 0 ] || [ $ccrc -eq 4 ]; then
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
    [ $rc -eq 3 ] || fail "check-cert exit $rc with a hanging solver (expected 3: unverified)"
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
    [ $rc -eq 3 ] || fail "check-cert exit $rc with a timed-out solver (expected 3: unverified)"
    grep -q ': unverified' "$W/cc.out" || fail "not reported unverified"
    grep -q 'timeout' "$W/cc.out" || fail "the timeout is not named"
    ! grep -qiE 'killed|signal|: valid|: invalid' "$W/cc.out" || fail "a timeout reported as a crash, valid or invalid" ;;
  stdout_full)
    # A report that cannot be written is lost: exit 2 for every command,
    # whatever its verdict (every one of these exited 0 on /dev/full).
    [ -w /dev/full ] || { echo "SKIP: no /dev/full"; exit 0; }
    make_cert
    run_full() {
      "$@" > /dev/full 2> "$W/full.err"; rc=$?
      [ $rc -eq 2 ] || fail "exit $rc with stdout on /dev/full (expected 2): $*"
      grep -q 'cannot write' "$W/full.err" || fail "no write-error diagnostic: $*"
      # Named for its subcommand, as every other diagnostic (#13 acceptance).
      case $2 in -*) ;; *) grep -q "^fusecert $2: error: cannot write" "$W/full.err" ||
        fail "the write error does not name the subcommand: $(cat "$W/full.err")" ;; esac
    }
    run_full "$BIN" --version
    run_full "$BIN" prove P4 --no-witness
    run_full "$BIN" certify "$IR"
    run_full "$BIN" certify --format json "$IR"
    run_full "$BIN" check-cert "$CERT" --ir "$IR"
    run_full "$BIN" validate "$SRC/fixtures/tv/adamw_linalg_body.mlir"
    run_full "$BIN" docs --repo-root "$SRC" "$SRC/docs/certificates.md" ;;
  # Write confinement (issue #17): a merged index is input; its certificate
  # paths never lead outside the shard folder or --out, and no symbolic link
  # below either is followed.
  merge_dotdot|merge_absolute|merge_symlink_in|merge_symlink_out)
    mkdir -p "$W/d1" "$W/o1/o2"
    "$BIN" certify --shard 1/1 --out "$W/d1/m" "$IR" > "$W/s.out" 2>&1 || fail "shard run failed: $(cat "$W/s.out")"
    rel=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["files"][0]["candidates"][0]["certificate"])' "$W/d1/m/index.json")
    retarget() {  # the index's first certificate path becomes $1
      python3 - "$W/d1/m/index.json" "$1" <<'PY'
import json, sys
p, new = sys.argv[1], sys.argv[2]
j = json.load(open(p)); j["files"][0]["candidates"][0]["certificate"] = new
json.dump(j, open(p, "w"), indent=2)
PY
    }
    case $CASE in
      merge_dotdot)   mkdir -p "$W/t"; cp "$W/d1/m/$rel" "$W/t/evil.cert.json"; retarget "certs/../../../t/evil.cert.json"; want='\.\.' ;;  # under certs/, so only the .. check refuses it
      merge_absolute) mkdir -p "$W/abs"; cp "$W/d1/m/$rel" "$W/abs/evil.cert.json"; retarget "$W/abs/evil.cert.json"; want='absolute' ;;
      merge_symlink_in) mv "$W/d1/m/certs" "$W/elsewhere"; ln -s "$W/elsewhere" "$W/d1/m/certs"; want='symbolic link' ;;
      merge_symlink_out) mkdir -p "$W/o1/o2/o3" "$W/planted"; ln -s "$W/planted" "$W/o1/o2/o3/certs"; want='symbolic link' ;;
    esac
    mkdir -p "$W/log"   # this script's own notes, outside what is compared
    find "$W" \( -path "$W/o1" -o -path "$W/log" \) -prune -o -printf '%p %s %T@\n' | sort > "$W/log/before"
    "$BIN" certify --merge "$W/d1/m" --out "$W/o1/o2/o3" > "$W/log/m.out" 2>&1
    rc=$?; cat "$W/log/m.out"
    [ $rc -eq 2 ] || fail "merge exit $rc with a hostile index (expected 2)"
    grep -qE "error: .*$want" "$W/log/m.out" || fail "no diagnostic naming the refused path (/$want/)"
    [ ! -e "$W/o1/t" ] || fail "merge wrote through ../ outside --out"
    [ -z "$(ls -A "$W/planted" 2>/dev/null)" ] || fail "merge wrote through a symbolic link"
    find "$W" \( -path "$W/o1" -o -path "$W/log" \) -prune -o -printf '%p %s %T@\n' | sort | diff "$W/log/before" - || fail "merge changed files outside --out" ;;
  recertify_stale_tree|recertify_stale_single)
    # Re-certifying into the same --out: the certificate of a candidate that
    # moved (its old name) is removed and the removal recorded.
    mkdir -p "$W/in"; cp "$IR" "$W/in/step.mlir"
    args=(--out "$W/out"); [ $CASE = recertify_stale_tree ] && args+=(--shard 1/1)
    "$BIN" certify "${args[@]}" "$W/in/step.mlir" > "$W/c1.out" 2>&1 || fail "first run failed: $(cat "$W/c1.out")"
    old=$(cd "$W/out" && find . -name '*.cert.json' | sort)
    [ -n "$old" ] || fail "no certificate written"
    { echo '// one more line: every location moves down'; cat "$IR"; } > "$W/in/step.mlir"
    "$BIN" certify "${args[@]}" "$W/in/step.mlir" > "$W/c2.out" 2>&1 || fail "second run failed: $(cat "$W/c2.out")"
    cat "$W/c2.out"
    new=$(cd "$W/out" && find . -name '*.cert.json' | sort)
    for f in $old; do
      [ ! -e "$W/out/$f" ] || fail "the stale certificate $f is still there"
      grep -q "removed the stale certificate .*$(basename "$f")" "$W/c2.out" || fail "the removal of $f is not reported"
    done
    [ "$(echo "$old" | wc -l)" -eq "$(echo "$new" | wc -l)" ] || fail "expected as many new certificates as old ones"
    if [ $CASE = recertify_stale_tree ]; then
      grep -q '"removed"' "$W/out/index.json" || fail "index.json does not record the removal"
    fi ;;
  prove_param_small)
    # P2 with c = 1e-4, inside the documented 0 < c <= 1: Z3 died of SIGFPE
    # on the literal "1e-4" (it is no SMT-LIB2 decimal). P2's verdict does not
    # depend on c in that range: it must equal the default's.
    "$BIN" prove P2 --no-witness --format json > "$W/d.json" 2>&1; rc0=$?
    "$BIN" prove P2 --no-witness --format json --param c=1e-4 > "$W/p.json" 2>&1; rc=$?
    cat "$W/p.json" | head -c 2000
    [ $rc -lt 128 ] || fail "prove P2 --param c=1e-4 died of a signal (exit $rc)"
    [ $rc -eq $rc0 ] || fail "exit $rc with c=1e-4, $rc0 with the default c"
    v0=$(grep -o '"verdict": *"[a-z]*"' "$W/d.json" | head -1); v=$(grep -o '"verdict": *"[a-z]*"' "$W/p.json" | head -1)
    [ -n "$v" ] && [ "$v" = "$v0" ] || fail "verdict $v with c=1e-4, $v0 with the default c"
    # Z3 prints the rational 0.0001 as (/ 1.0 10000.0)
    grep -qF '(/ 1.0 10000.0)' "$W/p.json" || fail "the query does not carry c = 1/10000" ;;
  validate_timeout)
    # --timeout-ms 1: the deadline passes while the query is set up, before
    # Z3's check starts; that interrupt was lost and the check ran unbounded.
    start=$(date +%s)
    timeout -s KILL 120 "$BIN" validate --timeout-ms 1 "$SRC/fixtures/tv/wgrad_adamw_tessera.mlir" > "$W/v.out" 2>&1
    rc=$?; took=$(( $(date +%s) - start )); tail -5 "$W/v.out"
    [ $rc -ne 137 ] || fail "validate --timeout-ms 1 hung (killed after 120 s)"
    [ $rc -eq 3 ] || fail "exit $rc with --timeout-ms 1 (expected 3: inconclusive)"
    [ $took -le 60 ] || fail "validate --timeout-ms 1 took $took s" ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$CASE]"
