#!/usr/bin/env bash
# Runs one libFuzzer harness from build-fuzz/ for SECONDS (default 600).
#   fuzz/run.sh HARNESS [SECONDS] [extra libFuzzer flags...]
# Working corpus: build-fuzz/corpus/HARNESS (grows; seeded from fuzz/seeds and
# fixtures/ on first use). Crash/timeout/OOM inputs: build-fuzz/artifacts/HARNESS/.
# Log: build-fuzz/logs/HARNESS.log (FUZZ_LOG_SUFFIX=-x keeps several) (the last "#N DONE cov: ... exec/s" line is
# the run's figure for docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
h=$1; secs=${2:-600}; shift $(( $# >= 2 ? 2 : 1 ))
B=${FUZZ_BUILD_DIR:-build-fuzz}
corpus=$B/corpus/$h; art=$B/artifacts/$h; mkdir -p "$corpus" "$art" "$B/logs"
seeds=()
case $h in
  docs_fuzz)      seeds=(fixtures/docs docs) ;;
  docconfig_fuzz) seeds=(fuzz/seeds/docconfig) ;;
  mlir_fuzz)      seeds=(fixtures/ir) ;;
  cert_fuzz)      seeds=(fuzz/seeds/cert) ;;
  param_fuzz)     seeds=(fuzz/seeds/param) ;;
  shell_fuzz)     seeds=(fuzz/seeds/shell) ;;
  affine_fuzz|literal_fuzz|certstruct_fuzz) seeds=(fuzz/seeds/${h%_fuzz}) ;;
esac
# Only regular files as seeds (libFuzzer reads directories recursively itself,
# but fixtures/ holds subfolders and non-inputs).
seed_dir=$B/seeds/$h; rm -rf "$seed_dir"; mkdir -p "$seed_dir"
for s in "${seeds[@]}"; do
  find "$s" -type f -size -1000k | while read -r f; do cp "$f" "$seed_dir/$(echo "$f" | tr '/ ' '__')"; done
done
# FUZZ_NO_REGRESSIONS=1 leaves the regression inputs out of the seeds (for a
# binary built before their fix, so the run explores instead of re-crashing).
if [ -z "${FUZZ_NO_REGRESSIONS:-}" ] && [ -d "fuzz/regressions/$h" ]; then cp fuzz/regressions/$h/* "$seed_dir/" 2>/dev/null || true; fi
exec "$B/fuzz/$h" "$corpus" "$seed_dir" -max_total_time="$secs" -timeout=60 -rss_limit_mb=4096 \
  -max_len=${FUZZ_MAX_LEN:-65536} -print_final_stats=1 -artifact_prefix="$art/" "$@" \
  >"$B/logs/$h${FUZZ_LOG_SUFFIX:-}.log" 2>&1
