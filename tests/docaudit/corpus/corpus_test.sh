#!/bin/sh
# The checker on real input, with the defaults alone: the Tessera corpus
# (../shared/corpus/tessera) laid out as its whole repository (every path of
# PATHS.txt an empty file, the real documents over them) and checked with NO
# configuration file, over the root index, compiler/, backend/ and
# generated/. The output must equal expected.txt beside this script, in
# which every finding was read in its document and judged true (README.md
# beside it says why, finding by finding).
# Usage: corpus_test.sh FUSECERT SRCDIR CORPUS_DIR
# Exit 77 (skipped) when the corpus is not there.
set -u
BIN=$1 SRC=$2 CORPUS=$3
[ -f "$CORPUS/PATHS.txt" ] || { echo "SKIP: no corpus at $CORPUS"; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/fusecert-corpus.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
T=$W/tessera
bash "$SRC/bench/docaudit/lay_corpus.sh" "$CORPUS" "$T" --no-config >/dev/null || { echo "FAIL: lay_corpus.sh"; exit 1; }
[ ! -e "$T/.fusecert.yaml" ] || { echo "FAIL: a configuration file was laid"; exit 1; }
A=$T/docs/audit
# From the repository root, as a user runs it: paths print relative to the
# working directory (docs/diagnostics.md).
(cd "$T" && "$BIN" docs --repo-root "$T" --today 2026-09-01 "$A/README.md" "$A/compiler" "$A/backend" "$A/generated") >"$W/out.txt" 2>"$W/err.txt"
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1 (findings)"; cat "$W/err.txt"; exit 1; }
if ! diff -u "$SRC/tests/docaudit/corpus/expected.txt" "$W/out.txt"; then
  echo "FAIL: the findings differ from the reviewed expectations (tests/docaudit/corpus/expected.txt)"
  exit 1
fi
# The hook's form (issue #18, "hook and CI give the same answer on the same
# tree"): a commit that stages every one of those Markdown files names each
# explicitly, generated dashboards included; the excludes of a tree run apply
# to files named explicitly too, so the answer is the same, byte for byte.
(cd "$T" && find docs/audit/README.md docs/audit/compiler docs/audit/backend docs/audit/generated -name '*.md' -type f |
  sort >"$W/files.list") || { echo "FAIL: listing the corpus files"; exit 1; }
set --
while IFS= read -r f; do set -- "$@" "$f"; done <"$W/files.list"
[ $# -gt 59 ] || { echo "FAIL: expected more than 59 Markdown files (generated/ included), found $#"; exit 1; }
(cd "$T" && "$BIN" docs --repo-root "$T" --today 2026-09-01 "$@") >"$W/files.txt" 2>"$W/files.err"
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: explicit files: exit $rc, expected 1 (findings)"; cat "$W/files.err"; exit 1; }
if ! diff -u "$W/out.txt" "$W/files.txt"; then
  echo "FAIL: naming every file explicitly (the hook) answers differently from the folder run (CI)"
  exit 1
fi
echo PASS
