#!/usr/bin/env python3
"""The JAX / optax StableHLO suite (issue #21): `fusecert certify --format
json` on every optax step of a folder (optax_<optimizer>[.<variant>].stablehlo.mlir),
each candidate's verdict and reason compared with an expectations file
written from optax's semantics before fusecert was run on any of them
(fixtures/stablehlo/EXPECTED.tsv; tests/corpus/jax.expected for
../shared/corpus/jax, from issue #21).

Expectations rows: optimizer, weights, verdict, rule, why (tab-separated).
`weights` is `all`, or a comma list of weight(variants) such as
`w(f32,bf16), w1(mlp2)`. A candidate's weight is named by its gradient's
shape: 256x128 is w (one-layer files) or w1 (mlp2 files), 128x64 is w2.
The rule is the proposition of the candidate's failing obligations: an
illegal candidate must fail exactly the expected proposition (P9, P2, ...),
a legal one none, and no other deciding obligation may be left open
(missing, unknown) beside it. Checks also: every file has exactly the candidates the
header names (none missed, no forward or dX contraction taken for one),
no input error, and the run's exit status 1 when some candidate is illegal, 0
when all are legal.
Exit 0 pass, 1 mismatch, 77 when the folder is absent (CTest skip).
"""
import argparse
import json
import os
import re
import subprocess
import sys

# A weight by its gradient's dimensions (either layout: the contraction may
# give dW or its transpose).
SHAPES = {"one": {(128, 256): "w"}, "mlp2": {(128, 256): "w1", (64, 128): "w2"}}


def producer_shape(lines, loc):
    """The result dimensions of the op at `loc` (line of the file), sorted."""
    line = lines[loc["line"] - 1] if loc and 0 < loc.get("line", 0) <= len(lines) else ""
    m = re.search(r"->\s*tensor<([0-9x]+)x[a-z]+[0-9]*>\s*$", line)
    return tuple(sorted(int(d) for d in m.group(1).split("x"))) if m else ()


def failing(o):
    """A deciding obligation that definitely does not hold."""
    answer = o["answer"]  # certify --format json names the solver's answer `answer` (issue #13)
    if not o["decides"]:
        return False
    if o["how"] == "structural":
        return answer == "violated"
    return answer == "sat" and o["expected"] == "unsat"



def settled(o):
    """A deciding obligation that holds (structural) or got its expected answer."""
    if o["how"] == "structural":
        return o["answer"] == "holds"
    return o["answer"] == o["expected"]


def parse_expect(path):
    rows = []
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) < 4:
            raise SystemExit("%s:%d: malformed line" % (path, n))
        rows.append((f[0], f[1], f[2], f[3], n))
    return rows


def expected_for(rows, opt, variant, weight):
    hits = []
    for (o, weights, verdict, rule, n) in rows:
        if o != opt:
            continue
        if weights == "all":
            hits.append((verdict, rule, n))
            continue
        for w in re.findall(r"(\w+)\(([^)]*)\)", weights):
            if w[0] == weight and variant in [v.strip() for v in w[1].split(",")]:
                hits.append((verdict, rule, n))
    return hits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusecert", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--timeout-ms", type=int, default=20000)
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        print("folder %s absent: skipped" % a.dir)
        return 77
    rows = parse_expect(a.expect)
    files = sorted(f for f in os.listdir(a.dir) if re.match(r"optax_.*\.stablehlo\.mlir$", f))
    problems, table = [], []
    # One run over every file (the suite runs twice in CI: keep it seconds).
    p = subprocess.run([a.fusecert, "certify"] + [os.path.join(a.dir, f) for f in files] +
                       ["--format", "json", "--timeout-ms", str(a.timeout_ms)], capture_output=True, text=True)
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        print("FAIL: exit %d, no JSON report: %s" % (p.returncode, p.stderr[-500:]))
        return 1
    by_file = {os.path.basename(i["file"]): i for i in rep["inputs"]}
    any_illegal = False
    for f in files:
        m = re.match(r"optax_(\w+?)(?:\.(\w+))?\.stablehlo\.mlir$", f)
        opt, variant = m.group(1), m.group(2) or "f32"
        variant = "mlp2" if variant.startswith("mlp2") else variant  # EXPECTED.tsv names mlp2_f32 "mlp2"
        shapes = SHAPES["mlp2" if variant == "mlp2" else "one"]
        inp = by_file.get(f)
        if inp is None:
            problems.append("%s: not in the report" % f)
            continue
        errors = [d for d in inp.get("diagnostics", []) if d["severity"] == "error" and d["rule"].startswith("input.")]
        if errors:
            problems.append("%s: input error %s: %s" % (f, errors[0]["rule"], errors[0]["message"][:200]))
        lines = open(os.path.join(a.dir, f)).read().split("\n")
        seen = []
        for c in inp["candidates"]:
            shape = producer_shape(lines, c["candidate"]["producer"]["location"])
            weight = shapes.get(shape)
            if weight is None:
                problems.append("%s: a candidate whose gradient is %s, no weight of this step" % (f, "x".join(map(str, shape))))
                continue
            seen.append(weight)
            fails = sorted({o["proposition"] for o in c["obligations"] if failing(o)})
            rule = "-" if not fails else "+".join(fails)
            exp = expected_for(rows, opt, variant, weight)
            if len(exp) != 1:
                problems.append("%s %s: %d expectation rows match (want 1)" % (f, weight, len(exp)))
                continue
            ev, er, n = exp[0]
            # No other deciding obligation left open beside the reason (a
            # missing P1 next to the P2 of a global clip names a second,
            # wrong reason).
            open_ = sorted({o["proposition"] for o in c["obligations"] if o["decides"] and not settled(o)} - set(fails))
            ok = c["verdict"] == ev and rule == er and not open_
            if open_:
                rule += " (open: %s)" % "+".join(open_)
            any_illegal = any_illegal or c["verdict"] == "illegal"
            table.append("%-42s %-3s %-12s %-5s expected %-7s %-3s %s" % (f, weight, c["verdict"], rule, ev, er,
                                                                       "ok" if ok else "MISMATCH (line %d)" % n))
            if not ok:
                problems.append("%s %s: %s %s, expected %s %s (%s:%d)" % (f, weight, c["verdict"], rule, ev, er,
                                                                         a.expect, n))
        want = sorted(shapes.values())
        if sorted(seen) != want:
            problems.append("%s: candidates for %s, expected exactly %s" % (f, sorted(seen), want))
    if p.returncode != (1 if any_illegal else 0):
        problems.append("exit %d, expected %d" % (p.returncode, 1 if any_illegal else 0))
    for t in table:
        print(t)
    for p in problems:
        print("FAIL: " + p)
    print("%d files: %s" % (len(files), "PASS" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
