#!/bin/sh
# Writes fusecert.1 from the binary's own --help texts (help2man): the
# top-level --help as the synopsis and options, then one subsection per
# subcommand (found by walking the "Subcommands:" lists) with its --help, so
# the page is as accurate as the help it is made from.
# Usage: make-man.sh FUSECERT HELP2MAN OUT
set -eu
BIN=$1 H2M=$2 OUT=$3
# An ASan build runs here at build time, before sanitize.sh has probed
# whether LeakSanitizer works in this sandbox: no leak check for --help.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mkdir -p "$(dirname "$OUT")"
inc=$(mktemp) && trap 'rm -f "$inc"' EXIT

# subcommands PATH...: the names listed under "Subcommands:" in `fusecert PATH... --help`
subcommands() {
  "$BIN" "$@" --help | awk '/^Subcommands:/ {s = 1; next} s && /^  [a-z]/ {print $1} s && /^$/ {s = 0}'
}
# roff: backslashes, and lines that start with . or ' read literally
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
section() {
  printf '.SS "fusecert %s"\n.nf\n' "$*"
  "$BIN" "$@" --help | roff
  printf '.fi\n'
  for s in $(subcommands "$@"); do section "$@" "$s"; done
}

{
  # The versions: the first line is the page's version; the solver and MLIR
  # lines get their own section (help2man would read them as options).
  printf '[VERSIONS]\nWhen this page was made; \\fBfusecert \\-\\-version\\fR says what runs now.\n.nf\n'
  "$BIN" --version | roff
  printf '.fi\n'
  printf '[SUBCOMMANDS]\n'
  for s in $(subcommands); do section "$s"; done
  printf '[ENVIRONMENT]\n'
  printf '.TP\n.B FUSECERT_RULES_DIR\nthe rules folder (propositions.yaml, docaudit/); default: ../share/fusecert/rules beside the binary\n'
  printf '.TP\n.B NO_COLOR\nwhen set and not empty, --color=auto writes no colour\n'
  printf '.TP\n.B FUSECERT_KERNELS_RUNNER\nthe fusecert-kernels runner that fusecert kernels runs (default: beside the binary)\n'
  # The exit-code table as --help prints it, so the page cannot drift from it.
  printf '[EXIT STATUS]\n.nf\n'
  "$BIN" --help | sed -n '/^Exit codes/,/^$/p' | sed '1d;/^$/d' | roff
  printf '.fi\n'
  printf '[SEE ALSO]\nThe README and docs/ of the fusecert source tree; /usr/share/doc/fusecert/examples for the pre-commit hooks and the CI workflow.\n'
} >"$inc"

version=$("$BIN" --version | sed -n '1s/^fusecert //p')
"$H2M" --locale=C.UTF-8 --no-info --section=1 --name="static verifier and audit-document checker for optimizer-into-wgrad fusion" \
  --version-string="$version" --include="$inc" --output="$OUT.tmp" "$BIN"
# The help texts are UTF-8 (P2a–P2c): help2man reads them in a UTF-8 locale
# (in its default C locale every non-ASCII character became ???), and the
# page says so, for man's preconv.
{ printf '.\\" -*- coding: UTF-8 -*-\n'; cat "$OUT.tmp"; } >"$OUT" && rm -f "$OUT.tmp"
