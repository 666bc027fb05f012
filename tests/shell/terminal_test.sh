#!/bin/sh
# Colour and the progress line (issue #22), through the real binary:
#   - --color=always colours the severity of each diagnostic, never/piped/
#     NO_COLOR do not; --format json stays plain JSON whatever --color says;
#     --color=bogus is a usage error (exit 2);
#   - on a terminal (script(1) gives a pty) auto colours, NO_COLOR stops it,
#     --color=always wins over NO_COLOR;
#   - on a terminal the progress line names the step and is erased; piped
#     stderr never gets it (FUSECERT_PROGRESS_DELAY_MS=0 draws it at once, so
#     nothing here depends on how fast the machine is).
# Usage: terminal_test.sh FUSECERT SRCDIR
. "$(dirname "$0")/lib.sh"
unset NO_COLOR
ESC=$(printf '\033')
BAD="$SRC/fixtures/ir/global_clip_linalg.mlir"

"$BIN" certify --color=always "$BAD" >"$W/always" 2>&1
grep -q "${ESC}\[1;31merror:${ESC}\[0m" "$W/always" || fail "--color=always: no red error: $(head -c 300 "$W/always" | od -c | head -5)"
"$BIN" certify --color=never "$BAD" >"$W/never" 2>&1
grep -q "$ESC" "$W/never" && fail "--color=never wrote an escape"
"$BIN" certify "$BAD" >"$W/piped" 2>&1
grep -q "$ESC" "$W/piped" && fail "piped output (auto) has an escape"
cmp -s "$W/never" "$W/piped" || fail "never and piped differ"
# The colours only wrap the severity: stripped, always == never.
sed "s/${ESC}\[[0-9;]*m//g" "$W/always" | cmp -s - "$W/never" || fail "colour changed the text"
"$BIN" certify --color=always --format json "$BAD" >"$W/json" 2>/dev/null
grep -q "$ESC" "$W/json" && fail "--format json got colour"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$W/json" || fail "--color=always --format json is not JSON"
"$BIN" prove --color=bogus >"$W/bogus" 2>&1
[ $? -eq 2 ] || fail "--color=bogus: want exit 2"

# A diagnostic that quotes 200,000 characters of input is coloured in linear
# time (std::regex recursed on that line until the stack overflowed: exit
# 139). Expected: the broken link is a finding, exit 1.
mkdir -p "$W/long" && python3 -c 'print("# T\n\n[x](" + "a" * 200000 + ".md)")' >"$W/long/README.md"
ABS="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
(cd "$W/long" && "$ABS" docs --color=always README.md) >"$W/long.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "--color=always on a 200,000-character diagnostic: exit $rc, want 1"
grep -q "anchor.broken-link" "$W/long.out" || fail "the long link's finding is missing"

# On a terminal.
pty() { script -qec "$1" /dev/null </dev/null; }
pty "'$BIN' certify '$BAD'" >"$W/tty" 2>&1
grep -q "${ESC}\[1;31merror:" "$W/tty" || fail "a terminal (auto) gets no colour: $(head -c 200 "$W/tty")"
NO_COLOR=1 pty "'$BIN' certify '$BAD'" >"$W/tty_nc" 2>&1
grep -q "${ESC}\[1;31m" "$W/tty_nc" && fail "NO_COLOR=1 on a terminal still coloured"
NO_COLOR=1 pty "'$BIN' certify --color=always '$BAD'" >"$W/tty_nc_always" 2>&1
grep -q "${ESC}\[1;31merror:" "$W/tty_nc_always" || fail "--color=always does not override NO_COLOR"

# Progress: on a terminal, named and erased; piped, absent.
FUSECERT_PROGRESS_DELAY_MS=0 pty "'$BIN' prove P2 P4 --no-witness" >"$W/prog" 2>&1
grep -q "fusecert prove: P[24] ([12]/2)" "$W/prog" || fail "no progress line on a terminal: $(tail -c 300 "$W/prog" | od -c | tail -5)"
grep -q "${ESC}\[K" "$W/prog" || fail "the progress line is not erased"
FUSECERT_PROGRESS_DELAY_MS=0 "$BIN" prove P2 P4 --no-witness >"$W/prog_out" 2>"$W/prog_err"
grep -q "fusecert prove:" "$W/prog_err" && fail "progress written to a piped stderr"
grep -q "$ESC" "$W/prog_out" "$W/prog_err" && fail "escapes in piped prove output"

finish
