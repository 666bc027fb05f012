#!/usr/bin/env python3
"""The Tessera corpus suite (issue #15): `fusecert certify --split-input-file`
over every .mlir file under a corpus folder, compared with an expectations
file reviewed by hand (tests/corpus/tessera-ir.expected).

Each expectations line is one split of one file:

    <path relative to the corpus>  <split index>  <line>  <outcome>  [pair]

<outcome> is what certify reports for that split:
    none             parsed, no candidate, no error
    input.<cause>    an input error (the rule id of the split's first error):
                     input.parse, input.verify, input.unknown_op, ...
    <verdicts>       the candidates' verdicts in program order, joined by '+'
                     (legal, illegal, inconclusive)
`pair` marks a split whose ops hold a weight-gradient -> optimizer pair (by
reading the IR, not the tool's output).

Checks: no crash (every run exits 0-3 with a JSON report); no "illegal" in a
split without `pair`; a candidate in every split with `pair`; every split's
outcome as expected; and the totals (splits, candidates, exit-2 splits by
cause) printed at the end equal the `# total` lines of the file.
Exit 0 pass, 1 mismatch, 77 when the corpus folder is absent (CTest skip).
"""
import argparse
import collections
import json
import os
import subprocess
import sys

BATCH = 64


def run(fusecert, corpus, files, timeout_ms):
    """Reports per (file, split index): outcome and candidate count."""
    cmd = [fusecert, "certify", "--split-input-file", "--format", "json", "--timeout-ms", str(timeout_ms)]
    p = subprocess.run(cmd + [os.path.join(corpus, f) for f in files], capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1, 2, 3):
        return None, "exit %d: %s" % (p.returncode, p.stderr[-2000:])
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        return None, "not JSON (%s): %s" % (e, p.stderr[-2000:])
    out = {}
    for inp in doc["inputs"]:
        rel = os.path.relpath(inp["file"], corpus)
        split = inp.get("split", {"index": 0, "line": 1})
        errors = [d for d in inp["diagnostics"] if d["severity"] == "error"]
        verdicts = [c["verdict"] for c in inp["candidates"]]
        if verdicts:
            outcome = "+".join(verdicts)
        elif errors:
            outcome = errors[0]["rule"]
        else:
            outcome = "none"
        out[(rel, split["index"])] = (split["line"], outcome, len(verdicts), errors[0]["rule"] if errors else None)
    return out, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusecert", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--timeout-ms", type=int, default=20000)
    ap.add_argument("--write", help="write the observed results in the expectations format to this file (for review)")
    a = ap.parse_args()
    if not os.path.isdir(a.corpus):
        print("corpus folder %s absent: skipped" % a.corpus)
        return 77
    files = sorted(os.path.relpath(os.path.join(d, f), a.corpus)
                   for d, _, fs in os.walk(a.corpus) for f in fs if f.endswith(".mlir"))
    problems = []
    got = {}
    for i in range(0, len(files), BATCH):
        batch = files[i:i + BATCH]
        res, err = run(a.fusecert, a.corpus, batch, a.timeout_ms)
        if res is None:
            # Name the file that crashed: one run each.
            for f in batch:
                r1, e1 = run(a.fusecert, a.corpus, [f], a.timeout_ms)
                if r1 is None:
                    problems.append("%s: crash or bad report: %s" % (f, e1))
                else:
                    got.update(r1)
        else:
            got.update(res)

    expect = {}
    totals = {}
    pairs = set()
    with open(a.expect) as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if line.startswith("# total "):
                k, v = line[len("# total "):].split()
                totals[k] = int(v)
                continue
            if not line or line.startswith("#"):
                continue
            f = line.split()
            if len(f) not in (4, 5) or (len(f) == 5 and f[4] != "pair"):
                problems.append("%s:%d: malformed line" % (a.expect, n))
                continue
            key = (f[0], int(f[1]))
            expect[key] = (int(f[2]), f[3])
            if len(f) == 5:
                pairs.add(key)

    for key in sorted(set(expect) | set(got)):
        where = "%s split %d" % key
        if key not in got:
            if not any(p.startswith(key[0] + ":") for p in problems):
                problems.append("%s: expected, not reported" % where)
            continue
        line, outcome, ncand, _ = got[key]
        if "illegal" in outcome.split("+") and key not in pairs:
            problems.append("%s (line %d): illegal, but the split holds no weight-gradient -> optimizer pair" % (where, line))
        if key in pairs and ncand == 0:
            problems.append("%s (line %d): holds a weight-gradient -> optimizer pair, but no candidate (%s)" % (where, line, outcome))
        if key not in expect:
            problems.append("%s (line %d): not in %s (outcome %s)" % (where, line, a.expect, outcome))
        elif expect[key] != (line, outcome):
            problems.append("%s: expected line %d %s, got line %d %s" % (where, expect[key][0], expect[key][1], line, outcome))

    # Totals: what a reviewer reads first.
    obs = collections.Counter()
    obs["files"] = len(files)
    obs["splits"] = len(got)
    for (line, outcome, ncand, err) in got.values():
        obs["candidates"] += ncand
        verdicts = outcome.split("+") if ncand else []
        if err or "inconclusive" in verdicts:
            obs["exit2"] += 1
            obs["exit2." + (err or "inconclusive")] += 1
        for v in verdicts:
            obs[v] += 1
        if not ncand and not err:
            obs["no_candidate"] += 1
    for k in sorted(set(obs) | set(totals)):
        print("total %-24s %5d%s" % (k, obs[k], "" if totals.get(k) == obs[k] else "   (expected %s)" % totals.get(k)))
        if totals.get(k) != obs[k]:
            problems.append("total %s: expected %s, got %d" % (k, totals.get(k), obs[k]))

    if a.write:
        with open(a.write, "w") as fh:
            for k in sorted(obs):
                fh.write("# total %s %d\n" % (k, obs[k]))
            for key in sorted(got):
                line, outcome, _, _ = got[key]
                fh.write("%s %d %d %s%s\n" % (key[0], key[1], line, outcome, " pair" if key in pairs else ""))
    for p in problems:
        print("FAIL: " + p)
    print("%d files, %d splits: %s" % (len(files), len(got), "PASS" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
