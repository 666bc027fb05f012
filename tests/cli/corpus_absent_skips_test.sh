#!/bin/sh
# cli.corpus_absent_skips: every test that reads ../shared/corpus, given a
# corpus that is not there, exits 77 (CTest: Skipped, cmake/corpus_tests.cmake)
# and names what is missing: none passes without its corpus. cli.sarif did
# until 2026-12-04 (it printed a note and passed).
# Usage: corpus_absent_skips_test.sh FUSECERT SRCDIR PYTHON
set -u
BIN=$1 SRC=$2 PY=$3
NONE=$(mktemp -d "${TMPDIR:-/tmp}/fusecert-nocorpus.XXXXXX")/absent || exit 1
trap 'rm -rf "$(dirname "$NONE")"' EXIT
fails=0
expect_skip() {  # NAME COMMAND...
  name=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne 77 ]; then
    echo "FAIL: $name: exit $rc without its corpus, expected 77 (skipped): $out"
    fails=$((fails + 1))
  elif ! printf '%s\n' "$out" | grep -q "$NONE"; then
    echo "FAIL: $name: skipped without naming what is missing ($NONE): $out"
    fails=$((fails + 1))
  else
    echo "ok: $name: $out"
  fi
}
expect_skip docaudit.corpus sh "$SRC/tests/docaudit/corpus/corpus_test.sh" "$BIN" "$SRC" "$NONE/tessera"
expect_skip cli.sarif_corpus "$PY" "$SRC/tests/cli/sarif_test.py" "$BIN" "$SRC" --corpus "$NONE"
expect_skip corpus.tessera_ir "$PY" "$SRC/tests/corpus/run_corpus.py" --fusecert "$BIN" --corpus "$NONE/tessera/tests/tessera-ir" \
  --expect "$SRC/tests/corpus/tessera-ir.expected"
expect_skip corpus.jax_stablehlo "$PY" "$SRC/tests/corpus/run_stablehlo.py" --fusecert "$BIN" --dir "$NONE/jax" \
  --expect "$SRC/tests/corpus/jax.expected"
expect_skip ir.tessera_td "$PY" "$SRC/tests/ir/tessera_td_test.py" "$SRC" "$NONE"
[ "$fails" -eq 0 ] && echo PASS
exit "$fails"
