#!/bin/bash
# One complete GPU run of kernels/: the four evidence rows (runner JSON and the
# GoogleTest GPU tests), the PyTorch baseline and, right after it in the same
# batch, the benchmark (which reads the PyTorch times and the previous run's
# baselines and prints both ratios), ncu profiles, a SASS summary and a
# compute-sanitizer pass. Writes at most 7 files under $OUT.
#   BIN: folder holding fusecert-kernels and test_kernels_gpu (prebuilt);
#        rebuilt from kernels/ with CMake when they cannot load here (the GPU
#        host has no package registry: nlohmann-json comes from NLOHMANN_DEB,
#        the Debian package's .deb carried along, unpacked under /tmp).
#   SHAPES: bench shapes (default: the 9 spec shapes); REPS (default 20).
#   PREVIOUS / PREVIOUS_TORCH: the last run's bench.json / torch_baseline.json
#        (default docs/kernels/); NCU: kernel-name regexes to profile
#        matched against demangled names, so a space is written "." (the
#        names spell "(int)3": e.g. "tma2_kernel<.int.128,
#        pingpong_kernel<.int.3,..int.2,..int.128,.*DType.1,..fusecert::kernels::DType.1>"
#        for the 128x128 ping-pong with bf16 W and states), NCU_SHAPE
#        (default 4096x4096x512).
#   GTEST_FILTER: which GPU GoogleTests (default all; the Row tests repeat the
#        runner's evidence rows); SKIP_EVIDENCE, SKIP_GTEST, SKIP_TORCH,
#        SKIP_SANITIZER: leave a part out.
set -u
OUT=${OUT:-/tmp/fusecert-kernels-out}
BIN=${BIN:-build-kernels-bin}
REPS=${REPS:-20}
PREVIOUS=${PREVIOUS:-docs/kernels/bench.json}
PREVIOUS_TORCH=${PREVIOUS_TORCH:-docs/kernels/torch_baseline.json}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit --format=csv
  head -1 /proc/driver/nvidia/version
  nvcc --version | tail -2
  uname -r
} >"$OUT/env.txt" 2>&1
"$BIN/fusecert-kernels" >/dev/null 2>&1
if [ $? -ne 2 ]; then
  echo "prebuilt runner does not load here; building" | tee -a "$OUT/env.txt"
  prefix=()
  if [ -n "${NLOHMANN_DEB:-}" ]; then
    # A named .deb that is missing or does not unpack is an error, not a silent
    # fall-back to whatever copy the host may have (acc20d: it was not carried).
    dpkg -x "$NLOHMANN_DEB" /tmp/nlohmann || { echo "NLOHMANN_DEB=$NLOHMANN_DEB does not unpack (was it carried?)" >&2; exit 2; }
    prefix=(-DCMAKE_PREFIX_PATH=/tmp/nlohmann/usr)
  fi
  cmake -S kernels -B /tmp/bk -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" >>"$OUT/env.txt" 2>&1 &&
    ninja -C /tmp/bk >>"$OUT/env.txt" 2>&1 || { echo "build failed"; tail -30 "$OUT/env.txt"; exit 1; }
  BIN=/tmp/bk
  [ -x /tmp/bk/tests/test_kernels_gpu ] && cp /tmp/bk/tests/test_kernels_gpu /tmp/bk/
fi
if [ -z "${SKIP_EVIDENCE:-}" ]; then
  echo "== evidence"
  timeout 300 "$BIN/fusecert-kernels" evidence --format json >"$OUT/evidence.json" 2>>"$OUT/env.txt"
  echo "evidence rc=$?"
  python3 -c "import json;d=json.load(open('$OUT/evidence.json'));[print(r['row'],r['id'],r['passed'],r['details'].get('mismatching_elements','')) for r in d['rows']]"
fi
if [ -z "${SKIP_GTEST:-}" ] && [ -x "$BIN/test_kernels_gpu" ]; then
  echo "== gtest gpu"
  timeout 300 "$BIN/test_kernels_gpu" --gtest_filter="${GTEST_FILTER:-*}" >"$OUT/gtest_gpu.txt" 2>&1
  echo "gtest rc=$?"; tail -4 "$OUT/gtest_gpu.txt"
fi
shape_args=()
[ -n "${SHAPES:-}" ] && shape_args=(--shapes "$SHAPES")
torch_args=()
if [ -z "${SKIP_TORCH:-}" ]; then
  echo "== torch (immediately before the bench)"
  PYTHONUNBUFFERED=1 python3 bench/kernels/torch_baseline.py --reps "$REPS" "${shape_args[@]}" \
    >"$OUT/torch_baseline.json" 2>>"$OUT/env.txt"
  echo "torch rc=$?"
  torch_args=(--torch "$OUT/torch_baseline.json")
fi
prev_args=()
[ -f "$PREVIOUS" ] && prev_args+=(--previous "$PREVIOUS")
[ -f "$PREVIOUS_TORCH" ] && prev_args+=(--previous-torch "$PREVIOUS_TORCH")
echo "== bench"
timeout 400 "$BIN/fusecert-kernels" bench --format json --reps "$REPS" "${shape_args[@]}" \
  "${torch_args[@]}" "${prev_args[@]}" >"$OUT/bench.json" 2>"$OUT/bench.txt"
echo "bench rc=$?"; cat "$OUT/bench.txt"
if [ -n "${NCU:-}" ]; then
  for k in $NCU; do
    echo "== ncu: ${NCU_SHAPE:-4096x4096x512}, bf16 state, kernel ~ $k (4th launch: after 3 warm-ups)"
    ncu --clock-control none --kernel-name-base demangled -k "regex:$k" --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section SchedulerStats --section LaunchStats \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$' \
      "$BIN/fusecert-kernels" bench --shapes "${NCU_SHAPE:-4096x4096x512}" --reps 1 2>&1 |
      grep -vE "^ *$|^==PROF==" | head -160
  done >"$OUT/ncu.txt" 2>&1
  grep -E "^  fused|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|No Eligible|Issued Warp" "$OUT/ncu.txt" | head -60
fi
{
  echo "== SASS instruction counts of fusecert-kernels: HMMA / HGMMA / LDL+STL / USETMAXREG / UTMASTG"
  cuobjdump --dump-sass "$BIN/fusecert-kernels" >/tmp/sass.txt
  for pat in HMMA HGMMA "LDL|STL" USETMAXREG "UTMASTG"; do echo "$pat: $(grep -cE "$pat" /tmp/sass.txt)"; done
  if [ -z "${SKIP_SANITIZER:-}" ] && [ -x "$BIN/test_kernels_gpu" ]; then
    echo "== compute-sanitizer memcheck (Row 1, Row 2, the momentum-state epilogue)"
    timeout 200 compute-sanitizer --tool memcheck "$BIN/test_kernels_gpu" --gtest_filter='*Row1*:*Row2*:*MomentumState*' 2>&1 | tail -15
  fi
} >>"$OUT/env.txt" 2>&1
tail -22 "$OUT/env.txt"
