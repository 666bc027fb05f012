#!/usr/bin/env python3
"""Runs the mutation cases of tests/mutation/mutations.py against build/ and
records killed / survived in docs/mutation.md. A benchmark-style run (minutes
per case: one incremental rebuild and the tests aimed at the patched file),
never part of CI. Each mutant is applied to the working tree and always
restored, also on Ctrl-C; the build is brought back to the unmutated sources
at the end.

  tests/mutation/run.py [--build build] [--only ID[,ID]] [--jobs N] [--no-record]

--jobs (default 1) is passed to the rebuild and to ctest: the host is shared.
"""
import argparse, datetime, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from mutations import MUTATIONS  # noqa: E402

BEGIN, END = "<!-- mutation results begin -->", "<!-- mutation results end -->"


def build(bdir, jobs):
    return subprocess.run(["cmake", "--build", bdir, "-j%d" % jobs], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--no-record", action="store_true")
    a = ap.parse_args()
    only = set(x for x in a.only.split(",") if x)
    rows = []
    for mid, path, old, new, tests, what in MUTATIONS:
        if only and mid not in only:
            continue
        f = os.path.join(ROOT, path)
        src = open(f, encoding="utf-8").read()
        if src.count(old) != 1:
            rows.append((mid, path, what, tests, "patch does not apply (%d matches)" % src.count(old), 0))
            print("%-34s patch does not apply" % mid, flush=True)
            continue
        t0 = time.time()
        try:
            open(f, "w", encoding="utf-8").write(src.replace(old, new))
            b = build(a.build, a.jobs)
            if b.returncode != 0:
                result = "does not build"
            else:
                t = subprocess.run(["ctest", "--test-dir", a.build, "-R", tests, "-j%d" % a.jobs, "--timeout", "300"],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                ran = "No tests were found" not in t.stdout
                result = "killed" if t.returncode != 0 and ran else ("no test ran" if not ran else "SURVIVED")
        finally:
            open(f, "w", encoding="utf-8").write(src)
        rows.append((mid, path, what, tests, result, time.time() - t0))
        print("%-34s %-10s %5.0f s" % (mid, result, time.time() - t0), flush=True)
    build(a.build, a.jobs)  # back to the unmutated sources
    if a.no_record:
        return 0
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    table = ["Run %s UTC at commit %s (%s)." % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), commit,
                                                "all cases" if not only else "cases: " + ", ".join(sorted(only))),
             "", "| mutant | file | breaks | tests | result | time |", "|---|---|---|---|---|---|"]
    for mid, path, what, tests, result, secs in rows:
        table.append("| `%s` | `%s` | %s | `%s` | %s | %.0f s |" % (mid, path, what, tests.replace("|", "\\|"), result, secs))
    doc = os.path.join(ROOT, "docs", "mutation.md")
    text = open(doc, encoding="utf-8").read()
    i, j = text.index(BEGIN) + len(BEGIN), text.index(END)
    # The newest run first; earlier runs stay below it (their results are
    # still what those runs measured).
    open(doc, "w", encoding="utf-8").write(text[:i] + "\n" + "\n".join(table) + "\n" + text[i:j].lstrip("\n") + text[j:])
    return 1 if any(r[4] == "SURVIVED" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
