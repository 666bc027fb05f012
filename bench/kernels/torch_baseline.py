"""PyTorch baseline of the weight-gradient + optimizer step (what users run).

For each shape: dW = torch.mm(dY.t(), X) written into p.grad (bf16), then
torch.optim.AdamW(fused=True).step() on a bf16 parameter (bf16 states, as
PyTorch keeps states in the parameter's dtype). CUDA-event medians after
warm-up, L2 flushed (512 MiB write) before each timed run. Prints JSON.

Usage: python3 bench/kernels/torch_baseline.py [--reps 20] [--shapes NxHxBT,...] > torch_baseline.json
The driver recorded is the kernel module's version from /proc/driver/nvidia/version.
"""
import argparse
import datetime
import json
import re

import torch

SHAPES = [(n, h, bt) for n, h in ((4096, 4096), (4096, 14336), (14336, 4096))
          for bt in (512, 2048, 8192)]


def driver_version():
    """The NVIDIA kernel module's version ("580.159.04"), or "" when unreadable."""
    try:
        with open("/proc/driver/nvidia/version") as f:
            m = re.search(r"\b(\d+\.\d+(?:\.\d+)?)\b", f.readline())
            return m.group(1) if m else ""
    except OSError:
        return ""


def parse_shapes(arg):
    out = []
    for item in arg.split(","):
        n, h, bt = (int(x) for x in item.split("x"))
        out.append((n, h, bt))
    return out


def median_ms(fn, flush, reps, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        flush.fill_(i & 0xFF)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--shapes", type=parse_shapes, default=SHAPES)
    args = ap.parse_args()
    dev = torch.device("cuda")
    flush = torch.empty(512 << 20, dtype=torch.uint8, device=dev)
    cases = []
    for n, h, bt in args.shapes:
        g = torch.Generator(device=dev).manual_seed(0)
        dy = torch.randn(bt, n, device=dev, dtype=torch.bfloat16, generator=g)
        x = torch.randn(bt, h, device=dev, dtype=torch.bfloat16, generator=g)
        p = torch.nn.Parameter(0.5 * torch.randn(n, h, device=dev, dtype=torch.bfloat16, generator=g))
        opt = torch.optim.AdamW([p], lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01,
                                fused=True)
        p.grad = torch.empty_like(p)

        def step():
            torch.mm(dy.t(), x, out=p.grad)
            opt.step()

        def gemm():
            torch.mm(dy.t(), x, out=p.grad)

        t_step = median_ms(step, flush, args.reps)
        t_gemm = median_ms(gemm, flush, args.reps)
        t_opt = median_ms(opt.step, flush, args.reps)
        cases.append({"N": n, "H": h, "BT": bt, "W": "bf16", "state": "bf16",
                      "mm_plus_adamw_fused_us": t_step * 1e3, "mm_us": t_gemm * 1e3,
                      "adamw_fused_step_us": t_opt * 1e3})
        del dy, x, p, opt
        torch.cuda.empty_cache()
    props = torch.cuda.get_device_properties(0)
    print(json.dumps({
        "kind": "pytorch baseline (torch.mm + torch.optim.AdamW(fused=True))",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": {"name": props.name, "driver": driver_version(),
                   "sms": props.multi_processor_count},
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "method": f"CUDA-event median of {args.reps} runs after 3 warm-ups, 512 MiB fill before "
                  "each run (L2 flush); bf16 parameter, bf16 gradient, bf16 states",
        "cases": cases}, indent=1))


if __name__ == "__main__":
    main()
