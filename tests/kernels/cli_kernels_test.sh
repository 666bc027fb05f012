#!/usr/bin/env bash
# Argument handling of `fusecert kernels` and of the `fusecert-kernels` runner,
# without a GPU: every case here is refused (or forwarded to a fake runner)
# before anything touches CUDA.
#   cli_kernels_test.sh cli    PATH/TO/fusecert
#   cli_kernels_test.sh runner PATH/TO/fusecert-kernels
set -u
mode=$1 bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect RC PATTERN CMD...: CMD exits RC and its stdout+stderr match PATTERN (grep -E).
expect() {
  local want=$1 pat=$2
  shift 2
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -ne $want ]] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL: $* -> exit $rc (want $want), output:"
    echo "$out" | sed 's/^/    /'
    echo "    (wanted /$pat/)"
    fails=$((fails + 1))
  fi
}
# refuse PATTERN CMD...: a usage error (exit 2) whose message matches PATTERN,
# and the (fake) runner was not started.
refuse() {
  local pat=$1
  shift
  expect 2 "$pat" "$@"
  if "$@" 2>&1 | grep -q '^FAKE-RUNNER'; then
    echo "FAIL: $* started the runner"
    fails=$((fails + 1))
  fi
}

if [[ $mode == cli ]]; then
  # A fake runner that prints what it was given (or $FAKE_JSON, or the file
  # $FAKE_FILE as it is) and exits $FAKE_RC (or kills itself with $FAKE_SIG).
  cat >"$tmp/runner" <<'SH'
#!/bin/sh
if [ -n "${FAKE_FILE:-}" ]; then cat "$FAKE_FILE"
elif [ -n "${FAKE_JSON:-}" ]; then echo "$FAKE_JSON"; else echo "FAKE-RUNNER $*"; fi
if [ -n "${FAKE_SIG:-}" ]; then kill -"$FAKE_SIG" $$; fi
exit "${FAKE_RC:-0}"
SH
  chmod +x "$tmp/runner"
  export FUSECERT_KERNELS_RUNNER=$tmp/runner
  k=("$bin" kernels)

  refuse '--ranks' "${k[@]}" evidence --distributed --ranks 0
  refuse '--ranks' "${k[@]}" evidence --distributed --ranks -3
  refuse '--ranks' "${k[@]}" evidence --distributed --ranks 17
  refuse '--ranks' "${k[@]}" bench --distributed --ranks 0
  refuse '--ranks requires --distributed' "${k[@]}" evidence --ranks 2
  refuse '--ranks requires --distributed' "${k[@]}" bench --ranks 2
  refuse '--reps' "${k[@]}" bench --reps -5
  refuse '--reps' "${k[@]}" bench --reps 0
  refuse '--reps' "${k[@]}" bench --distributed --reps 3
  refuse '--shapes' "${k[@]}" bench --distributed --shapes 4096x4096x512
  refuse 'JSON only' "${k[@]}" evidence --distributed --format text
  refuse 'JSON only' "${k[@]}" bench --distributed --format text
  refuse "unknown subcommand 'foo'" "${k[@]}" foo
  refuse 'subcommand' "${k[@]}"

  # What is forwarded (options not given are left to the runner's defaults).
  # (The fake's line is no evidence document: evidence fails closed, below.)
  expect 2 '^FAKE-RUNNER evidence --format text$' "${k[@]}" evidence
  expect 2 '^FAKE-RUNNER evidence --format json$' "${k[@]}" evidence --format json
  expect 2 '^FAKE-RUNNER evidence --distributed$' "${k[@]}" evidence --distributed
  expect 2 '^FAKE-RUNNER evidence --distributed --ranks 1$' "${k[@]}" evidence --distributed --ranks 1
  expect 0 '^FAKE-RUNNER bench --distributed --ranks 16$' \
    "${k[@]}" bench --distributed --ranks 16 --format json
  expect 0 '^FAKE-RUNNER bench --format json --shapes 4096x4096x512 --reps 7$' \
    "${k[@]}" bench --format json --shapes 4096x4096x512 --reps 7
  # The baseline documents are forwarded (the runner checks their contents);
  # a file that does not exist, or one with --distributed, is refused here.
  echo '{}' >"$tmp/t.json"
  expect 0 "^FAKE-RUNNER bench --format text --torch $tmp/t.json --previous $tmp/t.json --previous-torch $tmp/t.json\$" \
    "${k[@]}" bench --torch "$tmp/t.json" --previous "$tmp/t.json" --previous-torch "$tmp/t.json"
  refuse 'File does not exist' "${k[@]}" bench --torch "$tmp/absent.json"
  refuse 'excludes' "${k[@]}" bench --distributed --previous "$tmp/t.json"
  # The runner's exit code is fusecert's when its output is a complete
  # evidence document that says the same: 0 every row passed, 1 one failed.
  # Otherwise (issue #13) evidence fails closed: missing, malformed or partial
  # output, a verdict that disagrees with the exit status, a crash or a
  # status outside the runner's table is exit 2 with [kernels.runner].
  row() { printf 'row %s %s (%s): %s — %s\n' "$@"; }
  { row 1 fused_vs_host_bitwise P1 PASS 'bitwise equal (W, m, v) at 3 shapes'
    row 2 tile_configs_bitwise P1 PASS 'all tiles equal'
    row 3 no_gradient_buffer P8 PASS 'no dW buffer'
    row 4 p6_fp32_accumulator_gain P6 PASS 'gain 3.1x'
    echo 'all rows pass'; } >"$tmp/ok.txt"
  sed -e '2s/PASS/FAIL/' -e 's/^all rows pass$/some rows FAIL/' "$tmp/ok.txt" >"$tmp/fail.txt"
  head -n 3 "$tmp/ok.txt" >"$tmp/cut.txt"
  sed '2s/PASS/FAIL/' "$tmp/ok.txt" >"$tmp/liar.txt"                 # a FAIL row, "all rows pass"
  sed '3s/^row 3/row 2/' "$tmp/ok.txt" >"$tmp/rowtwice.txt"          # row 2 twice, no row 3
  printf '%s' "$(cat "$tmp/ok.txt")" >"$tmp/nonl.txt"                 # last line cut short
  : >"$tmp/empty.txt"
  kf="^fusecert kernels evidence: error: .* \[kernels.runner\]$"
  FAKE_FILE=$tmp/ok.txt expect 0 '^all rows pass$' "${k[@]}" evidence
  FAKE_FILE=$tmp/fail.txt FAKE_RC=1 expect 1 '^some rows FAIL$' "${k[@]}" evidence
  FAKE_FILE=$tmp/ok.txt FAKE_RC=1 expect 2 'every row passed but it exited with status 1' "${k[@]}" evidence
  FAKE_FILE=$tmp/fail.txt expect 2 'a row failed but it exited with status 0' "${k[@]}" evidence
  for bad in cut liar rowtwice nonl empty; do
    FAKE_FILE=$tmp/$bad.txt expect 2 "$kf" "${k[@]}" evidence
    FAKE_FILE=$tmp/$bad.txt expect 2 'malformed or partial' "${k[@]}" evidence
  done
  FAKE_FILE=$tmp/ok.txt FAKE_SIG=KILL expect 2 'killed by signal 9' "${k[@]}" evidence
  FAKE_FILE=$tmp/ok.txt FAKE_RC=5 expect 2 'exited with status 5, which is not 0, 1 or 2' "${k[@]}" evidence
  FAKE_RC=2 expect 2 'setup failure' "${k[@]}" evidence
  FAKE_RC=2 expect 2 "$kf" "${k[@]}" evidence
  # JSON: the document the last batch's runner wrote passes; partial or
  # inconsistent ones do not.
  src=$(cd "$(dirname "$0")/../.." && pwd)
  cp "$src/docs/kernels/evidence.json" "$tmp/ok.json"
  FAKE_FILE=$tmp/ok.json expect 0 '"passed": true' "${k[@]}" evidence --format json
  head -c 300 "$tmp/ok.json" >"$tmp/cut.json"
  python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/ok.json"))
def w(name, doc): json.dump(doc, open(t + "/" + name, "w"))
w("norows.json", {k: v for k, v in d.items() if k != "rows"})
w("threerows.json", dict(d, rows=d["rows"][:3]))
w("liar.json", dict(d, rows=[dict(r, passed=(i != 1)) for i, r in enumerate(d["rows"])]))
w("strpassed.json", dict(d, passed="true"))
w("otherschema.json", dict(d, schema="fusecert-kernels-bench/1"))
w("swapped.json", dict(d, rows=[d["rows"][1], d["rows"][0]] + d["rows"][2:]))
PY
  for bad in cut norows threerows liar strpassed otherschema swapped; do
    FAKE_FILE=$tmp/$bad.json expect 2 "$kf" "${k[@]}" evidence --format json
  done
  FAKE_FILE=$tmp/ok.json FAKE_RC=1 expect 2 'exited with status 1' "${k[@]}" evidence --format json
  # bench's output goes through as the runner writes it, but a crash is no run.
  FAKE_SIG=KILL expect 2 '^fusecert kernels bench: error: the runner was killed by signal 9.* \[kernels.runner\]$' \
    "${k[@]}" bench
  # evidence --distributed joins P3's checker to the runner's JSON: the
  # embedded momentum step is legal, AdamW's v on partials is refused with a
  # counterexample; the document passes only when the runner and the checker do.
  ok='{"kind": "fake", "passed": true, "per_rank": []}'
  FAKE_JSON=$ok expect 0 '"refuses_adamw_v_on_partials": true' "${k[@]}" evidence --distributed
  FAKE_JSON=$ok expect 0 '"verdict": "illegal"' "${k[@]}" evidence --distributed
  FAKE_JSON=$ok expect 0 '"P3.reduce_into_state.out2"' "${k[@]}" evidence --distributed
  FAKE_JSON=$ok FUSECERT_KERNELS_RUNNER=$tmp/runner "${k[@]}" evidence --distributed >"$tmp/ev.json"
  python3 - "$tmp/ev.json" <<'PY' || { echo "FAIL: checker section"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
c = d["checker"]
assert d["passed"] is True and c["passed"] is True, d
legal, refused = c["inputs"]
assert legal["expected"] == "legal" and all(x["verdict"] == "legal" for x in legal["candidates"])
assert refused["expected"] == "illegal" and refused["candidates"]
for x in refused["candidates"]:
    assert x["verdict"] == "illegal" and "counterexample" in x, x
PY
  FAKE_RC=1 FAKE_JSON='{"passed": false}' expect 1 '"checker"' "${k[@]}" evidence --distributed
  FAKE_JSON='{"passed": false}' expect 1 '"passed": false' "${k[@]}" evidence --distributed
  # A setup failure (exit 2) goes through as the runner wrote it, with an error.
  FAKE_RC=2 FAKE_JSON='{"error": "no GPU"}' expect 2 '^\{"error": "no GPU"\}$' "${k[@]}" evidence --distributed
  FAKE_RC=2 FAKE_JSON='{"error": "no GPU"}' expect 2 "$kf" "${k[@]}" evidence --distributed
  FAKE_SIG=KILL FAKE_JSON='{"passed": true}' expect 2 'killed by signal 9' "${k[@]}" evidence --distributed
  # Fail closed: output that is not a JSON object with a boolean "passed" is
  # no pass, whatever the runner's exit status (it was exit 0, or a crash).
  expect 2 'nothing was checked' "${k[@]}" evidence --distributed
  FAKE_JSON='[1, 2, 3]' expect 2 'nothing was checked' "${k[@]}" evidence --distributed
  FAKE_JSON='{"passed": "true"}' expect 2 'boolean "passed"' "${k[@]}" evidence --distributed
  FAKE_RC=1 FAKE_JSON='all good, trust me' expect 2 'nothing was checked' "${k[@]}" evidence --distributed
  # No runner: exit 2, and the message names the variable that points to one.
  FUSECERT_KERNELS_RUNNER=$tmp/absent expect 2 'FUSECERT_KERNELS_RUNNER' "${k[@]}" evidence
elif [[ $mode == runner ]]; then
  r=("$bin")
  refuse '--ranks takes an integer from 1 to 16' "${r[@]}" evidence --distributed --ranks 0
  refuse '--ranks takes an integer from 1 to 16' "${r[@]}" evidence --distributed --ranks -3
  refuse '--ranks takes an integer from 1 to 16' "${r[@]}" evidence --distributed --ranks 2x
  refuse '--ranks requires --distributed' "${r[@]}" evidence --ranks 2
  refuse '--reps takes a positive integer' "${r[@]}" bench --reps -5
  refuse '--reps takes a positive integer' "${r[@]}" bench --reps 0
  refuse 'do not apply to --distributed' "${r[@]}" bench --distributed --reps 3
  refuse 'JSON only' "${r[@]}" evidence --distributed --format text
  refuse "unknown subcommand 'foo'" "${r[@]}" foo
  refuse 'evidence[|]bench --distributed' "${r[@]}"
  refuse 'bench \[--shapes' "${r[@]}" evidence --bogus
  # Baseline documents are read and checked before anything runs: a missing
  # file, invalid JSON (what %.6g made of a NaN) or a document of the other
  # kind is a usage error naming the option, the file and the field.
  echo '{"cases": [{"N": nan}]}' >"$tmp/nan.json"
  echo '{"cases": [{"N": 4096, "H": 4096, "BT": 512, "state": "bf16", "mm_plus_adamw_fused_us": 102.7}]}' >"$tmp/torch.json"
  refuse "--torch: $tmp/absent.json: cannot be read" "${r[@]}" bench --torch "$tmp/absent.json"
  refuse "--previous: $tmp/nan.json: not valid JSON" "${r[@]}" bench --previous "$tmp/nan.json"
  refuse 'not a benchmark document: cases\[0\].unfused_us is not a positive number' \
    "${r[@]}" bench --previous "$tmp/torch.json"
  refuse "unexpected argument '--torch'" "${r[@]}" evidence --torch "$tmp/torch.json"
  refuse 'do not apply to --distributed' "${r[@]}" bench --distributed --torch "$tmp/torch.json"
else
  echo "usage: $0 cli|runner BINARY" >&2
  exit 2
fi

if [[ $fails -ne 0 ]]; then
  echo "$fails case(s) failed"
  exit 1
fi
echo "all cases pass"
