#!/usr/bin/env bash
# One bad-input case (fixtures/bad/MANIFEST.tsv row) against the built binary.
#   run_case.sh FUSECERT KIND INPUT EXPECT_RC REGEX MEM_MB SECS
# KIND: docs | certify | check-cert | validate. INPUT: a path under fixtures/bad/, or
# gen:NAME for an input generated here (100 MB files, symlink loops, FIFOs,
# folders named like files: things that must not be committed or cannot be).
# Checks, each a failure of the case:
#   - the exit status is EXPECT_RC (the documented one) and no signal;
#   - the output (stdout + stderr) matches the extended regex REGEX;
#   - time bound: the run ends within SECS seconds (timeout(1));
#   - memory bound: peak RSS <= MEM_MB (GNU time); in a plain build the
#     address space is also capped at 4x MEM_MB with prlimit --as. In an ASan
#     build (libasan linked) prlimit is skipped (ASan reserves terabytes of
#     virtual memory) and the RSS bound is 3x MEM_MB (shadow memory);
#   - no writes outside the output folder: every file of the scratch folder
#     (input copy, cwd, HOME, TMPDIR) is listed with size and mtime before and
#     after, and only out/ may differ.
# Unreadable files: CI runs as root, for whom chmod 000 blocks nothing, so the
# "unreadable" cases use what root cannot read as a document either: a FIFO
# (would block forever if opened) and a folder named like a document.
set -uo pipefail
BIN=$1 KIND=$2 INPUT=$3 RC=$4 RE=$5 MEM=$6 SECS=$7
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/../../fixtures/bad
W=$(mktemp -d "${TMPDIR:-/tmp}/fusecert-bad.XXXXXX") || exit 1   # the scratch folder
M=$(mktemp -d "${TMPDIR:-/tmp}/fusecert-bad-meta.XXXXXX") || exit 1   # this script's own notes
trap 'rm -rf "$W" "$M"' EXIT
mkdir -p "$W/repo/docs/audit" "$W/in" "$W/out" "$W/cwd" "$W/home" "$W/tmp"
dest=$W/in; [ "$KIND" = docs ] && dest=$W/repo/docs/audit

case $INPUT in
  gen:*)
    name=${INPUT#gen:}; p=$dest/$name
    case $name in
      big-100mb.md)   { printf -- '---\nlast_updated: 2026-01-01\naudit_role: reference\n---\n'
                        yes 'A paragraph of *text* with `code` and a [link](x.md).' | head -c 100000000; } > "$p" ;;
      big-100mb.mlir) { echo 'func.func @f(%a: f32) -> f32 {'
                        yes '  %x = arith.addf %a, %a : f32' | head -c 100000000; echo '  return %a : f32'; echo '}'; } > "$p" ;;
      symlink-loop.*) ln -s "loop-b.${name##*.}" "$p"; ln -s "$name" "$dest/loop-b.${name##*.}" ;;
      fifo.*)         mkfifo "$p" ;;
      # Debian's cmark-gfm 0.29.0.gfm.6 is quadratic on these (issue #17):
      # refused before parsing (tree.max_block_brackets) / parsed linearly
      # (no autolink extension); a 100,000-digit verdict-table id recursed
      # in std::regex.
      cmark-images-40k.md) { printf -- '---\nlast_updated: 2026-01-01\naudit_role: reference\n---\n\n'
                             yes '![[]()' | head -n 40000 | tr -d '\n'; echo; } > "$p" ;;
      cmark-www-40k.md)    { printf -- '---\nlast_updated: 2026-01-01\naudit_role: reference\n---\n\n'
                             yes 'www.a_' | head -n 40000 | tr -d '\n'; echo; } > "$p" ;;
      verdict-id-100k.md)  { printf '| Id | Verdict |\n|---|---|\n| P'; yes 7 | head -n 100000 | tr -d '\n'; printf ' | Holds |\n'; } > "$p" ;;
      folder.*)       mkdir "$p" ;;
      # Hostile modules of 20-300 KB that crashed or hung certify (issue #17).
      affine-neg-chain.mlir) python3 -c 'print("#m = affine_map<(d0) -> (" + "- " * 100000 + "d0)>\nfunc.func @f() { return }")' > "$p" ;;
      affine-add-chain.mlir) python3 -c 'print("#m = affine_map<(d0, d1) -> (" + "d0 + d1 + " * 30000 + "d0)>\nfunc.func @f() attributes {m = #m} { return }")' > "$p" ;;
      affine-set-ge.mlir)    python3 -c 'print("func.func @f() attributes {s = " + "[affine_set<(d0) : (d0 >= 0, d0 >= 0)>, " * 20000 + "0" + "]" * 20000 + "} { return }")' > "$p" ;;
      float-100k-digits.mlir) python3 -c 'print("func.func @f() -> f64 {\n  %c = arith.constant 1." + "3" * 100000 + " : f64\n  return %c : f64\n}")' > "$p" ;;
      int-30k-digits.mlir)   python3 -c 'print("func.func @f() -> i64 {\n  %c = arith.constant " + "7" * 30000 + " : i64\n  return %c : i64\n}")' > "$p" ;;
      # Hostile certificates: 100,000-deep diagnostics, a 100 MB claim.
      # (a whole certificate, so every check before the digest passes)
      deep-diagnostics.cert.json) python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); j["diagnostics"] = "DEEP"
print(json.dumps(j).replace("\"DEEP\"", "[" * 100000 + "]" * 100000))' "$SRC/cert/tampered-verdict.cert.json" > "$p" ;;
      big-claim.cert.json)   { printf '{"schema": "fusecert-certificate/3", "obligations": [{"claim": "'; head -c 100000000 /dev/zero | tr '\0' a; printf '"}]}\n'; } > "$p" ;;
      *) echo "run_case: unknown generated input $name"; exit 1 ;;
    esac ;;
  *) name=$(basename "$INPUT"); p=$dest/$name; cp "$SRC/$INPUT" "$p" || exit 1 ;;
esac

case $KIND in
  docs)       cmd=("$BIN" docs --repo-root "$W/repo" --today 2026-06-01 -j 2 "$p") ;;
  certify)    cmd=("$BIN" certify --timeout-ms 5000 --out "$W/out" "$p") ;;
  check-cert) cmd=("$BIN" check-cert --timeout-ms 5000 "$p") ;;
  validate)   cmd=("$BIN" validate --timeout-ms 5000 "$p") ;;
  *) echo "run_case: unknown kind $KIND"; exit 1 ;;
esac

snapshot() { (cd "$W" && find . -path ./out -prune -o -printf '%p %s %T@ %y\n' | sort); }
snapshot > "$M/before"

# (The ldd output is read whole: `ldd | grep -q` under pipefail failed at
# random when grep quit early and ldd died of SIGPIPE, and the ASan build then
# ran under prlimit --as, which ASan's shadow memory cannot live with.)
asan=0; case "$(ldd "$BIN" 2>/dev/null)" in *libasan*) asan=1 ;; esac
limit=(); bound=$MEM
if [ $asan = 1 ]; then bound=$((MEM * 3)); else limit=(prlimit --as=$((MEM * 4 * 1024 * 1024))); fi

cd "$W/cwd"
HOME=$W/home TMPDIR=$W/tmp /usr/bin/time -f '%M' -o "$M/rss" \
  timeout -s KILL "$SECS" "${limit[@]}" "${cmd[@]}" > "$M/out" 2>&1
rc=$?
out=$(cat "$M/out"); rss=$(tail -1 "$M/rss" | tr -dc 0-9)
changed=$(diff "$M/before" <(snapshot))

fail=0
echo "$ ${cmd[*]}"; echo "$out" | head -c 4000; echo
echo "exit $rc (expected $RC); peak RSS ${rss:-?} KB (bound ${bound} MB); time bound ${SECS} s"
if [ "$rc" -eq 137 ] || [ "$rc" -eq 124 ]; then echo "FAIL: killed: over the ${SECS} s time bound (or by a signal)"; fail=1;
elif [ "$rc" -ne "$RC" ]; then echo "FAIL: exit status $rc, expected $RC"; fail=1; fi
if grep -Eq -- 'ERROR: (Address|Leak)Sanitizer|runtime error:' <<< "$out"; then echo "FAIL: sanitizer report"; fail=1; fi
if ! grep -Eq -- "$RE" <<< "$out"; then echo "FAIL: output does not match /$RE/"; fail=1; fi
if [ -n "$rss" ] && [ "$rss" -gt $((bound * 1024)) ]; then echo "FAIL: peak RSS ${rss} KB over ${bound} MB"; fail=1; fi
if [ -n "$changed" ]; then echo "FAIL: wrote outside its output folder:"; echo "$changed"; fail=1; fi
exit $fail
