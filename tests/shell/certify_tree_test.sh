#!/bin/sh
# certify over a tree: folders with --recursive, globs, index + SARIF;
# deterministic across runs and locations; N shards merged equal one
# unsharded run byte for byte (N = 1, 3, 5); merge fails closed (missing,
# repeated or tampered shards); every certificate re-checks with check-cert.
# Usage: certify_tree_test.sh FUSECERT SRCDIR
. "$(dirname "$0")/lib.sh"
has() { grep -q -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 600 "$1")"; }
# certify OUT WANT ARGS... (run from the current folder)
certify() {
  out=$1 want=$2
  shift 2
  "$BIN" certify "$@" --out "$out" >"$out.stdout" 2>"$out.stderr"
  got=$?
  [ "$want" = any ] || [ "$got" -eq "$want" ] || fail "certify $* --out $out: exit $got, expected $want: $(head -c 600 "$out.stderr")"
}

# A tree: the IR fixtures, nested one level, plus a file that does not parse.
mkdir -p "$W/a/proj/models/sub" "$W/b"
cp "$SRC"/fixtures/ir/*_linalg.mlir "$W/a/proj/models/"
cp "$SRC"/fixtures/ir/*_tessera.mlir "$W/a/proj/models/sub/"
printf 'func.func @f( {\n' >"$W/a/proj/models/sub/broken.mlir"
cp -r "$W/a/proj" "$W/b/proj"
n=$(find "$W/a/proj" -name '*.mlir' | wc -l)
cd "$W/a/proj" || exit 1

# Without --recursive a folder gives only its own files. Two of them lack a
# fact the IR cannot show (missing_keys_linalg.mlir: routing, grad_clip_scope;
# routing_no_decay_linalg.mlir: unrouted): inconclusive with a warning, not an
# input error (issue #16: a fact neither shown nor assumed is inconclusive;
# #13's table: 3), so no file of the folder has an input error and the run
# exits 1 for its illegal candidates, as certify of those FILEs does.
certify "$W/flat" 1 models
python3 - "$W/flat/index.json" <<'PY' || fail "flat index"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(f["file"].count("/") == 1 for f in d["files"]), [f["file"] for f in d["files"]]
errs = sorted(f["file"] for f in d["files"] if f["input_error"])
assert errs == [], errs
assert d["summary"]["input_errors"] == 0 and d["summary"]["inconclusive"] == 2, d["summary"]
PY

# The whole tree; the broken file makes it exit 2 (input error), fail closed.
certify "$W/one" 2 models --recursive
python3 - "$W/one" "$n" <<'PY' || fail "index/SARIF content"
import json, os, sys
out, n = sys.argv[1], int(sys.argv[2])
idx = json.load(open(os.path.join(out, "index.json")))
assert idx["schema"] == "fusecert-certify-index/2"
assert "shard" not in idx and "generated_at" not in idx
files = [f["file"] for f in idx["files"]]
assert files == sorted(files) and len(files) == n, files
s = idx["summary"]
counts = {"legal": 0, "illegal": 0, "inconclusive": 0}
for f in idx["files"]:
    for c in f["candidates"]:
        cert = json.load(open(os.path.join(out, c["certificate"])))
        assert cert["digest"] == c["digest"] and cert["verdict"] == c["verdict"]
        assert cert["input"]["file"] == f["file"]
        counts[c["verdict"]] += 1
for k, v in counts.items():
    assert s[k] == v, (k, s[k], v)
# Files with input errors: broken.mlir (input.parse) and
# full_k_value_tessera.mlir (tessera.full_k = 3 : i64, a wrong kind at the
# attribute boundary: input.attr.kind) by their own diagnostics; every file
# with an inconclusive candidate that has an error diagnostic (a missing
# semantic key), as its certificate records it.
def inconclusive_with_error(f):
    for c in f["candidates"]:
        cert = json.load(open(os.path.join(out, c["certificate"])))
        if cert["verdict"] == "inconclusive" and any(d["severity"] == "error" for d in cert["diagnostics"]):
            return True
    return False
own = {f["file"] for f in idx["files"] if any(d["severity"] == "error" for d in f["diagnostics"])}
assert own == {"models/sub/broken.mlir", "models/sub/full_k_value_tessera.mlir"}, own
want = own | {f["file"] for f in idx["files"] if inconclusive_with_error(f)}
assert "models/missing_keys_linalg.mlir" not in want and "models/sub/missing_keys_tessera.mlir" in want, want
assert {f["file"] for f in idx["files"] if f["input_error"]} == want
assert s["illegal"] > 0 and s["legal"] > 0 and s["input_errors"] == len(want), (s, want)
sarif = json.load(open(os.path.join(out, "results.sarif")))
assert sarif["version"] == "2.1.0" and len(sarif["runs"]) == 1
res = sarif["runs"][0]["results"]
assert any(r["ruleId"] == "input.parse" for r in res) and any(r["level"] == "error" and r["ruleId"].startswith("P2.") for r in res)
PY

# Deterministic: a second run, and a run from another location, are identical.
certify "$W/two" 2 models --recursive
diff -r "$W/one" "$W/two" >/dev/null || fail "two runs differ"
(cd "$W/b/proj" && certify "$W/elsewhere" 2 models --recursive)
diff -r "$W/one" "$W/elsewhere" >/dev/null || fail "a run from another folder differs"
# Globs: quoted, expanded by fusecert (** crosses folders).
certify "$W/glob" 2 'models/**/*.mlir'
diff -r "$W/one" "$W/glob" >/dev/null || fail "the ** glob differs from --recursive"
certify "$W/glob2" 2 'models/sub/*_tessera.mlir'
has "$W/glob2/index.json" "models/sub/adamw_tessera.mlir"
grep -q "_linalg.mlir" "$W/glob2/index.json" && fail "the glob picked up linalg files"

# A file whose name holds glob characters is that file, not a pattern (the
# commit hooks pass staged names, `fusecert certify -- FILE`): a legal module
# named w[1].mlir certifies alone, exit 0, with no --out (a pattern would make
# it a tree run, which needs --out: exit 2). A pattern matching no file stays
# a pattern: exit 2.
mkdir -p "$W/lit"
cp "$SRC/fixtures/ir/layer_clip_linalg.mlir" "$W/lit/w[1].mlir"
cp "$SRC/fixtures/ir/layer_clip_linalg.mlir" "$W/lit/star*.mlir"
( cd "$W/lit" && "$BIN" certify -- 'w[1].mlir' >out1 2>&1 ) || fail "certify -- 'w[1].mlir' (an existing file): $(head -c 600 "$W/lit/out1")"
grep -q "remark: legal" "$W/lit/out1" || fail "w[1].mlir: no legal verdict: $(head -c 600 "$W/lit/out1")"
( cd "$W/lit" && "$BIN" certify 'star*.mlir' >out2 2>&1 ) || fail "certify 'star*.mlir' (an existing file): $(head -c 600 "$W/lit/out2")"
( cd "$W/lit" && "$BIN" certify 'q?.mlir' >out3 2>&1 ); [ $? -eq 2 ] || fail "certify 'q?.mlir' (a pattern, no --out) did not exit 2"

# N shards merged == one unsharded run, byte for byte.
for N in 1 3 5; do
  dirs=""
  K=1
  while [ $K -le $N ]; do
    certify "$W/s$N.$K" any models --recursive --shard "$K/$N"
    has "$W/s$N.$K/index.json" "\"n\": $N"
    dirs="$dirs $W/s$N.$K"
    K=$((K + 1))
  done
  # shellcheck disable=SC2086
  "$BIN" certify --merge $dirs --out "$W/m$N" >"$W/m$N.stdout" 2>&1
  [ $? -eq 2 ] || fail "merge of $N shards: expected exit 2 (the broken input)"
  diff -r "$W/one" "$W/m$N" >"$W/m$N.diff" || fail "$N shards merged differ from one run: $(head -c 600 "$W/m$N.diff")"
done
total=0
for K in 1 2 3 4 5; do
  c=$(python3 -c "import json;print(len(json.load(open('$W/s5.$K/index.json'))['files']))")
  total=$((total + c))
done
[ $total -eq "$n" ] || fail "5 shards hold $total files, expected $n (disjoint and complete)"

# Merge fails closed.
"$BIN" certify --merge "$W/s3.1" "$W/s3.2" --out "$W/bad1" >/dev/null 2>"$W/bad1.err"
[ $? -eq 2 ] || fail "incomplete merge accepted"
has "$W/bad1.err" "incomplete merge"
"$BIN" certify --merge "$W/s3.1" "$W/s3.1" "$W/s3.2" --out "$W/bad2" >/dev/null 2>"$W/bad2.err"
[ $? -eq 2 ] || fail "repeated shard accepted"
# An input error at the merged output, in the one form (issue #13), not a usage error.
grep -qxF "$W/s3.1: error: shard 1 given twice [input.merge]" "$W/bad2.err" || fail "repeated shard: not reported at the shard as input.merge: $(head -c 600 "$W/bad2.err")"
grep -qF "$W/s3.1: error: incomplete merge: got 2 of 3 shards [input.merge]" "$W/bad1.err" || fail "incomplete merge: not reported as input.merge: $(head -c 600 "$W/bad1.err")"
# A merged output that is missing, has no index or an index of the wrong
# shape is [input.merge] at that file (issue #13), never [usage].
mkdir -p "$W/noidx" "$W/badidx" "$W/typeidx"
echo 'not json' >"$W/badidx/index.json"
echo '{"schema": "fusecert-certify-index/2", "tool": {}, "solver": {}, "files": [{"file": 3}]}' >"$W/typeidx/index.json"
"$BIN" certify --merge "$W/noidx" --out "$W/bad5" >/dev/null 2>"$W/bad5.err"
[ $? -eq 2 ] || fail "a merge input without index.json accepted"
grep -qxF "$W/noidx/index.json: error: cannot read: no such file [input.merge]" "$W/bad5.err" ||
  fail "no index.json: not input.merge at it: $(head -c 600 "$W/bad5.err")"
"$BIN" certify --merge "$W/absent" --out "$W/bad6" >/dev/null 2>"$W/bad6.err"
[ $? -eq 2 ] || fail "a missing merge input accepted"
grep -qE "^$W/absent/index.json: error: cannot read: .* \[input.merge\]$" "$W/bad6.err" ||
  fail "a missing merge input: not input.merge at its index: $(head -c 600 "$W/bad6.err")"
"$BIN" certify --merge "$W/badidx" --out "$W/bad7" >/dev/null 2>"$W/bad7.err"
[ $? -eq 2 ] || fail "an index that is not JSON accepted"
grep -qE "^$W/badidx/index.json: error: not JSON: .* \[input.merge\]$" "$W/bad7.err" ||
  fail "an index that is not JSON: $(head -c 600 "$W/bad7.err")"
"$BIN" certify --merge "$W/typeidx" --out "$W/bad8" >/dev/null 2>"$W/bad8.err"
[ $? -eq 2 ] || fail "an index with a numeric file accepted"
grep -qE "^$W/typeidx/index.json: error: not a certify index.* \[input.merge\]$" "$W/bad8.err" ||
  fail "an index with a numeric file: $(head -c 600 "$W/bad8.err")"
! grep -q '\[usage\]' "$W/bad5.err" "$W/bad6.err" "$W/bad7.err" "$W/bad8.err" || fail "a merge input error reported as usage"
cp -r "$W/s3.2" "$W/t3.2"
cert=$(find "$W/t3.2/certs" -name '*.cert.json' | head -n 1)
if [ -n "$cert" ]; then
  python3 -c "
import json,sys; p='$cert'; d=json.load(open(p)); d['verdict']='tampered'; open(p,'w').write(json.dumps(d))"
  "$BIN" certify --merge "$W/s3.1" "$W/t3.2" "$W/s3.3" --out "$W/bad3" >/dev/null 2>"$W/bad3.err"
  [ $? -eq 2 ] || fail "tampered shard accepted"
  has "$W/bad3.err" "digest differs"
fi
"$BIN" certify models --shard 4/3 --out "$W/bad4" >/dev/null 2>"$W/bad4.err"
[ $? -eq 2 ] || fail "--shard 4/3 accepted"
"$BIN" certify models/nosuch --out "$W/bad5" >/dev/null 2>"$W/bad5.err"
[ $? -eq 2 ] || fail "a missing input accepted"
"$BIN" certify models --recursive >/dev/null 2>"$W/bad6.err"
[ $? -eq 2 ] || fail "tree mode without --out accepted"
has "$W/bad6.err" "needs --out"

# --timestamp is the only source of a time, and only when asked.
certify "$W/ts" 1 models --timestamp  # the flat folder: illegal candidates, no input error (above)
has "$W/ts/index.json" "generated_at"

# Every certificate of the merged tree re-checks, with its input.
for f in $(python3 -c "
import json
for f in json.load(open('$W/m3/index.json'))['files']:
    if f['candidates']: print(f['file'])"); do
  certs=$(python3 -c "
import json
for f in json.load(open('$W/m3/index.json'))['files']:
    if f['file'] == '$f':
        print(' '.join('$W/m3/' + c['certificate'] for c in f['candidates']))")
  # shellcheck disable=SC2086
  "$BIN" check-cert $certs --ir "$f" >"$W/cc.out" 2>&1 || fail "check-cert $f: $(head -c 600 "$W/cc.out")"
done

finish
