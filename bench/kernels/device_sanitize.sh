#!/bin/bash
# compute-sanitizer memcheck over evidence row 2 (every tile configuration of
# every engine, TMA and wgmma kernels included) and row 1 on the GPU.
set -u
OUT=${OUT:-/tmp/fusecert-kernels-out}
BIN=${BIN:-build-kernels-bin}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{
  date -u
  timeout 420 compute-sanitizer --tool memcheck "$BIN/test_kernels_gpu" --gtest_filter='*Row2*:*Row1*' 2>&1 | tail -20
  echo "rc=${PIPESTATUS[0]}"
} >"$OUT/sanitizer.txt" 2>&1
cat "$OUT/sanitizer.txt"
