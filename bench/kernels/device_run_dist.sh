#!/bin/bash
# Multi-GPU batch (kind nvidia-h200-x2): the GPU GoogleTests on GPU 0, the P3
# distributed evidence and benchmark over NCCL (2 ranks, and 1 rank as a
# control), plus the single-GPU evidence rows (and, unless SKIP_SINGLE_BENCH
# is set, the benchmark) on GPU 0. Writes everything under $OUT.
# BIN: the folder holding fusecert-kernels (a kernels-only build such as
# build-kernels/, or copies of the binaries); test_kernels_gpu is looked up
# there and in BIN/tests. The exit status is 1 when any step failed.
set -u
OUT=${OUT:-/tmp/fusecert-kernels-out}
BIN=${BIN:-build-kernels-bin}
failed=0
step() {  # step NAME RC: record a failed step
  echo "$1 rc=$2"
  [ "$2" -eq 0 ] || failed=1
}
GTEST=$BIN/test_kernels_gpu
[ -x "$GTEST" ] || GTEST=$BIN/tests/test_kernels_gpu
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
if ! ldconfig -p | grep -q libnccl.so.2 && [ ! -e /usr/local/cuda/lib/libnccl.so.2 ]; then
  NCCL_DIR=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
  export LD_LIBRARY_PATH=$NCCL_DIR:$LD_LIBRARY_PATH
fi
{
  date -u
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  nvidia-smi topo -m
  ldd "$BIN/fusecert-kernels" | grep -E "nccl|cublas"
} >"$OUT/env.txt" 2>&1
echo "== gtest gpu (GPU 0)"
CUDA_VISIBLE_DEVICES=0 timeout 200 "$GTEST" >"$OUT/gtest_gpu.txt" 2>&1
step gtest $?; grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED" "$OUT/gtest_gpu.txt" | tail -12
echo "== distributed evidence, 2 ranks"
timeout 300 "$BIN/fusecert-kernels" evidence --distributed --ranks 2 >"$OUT/evidence-distributed.json" 2>>"$OUT/env.txt"
step evidence-2 $?; head -c 2500 "$OUT/evidence-distributed.json"; echo
echo "== distributed evidence, 1 rank (control)"
timeout 300 "$BIN/fusecert-kernels" evidence --distributed --ranks 1 >"$OUT/evidence-distributed-1rank.json" 2>>"$OUT/env.txt"
step evidence-1 $?
echo "== distributed bench, 2 ranks"
timeout 300 "$BIN/fusecert-kernels" bench --distributed --ranks 2 >"$OUT/bench-distributed.json" 2>>"$OUT/env.txt"
step bench-2 $?; python3 -c "
import json; d=json.load(open('$OUT/bench-distributed.json'))
for r in d['per_rank']: print(json.dumps({k: r.get(k) for k in ('rank','error','reduce_into_state_gemm','reduce_into_state','reduce_into_state_by_config','data_parallel','speedup','no_gradient_sized_buffer_in_reduce_into_state')}))"
if [ -z "${SKIP_SINGLE:-}" ]; then
  echo "== single-GPU evidence + bench on GPU 0"
  CUDA_VISIBLE_DEVICES=0 timeout 150 "$BIN/fusecert-kernels" evidence --format json >"$OUT/evidence.json" 2>>"$OUT/env.txt"
  step evidence-single $?
  python3 -c "import json;d=json.load(open('$OUT/evidence.json'));[print(r['row'],r['id'],r['passed']) for r in d['rows']]"
fi
if [ -z "${SKIP_SINGLE:-}" ] && [ -z "${SKIP_SINGLE_BENCH:-}" ]; then
  CUDA_VISIBLE_DEVICES=0 timeout 200 "$BIN/fusecert-kernels" bench --format json >"$OUT/bench.json" 2>"$OUT/bench.txt"
  step bench-single $?; cat "$OUT/bench.txt"
  python3 -c "
import json;d=json.load(open('$OUT/bench.json'))
for c in d['cases'][:4]: print(c['N'],c['H'],c['BT'],c['state'],{k[6:]:round(v,1) for k,v in c['fused_configs_us'].items() if 'wgmma' in k})"
fi
tail -5 "$OUT/env.txt"
exit $failed
