#!/usr/bin/env python3
"""Benchmark of `fusecert docs` (docaudit): wall time, files/s and MB/s.

Two workloads:
  corpus    the Tessera audit corpus laid out as a whole repository
            (lay_corpus.sh: PATHS.txt as empty files + the real documents);
  synthetic a generated tree of N documents (default 5,000) in folders of 100,
            each folder with an index that routes every document, plans with
            the required links and sections, tables, code spans and links.

Each workload runs --warmup times untimed, then --runs times; the median wall
time is reported with files/s and MB/s (bytes of the Markdown checked).

  bench/docaudit/bench.py --fusecert build-docaudit/fusecert \
      --corpus ../shared/corpus/tessera [--docs 5000] [--runs 7]
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
    return audit


def md_stats(root):
    files = size = 0
    for dp, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".md"):
                files += 1
                size += os.path.getsize(os.path.join(dp, f))
    return files, size


def time_runs(cmd, runs, warmup):
    for _ in range(warmup):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times, cpus, rc, out = [], [], None, None
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
        rc, out = p.returncode, p.stdout
        if rc not in (0, 1):
            sys.exit(f"fusecert docs failed (rc {rc}): {p.stderr.decode()}")
    return times, cpus, rc, out


def report(name, cmd, runs, warmup):
    times, cpus, rc, out = time_runs(cmd, runs, warmup)
    j = json.loads(out)
    med = statistics.median(times)
    mb = j["bytes"] / 1e6
    row = {"workload": name, "files": j["files"], "MB": round(mb, 2), "findings": len(j["findings"]),
           "median_s": round(med, 4), "min_s": round(min(times), 4), "max_s": round(max(times), 4),
           "files_per_s": round(j["files"] / med), "MB_per_s": round(mb / med, 1),
           "cpu_s_median": round(statistics.median(cpus), 4), "load_avg_1m": round(os.getloadavg()[0], 2), "runs": runs}
    print(json.dumps(row))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fusecert", required=True)
    ap.add_argument("--corpus", help="../shared/corpus/tessera")
    ap.add_argument("--docs", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=0, help="-j for fusecert docs (0 = all cores)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="docaudit_bench_")
    jobs = ["-j", str(a.jobs)] if a.jobs else []
    try:
        print(json.dumps({"cpus": os.cpu_count(), "host": os.uname().nodename, "fusecert": a.fusecert}))
        if a.corpus:
            root = os.path.join(tmp, "tessera")
            subprocess.run([os.path.join(HERE, "lay_corpus.sh"), a.corpus, root], check=True, stdout=subprocess.DEVNULL)
            # Every Markdown file of the corpus, named explicitly (so generated/
            # and archive/ are checked too): ~50 files, ~3 MB.
            docs = sorted(os.path.join(root, os.path.relpath(f, a.corpus))
                          for f in glob.glob(os.path.join(a.corpus, "**", "*.md"), recursive=True))
            base = [a.fusecert, "docs", "--repo-root", root, "--today", "2026-09-01", "--format", "json", *jobs]
            report("corpus", base + docs, a.runs, a.warmup)
            # The same without proving the FORGE verdict table (Z3 dominates
            # the run above): the checker's own cost.
            noprove = os.path.join(tmp, "noprove.yaml")
            with open(os.path.join(HERE, "tessera.fusecert.yaml")) as f:
                cfg = f.read()
            cfg += ("  rules:\n"
                    "    claim.proposition-verdict: {severity: off, summary: off for the benchmark}\n"
                    "    claim.proposition-unknown: {severity: off, summary: off for the benchmark}\n")
            open(noprove, "w").write(cfg)
            report("corpus-without-prover", base + ["--config", noprove] + docs, a.runs, a.warmup)
        syn = os.path.join(tmp, "synthetic")
        audit = gen_synthetic(syn, a.docs)
        report(f"synthetic-{a.docs}", [a.fusecert, "docs", "--repo-root", syn, "--today", "2026-09-01", "--format", "json",
                                       *jobs, audit], a.runs, a.warmup)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
