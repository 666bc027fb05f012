#!/usr/bin/env python3
"""Summarize an ncu source-page CSV (device_ncu_source.sh): stall reasons as
shares of all PC samples, the lines with the most long-scoreboard samples,
the opcode mix, and every mbarrier wait / arrive / TMA-store wait line.
Usage: ncu_source_summary.py FILE.csv[.gz] [STALL_COLUMN ...]"""
import collections
import csv
import gzip
import sys


def main(path, reasons_to_list):
    opener = gzip.open if path.endswith(".gz") else open
    lines = opener(path, "rt").read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith('"Address"'))
    table = list(csv.reader(lines[start:]))
    hdr = table[0]
    rows = [r for r in table[1:] if len(r) == len(hdr)]
    col = {h: i for i, h in enumerate(hdr)}

    def val(r, k):
        try:
            return float(r[col[k]])
        except ValueError:
            return 0.0

    def src(r):
        return r[col["Source"]].strip()

    def opcode(r):
        toks = src(r).split()
        op = toks[1] if toks and toks[0].startswith("@") and len(toks) > 1 else (toks[0] if toks else "")
        return op.split(".")[0]

    samples = "Warp Stall Sampling (All Samples)"
    tot = sum(val(r, samples) for r in rows)
    print("SASS lines", len(rows), "samples", tot)
    reasons = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    agg = {k: sum(val(r, k) for r in rows) for k in reasons}
    for k, x in sorted(agg.items(), key=lambda t: -t[1])[:10]:
        print(f"  {k:24s} {x / tot * 100:5.1f}%")
    for reason in reasons_to_list:
        print("top", reason)
        for i in sorted(range(len(rows)), key=lambda i: -val(rows[i], reason))[:12]:
            before = " | ".join(src(rows[j])[:40] for j in range(max(0, i - 3), i))
            print(f"  {val(rows[i], reason) / tot * 100:5.2f}% executed {val(rows[i], 'Instructions Executed'):9.0f} "
                  f"{src(rows[i])[:70]}   <- {before}")
    by_samples, by_exec = collections.Counter(), collections.Counter()
    for r in rows:
        by_samples[opcode(r)] += val(r, samples)
        by_exec[opcode(r)] += val(r, "Instructions Executed")
    te = sum(by_exec.values())
    print("samples by opcode:", ", ".join(f"{k} {x / tot * 100:.1f}%" for k, x in by_samples.most_common(18)))
    print("executed warp instructions", te)
    print("executed by opcode:", ", ".join(f"{k} {x / te * 100:.1f}%" for k, x in by_exec.most_common(22)))
    print("barrier waits, arrives, TMA-store waits (executions; samples on the line and the next):")
    for i, r in enumerate(rows):
        s = src(r)
        if any(t in s for t in ("TRYWAIT", "DEPBAR", "ARRIVE", "LD.E.STRONG.SYS")):
            nxt = val(rows[i + 1], samples) if i + 1 < len(rows) else 0.0
            print(f"  {i:5d} executed {val(r, 'Instructions Executed'):9.0f} samples {(val(r, samples) + nxt) / tot * 100:5.2f}%  {s[:90]}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
