#!/bin/sh
# The exit-code table (support/diag/exit_code.h, docs/diagnostics.md), per
# subcommand: every code each one can give, from inputs whose outcome follows
# from their semantics (each expectation says why), and the table in every
# --help. 0 clean/legal, 1 findings/illegal, 2 usage or input error,
# 3 inconclusive, 4 not verified (check-cert only); over several inputs
# 2 > 1 > 3 > 4 > 0.
# Usage: exit_codes_test.sh FUSECERT SRCDIR
. "$2/tests/shell/lib.sh"
IR=$SRC/fixtures/ir
TV=$SRC/fixtures/tv
DOCS=$SRC/fixtures/docs

# --help of the binary and of every subcommand prints the table.
for sub in "" prove docs certify check-cert validate shell query hook "hook install" kernels; do
  # shellcheck disable=SC2086
  "$BIN" $sub --help >"$W/help.out" 2>&1 || fail "fusecert $sub --help: exit $?"
  grep -q '^Exit codes (every subcommand):' "$W/help.out" || fail "fusecert $sub --help: no exit-code table"
  grep -q '^  4  not verified' "$W/help.out" || fail "fusecert $sub --help: the table lacks code 4"
done

# docs: a clean fixture, a failing one, a bad option.
expect 0 docs_clean "$BIN" docs --repo-root "$DOCS/claim.overclaim/pass" --today 2026-09-01 "$DOCS/claim.overclaim/pass"
expect 1 docs_findings "$BIN" docs --repo-root "$DOCS/claim.overclaim/fail" --today 2026-09-01 "$DOCS/claim.overclaim/fail"
expect 2 docs_usage "$BIN" docs --format xml "$DOCS/claim.overclaim/pass"

# certify: AdamW on tessera with every key is legal; global-norm clipping is
# illegal (P2); with a 1 ms solver deadline AdamW's SMT obligations are not
# decided: inconclusive with no error diagnostic (3); a missing semantic key
# is inconclusive with an error diagnostic, an input error (2, issue #14); an
# empty file is an input error. Illegal outranks inconclusive; an input error
# outranks both.
printf '\n' >"$W/empty.mlir"
expect 0 certify_legal "$BIN" certify "$IR/adamw_tessera.mlir" --out "$W/legal"
expect 1 certify_illegal "$BIN" certify "$IR/global_clip_tessera.mlir"
expect 3 certify_inconclusive "$BIN" certify --timeout-ms 1 "$IR/adamw_tessera.mlir"
expect 2 certify_missing_key "$BIN" certify "$IR/missing_keys_tessera.mlir"
expect 2 certify_input "$BIN" certify "$W/empty.mlir"
expect 1 certify_illegal_inconclusive "$BIN" certify --timeout-ms 1 "$IR/global_clip_tessera.mlir" "$IR/adamw_tessera.mlir"
expect 2 certify_input_illegal "$BIN" certify "$W/empty.mlir" "$IR/global_clip_tessera.mlir"
expect 2 certify_usage "$BIN" certify --format xml "$IR/adamw_tessera.mlir"
grep -q ': remark: legal: .* \[verdict\]$' "$W/certify_legal.out" || fail "certify: no verdict remark: $(cat "$W/certify_legal.out")"

# certify tree mode (a folder, -r, a glob, --shard, --merge) follows the same
# table as FILE inputs (issue #13 acceptance): an inconclusive candidate with
# no error diagnostic is 3, one with an error diagnostic (a missing key) an
# input error, 2; illegal outranks inconclusive, an input error both.
mkdir -p "$W/t_inc" "$W/t_key" "$W/t_ill" "$W/t_err"
cp "$IR/adamw_tessera.mlir" "$W/t_inc/"
cp "$IR/missing_keys_tessera.mlir" "$W/t_key/"
cp "$IR/global_clip_tessera.mlir" "$IR/adamw_tessera.mlir" "$W/t_ill/"
cp "$W/empty.mlir" "$IR/global_clip_tessera.mlir" "$IR/adamw_tessera.mlir" "$W/t_err/"
expect 3 tree_inconclusive "$BIN" certify -r "$W/t_inc" --out "$W/o_inc" --timeout-ms 1
expect 3 tree_glob_inconclusive "$BIN" certify "$W/t_inc/*.mlir" --out "$W/o_glob" --timeout-ms 1
expect 3 tree_shard_inconclusive "$BIN" certify "$W/t_inc" --shard 1/1 --out "$W/o_shard" --timeout-ms 1
expect 3 tree_merge_inconclusive "$BIN" certify --merge "$W/o_shard" --out "$W/o_merged"
expect 2 tree_missing_key "$BIN" certify "$W/t_key" --out "$W/o_key"
expect 2 tree_merge_missing_key "$BIN" certify --merge "$W/o_key" --out "$W/o_key_merged"
expect 2 tree_missing_key_inconclusive "$BIN" certify "$W/t_key" "$W/t_inc" --out "$W/o_key_inc" --timeout-ms 1
expect 1 tree_illegal_inconclusive "$BIN" certify "$W/t_ill" --out "$W/o_ill" --timeout-ms 1
expect 2 tree_input_illegal "$BIN" certify "$W/t_err" --out "$W/o_err" --timeout-ms 1
expect 0 tree_legal "$BIN" certify "$W/t_inc" --out "$W/o_legal"

# check-cert: with --ir every obligation is re-derived (valid, 0); without it
# the certificate is at most consistent (4); a flipped verdict is invalid (1);
# a missing certificate is an input error (2); a solver that answers unknown
# decides nothing (3).
CERT=$(ls "$W"/legal/*.cert.json | head -1)
expect 0 cc_valid "$BIN" check-cert "$CERT" --ir "$IR/adamw_tessera.mlir"
expect 4 cc_consistent "$BIN" check-cert "$CERT"
grep -q ': remark: consistent (not verified: ' "$W/cc_consistent.out" || fail "check-cert: not reported consistent: $(cat "$W/cc_consistent.out")"
sed 's/"verdict": "legal"/"verdict": "illegal"/' "$CERT" >"$W/flip.json"
expect 1 cc_invalid "$BIN" check-cert "$W/flip.json"
expect 2 cc_input "$BIN" check-cert "$W/no-such.cert.json"
# A certificate of format version 1 (the solver's answer named `actual`) is
# not read: an input error, outranking an invalid certificate.
python3 "$IR/Inputs/tamper.py" as-version-1 "$CERT" "$W/v1.cert.json"
expect 2 cc_version "$BIN" check-cert "$W/v1.cert.json" --ir "$IR/adamw_tessera.mlir"
grep -q 'error: the certificate is of format fusecert-certificate/1, which this fusecert cannot read' "$W/cc_version.out" ||
  fail "check-cert: a version-1 certificate is not named: $(cat "$W/cc_version.out")"
expect 2 cc_version_invalid "$BIN" check-cert "$W/flip.json" "$W/v1.cert.json"
printf '#!/bin/sh\necho unknown\n' >"$W/unknown-solver" && chmod +x "$W/unknown-solver"
expect 3 cc_undecided "$BIN" check-cert "$CERT" --ir "$IR/adamw_tessera.mlir" --solver "$W/unknown-solver"
expect 1 cc_invalid_consistent "$BIN" check-cert "$W/flip.json" "$CERT"

# validate: the fused wgrad+AdamW op equals the unfused pair (0); the wrong
# bias-correction step is not equivalent (1); a missing key fails closed (2);
# a 1 ms limit leaves the binary32 equivalence query undecided (3).
expect 0 validate_equivalent "$BIN" validate "$TV/wgrad_adamw_tessera.mlir" --k 2
expect 1 validate_not_equivalent "$BIN" validate "$TV/wrong_step.mlir" --k 2
expect 2 validate_input "$BIN" validate "$TV/fail_closed.mlir"
expect 2 validate_usage "$BIN" validate "$TV/wrong_step.mlir" --k 0
expect 3 validate_inconclusive "$BIN" validate "$TV/wgrad_adamw_tessera.mlir" --k 2 --timeout-ms 1

# prove: P4 holds as the assessment says (0); P2 with beta1 = beta2 = 0 is
# no longer refuted as expected (1); an unknown id (2); a 1 ms limit leaves
# P1's floating-point queries undecided (3).
expect 0 prove_expected "$BIN" prove P4 --no-witness
expect 1 prove_differs "$BIN" prove P2 --param beta1=0 --param beta2=0 --no-witness
expect 2 prove_usage "$BIN" prove P99
expect 3 prove_inconclusive "$BIN" prove P1 --timeout-ms 1 --no-witness
grep -q '^fusecert prove: error: unknown proposition id' "$W/prove_usage.err" || fail "prove: usage error not in the compiler form: $(cat "$W/prove_usage.err")"

# query: answered (0), a bad command (2), an undecided proof (3), and an error
# outranks an inconclusive answer in one session.
expect 0 query_answered "$BIN" query "list"
expect 2 query_error "$BIN" query "prov P2"
expect 3 query_inconclusive "$BIN" query "prove P1" --timeout-ms 1
expect 2 query_error_inconclusive "$BIN" query "prove P1" "prov P2" --timeout-ms 1

# shell, commands from a pipe: all answered (0), a bad command (2), an
# undecided proof (3).
expect_piped() {
  want=$1 name=$2 input=$3
  shift 3
  printf '%s\n' "$input" | "$@" >"$W/$name.out" 2>"$W/$name.err"
  got=$?
  [ "$got" -eq "$want" ] || fail "$name: exit $got, expected $want: $(head -c 400 "$W/$name.err")"
}
expect_piped 0 shell_answered "list" "$BIN" shell --no-history
expect_piped 2 shell_error "prov P2" "$BIN" shell --no-history
expect_piped 3 shell_inconclusive "prove P1" "$BIN" shell --no-history --timeout-ms 1

# hook: installing into a fresh repository (0); uninstalling where no
# fusecert hook is installed is an input error; a bad option is a usage error.
mkdir -p "$W/repo" && (cd "$W/repo" && git init -q .)
expect 2 hook_input "$BIN" hook uninstall --repo "$W/repo"
expect 0 hook_installed "$BIN" hook install --repo "$W/repo"
expect 2 hook_usage "$BIN" hook install --no-such-option

# kernels (no GPU needed): the runner's status is kernels' when its output is
# the evidence that says so (a fake runner: 0 every evidence row passed, 1
# one failed); a runner that prints no evidence is an input error (2, issue
# #13: never a silent pass), as is no runner; a bad option is a usage error (2).
cat >"$W/fake-runner" <<'SH'
#!/bin/sh
[ -n "${FAKE_SILENT:-}" ] && exit "${FAKE_RC:-0}"
v=PASS; [ "${FAKE_RC:-0}" -eq 1 ] && v=FAIL
echo "row 1 fused_vs_host_bitwise (P1): PASS — fake"
echo "row 2 tile_configs_bitwise (P1): $v — fake"
echo "row 3 no_gradient_buffer (P8): PASS — fake"
echo "row 4 p6_fp32_accumulator_gain (P6): PASS — fake"
if [ "$v" = PASS ]; then echo "all rows pass"; else echo "some rows FAIL"; fi
exit "${FAKE_RC:-0}"
SH
chmod +x "$W/fake-runner"
expect 0 kernels_passed env FUSECERT_KERNELS_RUNNER="$W/fake-runner" "$BIN" kernels evidence
expect 1 kernels_failed env FAKE_RC=1 FUSECERT_KERNELS_RUNNER="$W/fake-runner" "$BIN" kernels evidence
expect 2 kernels_silent env FAKE_SILENT=1 FUSECERT_KERNELS_RUNNER="$W/fake-runner" "$BIN" kernels evidence
grep -q '^fusecert kernels evidence: error: .* \[kernels.runner\]$' "$W/kernels_silent.err" ||
  fail "kernels: a silent runner not refused in the one form: $(cat "$W/kernels_silent.err")"
expect 2 kernels_no_runner env FUSECERT_KERNELS_RUNNER="$W/absent" "$BIN" kernels evidence
grep -q '^fusecert kernels evidence: error: .* \[kernels.runner\]$' "$W/kernels_no_runner.err" ||
  fail "kernels: no runner not in the one form: $(cat "$W/kernels_no_runner.err")"
expect 2 kernels_usage "$BIN" kernels bench --reps 0
# The built runner on a machine with no usable CUDA device (skipped where one
# is): a setup failure, exit 2, said in the one form (issue #13 acceptance).
if [ -x "$(dirname "$BIN")/fusecert-kernels" ]; then
  "$BIN" kernels evidence >"$W/kernels_nodev.out" 2>"$W/kernels_nodev.err"
  got=$?
  if grep -q 'no usable CUDA device' "$W/kernels_nodev.err"; then
    [ "$got" -eq 2 ] || fail "kernels evidence, no CUDA device: exit $got, expected 2"
    grep -q '^fusecert kernels evidence: error: no usable CUDA device .* \[kernels.no_device\]$' "$W/kernels_nodev.err" ||
      fail "kernels: no CUDA device not in the one form: $(cat "$W/kernels_nodev.err")"
    grep -v '^fusecert kernels evidence: \(error\|note\): ' "$W/kernels_nodev.err" | grep -q . &&
      fail "kernels: a line not in the one form: $(cat "$W/kernels_nodev.err")"
  fi
fi

# Every subcommand's bad option: a usage error, 2 (never CLI11's own 105 or 106).
for sub in prove docs certify check-cert validate shell query hook kernels; do
  expect 2 "usage_$sub" "$BIN" $sub --no-such-option
  grep -q "^fusecert $sub: error: .* \[usage\]$" "$W/usage_$sub.err" || fail "$sub: a bad option not in the one form: $(cat "$W/usage_$sub.err")"
done

# An unknown subcommand is named, with a note listing the subcommands (issue
# #13 acceptance: CLI11 said only "A subcommand is required").
expect 2 unknown_subcommand "$BIN" frob
grep -qxF "fusecert: error: unknown subcommand 'frob' [usage]" "$W/unknown_subcommand.err" ||
  fail "an unknown subcommand not named: $(cat "$W/unknown_subcommand.err")"
grep -q "^fusecert: note: .*certify.*; run 'fusecert --help'" "$W/unknown_subcommand.err" ||
  fail "an unknown subcommand: no note listing the subcommands: $(cat "$W/unknown_subcommand.err")"
# An unknown option before any subcommand is named too (#13 acceptance:
# CLI11 said "A subcommand is required").
expect 2 unknown_top_option "$BIN" --bogus
grep -qxF "fusecert: error: unknown option '--bogus' [usage]" "$W/unknown_top_option.err" ||
  fail "an unknown top-level option not named: $(cat "$W/unknown_top_option.err")"

finish
