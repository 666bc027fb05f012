#!/bin/sh
# `cmake --install BUILD --prefix P` gives a fusecert that works with no build
# or source tree in sight (issue #22):
#   - P/bin/fusecert, P/share/fusecert/rules, the man page, bash completion;
#   - the installed binary, run from elsewhere with FUSECERT_RULES_DIR unset,
#     reads P/share/fusecert/rules: it proves, lints a document and certifies;
#   - with P/share/fusecert/rules gone it fails closed (exit 2, naming that
#     path) instead of falling back to the source tree; a copy of the prefix
#     works from its new place;
#   - --version on every subcommand names Z3, cvc5 and MLIR; --help is current;
#   - the completion offers subcommands, options and option values;
#   - the pre-commit framework with .pre-commit-hooks.yaml runs the installed
#     fusecert: a bad plan and an illegal fusion are rejected, good ones pass
#     (tests/shell/hook_precommit_test.sh with P/bin/fusecert first on PATH).
# Usage: install_test.sh BUILD_DIR SRCDIR CMAKE PRE_COMMIT
set -u
BUILD=$1 SRC=$2 CMAKE=$3 PC=$4
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
unset FUSECERT_RULES_DIR FUSECERT_KERNELS_RUNNER

P="$W/prefix"
"$CMAKE" --install "$BUILD" --prefix "$P" --component fusecert >"$W/install.log" 2>&1 ||
  { echo "FAIL: cmake --install: $(tail -20 "$W/install.log")"; exit 1; }
for f in bin/fusecert share/fusecert/rules/propositions.yaml share/fusecert/rules/docaudit/default.yaml \
         share/man/man1/fusecert.1 share/bash-completion/completions/fusecert \
         share/doc/fusecert/examples/.pre-commit-hooks.yaml share/doc/fusecert/examples/github-actions.yml; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
[ -e "$P/bin/fusecert-kernels" ] && fail "the CUDA runner is in the fusecert component"
FC="$P/bin/fusecert"

# Run from a folder that is neither the build nor the source tree.
mkdir -p "$W/elsewhere" && cd "$W/elsewhere" || exit 1
"$FC" prove P2 --no-witness >"$W/prove.log" 2>&1 || fail "installed prove P2: exit $?: $(tail -5 "$W/prove.log")"
grep -q "P2" "$W/prove.log" || fail "prove P2 printed no verdict: $(head -5 "$W/prove.log")"
"$FC" certify "$SRC/fixtures/ir/global_clip_linalg.mlir" >"$W/certify.log" 2>&1
[ $? -eq 1 ] || fail "installed certify of an illegal fusion: want exit 1: $(tail -5 "$W/certify.log")"
grep -q "error: .* \[P2\.[a-z_]*\]$" "$W/certify.log" || fail "certify: no P2 finding: $(tail -5 "$W/certify.log")"
"$FC" docs --repo-root "$SRC/fixtures/docs/frontmatter.plan-state/pass" --today 2026-09-01 >"$W/docs.log" 2>&1 ||
  fail "installed docs on a passing tree: exit $?: $(tail -5 "$W/docs.log")"

# The rules it read are the installed ones: without them it stops, naming the path.
mv "$P/share/fusecert/rules" "$W/rules.away"
"$FC" prove P2 --no-witness >"$W/norules.log" 2>&1
st=$?
[ $st -eq 2 ] || fail "prove without installed rules: exit $st, want 2 (no fallback to the source tree)"
grep -q "$P/share/fusecert/rules" "$W/norules.log" || fail "the error does not name the missing rules folder: $(cat "$W/norules.log")"
"$FC" docs --repo-root "$SRC/fixtures/docs/frontmatter.plan-state/pass" >"$W/norules-docs.log" 2>&1
[ $? -eq 2 ] || fail "docs without installed rules: want exit 2: $(cat "$W/norules-docs.log")"
mv "$W/rules.away" "$P/share/fusecert/rules"
# A relocated prefix works from its new place.
mv "$P" "$W/moved"
"$W/moved/bin/fusecert" prove P2 --no-witness >/dev/null 2>&1 || fail "a moved prefix does not prove"
mv "$W/moved" "$P"

# --version, on the top level and every subcommand.
for sub in "" prove docs certify check-cert validate shell query hook "hook install" kernels "kernels evidence"; do
  # shellcheck disable=SC2086
  "$FC" $sub --version >"$W/v" 2>&1 || fail "fusecert $sub --version: exit $?"
  for want in "^fusecert [0-9]" "Z3 *[0-9]" "cvc5 " "MLIR *[0-9]"; do
    grep -q "$want" "$W/v" || fail "fusecert $sub --version lacks '$want': $(cat "$W/v")"
  done
done
if command -v cvc5 >/dev/null; then grep -q "cvc5 *[0-9]" "$W/v" || fail "--version does not name the cvc5 on PATH"; fi

# --help: current texts (no "P1–P6", no `[]` in a usage line).
for sub in "" prove docs certify check-cert validate shell query hook kernels "kernels bench"; do
  # shellcheck disable=SC2086
  "$FC" $sub --help >"$W/h" 2>&1 || fail "fusecert $sub --help: exit $?"
  grep -q "P1–P6" "$W/h" && fail "fusecert $sub --help still says P1–P6"
  grep -q "^Usage:.*\[\]" "$W/h" && fail "fusecert $sub --help: usage has an empty []: $(grep '^Usage' "$W/h")"
done
"$FC" kernels --help | grep -qx "Usage: fusecert kernels \[OPTIONS\] SUBCOMMAND" ||
  fail "kernels usage line: $("$FC" kernels --help | grep Usage)"

# The man page is the help: every subcommand has its section.
for sub in prove docs certify check-cert validate shell query hook kernels; do
  grep -q "fusecert $sub" "$P/share/man/man1/fusecert.1" || fail "man page: no section for $sub"
done
grep -q '^\.TH FUSECERT "1"' "$P/share/man/man1/fusecert.1" || fail "man page: no .TH header"
# UTF-8 survives help2man (in its C locale "P2a–P2c" became "P2a???P2c"), and
# the EXIT STATUS section is --help's exit-code table, codes 3 and 4 included.
grep -q '???' "$P/share/man/man1/fusecert.1" && fail "man page: non-ASCII text garbled to ???"
grep -q 'P2a–P2c' "$P/share/man/man1/fusecert.1" || fail "man page: 'P2a–P2c' missing"
for code in 0 1 2 3 4; do
  want=$("$P/bin/fusecert" --help | sed -n '/^Exit codes/,/^$/p' | grep "^  $code  " | sed 's/^ *//')
  [ -n "$want" ] || fail "--help has no exit code $code"
  sed -n '/^\.SH "EXIT STATUS"/,/^\.SH/p' "$P/share/man/man1/fusecert.1" | sed 's/\\-/-/g; s/^ *//' | grep -qF -- "$want" ||
    fail "man page EXIT STATUS lacks: $want"
done

# Bash completion (bash-completion's helpers may be absent: the script copes).
complete_words() {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fusecert; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$P/share/bash-completion/completions/fusecert" "$@"
}
PATH="$P/bin:$PATH"
export PATH
complete_words fusecert cer | grep -qx certify || fail "completion: 'cer' does not give certify"
complete_words fusecert certify --fo | grep -qx -- --format || fail "completion: certify --fo does not give --format"
[ "$(complete_words fusecert certify --format '' | sort | tr '\n' ' ')" = "json sarif text " ] ||
  fail "completion: certify --format values: $(complete_words fusecert certify --format '' | tr '\n' ' ')"
complete_words fusecert kernels "" | grep -qx evidence || fail "completion: kernels subcommands"
complete_words fusecert prove --color= | grep -qx always || fail "completion: --color= values"

# The pre-commit framework, on the installed binary.
sh "$SRC/tests/shell/hook_precommit_test.sh" "$FC" "$SRC" "$PC" >"$W/pc.log" 2>&1 ||
  fail "pre-commit with the installed fusecert: $(tail -20 "$W/pc.log")"

[ $fails -eq 0 ] && echo PASS
exit $fails
