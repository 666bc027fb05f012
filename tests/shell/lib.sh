# lib.sh — the preamble the shell-level tests share (POSIX sh, sourced as
# `. "$(dirname "$0")/lib.sh"` by a test run as `sh TEST FUSECERT SRCDIR ...`):
#   BIN, SRC      the fusecert binary and the source tree (the test's $1, $2)
#   W             a scratch folder, removed when the test exits
#   fail MSG      records a failure; `finish` prints PASS and exits with the count
#   git_identity  a throwaway HOME and git identity, so commits in $W never
#                 read or write the user's configuration
#   expect WANT NAME CMD...   CMD's exit status must be WANT (output in $W/NAME.out, .err)
#   contains NAME TEXT   $W/NAME must contain TEXT
#   commit NAME WANT MESSAGE
#                 `git commit` in the current repository; its exit status must
#                 be WANT (output kept in $W/NAME.log)
set -u
BIN=$1
SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() {
  [ $fails -eq 0 ] && echo PASS
  exit $fails
}
git_identity() {
  export HOME="$W" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com \
    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
}
commit() {
  git commit -q -m "$3" >"$W/$1.log" 2>&1
  got=$?
  [ "$got" -eq "$2" ] || fail "$1: git commit exit $got, expected $2: $(cat "$W/$1.log")"
}
# expect WANT NAME CMD...: run CMD (output in $W/NAME.out/.err); its exit status must be WANT.
expect() {
  want=$1 name=$2
  shift 2
  "$@" >"$W/$name.out" 2>"$W/$name.err"
  got=$?
  [ "$got" -eq "$want" ] || fail "$name: exit $got, expected $want: $(head -c 400 "$W/$name.err") $(head -c 400 "$W/$name.out")"
}
# contains NAME TEXT: $W/NAME must contain TEXT.
contains() { grep -q -- "$2" "$W/$1" || fail "$1 lacks '$2': $(head -c 800 "$W/$1")"; }
