#!/usr/bin/env python3
"""Solver time per validated pair (fusecert validate) for K = 4, 8, 16 and
binary32 / bf16, and the largest K that validates within a 10 s timeout.

Usage: taskset -c 0,1 python3 bench/tv/bench.py --fusecert build-tv/fusecert [--out bench/tv/results.json]
   or: ... --tv-bench build-tv/tests/tv/fusecert_tv_bench (same validation, through the library)

Pairs (generated here, one file with @before/@after each):
  tessera   tessera.matmul + tessera.adamw  vs  tessera.training.wgrad_adamw
            (equivalent; both sides hash-cons to one term)
  epilogue  the same, the fused op running an epilogue body that reads g·1.0
            (equivalent, but the terms differ: Z3 must bit-blast the update)
  split_k   the fused op with split_k = 2 (not equivalent: time to the
            counterexample)
Solver time = the sum of the three result obligations' times as reported.
"""
import argparse, json, os, re, subprocess, sys, tempfile, time

def tensors(dt):
    X, dY, S = f"tensor<64x256x{dt}>", f"tensor<64x128x{dt}>", f"tensor<256x128x{dt}>"
    return X, dY, S

def module(kind, dt):
    X, dY, S = tensors(dt)
    args = f"%X: {X}, %dY: {dY}, %W: {S}, %m: {S}, %v: {S}"
    R3 = f"{S}, {S}, {S}"
    hyp = ('grad_clip_scope = "none", routing = "dense", state_locality = "coordinate", '
           f'state_dtype = "{dt}", lr = 1.0e-03 : f32, beta1 = 0.9 : f32, beta2 = 0.999 : f32, '
           'eps = 1.0e-08 : f32, weight_decay = 1.0e-02 : f32, step = 1 : i64')
    pol = f'numeric_policy = {{accum = "f32", storage = "{dt}"}}'
    extra = ""
    epi = ""
    if kind == "split_k":
        extra = ", split_k = 2 : i64"
    if kind == "epilogue":
        extra = ", epilogue = @epi"
        consts = [("b1", 0.9), ("c1", 0.1), ("b2", 0.999), ("c2", 1.0e-03), ("bc1", 0.1), ("bc2", 1.0e-03),
                  ("eps", 1.0e-08), ("lr", 1.0e-03), ("dec", 0.99999), ("one", 1.0)]
        body = "".join(f"  %{n} = arith.constant {v:e} : {dt}\n" for n, v in consts)
        body += f"""  %gx = arith.mulf %g, %one : {dt}
  %t0 = arith.mulf %b1, %m : {dt}
  %t1 = arith.mulf %c1, %gx : {dt}
  %mn = arith.addf %t0, %t1 : {dt}
  %t2 = arith.mulf %b2, %v : {dt}
  %gg = arith.mulf %gx, %gx : {dt}
  %t3 = arith.mulf %c2, %gg : {dt}
  %vn = arith.addf %t2, %t3 : {dt}
  %mh = arith.divf %mn, %bc1 : {dt}
  %vh = arith.divf %vn, %bc2 : {dt}
  %sq = math.sqrt %vh : {dt}
  %den = arith.addf %sq, %eps : {dt}
  %q = arith.divf %mh, %den : {dt}
  %st = arith.mulf %lr, %q : {dt}
  %wd = arith.mulf %w, %dec : {dt}
  %wn = arith.subf %wd, %st : {dt}
"""
        epi = (f"func.func private @epi(%w: {dt}, %g: {dt}, %m: {dt}, %v: {dt}) -> ({dt}, {dt}, {dt}) {{\n"
               f"{body}  return %wn, %mn, %vn : {dt}, {dt}, {dt}\n}}\n")
    return f"""func.func @before({args}) -> ({R3}) {{
  %gW = "tessera.matmul"(%X, %dY) {{transposeA = true, {pol}}} : ({X}, {dY}) -> {S}
  %W1, %m1, %v1 = "tessera.adamw"(%W, %gW, %m, %v) {{{hyp}}} : ({R3}, {S}) -> ({R3})
  return %W1, %m1, %v1 : {R3}
}}
func.func @after({args}) -> ({R3}) {{
  %W1, %m1, %v1 = "tessera.training.wgrad_adamw"(%X, %dY, %W, %m, %v) {{transposeA = true, {pol}, {hyp}{extra}}} : ({X}, {dY}, {R3}) -> ({R3})
  return %W1, %m1, %v1 : {R3}
}}
{epi}"""

LINE = re.compile(r"TV\.result(\d) .*: (equivalent|not equivalent|inconclusive) \((\w+), (\d+) ms")

def run(cmd, path, k, timeout_ms):
    t0 = time.monotonic()
    argv = ([cmd[1], path, str(k), str(timeout_ms)] if cmd[0] == "lib"
            else [cmd[1], "validate", path, "--k", str(k), "--timeout-ms", str(timeout_ms)])
    p = subprocess.run(argv, capture_output=True, text=True)
    wall = time.monotonic() - t0
    rows = LINE.findall(p.stdout)
    verdict = re.search(r"^verdict: (.*)$", p.stdout, re.M)
    return {"rc": p.returncode, "verdict": verdict.group(1) if verdict else "?", "wall_s": round(wall, 3),
            "solver_ms": sum(int(r[3]) for r in rows), "answers": [r[2] for r in rows]}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusecert", help="the fusecert binary")
    ap.add_argument("--tv-bench", help="or the library runner (build-tv/tests/tv/fusecert_tv_bench)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--timeout-ms", type=int, default=10000)
    ap.add_argument("--max-k", type=int, default=1024)
    a = ap.parse_args()
    cmd = ("lib", a.tv_bench) if a.tv_bench else ("cli", a.fusecert)
    if not cmd[1]:
        ap.error("pass --fusecert or --tv-bench")
    tmp = tempfile.mkdtemp(prefix="fusecert-tv-bench-")
    res = {"cpus": os.sched_getaffinity(0).__len__(), "timeout_ms": a.timeout_ms, "table": [], "largest_k": {}}
    for kind in ("tessera", "epilogue", "split_k"):
        for dt in ("f32", "bf16"):
            path = os.path.join(tmp, f"{kind}_{dt}.mlir")
            open(path, "w").write(module(kind, dt))
            for k in (4, 8, 16):
                r = run(cmd, path, k, a.timeout_ms)
                r.update(pair=kind, dtype=dt, k=k)
                res["table"].append(r)
                print(f"{kind:9} {dt:5} K={k:<3} {r['verdict']:15} solver {r['solver_ms']:>7} ms  wall {r['wall_s']:.2f} s  {r['answers']}", flush=True)
            # Largest K (doubling) whose validation is definite within the timeout.
            if kind == "split_k":
                continue
            best, k = None, 4
            while k <= a.max_k:
                r = run(cmd, path, k, a.timeout_ms)
                if r["verdict"] != "equivalent" or r["wall_s"] > a.timeout_ms / 1000:
                    break
                best, k = k, k * 2
            res["largest_k"][f"{kind}/{dt}"] = {"largest_k": best, "first_failing_k": k if k <= a.max_k else None}
            print(f"{kind:9} {dt:5} largest K validating within {a.timeout_ms} ms: {best}", flush=True)
    if a.out:
        json.dump(res, open(a.out, "w"), indent=2)
    return 0

if __name__ == "__main__":
    sys.exit(main())
