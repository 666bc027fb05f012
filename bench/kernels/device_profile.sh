#!/bin/bash
# One GPU call for issue #20's review gaps: ncu profiles of the best fused
# kernel at the shapes where the unfused step still wins (BT 2048 and 8192,
# and 4096x14336 at BT 512), and an A/B of step 10(c) in one call (the TMA
# kernels' batched refined square root on / off, FK_TMA_FASTSQRT), runs
# alternated A B A B so that drift falls on both.
# Writes under $OUT: profile.txt (the summary), ncu-<i>-<shape>.txt, ab.txt.
#   NLOHMANN_DEB: the nlohmann-json3-dev .deb (the GPU host has no registry).
#   PROFILES: "shape=regex ..." (kernel-name regexes as in device_run.sh).
#   AB_SHAPES (default 4096x4096x512,4096x4096x2048), AB_REPS (default 20), AB_ROUNDS (default 2).
set -u
OUT=${OUT:-/tmp/fusecert-profile-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
log=$OUT/profile.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1; git rev-parse HEAD 2>/dev/null; } >"$log" 2>&1
prefix=()
[ -n "${NLOHMANN_DEB:-}" ] && dpkg -x "$NLOHMANN_DEB" /tmp/nlohmann && prefix=(-DCMAKE_PREFIX_PATH=/tmp/nlohmann/usr)
build() {  # dir, extra CUDA flags
  cmake -S kernels -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" ${2:+-DCMAKE_CUDA_FLAGS=$2} >>"$log" 2>&1 &&
    ninja -C "$1" fusecert-kernels >>"$log" 2>&1 || { echo "build $1 failed" | tee -a "$log"; tail -30 "$log"; exit 1; }
}
echo "== build A (default) and B (-DFK_TMA_FASTSQRT=0)" | tee -a "$log"
build /tmp/bA "" & build /tmp/bB "-DFK_TMA_FASTSQRT=0" & wait
[ -x /tmp/bA/fusecert-kernels ] && [ -x /tmp/bB/fusecert-kernels ] || { echo "a build failed"; tail -40 "$log"; exit 1; }
i=0
for spec in ${PROFILES:-}; do
  i=$((i + 1)); shape=${spec%%=*}; k=${spec#*=}
  echo "== ncu: $shape, bf16 W and state, kernel ~ $k (4th launch: after 3 warm-ups)" | tee -a "$log"
  ncu --clock-control none --kernel-name-base demangled -k "regex:$k" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis \
    /tmp/bA/fusecert-kernels bench --shapes "$shape" --reps 1 2>&1 | grep -vE "^ *$|^==PROF==" | head -160 >"$OUT/ncu-$i-$shape.txt"
  grep -E "void|Duration|DRAM Throughput|Compute \(SM\) Throughput|Issued Warp|No Eligible|Eligible Warps|Achieved Occupancy|Registers Per|Executed Ipc" "$OUT/ncu-$i-$shape.txt" | tee -a "$log"
done
echo "== A/B step 10(c): A = refined sqrt in the TMA kernels, B = __fsqrt_rn; median us per config" | tee -a "$log"
for r in $(seq 1 "${AB_ROUNDS:-2}"); do
  for v in A B; do
    /tmp/b$v/fusecert-kernels bench --format json --reps "${AB_REPS:-20}" --shapes "${AB_SHAPES:-4096x4096x512,4096x4096x2048}" >/tmp/ab-$v-$r.json 2>/dev/null
    python3 - "$v" "$r" /tmp/ab-$v-$r.json <<'PY' | tee -a "$OUT/ab.txt"
import json, sys
v, r, f = sys.argv[1:]
for c in json.load(open(f))["cases"]:
    cf = c["fused_configs_us"]
    print(f"round {r} {v} {c['N']}x{c['H']}x{c['BT']} {c['W']}/{c['state']}: tma2 {cf.get('wgmma_128x128x64_tma2', 0):.1f} tma {cf.get('wgmma_128x128x64_tma', 0):.1f} pingpong {cf.get('wgmma_128x128x64_pingpong', 0):.1f} unfused {c['unfused_us']:.1f}")
PY
  done
done
cat "$OUT/ab.txt" >>"$log"
