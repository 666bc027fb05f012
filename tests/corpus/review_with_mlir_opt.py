#!/usr/bin/env python3
"""Review aid for tessera-ir.expected (not run by CTest): an independent
oracle for the parse / verify outcomes. For every split of every corpus file
(cut on `// -----` lines as fusecert cuts them), mlir-opt-19
--allow-unregistered-dialect says whether MLIR itself parses and verifies
it; each split the expectations file calls input.parse / input.verify must
fail there, and every other split must pass.

    python3 tests/corpus/review_with_mlir_opt.py \
        --corpus ../shared/corpus/tessera/tests/tessera-ir \
        --expect tests/corpus/tessera-ir.expected
"""
import argparse
import os
import subprocess
import sys


def splits(text):
    out, cur, line, first = [], [], 1, 1
    for l in text.split("\n"):
        if l.strip(" \t\r") == "// -----":
            out.append((first, "\n".join(cur)))
            cur, first = [], line + 1
        else:
            cur.append(l)
        line += 1
    out.append((first, "\n".join(cur)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--mlir-opt", default="mlir-opt-19")
    a = ap.parse_args()
    expect = {}
    for l in open(a.expect):
        f = l.split()
        if len(f) >= 4 and not l.startswith("#"):
            expect[(f[0], int(f[1]))] = f[3]
    bad = 0
    for (rel, k), outcome in sorted(expect.items()):
        text = open(os.path.join(a.corpus, rel), errors="surrogateescape").read()
        first, body = splits(text)[k]
        # Pad so MLIR's lines are the file's.
        p = subprocess.run([a.mlir_opt, "--allow-unregistered-dialect", "-o", os.devnull],
                           input="\n" * (first - 1) + body, capture_output=True, text=True, errors="replace")
        mlir_fails = p.returncode != 0
        we_fail = outcome in ("input.parse", "input.verify", "input.bounds")
        if mlir_fails != we_fail:
            bad += 1
            print("%s split %d (line %d): fusecert %s, mlir-opt %s%s" % (
                rel, k, first, outcome, "fails" if mlir_fails else "passes",
                (": " + p.stderr.strip().splitlines()[0]) if p.stderr.strip() else ""))
    print("%d split(s) where fusecert and mlir-opt-19 disagree on parsing" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
