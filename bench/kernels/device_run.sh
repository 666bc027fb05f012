#!/bin/bash
# One complete GPU run of kernels/: the four evidence rows (runner JSON and the
# GoogleTest GPU tests), the benchmark, the PyTorch baseline, a SASS summary
# and a compute-sanitizer pass. Writes everything under $OUT.
#   BIN: folder holding fusecert-kernels and test_kernels_gpu (prebuilt);
#        rebuilt from kernels/ with CMake when they cannot load here.
set -u
OUT=${OUT:-/tmp/fusecert-kernels-out}
BIN=${BIN:-build-kernels-bin}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit --format=csv
  nvcc --version | tail -2
  uname -r
} >"$OUT/env.txt" 2>&1
"$BIN/fusecert-kernels" >/dev/null 2>&1
if [ $? -ne 2 ]; then
  echo "prebuilt runner does not load here; building" | tee -a "$OUT/env.txt"
  cmake -S kernels -B /tmp/bk -G Ninja -DCMAKE_BUILD_TYPE=Release >>"$OUT/env.txt" 2>&1 &&
    ninja -C /tmp/bk >>"$OUT/env.txt" 2>&1
  BIN=/tmp/bk
  [ -x /tmp/bk/tests/test_kernels_gpu ] && cp /tmp/bk/tests/test_kernels_gpu /tmp/bk/
fi
echo "== evidence"
timeout 200 "$BIN/fusecert-kernels" evidence --format json >"$OUT/evidence.json" 2>>"$OUT/env.txt"
echo "evidence rc=$?"
python3 -c "import json;d=json.load(open('$OUT/evidence.json'));[print(r['row'],r['id'],r['passed']) for r in d['rows']]"
if [ -z "${SKIP_GTEST:-}" ]; then
echo "== gtest gpu"
timeout 200 "$BIN/test_kernels_gpu" >"$OUT/gtest_gpu.txt" 2>&1
echo "gtest rc=$?"; tail -4 "$OUT/gtest_gpu.txt"
fi
echo "== bench"
timeout 240 "$BIN/fusecert-kernels" bench --format json >"$OUT/bench.json" 2>"$OUT/bench.txt"
echo "bench rc=$?"; cat "$OUT/bench.txt"
python3 -c "
import json;d=json.load(open('$OUT/bench.json'))
for c in d['cases'][:4]: print(c['N'],c['H'],c['BT'],c['state'],{k[6:]:round(v,1) for k,v in c['fused_configs_us'].items() if 'wgmma' in k})"
if [ -z "${SKIP_TORCH:-}" ]; then
echo "== torch"
PYTHONUNBUFFERED=1 python3 bench/kernels/torch_baseline.py >"$OUT/torch_baseline.json" 2>>"$OUT/env.txt"
echo "torch rc=$?"
python3 -c "import json;[print(c['N'],c['H'],c['BT'],round(c['mm_plus_adamw_fused_us'],1)) for c in json.load(open('$OUT/torch_baseline.json'))['cases']]"
fi
if [ -n "${NCU:-}" ]; then
  for skip in ${NCU_SKIPS:-24}; do
    echo "== ncu: 4096x4096x512 bf16 state, wgmma launch-skip $skip"
    ncu --clock-control none -k regex:fused_wgmma --launch-skip $skip --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section LaunchStats \
      "$BIN/fusecert-kernels" bench --shapes 4096x4096x512 --reps 1 2>&1 | grep -vE "^ *$|^==PROF==" | head -150
  done >"$OUT/ncu.txt" 2>&1
  grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Registers|Block Limit|fused_wgmma" "$OUT/ncu.txt" | head -40
fi
{
  echo "== SASS instruction counts (fused_mma kernels): HMMA / HGMMA / LDSM / local"
  cuobjdump --dump-sass "$BIN/fusecert-kernels" | grep -cE "HMMA" 
  cuobjdump --dump-sass "$BIN/fusecert-kernels" | grep -cE "HGMMA"
  cuobjdump --dump-sass "$BIN/fusecert-kernels" | grep -cE "LDSM"
  cuobjdump --dump-sass "$BIN/fusecert-kernels" | grep -cE "LDL|STL"
  echo "== compute-sanitizer memcheck (Row 1, Row 2)"
  [ -z "${SKIP_SANITIZER:-}" ] && timeout 120 compute-sanitizer --tool memcheck "$BIN/test_kernels_gpu" --gtest_filter='*Row1*:*Row2*' 2>&1 | tail -15
} >>"$OUT/env.txt" 2>&1
tail -22 "$OUT/env.txt"
