#!/usr/bin/env python3
"""Benchmark of `fusecert docs` (docaudit): wall and CPU time, peak memory.

Workloads:
  corpus      the Tessera audit tree laid out as a whole repository
              (lay_corpus.sh: PATHS.txt as empty files + the real documents),
              checked with the defaults alone (no configuration file) over
              the root index, compiler/, backend/ and generated/, as the
              corpus test does;
  markdownlint-cli2
              the same documents through markdownlint-cli2 (npm) with its
              default rules, when --markdownlint names its binary:
                npm install --prefix /tmp/mdl markdownlint-cli2
                ... --markdownlint /tmp/mdl/node_modules/.bin/markdownlint-cli2
  synthetic-N a generated tree of N documents (--docs, default 5000,20000) in
              folders of 100, each folder with an index that routes every
              document, plans with the required links and sections, tables,
              code spans and links.

Each workload runs --warmup times untimed, then --runs times; reported: the
median wall time, the median CPU time (user + system of the process), the
peak resident memory of the process (its own ru_maxrss, from wait4), files/s
and MB/s (bytes of the Markdown checked), and the 1-minute load average.

--baseline BIN (another fusecert build, e.g. main's) measures that binary on
each workload in the same run, its runs alternating with the candidate's so
that both see the same load, and prints a "ratio" row: baseline median /
candidate median, for wall and CPU time (above 1: the candidate is faster).
The two must print byte-identical JSON findings, or the script fails: a
speed-up that changes an answer is no speed-up. On a shared machine the
ratios are the figures to read; the absolute times move with the load.

--generate DIR writes the synthetic tree of the first --docs size to DIR (the
same bytes on every run: the generator is seeded) and exits, for profiling.

  bench/docaudit/bench.py --fusecert build/fusecert \
      --corpus ../shared/corpus/tessera [--docs 5000,20000] [--runs 5] [--baseline /tmp/main-fusecert]
"""
import argparse, glob, json, os, random, resource, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))


def gen_synthetic(root, n, seed=7):
    rng = random.Random(seed)
    audit = os.path.join(root, "docs", "audit")
    os.makedirs(os.path.join(audit, "generated"), exist_ok=True)
    os.makedirs(os.path.join(root, "src", "compiler"), exist_ok=True)
    for k in range(20):
        open(os.path.join(root, "src", "compiler", f"pass_{k}.cpp"), "w").write("// source\n")
    open(os.path.join(audit, "generated", "status.md"), "w").write("# Generated status\n")
    per = 100
    folders = (n + per - 1) // per
    made = 0
    for f in range(folders):
        d = os.path.join(audit, f"area_{f:03d}")
        os.makedirs(d, exist_ok=True)
        names = []
        count = min(per, n - made)
        for i in range(count):
            plan = i % 10 == 0
            name = f"{'PLAN' if plan else 'DOC'}_{i:03d}.md"
            names.append((name, plan))
            fm = f"---\nlast_updated: 2026-08-{rng.randint(1, 28):02d}\naudit_role: {'plan' if plan else 'reference'}\n"
            if plan:
                fm += "plan_state: open\n"
            fm += "---\n\n"
            body = [f"# Document {f}.{i}\n", "Global order defers to [`INTEGRATED_COMPILER_PLAN.md`](INTEGRATED_COMPILER_PLAN.md); "
                    "routed from [the index](README.md).\n" if plan else "Background material.\n"]
            for s in range(6):
                body.append(f"## Section {s} — details\n")
                for _ in range(3):
                    body.append(
                        "The pass in `src/compiler/pass_%d.cpp` lowers the tile partition; see [section](#section-%d--details) "
                        "and the [dashboard](../generated/status.md). Producer and consumer agree on read locality, "
                        "and the epilogue keeps the weight gradient resident in registers.\n" % (rng.randrange(20), s))
                if s == 2:
                    body.append("Modelled on the analytical roofline; no hardware timing.\n\n"
                                "| Kernel | Time (ms) | Speedup |\n|---|---:|---:|\n" +
                                "".join(f"| k{r} | {rng.random():.3f} | {1 + rng.random():.2f}x |\n" for r in range(8)))
            if plan:
                body.append("## Non-claims\n\nNothing here is implemented yet.\n")
            open(os.path.join(d, name), "w").write(fm + "\n".join(body))
        made += count
        idx = "---\nlast_updated: 2026-08-20\naudit_role: index\n---\n\n# Area index\n\n## Route by question\n\n| Question | Read first |\n|---|---|\n"
        idx += "| What is the global order? | [`INTEGRATED_COMPILER_PLAN.md`](INTEGRATED_COMPILER_PLAN.md) |\n"
        idx += "".join(f"| Q{k}? | [`{nm}`]({nm}) |\n" for k, (nm, p) in enumerate(names) if p)
        idx += "\n## Complete live-document catalog\n\n| Document | Role |\n|---|---|\n"
        idx += "| [`INTEGRATED_COMPILER_PLAN.md`](INTEGRATED_COMPILER_PLAN.md) | global order |\n"
        idx += "".join(f"| [`{nm}`]({nm}) | {'plan' if p else 'reference'} |\n" for nm, p in names)
        open(os.path.join(d, "README.md"), "w").write(idx)
        auth = ("---\nlast_updated: 2026-08-20\naudit_role: plan\nplan_state: open\n---\n\n# Integrated plan\n\n"
                "Routed from [the index](README.md).\n\n## Non-claims\n\nNone of this is built.\n")
        open(os.path.join(d, "INTEGRATED_COMPILER_PLAN.md"), "w").write(auth)
    # The root index routes every folder's index (routing.unrouted reads
    # reachability from it).
    root = ("---\nlast_updated: 2026-08-20\naudit_role: index\n---\n\n# Audit root\n\n"
            "Status: [the dashboard](generated/status.md).\n\n" +
            "".join(f"- [area {f}](area_{f:03d}/README.md)\n" for f in range(folders)))
    open(os.path.join(audit, "README.md"), "w").write(root)
    return audit


def md_stats(root):
    files = size = 0
    for dp, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".md"):
                files += 1
                size += os.path.getsize(os.path.join(dp, f))
    return files, size


def run_measured(cmd, cwd=None):
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode, fo.read(), fe.read()


def time_runs(cmd, runs, warmup, ok=(0, 1), cwd=None):
    for _ in range(warmup):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    times, cpus, rss, rc, out = [], [], [], None, None
    for _ in range(runs):
        wall, cpu, maxrss, rc, out, err = run_measured(cmd, cwd)
        times.append(wall)
        cpus.append(cpu)
        rss.append(maxrss)
        if rc not in ok:
            sys.exit(f"{cmd[0]} failed (rc {rc}): {err.decode(errors='replace')[:2000]}")
    return times, cpus, rss, rc, out


def row_of(name, j, times, cpus, rss, runs):
    med = statistics.median(times)
    mb = j["bytes"] / 1e6
    return {"workload": name, "files": j["files"], "MB": round(mb, 2), "findings": len(j["findings"]),
            "median_s": round(med, 4), "min_s": round(min(times), 4), "max_s": round(max(times), 4),
            "files_per_s": round(j["files"] / med), "MB_per_s": round(mb / med, 1),
            "cpu_s_median": round(statistics.median(cpus), 4), "peak_rss_MB": round(max(rss) / 1024, 1),
            "load_avg_1m": round(os.getloadavg()[0], 2), "runs": runs}


def report_pair(name, base_cmd, cmd, runs, warmup):
    """The baseline and the candidate on one workload, runs alternating."""
    for _ in range(warmup):
        for c in (base_cmd, cmd):
            subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    got = {0: ([], [], [], None), 1: ([], [], [], None)}
    load_before = os.getloadavg()[0]
    for _ in range(runs):
        for k, c in ((0, base_cmd), (1, cmd)):
            wall, cpu, maxrss, rc, out, err = run_measured(c)
            if rc not in (0, 1):
                sys.exit(f"{c[0]} failed (rc {rc}): {err.decode(errors='replace')[:2000]}")
            t, u, r, first = got[k]
            t.append(wall)
            u.append(cpu)
            r.append(maxrss)
            if first is None:
                got[k] = (t, u, r, out)
            elif out != first:
                sys.exit(f"{c[0]} printed different findings on two runs of {name}")
    if got[0][3] != got[1][3]:
        sys.exit(f"the baseline and the candidate disagree on {name}: the findings differ")
    rows = []
    for k, label in ((0, "baseline"), (1, "candidate")):
        t, u, r, out = got[k]
        row = row_of(f"{name} [{label}]", json.loads(out), t, u, r, runs)
        print(json.dumps(row), flush=True)
        rows.append(row)
    ratio = {"workload": f"{name} [ratio baseline/candidate]",
             "wall_ratio": round(rows[0]["median_s"] / rows[1]["median_s"], 3),
             "cpu_ratio": round(rows[0]["cpu_s_median"] / rows[1]["cpu_s_median"], 3),
             "peak_rss_ratio": round(rows[0]["peak_rss_MB"] / rows[1]["peak_rss_MB"], 3),
             "same_findings": True, "load_avg_1m_before": round(load_before, 2),
             "load_avg_1m_after": round(os.getloadavg()[0], 2)}
    print(json.dumps(ratio), flush=True)
    return rows


def report(name, cmd, runs, warmup):
    times, cpus, rss, rc, out = time_runs(cmd, runs, warmup)
    j = json.loads(out)
    med = statistics.median(times)
    mb = j["bytes"] / 1e6
    row = {"workload": name, "files": j["files"], "MB": round(mb, 2), "findings": len(j["findings"]),
           "median_s": round(med, 4), "min_s": round(min(times), 4), "max_s": round(max(times), 4),
           "files_per_s": round(j["files"] / med), "MB_per_s": round(mb / med, 1),
           "cpu_s_median": round(statistics.median(cpus), 4), "peak_rss_MB": round(max(rss) / 1024, 1),
           "load_avg_1m": round(os.getloadavg()[0], 2), "runs": runs}
    print(json.dumps(row), flush=True)
    return row


def report_markdownlint(binary, root, globs, runs, warmup):
    # markdownlint-cli2 exits 1 when it finds anything (it does on this tree).
    cmd = [binary, *globs]
    times, cpus, rss, rc, out = time_runs(cmd, runs, warmup, ok=(0, 1), cwd=root)
    row = {"workload": "markdownlint-cli2 (same files)", "median_s": round(statistics.median(times), 4),
           "min_s": round(min(times), 4), "cpu_s_median": round(statistics.median(cpus), 4),
           "peak_rss_MB": round(max(rss) / 1024, 1), "exit": rc, "load_avg_1m": round(os.getloadavg()[0], 2),
           "runs": runs}
    print(json.dumps(row), flush=True)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fusecert", required=True)
    ap.add_argument("--corpus", help="../shared/corpus/tessera")
    ap.add_argument("--docs", default="5000,20000", help="synthetic tree sizes, comma-separated")
    ap.add_argument("--markdownlint", help="the markdownlint-cli2 binary (npm), for the comparison row")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=0, help="-j for fusecert docs (0 = all cores)")
    ap.add_argument("--baseline", help="another fusecert build, measured alternately on each workload (ratio rows)")
    ap.add_argument("--generate", metavar="DIR", help="write the synthetic tree of the first --docs size to DIR and exit")
    a = ap.parse_args()
    if a.generate:
        n = int(str(a.docs).split(",")[0])
        if os.path.exists(a.generate):
            sys.exit(f"{a.generate} exists; give a new folder")
        audit = gen_synthetic(a.generate, n)
        print(json.dumps({"generated": a.generate, "docs": n, "audit_root": audit, "md_files_bytes": md_stats(audit)}))
        return
    tmp = tempfile.mkdtemp(prefix="docaudit_bench_")
    jobs = ["-j", str(a.jobs)] if a.jobs else []
    try:
        print(json.dumps({"cpus": os.cpu_count(), "host": os.uname().nodename, "fusecert": a.fusecert,
                          "baseline": a.baseline, "load_avg": [round(x, 2) for x in os.getloadavg()]}))
        if a.corpus:
            root = os.path.join(tmp, "tessera")
            subprocess.run(["bash", os.path.join(HERE, "lay_corpus.sh"), a.corpus, root, "--no-config"], check=True,
                           stdout=subprocess.DEVNULL)
            audit = os.path.join(root, "docs", "audit")
            paths = [os.path.join(audit, p) for p in ("README.md", "compiler", "backend", "generated")]
            args = ["docs", "--repo-root", root, "--today", "2026-09-01", "--format", "json", *jobs, *paths]
            if a.baseline:
                report_pair("corpus (defaults, no config)", [a.baseline, *args], [a.fusecert, *args], a.runs, a.warmup)
            else:
                report("corpus (defaults, no config)", [a.fusecert, *args], a.runs, a.warmup)
            if a.markdownlint:
                report_markdownlint(a.markdownlint, root,
                                    ["docs/audit/README.md", "docs/audit/compiler/**/*.md", "docs/audit/backend/**/*.md",
                                     "docs/audit/generated/**/*.md"], a.runs, a.warmup)
        for n in [int(x) for x in str(a.docs).split(",") if x]:
            syn = os.path.join(tmp, f"synthetic-{n}")
            audit = gen_synthetic(syn, n)
            args = ["docs", "--repo-root", syn, "--today", "2026-09-01", "--format", "json", *jobs, audit]
            if a.baseline:
                report_pair(f"synthetic-{n}", [a.baseline, *args], [a.fusecert, *args], a.runs, a.warmup)
            else:
                report(f"synthetic-{n}", [a.fusecert, *args], a.runs, a.warmup)
            shutil.rmtree(syn, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
