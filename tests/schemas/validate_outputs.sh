#!/bin/sh
# Every JSON output of every subcommand, produced for real from the fixtures
# and validated against its schema under docs/schemas/ (validate_json.py,
# python3-jsonschema): docs, certify (report, certificates, tree index,
# SARIF), check-cert, validate (report, certificates), prove (report,
# proposition certificates), query, kernels (evidence, bench, --distributed,
# and the PyTorch baseline the bench reads).
# Usage: validate_outputs.sh FUSECERT SRCDIR
. "$2/tests/shell/lib.sh"
S=$SRC/docs/schemas
IR=$SRC/fixtures/ir
check() { python3 "$SRC/tests/schemas/validate_json.py" "$S" "$@" || fail "$1: $*"; }
# run NAME CMD...: CMD's stdout into $W/NAME.json (any exit status: the
# failing cases are part of what the schema must describe).
run() { name=$1; shift; "$@" >"$W/$name.json" 2>"$W/$name.err"; }

# docs: a failing tree (findings of every rule) and a clean one.
run docs_fail "$BIN" docs --repo-root "$SRC/fixtures/docs" --today 2026-09-01 --format json "$SRC/fixtures/docs"
run docs_pass "$BIN" docs --repo-root "$SRC/fixtures/docs/claim.overclaim/pass" --today 2026-09-01 --format json
run docs_sarif "$BIN" docs --repo-root "$SRC/fixtures/docs" --today 2026-09-01 --format sarif "$SRC/fixtures/docs"
check docs-report.schema.json "$W/docs_fail.json" "$W/docs_pass.json"
check sarif.schema.json "$W/docs_sarif.json"

# certify: legal, illegal (with a counterexample), inconclusive, an input
# error; and two JAX/optax StableHLO steps (legal adamw, illegal lamb), whose
# candidates are of the `dag` form (issue #21).
printf 'func.func @f( {\n' >"$W/broken.mlir"
HLO=$SRC/fixtures/stablehlo
set -- "$IR/adamw_tessera.mlir" "$IR/split_k_tessera.mlir" "$IR/missing_keys_linalg.mlir" "$W/broken.mlir" \
  "$HLO/optax_adamw.f32.stablehlo.mlir" "$HLO/optax_lamb.f32.stablehlo.mlir"
run certify "$BIN" certify "$@" --format json --out "$W/certs"
run certify_sarif "$BIN" certify "$@" --format sarif
check certify-report.schema.json "$W/certify.json"
check sarif.schema.json "$W/certify_sarif.json"
check certificate.schema.json "$W"/certs/*.cert.json
grep -q '"form": "dag"' "$W/certify.json" || fail "certify: no candidate of the dag form in the StableHLO inputs"
ls "$W"/certs/optax_adamw.f32.stablehlo.*.cert.json >/dev/null 2>&1 || fail "certify: no certificate for the legal StableHLO step"
mkdir -p "$W/tree/sub" && cp "$IR/adamw_linalg.mlir" "$IR/global_clip_linalg.mlir" "$W/tree/" && cp "$W/broken.mlir" "$W/tree/sub/"
run index "$BIN" certify -r "$W/tree" --out "$W/treeout" --format json
check certify-index.schema.json "$W/index.json" "$W/treeout/index.json"
check sarif.schema.json "$W/treeout/results.sarif"
# Results with a file but no line (issue #13): an empty input, alone and in a
# tree's results.sarif; their physicalLocation is only an artifactLocation,
# which SARIF 2.1.0 allows (region optional).
: >"$W/empty.mlir"
run certify_empty_sarif "$BIN" certify "$W/empty.mlir" --format sarif
grep -q '"artifactLocation"' "$W/certify_empty_sarif.json" || fail "certify empty.mlir: no artifactLocation in its SARIF"
check sarif.schema.json "$W/certify_empty_sarif.json"
mkdir -p "$W/tree_empty" && cp "$W/empty.mlir" "$IR/adamw_linalg.mlir" "$W/tree_empty/"
run index_empty "$BIN" certify -r "$W/tree_empty" --out "$W/treeout_empty"
check sarif.schema.json "$W/treeout_empty/results.sarif"

# check-cert: valid (--ir), consistent (no --ir), invalid (edited),
# unreadable (format version 1).
LEGAL=$(ls "$W"/certs/adamw_tessera.*.cert.json | head -1)
sed 's/"verdict": "legal"/"verdict": "illegal"/' "$LEGAL" >"$W/flip.cert.json"
python3 "$IR/Inputs/tamper.py" as-version-1 "$LEGAL" "$W/v1.cert.json"
run cc_valid "$BIN" check-cert "$LEGAL" --ir "$IR/adamw_tessera.mlir" --format json
run cc_mixed "$BIN" check-cert "$W"/certs/*.cert.json "$W/flip.cert.json" "$W/v1.cert.json" --format json
grep -q '"status": "unreadable"' "$W/cc_mixed.json" || fail "check-cert: a version-1 certificate is not unreadable"
check check-cert-report.schema.json "$W/cc_valid.json" "$W/cc_mixed.json"
# check-cert's SARIF: a certificate is a file with no line (issue #13).
run cc_sarif "$BIN" check-cert "$W"/certs/*.cert.json "$W/flip.cert.json" --format sarif
grep -q '"ruleId"' "$W/cc_sarif.json" || fail "check-cert --format sarif: no result"
check sarif.schema.json "$W/cc_sarif.json"

# validate: equivalent, not equivalent (counterexample), fail closed.
run tv_eq "$BIN" validate "$SRC/fixtures/tv/wgrad_adamw_tessera.mlir" --k 2 --format json --out "$W/tv"
run tv_neq "$BIN" validate "$SRC/fixtures/tv/wrong_step.mlir" --k 2 --format json --out "$W/tv"
run tv_err "$BIN" validate "$SRC/fixtures/tv/fail_closed.mlir" --format json
check validate-report.schema.json "$W/tv_eq.json" "$W/tv_neq.json" "$W/tv_err.json"
# The JSON report carries the diagnostics the text report prints (issue #13
# acceptance: decay_before.mlir's three TV.resultN errors were text only):
# the same rule, severity, message and location, in the same order.
run tv_decay "$BIN" validate "$SRC/fixtures/tv/decay_before.mlir" --format json
"$BIN" validate "$SRC/fixtures/tv/decay_before.mlir" >"$W/tv_decay.txt" 2>&1
check validate-report.schema.json "$W/tv_decay.json"
python3 - "$W/tv_decay.json" "$W/tv_decay.txt" "$SRC/fixtures/tv/decay_before.mlir" <<'PY' || fail "validate: JSON diagnostics differ from the text ones"
import json, re, sys
j = json.load(open(sys.argv[1]))
text = [m.groups() for m in (re.match(r"^(\S+):(\d+):(\d+): (error|warning): (.*) \[(\S+)\]$", l)
                             for l in open(sys.argv[2]).read().splitlines()) if m]
assert len(text) == 3 and all(t[5].startswith("TV.result") and t[3] == "error" for t in text), text
got = [(d["location"]["file"], str(d["location"]["line"]), str(d["location"]["col"]), d["severity"], d["message"], d["rule"])
       for d in j["diagnostics"]]
want = [(sys.argv[3],) + t[1:] for t in text]
assert got == want, (got, want)
PY
check certificate.schema.json "$W"/tv/*.cert.json

# prove: with and without witnesses, a refuted proposition (counterexample),
# an inconclusive one; proposition certificates.
run prove "$BIN" prove P2 P4 P9 --format json --certify "$W/props"
run prove_timeout "$BIN" prove P1 --timeout-ms 1 --no-witness --format json
check prove-report.schema.json "$W/prove.json" "$W/prove_timeout.json"
check proposition-certificate.schema.json "$W"/props/*.cert.json
# check-cert of the proposition certificates, and of one of the version
# before `schema` (unreadable: cert.version).
python3 "$IR/Inputs/tamper.py" as-version-2 "$W/props/P2.cert.json" "$W/p2v2.cert.json"
run cc_props "$BIN" check-cert "$W"/props/*.cert.json "$W/p2v2.cert.json" --format json
grep -q '"status": "unreadable"' "$W/cc_props.json" || fail "check-cert: a version-2 proposition certificate is not unreadable"
check check-cert-report.schema.json "$W/cc_props.json"

# query: one reply, several, an error, IR commands.
run q_one "$BIN" query "show P2"
run q_one "$BIN" query "show P2" --format json
run q_many "$BIN" query "list" "prove P2 beta1=0" "cx P2" "obligations P2" "solve (declare-const x Int) (assert (> x 2))" \
  "load $IR/global_clip_linalg.mlir" "candidates" "why 1" "cx" "prov P2" --format json
check query-reply.schema.json "$W/q_one.json" "$W/q_many.json"

# Every report names its format (docs/diagnostics.md "Format versions").
for f in docs_fail docs_pass certify index cc_valid cc_mixed cc_props tv_eq tv_neq tv_err prove prove_timeout q_one q_many; do
  grep -q '"schema": "fusecert-[a-z-]*/[0-9]*"' "$W/$f.json" || fail "$f: no \"schema\" format version"
done

# kernels: they run only on a GPU, so the committed documents of the current
# batch (docs/kernels.md) are the real output validated here; the older
# step-N files were written by earlier runners and are kept as they were.
K=$SRC/docs/kernels
check kernels-evidence.schema.json "$K/evidence.json"
check kernels-bench.schema.json "$K/bench.json"
check torch-baseline.schema.json "$K/torch_baseline.json"
check kernels-distributed.schema.json "$K/evidence-distributed.json" "$K/evidence-distributed-checked.json" \
  "$K/evidence-distributed-1rank-step10.json" "$K/evidence-distributed-1rank-final.json" \
  "$K/bench-distributed.json"
# evidence --distributed's checker section, produced here for real: the
# runner's committed JSON replayed (as docs/kernels.md describes), the P3
# verdicts joined by this fusecert.
printf '#!/bin/sh\ncat "%s"\n' "$K/evidence-distributed.json" >"$W/replay-runner" && chmod +x "$W/replay-runner"
run kdist_checked env FUSECERT_KERNELS_RUNNER="$W/replay-runner" "$BIN" kernels evidence --distributed
grep -q '"refuses_adamw_v_on_partials": true' "$W/kdist_checked.json" || fail "kernels: no checker section joined"
check kernels-distributed.schema.json "$W/kdist_checked.json"
# The runner, where it was built (nvcc): without 16 GPUs its distributed runs
# write the setup-failure document (per-rank errors); a single-GPU run
# writes nothing to stdout without a GPU (and its document with one).
R=$(dirname "$BIN")/fusecert-kernels
if [ -x "$R" ]; then
  run kdist_bench env FUSECERT_KERNELS_RUNNER="$R" "$BIN" kernels bench --distributed --ranks 16
  run kdist_ev env FUSECERT_KERNELS_RUNNER="$R" "$BIN" kernels evidence --distributed --ranks 16
  if grep -q 'built without NCCL' "$W/kdist_bench.err"; then
    [ ! -s "$W/kdist_bench.json" ] || fail "kernels: a runner without NCCL wrote to stdout"
  else
    check kernels-distributed.schema.json "$W/kdist_bench.json" "$W/kdist_ev.json"
    # The runner names its format (the committed documents predate the key).
    for f in kdist_bench kdist_ev; do
      ! grep -q '"kind"' "$W/$f.json" || grep -q '"schema": "fusecert-kernels-distributed/1"' "$W/$f.json" ||
        fail "kernels: $f names no \"schema\" format version"
    done
  fi
  run kev env FUSECERT_KERNELS_RUNNER="$R" "$BIN" kernels evidence --format json
  [ ! -s "$W/kev.json" ] || check kernels-evidence.schema.json "$W/kev.json"
  [ ! -s "$W/kev.json" ] || grep -q '"schema": "fusecert-kernels-evidence/1"' "$W/kev.json" ||
    fail "kernels evidence: no \"schema\" format version"
fi

finish
