#!/bin/sh
# fusecert in CI, as a plain shell recipe (any CI system; the GitHub Actions
# workflow beside it runs the same steps). Assumes fusecert is built (see
# install-and-build below); then:
#   1. fusecert docs         audit documents of --docs ROOT → docs.sarif
#   2. fusecert certify      every .mlir below the IR paths (--recursive),
#                            optionally one shard of N → certs/ (index.json,
#                            results.sarif, one certificate per candidate)
#   3. fusecert check-cert   every certificate re-verified with its input
# Outputs go to --work DIR (default fusecert-out); upload DIR/docs.sarif and
# DIR/certs/results.sarif to code scanning. Merge shards with
#   fusecert certify --merge SHARD_DIR... --out DIR
#
# Usage: fusecert-ci.sh [--fusecert BIN] [--work DIR] [--docs ROOT] [--today YYYY-MM-DD]
#                       [--shard K/N] [--allow-findings] IR_PATH...
#   --allow-findings  findings (illegal candidates, doc findings, inputs that do not
#                     parse) are reported, not fatal: for trees of deliberate bad
#                     cases such as fusecert's own fixtures/. Tool failures and
#                     certificates that do not re-check are always fatal.
# Exit: 0 clean; 1 findings (without --allow-findings); 2 a tool failed or a
# certificate did not re-check.
#
# install-and-build (Debian 12), from a fusecert checkout:
#   ./scripts/install-deps.sh && ./scripts/build.sh -DFUSECERT_SKIP=kernels
#   then BIN=build/fusecert
set -u
BIN=fusecert WORK=fusecert-out DOCS="" TODAY="" SHARD="" ALLOW=0
while [ $# -gt 0 ]; do
  case "$1" in
    --fusecert) BIN=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --docs) DOCS=$2; shift 2 ;;
    --today) TODAY=$2; shift 2 ;;
    --shard) SHARD=$2; shift 2 ;;
    --allow-findings) ALLOW=1; shift ;;
    --) shift; break ;;
    -*) echo "fusecert-ci: error: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "fusecert-ci: error: give the IR paths (folders, files or globs)" >&2; exit 2; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
findings=0
# step NAME STATUS: 0 ok; 1 findings; anything else a tool failure
step() {
  case "$2" in
    0) echo "fusecert-ci: $1: ok" ;;
    1) echo "fusecert-ci: $1: findings"; findings=1 ;;
    *) if [ "$ALLOW" -eq 1 ] && [ "$3" = tolerant ]; then
         echo "fusecert-ci: $1: status $2 (errors or inconclusive results in the inputs)"; findings=1
       else
         echo "fusecert-ci: $1: FAILED (status $2)" >&2; exit 2
       fi ;;
  esac
}

if [ -n "$DOCS" ]; then
  if [ -n "$TODAY" ]; then
    "$BIN" docs --repo-root "$DOCS" --today "$TODAY" --format sarif >"$WORK/docs.sarif"
  else
    "$BIN" docs --repo-root "$DOCS" --format sarif >"$WORK/docs.sarif"
  fi
  step docs $? strict
fi

if [ -n "$SHARD" ]; then
  "$BIN" certify "$@" --recursive --shard "$SHARD" --out "$WORK/certs"
else
  "$BIN" certify "$@" --recursive --out "$WORK/certs"
fi
st=$?
[ -f "$WORK/certs/index.json" ] && [ -f "$WORK/certs/results.sarif" ] || { echo "fusecert-ci: certify wrote no index" >&2; exit 2; }
step certify $st tolerant

# Re-check every certificate against its input, file by file.
python3 - "$WORK/certs" >"$WORK/recheck.list" <<'PY' || exit 2
import json, os, sys
out = sys.argv[1]
for f in json.load(open(os.path.join(out, "index.json")))["files"]:
    if f["candidates"]:
        print("\t".join([f["file"]] + [os.path.join(out, c["certificate"]) for c in f["candidates"]]))
PY
checked=0
while IFS="$(printf '\t')" read -r input certs; do
  # shellcheck disable=SC2086
  "$BIN" check-cert $(printf '%s' "$certs" | tr '\t' ' ') --ir "$input" >"$WORK/recheck.out" 2>&1 ||
    { cat "$WORK/recheck.out" >&2; echo "fusecert-ci: check-cert: $input: certificates do not re-check" >&2; exit 2; }
  checked=$((checked + $(printf '%s\n' "$certs" | awk -F'\t' '{print NF}')))
done <"$WORK/recheck.list"
echo "fusecert-ci: check-cert: $checked certificates re-checked"

if [ "$findings" -ne 0 ] && [ "$ALLOW" -eq 0 ]; then exit 1; fi
exit 0
