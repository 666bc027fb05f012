#!/usr/bin/env bash
# Every non-answer of a solver, for prove, certify and check-cert (issue #14):
# each gives the documented verdict and exit code (docs/prover.md "Verdict
# rules"), never holds, legal, a valid certificate or exit 0.
#   nonanswers.sh FUSECERT SHIM SOURCE_DIR TOOL
# TOOL: prove | certify | docs | checkcert (the linked Z3 behind the shim, modes
#       unsat, sat, unknown, garbage, error: z3_check_shim.c) |
#       checkcert_fake (a fake SMT-LIB2 binary given to --solver, answering
#       unsat, sat, unknown, garbage, or nothing).
# Expected, written from the semantics before the runs:
#   prove, any mode: every verdict inconclusive, exit 3 (an always-unsat
#     solver answers unsat for the premises too: vacuous).
#   certify, any mode: no candidate legal; both fixtures exit 3
#     (inconclusive, no error diagnostic: legality is decided by what the
#     body reads, issue #16, so no body is refused as unrecognised and the
#     only undecided obligations are the solver's).
#   checkcert (shim), on a tessera-form and a linalg-form legality
#     certificate and two proposition certificates: unsat -> invalid, exit 1
#     (the recorded sat premise checks now answer unsat);
#     sat/unknown/garbage/error -> unverified, exit 3. On the linalg form the
#     undecided recognition of the consumer re-derives another candidate
#     (other obligations): that is the same undecided answer, not an edit,
#     so still unverified, exit 3, never invalid.
#   checkcert (shim), on certificates the same shim wrote (prove P2a P5
#     --certify; certify of the tessera and linalg fixtures): unverified,
#     exit 3, in every mode — the re-derivation reproduces the recorded
#     non-answers, vacuous premise checks or inconclusive verdict, which
#     re-verifies nothing (it was valid, exit 0).
#   docs, any mode: a verdict table with a row at the defaults (P2 refuted,
#     answered from the build's verdicts: no solver, so no finding) and a row
#     at beta1=0, beta2=0 that says Holds (true with the real Z3, exit 0):
#     under the shim that row is proved now and is inconclusive (never
#     holds): exactly one claim.proposition-verdict finding on it, exit 1.
#   checkcert_fake: unsat, sat -> invalid, exit 1 (a definite answer that
#     differs from a recorded one); unknown, garbage, nothing -> unverified, exit 3.
#   (Exit codes: support/diag/exit_code.h. An undecided query is
#   inconclusive, 3; 4 is only "consistent but not re-derived".)
set -uo pipefail
BIN=$1 SHIM=$2 SRC=$3 TOOL=$4 MODE=
W=$(mktemp -d "${TMPDIR:-/tmp}/fusecert-nonanswers.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL [$TOOL $MODE]: $*"; exit 1; }
# Under ASan (scripts/sanitize.sh) the shim is loaded before the ASan runtime.
shimmed() {
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD="$SHIM" FUSECERT_SHIM_ANSWER="$MODE" "$@"
}
no_definite_verdict() {  # $1: prove JSON
  ! grep -qE '"verdict": *"(holds|refuted|conditional)"' "$1" || fail "a definite verdict: $(grep -E '"verdict"' "$1" | sort | uniq -c)"
}
if [ "$TOOL" = checkcert ] || [ "$TOOL" = checkcert_fake ]; then
  # Real certificates first (the real Z3): a legality certificate and two
  # proposition certificates, each valid with the real solver.
  "$BIN" certify --out "$W/ir" "$SRC/fixtures/ir/adamw_tessera.mlir" > "$W/c.out" 2>&1 || fail "certify: $(cat "$W/c.out")"
  "$BIN" certify --out "$W/lin" "$SRC/fixtures/ir/adamw_linalg.mlir" > "$W/c.out" 2>&1 || fail "certify: $(cat "$W/c.out")"
  "$BIN" prove P2 P6 --no-witness --certify "$W/props" > "$W/p.out" 2>&1 || fail "prove: $(cat "$W/p.out")"
  certs=$(ls "$W"/ir/*.cert.json "$W"/lin/*.cert.json "$W"/props/*.cert.json)
  # A legality certificate is verified only by re-derivation from its input
  # (--ir); without it it is at most consistent (exit 4, issue #17).
  irarg() {
    case $1 in
      "$W"/ir/*) echo "--ir $SRC/fixtures/ir/adamw_tessera.mlir" ;;
      "$W"/lin/*) echo "--ir $SRC/fixtures/ir/adamw_linalg.mlir" ;;
    esac
  }
  for c in $certs; do "$BIN" check-cert "$c" $(irarg "$c") > "$W/ok.out" 2>&1 || fail "baseline not valid: $(cat "$W/ok.out")"; done
  # An unsat answer with no recorded premise check is refused (invalid, exit 1).
  sed 's/"premises": "sat"/"premises": null/' "$W/props/P2.cert.json" > "$W/no-premises.json"
  "$BIN" check-cert "$W/no-premises.json" > "$W/np.out" 2>&1
  rc=$?; cat "$W/np.out"
  [ $rc -eq 1 ] || fail "check-cert exit $rc on a certificate without premise checks (expected 1: invalid)"
  grep -q 'no recorded premise check' "$W/np.out" || fail "the missing premise check is not named"
fi
if [ "$TOOL" = docs ]; then
  mkdir -p "$W/docs"
  printf '%s\n' '# Verdicts' '' '| # | Parameters | Proposition | Verdict |' '|---|---|---|---|' \
    '| P2 | — | Exact global-norm clipping can be fused | **False, provably** |' \
    '| P2 | `beta1=0, beta2=0` | Exact clipping can be fused when neither moment decays | **Holds** |' > "$W/docs/props.md"
  "$BIN" docs --repo-root "$W/docs" "$W/docs/props.md" > "$W/d.out" 2>&1 || fail "baseline (real Z3): $(cat "$W/d.out")"
fi
modes="unsat sat unknown garbage error"
[ "$TOOL" = checkcert_fake ] && modes="unsat sat unknown garbage nothing"
for MODE in $modes; do
case $TOOL in
  prove)
    shimmed "$BIN" prove --no-witness --format json > "$W/p.json" 2> "$W/p.err"
    rc=$?
    [ $rc -eq 3 ] || fail "prove exit $rc (expected 3: inconclusive); $(head -c 400 "$W/p.err")"
    grep -q '"verdict": "inconclusive"' "$W/p.json" || fail "no inconclusive verdict"
    rm -rf "$W/certs"
    no_definite_verdict "$W/p.json"
    if [ "$MODE" = unsat ]; then
      grep -q '"premises": "unsat"' "$W/p.json" || fail "no unsat premise check recorded"
      grep -q 'inconclusive (vacuous)' "$W/p.json" || fail "the vacuous obligations are not named"
      ! grep -q '"premises": "sat"' "$W/p.json" || fail "a premise check answered sat under an always-unsat solver"
    fi
    # The same through the text report and the certificates.
    shimmed "$BIN" prove P1 P2 P2a P2b P2c P3 P5 --no-witness --certify "$W/certs" > "$W/p.txt" 2>&1
    rc=$?
    [ $rc -eq 3 ] || fail "prove P1 P2 P2a P2b P2c P3 P5 exit $rc (expected 3)"
    ! grep -qE 'verdict: (holds|refuted|conditional)' "$W/p.txt" || fail "a definite verdict in the text report"
    for c in "$W"/certs/*.cert.json; do
      grep -q '"verdict": "inconclusive"' "$c" || fail "$(basename "$c") is not inconclusive"
    done ;;
  docs)
    shimmed "$BIN" docs --repo-root "$W/docs" "$W/docs/props.md" > "$W/d.out" 2> "$W/d.err"
    rc=$?; cat "$W/d.out"
    [ $rc -eq 1 ] || fail "docs exit $rc (expected 1: the row at other parameters is inconclusive); $(head -c 400 "$W/d.err")"
    [ "$(grep -c 'error: ' "$W/d.out")" -eq 1 ] || fail "expected exactly one finding"
    grep -q 'props.md:6:.*P2 with beta1=0, beta2=0: .* but the prover is inconclusive .*\[claim.proposition-verdict\]' "$W/d.out" ||
      fail "the row at beta1=0, beta2=0 is not reported inconclusive" ;;
  certify)
    for f in adamw_tessera:3 adamw_linalg:3; do
      name=${f%%:*} want=${f##*:}
      rm -rf "${W:?}/$name"
      shimmed "$BIN" certify --format json --out "$W/$name" "$SRC/fixtures/ir/$name.mlir" > "$W/$name.json" 2> "$W/$name.err"
      rc=$?
      [ $rc -eq "$want" ] || fail "certify $name exit $rc (expected $want); $(head -c 600 "$W/$name.err")"
      grep -q '"verdict": "inconclusive"' "$W/$name.json" || fail "$name: no inconclusive candidate"
      ! grep -q '"verdict": "legal"' "$W/$name.json" || fail "$name: a legal candidate"
      for c in "$W/$name"/*.cert.json; do
        [ -e "$c" ] || continue
        ! grep -q '"verdict": "legal"' "$c" || fail "$(basename "$c") is legal"
      done
    done ;;
  checkcert|checkcert_fake)
    case $MODE in unsat|sat) want=1 word=invalid ;; *) want=3 word=unverified ;; esac
    [ "$TOOL" = checkcert ] && [ "$MODE" != unsat ] && want=3 word=unverified
    for c in $certs; do
      if [ "$TOOL" = checkcert ]; then
        shimmed "$BIN" check-cert "$c" $(irarg "$c") > "$W/cc.out" 2>&1
      else
        case $MODE in
          unsat|sat|unknown) body="echo $MODE" ;;
          garbage) body='echo "banana (((" ; echo 42' ;;
          nothing) body='exit 0' ;;
        esac
        printf '#!/bin/sh\n%s\n' "$body" > "$W/fake-solver"; chmod +x "$W/fake-solver"
        "$BIN" check-cert "$c" $(irarg "$c") --solver "$W/fake-solver" --timeout-ms 5000 > "$W/cc.out" 2>&1
      fi
      rc=$?; cat "$W/cc.out"
      [ $rc -eq $want ] || fail "$(basename "$c"): check-cert exit $rc (expected $want: $word)"
      grep -q ": $word" "$W/cc.out" || fail "$(basename "$c"): not reported $word"
      ! grep -qE ': valid( |$)' "$W/cc.out" || fail "$(basename "$c"): reported valid"
    done
    if [ "$TOOL" = checkcert ]; then
      # Certificates written under the same shim, re-checked under it.
      rm -rf "${W:?}/own"
      shimmed "$BIN" prove P2a P5 --no-witness --certify "$W/own/props" > /dev/null 2>&1
      shimmed "$BIN" certify --out "$W/own/ir" "$SRC/fixtures/ir/adamw_tessera.mlir" > /dev/null 2>&1
      shimmed "$BIN" certify --out "$W/own/lin" "$SRC/fixtures/ir/adamw_linalg.mlir" > /dev/null 2>&1
      own=$(ls "$W"/own/*/*.cert.json 2>/dev/null)
      [ -n "$own" ] || fail "the shim wrote no certificate"
      for c in $own; do
        case $c in
          "$W"/own/ir/*) arg="--ir $SRC/fixtures/ir/adamw_tessera.mlir" ;;
          "$W"/own/lin/*) arg="--ir $SRC/fixtures/ir/adamw_linalg.mlir" ;;
          *) arg= ;;
        esac
        shimmed "$BIN" check-cert "$c" $arg > "$W/own.out" 2>&1
        rc=$?; cat "$W/own.out"
        [ $rc -eq 3 ] || fail "own $(basename "$c"): check-cert exit $rc (expected 3: unverified)"
        ! grep -qE ': valid( |$)' "$W/own.out" || fail "own $(basename "$c"): reported valid"
      done
    fi ;;
  *) fail "unknown tool" ;;
esac
echo "pass [$TOOL $MODE]"
done
echo "PASS [$TOOL]"
