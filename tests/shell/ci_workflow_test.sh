#!/bin/sh
# docs/ci/github-actions.yml: the certify job's script, taken from the
# workflow as GitHub would run it (bash -eo pipefail, shard 1 of 1), run on a
# project whose IR_PATHS holds a `**` glob and a folder name with a space.
# Every .mlir the globs match at any depth must reach the index: bash must
# not expand the patterns (without globstar it reads `**` as `*` and
# silently drops files at other depths); fusecert expands them.
# Usage: ci_workflow_test.sh FUSECERT SRCDIR [WORKFLOW]
. "$(dirname "$0")/lib.sh"
WF=${3:-$SRC/docs/ci/github-actions.yml}

# The certify step's script, with the matrix value filled in.
python3 - "$WF" >"$W/certify.sh" <<'PY' || { echo "FAIL: no certify step in $WF"; exit 1; }
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
steps = [s for s in wf["jobs"]["certify"]["steps"] if "fusecert certify" in s.get("run", "")]
assert len(steps) == 1, steps
assert steps[0].get("shell", "bash") == "bash", steps[0].get("shell")
print(steps[0]["run"].replace("${{ matrix.shard }}", "1"))
PY

# project/models: files at depth 0, 1 and 3 (and one that no pattern names).
# The step runs in the checkout (the repository root) and the `fusecert` on
# PATH (installed from the .deb there; here the binary under test), writing
# to $FUSECERT_OUT.
P="$W/project"
mkdir -p "$P/models/a/b/c" "$P/models/d" "$P/other dir" "$P/skip" "$W/bin"
ln -s "$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")" "$W/bin/fusecert"
PATH="$W/bin:$PATH"
export PATH
cp "$SRC/fixtures/ir/adamw_linalg.mlir" "$P/models/top.mlir"
cp "$SRC/fixtures/ir/layer_clip_linalg.mlir" "$P/models/d/one.mlir"
cp "$SRC/fixtures/ir/sgd_momentum_linalg.mlir" "$P/models/a/b/c/three.mlir"
cp "$SRC/fixtures/ir/global_clip_linalg.mlir" "$P/other dir/spaced.mlir"
cp "$SRC/fixtures/ir/adamw_linalg.mlir" "$P/skip/not_named.mlir"

# IR_PATHS as the workflow's env block gives it: one pattern per line,
# indentation and blank lines included.
IR_PATHS='models/**/*.mlir
  other dir/*.mlir

'
(cd "$P" && env IR_PATHS="$IR_PATHS" SHARDS=1 FUSECERT_OUT="$W/out" bash -eo pipefail "$W/certify.sh") >"$W/run.log" 2>&1 ||
  fail "the certify step failed: $(tail -20 "$W/run.log")"
[ -f "$W/out/shard/index.json" ] || { echo "FAIL: no index: $(tail -20 "$W/run.log")"; exit 1; }
python3 - "$W/out/shard/index.json" >"$W/files" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    print(f["file"])
PY
printf '%s\n' "models/a/b/c/three.mlir" "models/d/one.mlir" "models/top.mlir" "other dir/spaced.mlir" >"$W/want"
sort "$W/files" >"$W/got"
cmp -s "$W/want" "$W/got" || fail "the index lists other files than the patterns match:
  want: $(tr '\n' ' ' <"$W/want")
  got:  $(tr '\n' ' ' <"$W/got")"

# A pattern that matches nothing stops the job (fusecert exits 2).
(cd "$P" && rm -rf "$W/out" && env IR_PATHS='nothing/**/*.mlir' SHARDS=1 FUSECERT_OUT="$W/out" bash -eo pipefail "$W/certify.sh") >"$W/none.log" 2>&1 &&
  fail "a pattern that matches nothing must fail the job: $(tail -5 "$W/none.log")"

finish
