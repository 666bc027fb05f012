#!/usr/bin/env python3
"""The issue #16 fixture catalogue (fixtures/ir/part2): `fusecert certify --format json` on every
fixture, once per distinct `--assume` set its rows name, each candidate's verdict and reason compared
with fixtures/ir/part2/EXPECTED.tsv (written from the semantics before fusecert ran on any file).

A candidate is named by the SSA name of its producer's result (`%gW`), read at the producer's
location. A row's outcome is the candidate's verdict and the propositions of its failing obligations
(illegal) or undecided ones (inconclusive); `none` when no candidate has that producer, `error` with
the rule when the run gave no report (a usage or input error).

Rows marked `known_wrong:VERDICT:RULE` are today's wrong answer: the run fails if that answer
changes (a fix: update the row; a regression: fix it). Every other row must give its expectation,
and every candidate of a file must be named by a row. An illegal case certified legal is the worst
bug: it is printed first, in capitals.

--pipeline PASSES (repeatable) runs `mlir-opt-19 --mlir-print-debuginfo PASSES` over every fixture
first ("{here}" in PASSES names this script's folder: the transform script
tile_and_fuse_forall.mlir for tile-and-fuse into scf.forall) and compares each candidate's outcome after the pipeline with its outcome on the original
(pipeline invariance); `--known-diff FILE` lists the differences that are known (pipeline, file,
candidate, assume, before, after, reason), under the same discipline as known_wrong. Without
mlir-opt-19 the run is skipped (exit 77). `--pipeline-assume KEY=VALUE` (repeatable) after a
`--pipeline` adds that assumption to every run on that pipeline's output, besides the row's: a fact
the pipeline's output needs that the original does not (buffer_args=distinct after
--one-shot-bufferize, whose functions write their argument buffers in place).

Exit 0 pass, 1 mismatch, 77 skipped.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def parse_rows(path, width):
    rows = []
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) != width:
            raise SystemExit("%s:%d: %d columns, want %d" % (path, n, len(f), width))
        rows.append(f + [n])
    return rows


def assume_args(assume):
    if assume == "-":
        return []
    out = []
    for kv in assume.split(","):
        out += ["--assume", kv.strip()]
    return out


def failing(o):
    answer = o.get("answer", o.get("actual"))
    if not o["decides"]:
        return False
    if o["how"] == "structural":
        return answer == "violated"
    return answer == "sat" and o["expected"] == "unsat"


def undecided(o):
    answer = o.get("answer", o.get("actual"))
    return o["decides"] and answer not in ("holds", "violated", "sat", "unsat")


def outcome(c):
    """(verdict, propositions, obligation ids) of one candidate: the failing (illegal) or undecided
    (inconclusive) obligations, each '+'-joined and sorted, '-' when none."""
    verdict = c["verdict"]
    pick = failing if verdict == "illegal" else undecided if verdict == "inconclusive" else None
    props = sorted({o["proposition"] for o in c["obligations"] if pick and pick(o)})
    ids = sorted({o["id"] for o in c["obligations"] if pick and pick(o)})
    return verdict, "+".join(props) if props else "-", "+".join(ids) if ids else "-"


def shown(got, want_rule):
    """A row's rule names propositions (P1) or obligation ids (P1.k_whole, the reason): the
    outcome at that grain, as (verdict, rule)."""
    verdict, props, ids = got
    return verdict, ids if "." in want_rule else props


def producer_name(path, loc):
    """The SSA name defined on the producer's line (its location in the original file)."""
    try:
        lines = open(loc["file"] if os.path.isabs(loc["file"]) else path).read().split("\n")
    except OSError:
        return "?"
    line = lines[loc["line"] - 1] if 0 < loc.get("line", 0) <= len(lines) else ""
    m = re.match(r"\s*(%[\w.$-]+)(?::\d+)?\s*=", line)
    return m.group(1) if m else "?line%d" % loc.get("line", 0)


def certify(fusecert, path, shown, assume, timeout_ms):
    """{candidate name: (verdict, rule)} for one run; names read in `shown` (the original file)."""
    p = subprocess.run([fusecert, "certify", path, "--format", "json", "--timeout-ms", str(timeout_ms)]
                       + assume_args(assume), capture_output=True, text=True)
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        return None, "exit %d: %s" % (p.returncode, (p.stderr or p.stdout).strip().split("\n")[-1][:200])
    got = {}
    for inp in rep["inputs"]:
        errors = [d for d in inp.get("diagnostics", []) if d["severity"] == "error" and d["rule"].startswith("input.")]
        if errors and not inp["candidates"]:
            return None, "%s: %s" % (errors[0]["rule"], errors[0]["message"][:200])
        for c in inp["candidates"]:
            got[producer_name(shown, c["candidate"]["producer"]["location"])] = outcome(c)
    return got, None


def run_all(a, rows, src_of):
    """{(file, assume): ({name: outcome} or None, error)} over every (file, assume) the rows name."""
    runs = {}
    for r in rows:
        key = (r[0], r[2])
        if key not in runs:
            orig = os.path.join(a.dir, r[0])
            runs[key] = certify(a.fusecert, src_of(r[0]), orig, r[2], a.timeout_ms)
    return runs


def answer_of(runs, r):
    got, err = runs[(r[0], r[2])]
    if got is None:
        return ("error", err.split(":")[0] if err.startswith("input.") else "usage"), err
    return shown(got.get(r[1], ("none", "-", "-")), r[4]), None


def check_expectations(a, rows):
    runs = run_all(a, rows, lambda f: os.path.join(a.dir, f))
    problems, worst, table = [], [], []
    for r in rows:
        f, cand, assume, ev, er, known, why, n = r
        (v, rule), err = answer_of(runs, r)
        want = (ev, er)
        if known == "-":
            ok = (v, rule) == want
            note = "ok" if ok else "MISMATCH"
        else:
            kv = known.split(":")
            if len(kv) != 3 or kv[0] != "known_wrong":
                raise SystemExit("%s:%d: known is '-' or known_wrong:VERDICT:RULE" % (a.expect, n))
            ok = (v, rule) == (kv[1], kv[2])
            note = "known_wrong" if ok else ("FIXED? now gives the expectation" if (v, rule) == want else "CHANGED")
        if ev == "illegal" and v == "legal":
            worst.append("ILLEGAL CERTIFIED LEGAL: %s %s [%s] (%s:%d): %s" % (f, cand, assume, a.expect, n, why))
        table.append("%-30s %-4s %-36s %-12s %-6s expected %-12s %-6s %s" % (f, cand, assume, v, rule, ev, er, note))
        if not ok:
            problems.append("%s %s [%s]: %s %s, expected %s %s%s (%s:%d)%s" % (
                f, cand, assume, v, rule, ev, er, "" if known == "-" else " (row says %s)" % known,
                a.expect, n, " -- " + err if err else ""))
    # Every candidate of a run is named by a row of that (file, assume).
    for (f, assume), (got, err) in sorted(runs.items()):
        named = {r[1] for r in rows if (r[0], r[2]) == (f, assume)}
        for cand in sorted(set(got or {}) - named):
            problems.append("%s [%s]: candidate %s that no row names" % (f, assume, cand))
    listed = {r[0] for r in rows}
    for f in sorted(x for x in os.listdir(a.dir) if x.endswith(".mlir")):
        if f not in listed:
            problems.append("%s: no row in %s" % (f, a.expect))
    return worst, table, problems


def with_assumed(assume, extra):
    """The row's assume column with the pipeline's assumptions added."""
    kvs = ([] if assume == "-" else [kv.strip() for kv in assume.split(",")]) + extra
    return ",".join(kvs) if kvs else "-"


def run_pipeline(a, rows, pipeline, extra, tmp):
    """Outcomes of the original and of the pipeline's output, per row; `extra`: the assumptions
    (KEY=VALUE) the pipeline's output is checked under besides the row's."""
    out_dir = os.path.join(tmp, re.sub(r"[^\w]+", "_", pipeline).strip("_"))
    os.makedirs(out_dir, exist_ok=True)
    transformed, errors = {}, {}
    for f in sorted({r[0] for r in rows}):
        dst = os.path.join(out_dir, f)
        passes = pipeline.replace("{here}", os.path.dirname(os.path.abspath(__file__))).split()
        p = subprocess.run([a.mlir_opt, "--mlir-print-debuginfo", os.path.join(a.dir, f), "-o", dst] + passes,
                           capture_output=True, text=True)
        if p.returncode != 0:
            errors[f] = p.stderr.strip().split("\n")[0][:200]
        transformed[f] = dst
    after = run_all(a, [r[:2] + [with_assumed(r[2], extra)] + r[3:] for r in rows], lambda f: transformed[f])
    return {(f, assume): after[(f, with_assumed(assume, extra))] for (f, assume) in {(r[0], r[2]) for r in rows}}, errors


def check_pipelines(a, rows):
    known = {}
    if a.known_diff:
        for r in parse_rows(a.known_diff, 7):
            known[(r[0], r[1], r[2], r[3])] = r
    base = run_all(a, rows, lambda f: os.path.join(a.dir, f))
    problems, table, used = [], [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for pipeline, extra in a.pipeline:
            after, errors = run_pipeline(a, rows, pipeline, extra, tmp)
            for f, e in sorted(errors.items()):
                problems.append("%s: mlir-opt-19 %s failed: %s" % (f, pipeline, e))
            for r in rows:
                if r[0] in errors:
                    continue
                before, _ = answer_of(base, r)
                now, _ = answer_of(after, r)
                b, n = "%s:%s" % before, "%s:%s" % now
                key = (pipeline, r[0], r[1], r[2])
                k = known.get(key)
                if k:
                    used.add(key)
                    ok = (k[4], k[5]) == (b, n)
                    note = "known difference" if ok else "CHANGED (row says %s -> %s)" % (k[4], k[5])
                else:
                    ok = b == n
                    note = "same" if ok else "DIFFERS"
                table.append("%-42s %-30s %-4s %-36s %-22s -> %-22s %s" % (pipeline, r[0], r[1], r[2], b, n, note))
                if not ok:
                    problems.append("%s: %s %s [%s]: %s before, %s after%s" % (
                        pipeline, r[0], r[1], r[2], b, n, "" if not k else " (%s:%d says %s -> %s)" % (
                            a.known_diff, k[7], k[4], k[5])))
    for key in sorted(set(known) - used):
        problems.append("known difference %s names no case that ran" % (key,))
    return table, problems


class PipelineAction(argparse.Action):
    """--pipeline PASSES appends [PASSES, []]; --pipeline-assume KEY=VALUE adds to the last one's."""

    def __call__(self, parser, namespace, value, option_string=None):
        pipelines = namespace.pipeline
        if option_string == "--pipeline":
            pipelines.append([value, []])
        elif not pipelines:
            parser.error("--pipeline-assume %s comes before any --pipeline" % value)
        else:
            pipelines[-1][1].append(value)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusecert", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--timeout-ms", type=int, default=20000)
    ap.add_argument("--pipeline", action=PipelineAction, default=[])
    ap.add_argument("--pipeline-assume", action=PipelineAction, default=[])
    ap.add_argument("--known-diff")
    ap.add_argument("--mlir-opt", default="mlir-opt-19")
    a = ap.parse_args()
    rows = parse_rows(a.expect, 7)
    if a.pipeline:
        if not shutil.which(a.mlir_opt):
            print("%s not found: pipeline invariance skipped" % a.mlir_opt)
            return 77
        table, problems = check_pipelines(a, rows)
        worst = []
    else:
        worst, table, problems = check_expectations(a, rows)
    for w in worst:
        print("!!! " + w)
    for t in table:
        print(t)
    for p in problems:
        print("FAIL: " + p)
    print("%d rows: %s" % (len(rows), "PASS" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
