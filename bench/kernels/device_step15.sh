#!/bin/bash
# Issue #20 step 15 on one H200 call: the standalone build (with the CPU
# tests), the CPU tests, then bench/kernels/device_run.sh's batch on that
# build (evidence rows, GPU tests, PyTorch baseline immediately before the
# benchmark, both ratios, the baselines beside their previous run). Run from
# a copy of the repository's kernels/, tests/kernels/, bench/kernels/ and
# docs/kernels/ (carried as an ignored folder). Extra args pass to nothing;
# the environment passes to device_run.sh (NCU, NCU_SHAPE, SKIP_*).
set -u
OUT=${OUT:-/tmp/fusecert-step15-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
if [ ! -x /tmp/bk/fusecert-kernels ]; then
  prefix=()
  [ -n "${NLOHMANN_DEB:-}" ] && dpkg -x "$NLOHMANN_DEB" /tmp/nlohmann && prefix=(-DCMAKE_PREFIX_PATH=/tmp/nlohmann/usr)
  { date -u; cmake -S kernels -B /tmp/bk -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" &&
      ninja -C /tmp/bk; echo "build rc=$?"; date -u; } >"$OUT/build.txt" 2>&1
  grep -q "build rc=0" "$OUT/build.txt" || { echo "build failed"; grep -E "error" "$OUT/build.txt" | head -30; exit 1; }
fi
cp /tmp/bk/tests/test_kernels_gpu /tmp/bk/ 2>/dev/null
if [ -z "${SKIP_CPU:-}" ]; then
  /tmp/bk/tests/test_kernels_cpu >"$OUT/cpu_tests.txt" 2>&1
  echo "cpu tests rc=$?"; tail -3 "$OUT/cpu_tests.txt"
fi
BIN=/tmp/bk OUT=$OUT bash bench/kernels/device_run.sh
