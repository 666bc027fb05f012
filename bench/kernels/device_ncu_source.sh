#!/bin/bash
# Where the ping-pong's warps stall, per SASS instruction: ncu's source page
# (PC sampling: WarpStateStats + SourceCounters) of the benchmark's 4th launch
# of one kernel per shape, as gzipped CSV under $OUT (src-<i>-<shape>.csv.gz);
# bench/kernels/ncu_source_summary.py summarizes one (issue #20 step 13).
#   BIN: folder holding fusecert-kernels (default bin, e.g. device_ab.sh's
#        bin-runner.tgz unpacked); PROFILES: "shape=regex ..." (kernel-name
#        regexes as in device_run.sh; default: 4096^2 x 512 _s4_cdiv and
#        4096^2 x 2048 _s4, bf16 W and states).
set -u
OUT=${OUT:-/tmp/fusecert-ncu-source-out}
BIN=${BIN:-bin}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
pp='pingpong_kernel<.int.4,..int.2,..int.128,.*DType.1,..fusecert::kernels::DType.1,'
PROFILES=${PROFILES:-"4096x4096x512=$pp.*(true|1)> 4096x4096x2048=$pp.*(false|0)>"}
ncu --version | tail -1 >"$OUT/ncu-src-env.txt"
i=0
for spec in $PROFILES; do
  i=$((i + 1)); shape=${spec%%=*}; k=${spec#*=}
  timeout 200 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" --launch-skip 3 --launch-count 1 \
    --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
    "$BIN/fusecert-kernels" bench --shapes "$shape" --reps 1 >"$OUT/src-$i-$shape.csv" 2>>"$OUT/ncu-src-env.txt"
  echo "$shape rc=$? $(wc -l <"$OUT/src-$i-$shape.csv") lines" | tee -a "$OUT/ncu-src-env.txt"
  gzip -f "$OUT/src-$i-$shape.csv"
done
