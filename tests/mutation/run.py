#!/usr/bin/env python3
"""Runs the mutants of tests/mutation/mutants.py and records killed /
survived in docs/mutation.md. A benchmark-style run (an incremental rebuild
and the targeted tests per mutant), never part of CI; the cheap CTest
`mutation.manifest` (check_manifest.py) only checks that every patch still
applies.

The working tree is never written. The tracked (and untracked, not ignored)
files are copied to a scratch tree, build-mut/ (ignored: build*/), built in
build-mut/build; each mutant patches the scratch copy, and the file is put
back in a `finally` (also on Ctrl-C, SIGTERM, SIGHUP or a failed build). A
run killed outright leaves at worst the scratch copy mutated, and the next
run's copy step restores it. build-mut/build keeps the same relative layout
as build/ (sources at ../), so a shared ccache (CCACHE_BASEDIR above the
checkout, CCACHE_NOHASHDIR=1) serves the first build from the cache.

Per mutant only the targets the chosen tests run are rebuilt (the
executables in build-mut/build that their CTest commands name, e.g.
tests/unit/verifier_unit_tests; fusecert only when a test runs it), niced.

  tests/mutation/run.py [--only ID[,ID]] [--jobs N] [--whole-suite] [--no-record]

--jobs (default 1) is passed to ninja and to ctest: the host is shared.
--whole-suite: every mutant that survived its targeted tests is applied again
and the whole suite is run against it (the issue's "survived the whole suite").
Exit status: 0 when every mutant is killed or a documented equivalent, 1 when
one survived, did not build or its targeted tests fail unmutated, 2 on a
broken manifest.
"""
import argparse, datetime, json, os, re, shutil, signal, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from mutants import MUTANTS  # noqa: E402
from check_manifest import problems  # noqa: E402

BEGIN, END = "<!-- mutation results begin -->", "<!-- mutation results end -->"
NICE = ["nice", "-n", "19"]


def log(msg):
    print(msg, flush=True)


def sh(cmd, **kw):
    return subprocess.run(NICE + cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def tree_files():
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         stdout=subprocess.PIPE, check=True).stdout
    return [p for p in out.decode().split("\0") if p and os.path.isfile(os.path.join(ROOT, p))]


def sync_scratch(scratch):
    """Copies the working tree to `scratch`, rewriting only files whose
    content differs (unchanged files keep their mtimes: the build stays
    incremental), and removes copied files that left the tree."""
    files = tree_files()
    keep = set(files)
    changed = 0
    for rel in files:
        src, dst = os.path.join(ROOT, rel), os.path.join(scratch, rel)
        if os.path.islink(src):
            if os.path.lexists(dst):
                if os.path.islink(dst) and os.readlink(dst) == os.readlink(src):
                    continue
                os.remove(dst)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            os.symlink(os.readlink(src), dst)
            changed += 1
            continue
        data = open(src, "rb").read()
        if os.path.isfile(dst) and not os.path.islink(dst) and open(dst, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.lexists(dst):
            os.remove(dst)
        shutil.copy2(src, dst)
        changed += 1
    removed = 0
    for d, dirs, names in os.walk(scratch):
        if os.path.abspath(d) == os.path.join(scratch, "build"):
            dirs[:] = []
            continue
        dirs[:] = [x for x in dirs if not (d == scratch and x == "build")]
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), scratch)
            if rel not in keep:
                os.remove(os.path.join(d, n))
                removed += 1
    return changed, removed


def configure(scratch, bdir):
    if os.path.isfile(os.path.join(bdir, "build.ninja")):
        return
    args = ["cmake", "-S", scratch, "-B", bdir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            "-DFUSECERT_CORPUS=" + os.path.abspath(os.path.join(ROOT, "..", "shared", "corpus"))]
    if shutil.which("ccache"):
        args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    r = sh(args)
    if r.returncode != 0:
        sys.exit("configure failed:\n" + r.stdout[-4000:])


def build(bdir, jobs, targets=None):
    return sh(["cmake", "--build", bdir, "-j%d" % jobs] + (["--target"] + sorted(targets) if targets else []))


def ctest_tests(bdir, regex):
    """The tests `regex` selects: name -> the build-tree files its command
    names (the targets to rebuild)."""
    r = subprocess.run(["ctest", "--test-dir", bdir, "--show-only=json-v1", "-R", regex], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    tests = {}
    for t in json.loads(r.stdout or "{}").get("tests", []):
        files = set()
        for arg in t.get("command", []):
            for m in re.finditer(re.escape(bdir) + r"/[^\s=:;,]+", arg):
                p = m.group(0)
                if os.path.isfile(p) and os.access(p, os.X_OK) and not p.endswith((".py", ".sh")):
                    files.add(os.path.relpath(p, bdir))
        tests[t["name"]] = files
    return tests


def run_tests(bdir, regex, jobs, timeout):
    r = sh(["ctest", "--test-dir", bdir, "-R", regex, "-j%d" % jobs, "--timeout", str(timeout)])
    failed = re.findall(r"^\s*\d+ - (\S+) \(", r.stdout.split("The following tests FAILED:")[-1], re.M) \
        if "The following tests FAILED:" in r.stdout else []
    ran = "No tests were found" not in r.stdout
    return r.returncode, failed, ran, r.stdout


class Interrupted(Exception):
    pass


def _raise(signum, _frame):
    raise Interrupted("signal %d" % signum)


def apply_and(scratch, m, action):
    """Applies mutant `m` to the scratch copy, runs `action()`, and always
    puts the file back."""
    f = os.path.join(scratch, m["file"])
    src = open(f, encoding="utf-8").read()
    n = src.count(m["old"])
    if n != 1:
        return None, "patch does not apply (%d matches)" % n
    try:
        with open(f, "w", encoding="utf-8") as fh:
            fh.write(src.replace(m["old"], m["new"]))
        return action(), None
    finally:
        with open(f, "w", encoding="utf-8") as fh:
            fh.write(src)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scratch", default="build-mut")
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--whole-suite", action="store_true")
    ap.add_argument("--no-record", action="store_true")
    a = ap.parse_args()
    bad = problems(MUTANTS, ROOT)
    if bad:
        for p in bad:
            log("manifest: " + p)
        return 2
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _raise)
    os.environ.setdefault("CCACHE_BASEDIR", os.path.dirname(os.path.dirname(ROOT)))
    os.environ.setdefault("CCACHE_NOHASHDIR", "1")
    only = [x for x in a.only.split(",") if x]
    unknown = [x for x in only if x not in {m["id"] for m in MUTANTS}]
    if unknown:
        log("no such mutant: " + ", ".join(unknown))
        return 2
    chosen = [m for m in MUTANTS if not only or m["id"] in only]
    scratch = os.path.join(ROOT, a.scratch)
    bdir = os.path.join(scratch, "build")
    t_start = time.time()
    started = datetime.datetime.now(datetime.timezone.utc)
    changed, removed = sync_scratch(scratch)
    log("scratch %s: %d files copied, %d removed" % (scratch, changed, removed))
    configure(scratch, bdir)
    # The unmutated build, of what the chosen tests run only (not the CUDA
    # kernels, not fusecert unless a test runs it): first the GoogleTest
    # executables not built yet (until then CTest lists a placeholder
    # <target>_NOT_BUILT instead of their tests), then every target the
    # chosen tests name. Their tests must pass before any mutant counts.
    unbuilt = [n[:-len("_NOT_BUILT")] for n in ctest_tests(bdir, "_NOT_BUILT$")]
    if unbuilt:
        b = build(bdir, a.jobs, set(unbuilt))
        if b.returncode != 0:
            sys.exit("the unmutated scratch tree does not build:\n" + b.stdout[-4000:])
    union = "|".join("(%s)" % m["tests"] for m in chosen)
    needed = set().union(*ctest_tests(bdir, union).values())
    b = build(bdir, a.jobs, needed or None)
    if b.returncode != 0:
        sys.exit("the unmutated scratch tree does not build:\n" + b.stdout[-4000:])
    log("unmutated build: %s" % ", ".join(sorted(needed)))
    rc, failed, ran, out = run_tests(bdir, union, a.jobs, a.timeout)
    if rc != 0:
        log("unmutated: targeted tests fail: %s" % (", ".join(failed) or out[-2000:]))
    broken = set(failed)
    rows = []
    try:
        for m in chosen:
            t0 = time.time()
            tests = ctest_tests(bdir, m["tests"])
            targets = set().union(*tests.values()) if tests else set()
            row = dict(m, result="", killed_by=[], seconds=0.0)

            def targeted():
                if not tests:
                    return "no test selected", []
                bb = build(bdir, a.jobs, targets or None)
                if bb.returncode != 0:
                    return "does not build", []
                trc, tfailed, tran, tout = run_tests(bdir, m["tests"], a.jobs, a.timeout)
                if not tran:
                    return "no test ran", []
                if set(tfailed) & broken:
                    return "fails unmutated", sorted(set(tfailed) & broken)
                if trc != 0:
                    return "killed", tfailed or ["(ctest rc %d)" % trc]
                return "survived", []

            res, err = apply_and(scratch, m, targeted)
            row["result"], row["killed_by"] = res if res else (err, [])
            if row["result"] == "survived" and a.whole_suite:
                def whole():
                    bb = build(bdir, a.jobs)
                    if bb.returncode != 0:
                        return "does not build", []
                    trc, tfailed, _, _ = run_tests(bdir, ".", a.jobs, a.timeout)
                    return ("killed (whole suite)", tfailed) if trc != 0 else ("survived the whole suite", [])
                res, err = apply_and(scratch, m, whole)
                row["result"], row["killed_by"] = res if res else (err, [])
            if row["result"].startswith("survived") and m.get("equivalent"):
                row["result"] = "equivalent"
            row["seconds"] = time.time() - t0
            rows.append(row)
            log("%-38s %-22s %5.0f s  %s" % (m["id"], row["result"], row["seconds"], " ".join(row["killed_by"][:3])))
    except (KeyboardInterrupt, Interrupted) as e:
        log("interrupted (%s): the scratch copy is restored; no results recorded" % e)
        return 130
    finally:
        build(bdir, a.jobs, needed or None)  # back to the unmutated sources
    wall = time.time() - t_start
    if not a.no_record:
        record(rows, only, started, wall, a.jobs)
    ok = all(r["result"].startswith("killed") or r["result"] == "equivalent" for r in rows)
    log("%d mutants, %d killed, %d equivalent, %d other; wall %.0f s" % (
        len(rows), sum(r["result"].startswith("killed") for r in rows), sum(r["result"] == "equivalent" for r in rows),
        sum(not (r["result"].startswith("killed") or r["result"] == "equivalent") for r in rows), wall))
    return 0 if ok else 1


def cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def record(rows, only, started, wall, jobs):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           stdout=subprocess.PIPE, text=True).stdout.strip()
    load = os.getloadavg()[0]
    n_k = sum(r["result"].startswith("killed") for r in rows)
    n_e = sum(r["result"] == "equivalent" for r in rows)
    head = ("Run %s UTC at commit %s%s, %s, `--jobs %d`, niced, on %d cores (load %.1f at the end): "
            "%d mutants, %d killed, %d equivalent, %d otherwise; wall time %d min %02d s." % (
                started.strftime("%Y-%m-%d %H:%M"), commit, " (with uncommitted changes)" if dirty else "",
                "all mutants" if not only else "mutants " + ", ".join(only), jobs, os.cpu_count() or 0, load,
                len(rows), n_k, n_e, len(rows) - n_k - n_e, int(wall) // 60, int(wall) % 60))
    table = [head, "", "| mutant | file | what it breaks | result | killed by / why it survives | time |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        why = ", ".join("`%s`" % t for t in r["killed_by"]) if r["killed_by"] else r.get("equivalent", "")
        table.append("| `%s` | `%s` | %s | %s | %s | %.0f s |" % (
            r["id"], r["file"], cell(r["breaks"]), r["result"], cell(why), r["seconds"]))
    doc = os.path.join(ROOT, "docs", "mutation.md")
    text = open(doc, encoding="utf-8").read()
    i, j = text.index(BEGIN) + len(BEGIN), text.index(END)
    with open(doc, "w", encoding="utf-8") as fh:
        fh.write(text[:i] + "\n" + "\n".join(table) + "\n" + text[j:])


if __name__ == "__main__":
    sys.exit(main())
