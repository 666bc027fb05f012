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
  # A fake runner that prints what it was given (or $FAKE_JSON) and exits $FAKE_RC.
  cat >"$tmp/runner" <<'SH'
#!/bin/sh
if [ -n "${FAKE_JSON:-}" ]; then echo "$FAKE_JSON"; else echo "FAKE-RUNNER $*"; fi
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
  expect 0 '^FAKE-RUNNER evidence --format text$' "${k[@]}" evidence
  expect 0 '^FAKE-RUNNER evidence --format json$' "${k[@]}" evidence --format json
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
  # The runner's exit code is fusecert's: 1 = an evidence row failed.
  FAKE_RC=1 expect 1 '^FAKE-RUNNER evidence' "${k[@]}" evidence
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
  # A setup failure (exit 2) goes through as the runner wrote it.
  FAKE_RC=2 FAKE_JSON='{"error": "no GPU"}' expect 2 '^\{"error": "no GPU"\}$' "${k[@]}" evidence --distributed
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
