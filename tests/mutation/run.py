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

  tests/mutation/run.py [--only ID[,ID]] [--jobs N] [--whole-suite] [--first-kill] [--no-record]

--jobs (default 1) is passed to ninja and to ctest: the host is shared.
--first-kill: the targeted tests run one at a time, cheapest first, and a
mutant's run stops at the first that fails (its "killed by" then names that
one test); a survivor still runs every targeted test.
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
NOT_APPLIED = "patch does not apply"  # check_manifest.problems' words for it
NOT_APPLICABLE = "not applicable: " + NOT_APPLIED
NICE = ["nice", "-n", "19"]


def log(msg):
    print(msg, flush=True)


def sh(cmd, env=None):
    """Runs `cmd` niced in its own process group: on Ctrl-C or SIGTERM the
    whole group (ninja and its compilers too) is stopped, not left running.
    `env`: variables added to the environment."""
    p = subprocess.Popen(NICE + cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True, env=dict(os.environ, **env) if env else None)
    try:
        out, _ = p.communicate()
    except BaseException:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        p.wait()
        raise
    return subprocess.CompletedProcess(p.args, p.returncode, out)


def tree_files():
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         stdout=subprocess.PIPE, check=True).stdout
    return [p for p in out.decode().split("\0") if p and os.path.isfile(os.path.join(ROOT, p))]


def sync_scratch(scratch):
    """Copies the working tree to `scratch`, rewriting only files whose
    content differs (unchanged files keep their mtimes: the build stays
    incremental; rewritten ones get the time of the copy), and removes
    copied files that left the tree."""
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
        # The copy gets the time of copying, not the source's mtime: a file
        # edited before the scratch build last ran would otherwise look
        # older than its object file, and ninja would keep the stale one.
        shutil.copy(src, dst)
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


_OUTPUTS = {}


def ninja_outputs(bdir):
    """Every file the build can make (`ninja -t targets all`), relative to bdir."""
    if bdir not in _OUTPUTS:
        r = subprocess.run(["ninja", "-C", bdir, "-t", "targets", "all"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        _OUTPUTS[bdir] = {line.rsplit(": ", 1)[0] for line in r.stdout.splitlines() if ": " in line}
    return _OUTPUTS[bdir]


def ctest_tests(bdir, regex):
    """The tests `regex` selects: name -> the build outputs its command
    names (the targets to rebuild, built or not yet)."""
    r = subprocess.run(["ctest", "--test-dir", bdir, "--show-only=json-v1", "-R", regex], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    tests = {}
    for t in json.loads(r.stdout or "{}").get("tests", []):
        files = set()
        command = t.get("command")
        if command is None:
            # CTest gives no command for an executable not built yet: its
            # add_test line in CTestTestfile.cmake names it.
            wd = next((p["value"] for p in t.get("properties", []) if p["name"] == "WORKING_DIRECTORY"), bdir)
            tf = os.path.join(wd, "CTestTestfile.cmake")
            text = open(tf, encoding="utf-8").read() if os.path.isfile(tf) else ""
            line = next((x for x in text.splitlines() if x.startswith("add_test([=[%s]=] " % t["name"])), "")
            command = re.findall(r'"([^"]*)"', line)
        for arg in command:
            for m in re.finditer(re.escape(bdir) + r"/[^\s=:;,]+", arg):
                rel = os.path.relpath(m.group(0), bdir)
                if rel in ninja_outputs(bdir) and not rel.endswith((".py", ".sh")):
                    files.add(rel)
        tests[t["name"]] = files
    return tests


def run_tests(bdir, regex, jobs, timeout, env=None):
    r = sh(["ctest", "--test-dir", bdir, "-R", regex, "-j%d" % jobs, "--timeout", str(timeout)], env)
    failed = re.findall(r"^\s*\d+ - (\S+) \(", r.stdout.split("The following tests FAILED:")[-1], re.M) \
        if "The following tests FAILED:" in r.stdout else []
    ran = "No tests were found" not in r.stdout
    return r.returncode, failed, ran, r.stdout


def test_costs(bdir):
    """CTest's recorded seconds per test (Testing/Temporary/CTestCostData.txt)."""
    costs = {}
    f = os.path.join(bdir, "Testing", "Temporary", "CTestCostData.txt")
    if os.path.isfile(f):
        for line in open(f, encoding="utf-8"):
            parts = line.split()
            if len(parts) == 3:
                try:
                    costs[parts[0]] = float(parts[2])
                except ValueError:
                    pass
    return costs


LIT = "ir.lit"  # the lit fixtures: a mutant's `lit` regex (LIT_FILTER) runs the ones aimed at it first


def lit_key(flt):
    """The baseline / killer name of ir.lit run on the fixtures `flt` selects."""
    return "%s [LIT_FILTER=%s]" % (LIT, flt)


def first_kill(bdir, tests, broken, baseline, jobs, timeout, flt=None):
    """--first-kill: the targeted tests one at a time, the cheapest first
    (by CTest's recorded cost), stopping at the first that fails: killed by
    it. With a mutant's `lit` regex, ir.lit first runs only the fixtures it
    selects (LIT_FILTER), after the tests under 30 s; the whole of ir.lit
    runs only when nothing killed the mutant before it. Each test's
    executables are rebuilt just before it runs. The tests that fail
    unmutated are not run; when none of the others fails and some were left
    out, the mutant is `fails unmutated` (not measured), never survived or
    killed. Returns the result, its killers, and the tests run here that
    still need their unmutated run (the whole ir.lit, when a filter let its
    baseline wait)."""
    costs = test_costs(bdir)
    order = sorted(set(tests) - broken, key=lambda t: (costs.get(t, float("inf")), t))
    if flt and LIT in order and lit_key(flt) not in broken:
        cheap = [t for t in order if costs.get(t, float("inf")) < 30 and t != LIT]
        order = cheap + [lit_key(flt)] + [t for t in order if t not in cheap]
    for name in order:
        test, env = (LIT, {"LIT_FILTER": flt}) if name == lit_key(flt) else (name, None)
        # Only what this test runs is rebuilt before it (a mutant killed by
        # a unit test never waits for fusecert's link).
        if tests[test] and build(bdir, jobs, tests[test]).returncode != 0:
            return "does not build", [], set()
        trc, tfailed, tran, _ = run_tests(bdir, "^%s$" % re.escape(test), jobs, timeout, env)
        if tran and trc != 0:
            return "killed", [name], {name} - baseline
    if set(tests) & broken:
        return "fails unmutated", sorted(set(tests) & broken), set()
    return "survived", [], set(order) - baseline


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
        return None, NOT_APPLICABLE + " (%d matches)" % n
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
    ap.add_argument("--first-kill", action="store_true",
                    help="run the targeted tests cheapest first and stop at the first failure")
    a = ap.parse_args()
    # A patch whose old text no longer occurs exactly once (the code it
    # targets changed) is that mutant's result, "not applicable", never
    # killed; any other manifest problem stops the run.
    bad = problems(MUTANTS, ROOT)
    for p in bad:
        log("manifest: " + p)
    if any(NOT_APPLIED not in p for p in bad):
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
    # --only runs its mutants in the order given (the most important first, on a busy host).
    by_id = {m["id"]: m for m in MUTANTS}
    chosen = [by_id[x] for x in only] if only else list(MUTANTS)
    scratch = os.path.join(ROOT, a.scratch)
    bdir = os.path.join(scratch, "build")
    t_start = time.time()
    started = datetime.datetime.now(datetime.timezone.utc)
    state = tree_state()
    changed, removed = sync_scratch(scratch)
    log("scratch %s: %d files copied, %d removed" % (scratch, changed, removed))
    configure(scratch, bdir)
    # Only what the chosen tests run is built (not the CUDA kernels, not
    # fusecert unless a test runs it). First every GoogleTest executable not
    # built yet, one at a time (the proof engine's units first, never a GPU
    # test): until then CTest lists a placeholder <target>_NOT_BUILT instead
    # of its tests, so a regex such as ^(Query\.|ir\.units$) selects ir.units
    # alone and its mutant "survives" tests that never ran. Which executable
    # holds a regex's tests is only known once it is built, so all are.
    unbuilt = sorted((n[:-len("_NOT_BUILT")] for n in ctest_tests(bdir, "_NOT_BUILT$")),
                     key=lambda t: (t != "verifier_unit_tests", t))
    unbuilt = [t for t in unbuilt if "gpu" not in t]
    while unbuilt:
        t = unbuilt.pop(0)
        log("building %s (its tests are listed once it is built)" % t)
        b = build(bdir, a.jobs, {t})
        if b.returncode != 0:
            sys.exit("the unmutated scratch tree does not build:\n" + b.stdout[-4000:])
    # The targeted tests must pass unmutated for a mutant to count: checked
    # lazily, the first time a test is targeted (so the first results come
    # before fusecert is linked); with --first-kill only for the tests a
    # mutant ran, right after it ran them.
    baseline, broken, needed = set(), set(), set()
    rows = []
    try:
        for m in chosen:
            t0 = time.time()
            tests = ctest_tests(bdir, m["tests"])
            targets = set().union(*tests.values()) if tests else set()
            row = dict(m, result="", killed_by=[], seconds=0.0)
            needed |= targets
            fresh = sorted(set(tests) - baseline)
            flt = m.get("lit") if a.first_kill else None
            if flt and LIT in fresh:
                # The whole ir.lit's unmutated run waits until a mutant needs
                # it; the fixtures aimed at this one are checked now.
                fresh.remove(LIT)
                if lit_key(flt) not in baseline:
                    if tests[LIT] and build(bdir, a.jobs, tests[LIT]).returncode != 0:
                        sys.exit("the unmutated scratch tree does not build")
                    lrc, _, _, _ = run_tests(bdir, "^%s$" % re.escape(LIT), a.jobs, a.timeout, {"LIT_FILTER": flt})
                    baseline.add(lit_key(flt))
                    if lrc != 0:
                        broken.add(lit_key(flt))
                        log("unmutated: %s fails" % lit_key(flt))
            if fresh:
                bb = build(bdir, a.jobs, targets or None)
                if bb.returncode != 0:
                    sys.exit("the unmutated scratch tree does not build:\n" + bb.stdout[-4000:])
            if fresh and not a.first_kill:
                # --first-kill runs a test unmutated only after the mutant
                # ran it (`pending` below): a mutant a unit test kills never
                # waits for ir.part2_catalogue's unmutated run.
                rx = "^(%s)$" % "|".join(re.escape(t) for t in fresh)
                _, bfailed, _, _ = run_tests(bdir, rx, a.jobs, a.timeout)
                baseline |= set(fresh)
                broken |= set(bfailed)
                if bfailed:
                    log("unmutated: %s fail" % ", ".join(bfailed))

            def targeted():
                if not tests:
                    return "no test selected", []
                if a.first_kill:
                    res, killers, pending[:] = first_kill(bdir, tests, broken, baseline, a.jobs, a.timeout, flt)
                    return res, killers
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

            pending = []
            res, err = apply_and(scratch, m, targeted)
            row["result"], row["killed_by"] = res if res else (err, [])
            if pending:
                # Tests the mutant ran before their unmutated run (the whole
                # ir.lit behind a filter): run them now, unmutated; one that
                # fails unmutated measured nothing.
                pt = {LIT if p.startswith(LIT) else p for p in pending}
                bb = build(bdir, a.jobs, set().union(*(tests[t] for t in pt)) or targets)
                if bb.returncode != 0:
                    sys.exit("the unmutated scratch tree does not build:\n" + bb.stdout[-4000:])
                _, bfailed, _, _ = run_tests(bdir, "^(%s)$" % "|".join(re.escape(t) for t in sorted(pt)), a.jobs, a.timeout)
                baseline |= set(pending)
                broken |= set(bfailed)
                if set(bfailed) & pt:
                    log("unmutated: %s fail" % ", ".join(bfailed))
                    row["result"], row["killed_by"] = "fails unmutated", sorted(bfailed)
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
        # The mutants that finished are recorded; the one in flight is not.
        log("interrupted (%s): the scratch copy is restored; %d finished mutants recorded" % (e, len(rows)))
        interrupted = True
    else:
        interrupted = False
        build(bdir, a.jobs, needed or None)  # back to the unmutated sources
    wall = time.time() - t_start
    if not a.no_record and rows:
        record(rows, only, started, wall, a.jobs, state, a.first_kill)
    ok = all(r["result"].startswith("killed") or r["result"] == "equivalent" for r in rows)
    log("%d mutants, %d killed, %d equivalent, %d other; wall %.0f s" % (
        len(rows), sum(r["result"].startswith("killed") for r in rows), sum(r["result"] == "equivalent" for r in rows),
        sum(not (r["result"].startswith("killed") or r["result"] == "equivalent") for r in rows), wall))
    return 130 if interrupted else 0 if ok else 1


def cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def previous(text):
    """The rows and run lines already in docs/mutation.md: a run of some
    mutants (--only) updates their rows and keeps the others'."""
    rows, runs = {}, []
    default_run = ""
    for line in text.splitlines():
        m = re.match(r"^- (Run .*)$", line) or re.match(r"^(Run \d{4}-\d\d-\d\d \d\d:\d\d UTC at commit \w+.*)$", line)
        if m:
            runs.append(m.group(1))
            h = re.match(r"Run (\S+ \S+) UTC at commit (\w+)", m.group(1))
            if h and not default_run:
                default_run = "%s %s" % (h.group(2), h.group(1))
            continue
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) >= 6:
            rid = cells[0].strip("`")
            rows[rid] = cells[:6] + [cells[6] if len(cells) > 6 else default_run]
    return rows, runs


def tree_state():
    """The commit the scratch copy was taken from, and whether tracked files differed from it."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           stdout=subprocess.PIPE, text=True).stdout.strip()
    return commit, bool(dirty)


def applies(m):
    """How many times the mutant's old text occurs in the working tree's file (1: it applies)."""
    f = os.path.join(ROOT, m["file"])
    return open(f, encoding="utf-8").read().count(m["old"]) if os.path.isfile(f) else 0


def cpu_model():
    """The host's CPU as /proc/cpuinfo names it ("AMD EPYC"), or "" where it
    cannot be read: the times of the table are measured on it, and docs/
    must say on what hardware (claim.measurement-provenance)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def record(rows, only, started, wall, jobs, state, first=False):
    commit, dirty = state
    doc = os.path.join(ROOT, "docs", "mutation.md")
    text = open(doc, encoding="utf-8").read()
    i, j = text.index(BEGIN) + len(BEGIN), text.index(END)
    old, runs = previous(text[i:j])
    when = started.strftime("%Y-%m-%d %H:%M")
    n_k = sum(r["result"].startswith("killed") for r in rows)
    n_e = sum(r["result"] == "equivalent" for r in rows)
    runs.insert(0, "Run %s UTC at commit %s%s, %s, `--jobs %d`, niced, on %d %scores (load %.1f at the end): "
                "%d mutants, %d killed, %d equivalent, %d otherwise; wall time %d min %02d s." % (
                    when, commit, " (with uncommitted changes)" if dirty else "",
                    ("all mutants" if not only else "%d mutants chosen with --only" % len(only)) +
                    (", `--first-kill`" if first else ""), jobs, os.cpu_count() or 0,
                    (cpu_model() + " ") if cpu_model() else "",
                    os.getloadavg()[0], len(rows), n_k, n_e, len(rows) - n_k - n_e, int(wall) // 60, int(wall) % 60))
    for r in rows:
        why = ", ".join("`%s`" % t for t in r["killed_by"]) if r["killed_by"] else r.get("equivalent", "")
        old[r["id"]] = ["`%s`" % r["id"], "`%s`" % r["file"], cell(r["breaks"]), r["result"], cell(why),
                        "%.0f s" % r["seconds"], "%s %s" % (commit, when)]
    table = ["| mutant | file | what it breaks | result | killed by / why it survives | time (measured) | run |",
             "|---|---|---|---|---|---|---|"]
    results = []
    for m in MUTANTS:  # manifest order; a mutant no run has reached says so
        c = old.get(m["id"]) or ["`%s`" % m["id"], "`%s`" % m["file"], cell(m["breaks"]), "not run", "", "", ""]
        n = applies(m)
        if n != 1 and not c[3].startswith(NOT_APPLICABLE):
            # An earlier run measured code that is no longer there: that
            # result says nothing about the tree recorded now.
            c = c[:3] + [NOT_APPLICABLE + " (%d matches)" % n, "", "", "%s %s" % (commit, when)]
        results.append(c[3])
        table.append("| " + " | ".join(c) + " |")
    kinds = [("killed", lambda x: x.startswith("killed")), ("equivalent", lambda x: x == "equivalent"),
             ("survived", lambda x: x.startswith("survived")), ("not applicable", lambda x: x.startswith("not applicable")),
             ("not run (unmeasured)", lambda x: x == "not run")]
    counts = [(k, sum(f(x) for x in results)) for k, f in kinds]
    summary = "%d mutants: %s, %d other (does not build, fails unmutated, ...)." % (
        len(MUTANTS), ", ".join("%d %s" % (n, k) for k, n in counts), len(results) - sum(n for _, n in counts))
    # The table's times say on what hardware they were measured, in the
    # paragraph right before it (claim.measurement-provenance reads that, not
    # the list of runs): the CPUs the run lines name.
    cpus = []
    for r in runs:
        m = re.search(r" on \d+ (.+?) cores \(load", r)
        if m and m.group(1) not in cpus:
            cpus.append(m.group(1))
    where = ("Times are the wall time of each mutant's tests, measured on the %s CPU%s of the runs above." %
             (" and ".join(cpus), "s" if len(cpus) > 1 else "")) if cpus else \
        "Times are the wall time of each mutant's tests; no run above records its CPU."
    out = [summary, ""] + ["- " + r for r in runs] + ["", where, ""] + table
    with open(doc, "w", encoding="utf-8") as fh:
        fh.write(text[:i] + "\n" + "\n".join(out) + "\n" + text[j:])


if __name__ == "__main__":
    sys.exit(main())
