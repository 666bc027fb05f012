#!/bin/bash
# A/B run of variants of the _pingpong kernel in one GPU call: builds the
# standalone kernels once, then for each variant rebuilds only
# fused_wgmma_pingpong.cu (with that variant's -D flags, or another copy of
# the file) and runs the benchmark on SHAPES, and dumps the SASS of the
# AdamW bf16/bf16 _pingpong kernels of each variant. The evidence rows run
# on the first variant. Writes under $OUT: variants.txt (the summary),
# bench-<name>.json, sass.tgz, env.txt.
#   VARIANTS: "name:FLAGS name:FLAGS ..." (FLAGS comma-separated -D flags or
#             "file=PATH" for another copy of the source; "-" for none)
#   SHAPES (default: the four target shapes), REPS (default 20),
#   NLOHMANN_DEB: the nlohmann-json3-dev .deb (the GPU host has no registry).
set -u
OUT=${OUT:-/tmp/fusecert-variants-out}
SHAPES=${SHAPES:-4096x4096x512,4096x4096x2048,4096x14336x512,4096x14336x2048}
REPS=${REPS:-20}
VARIANTS=${VARIANTS:-"new:-"}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
src=kernels/cuda/fused_wgmma_pingpong.cu
cp "$src" /tmp/pp_worktree.cu
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -1
} >"$OUT/env.txt" 2>&1
prefix=()
[ -n "${NLOHMANN_DEB:-}" ] && dpkg -x "$NLOHMANN_DEB" /tmp/nlohmann && prefix=(-DCMAKE_PREFIX_PATH=/tmp/nlohmann/usr)
mkdir -p /tmp/sass
first=1
for v in $VARIANTS; do
  name=${v%%:*}
  flags=${v#*:}
  cp /tmp/pp_worktree.cu "$src"
  # -D flags go into the copy of the source (so only this file rebuilds)
  case "$flags" in
    -) ;;
    file=*) cp "${flags#file=}" "$src" ;;
    *) { echo "$flags" | tr ',' '\n' | sed -E 's/^-D([A-Za-z0-9_]+)=?(.*)$/#define \1 \2/'
         cat /tmp/pp_worktree.cu; } >"$src" ;;
  esac
  echo "== variant $name ($flags) $(date -u +%T)" | tee -a "$OUT/env.txt"
  cmake -S kernels -B /tmp/bk -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" >>"$OUT/env.txt" 2>&1 &&
    ninja -C /tmp/bk fusecert-kernels >>"$OUT/env.txt" 2>&1 || { echo "build failed"; tail -30 "$OUT/env.txt"; continue; }
  cuobjdump --dump-sass /tmp/bk/fusecert-kernels >/tmp/sass/all.txt 2>&1
  python3 - "$name" <<'EOF'
import re, sys
name = sys.argv[1]
s = open('/tmp/sass/all.txt').read()
# one function per "Function : <mangled>" header
parts = re.split(r'\n\s*Function : ', s)
for p in parts[1:]:
    fn = p.split('\n', 1)[0].strip()
    m = re.search(r'pingpong_kernelILi[0-9]ELi(\d)ELi(\d+)ELNS0_9OptimizerE0ELNS0_5DTypeE1ELS4_1E', fn)
    if m:
        open('/tmp/sass/%s-nc%s-bn%s.sass' % (name, m.group(1), m.group(2)), 'w').write(p)
EOF
  echo "SASS totals: HGMMA $(grep -c HGMMA /tmp/sass/all.txt) LDL+STL $(grep -cE 'LDL|STL' /tmp/sass/all.txt)" >>"$OUT/env.txt"
  if [ $first = 1 ] && [ -z "${SKIP_EVIDENCE:-}" ]; then
    timeout 300 /tmp/bk/fusecert-kernels evidence --format json >"$OUT/evidence-$name.json" 2>>"$OUT/env.txt"
    echo "evidence rc=$?"
    python3 -c "import json;d=json.load(open('$OUT/evidence-$name.json'));[print(r['row'],r['id'],r['passed'],r['details'].get('mismatching_elements','')) for r in d['rows']]"
  fi
  first=0
  timeout 300 /tmp/bk/fusecert-kernels bench --format json --reps "$REPS" --shapes "$SHAPES" \
    >"$OUT/bench-$name.json" 2>>"$OUT/env.txt"
  echo "bench rc=$?"
done
cp /tmp/pp_worktree.cu "$src"
tar -C /tmp/sass -czf "$OUT/sass.tgz" $(cd /tmp/sass && ls *.sass 2>/dev/null)
python3 - "$OUT" $VARIANTS <<'EOF' | tee "$OUT/variants.txt"
import json, sys, os
out = sys.argv[1]
names = [v.split(':')[0] for v in sys.argv[2:]]
docs = {n: json.load(open(f'{out}/bench-{n}.json')) for n in names if os.path.exists(f'{out}/bench-{n}.json')}
keys = ['wgmma_128x128x64_pingpong', 'wgmma_128x64x64_pingpong', 'wgmma_128x128x64_tma2']
print('case'.ljust(26), ' '.join(f'{n}:{k[6:13]}{k[-4:]}'.rjust(20) for n in docs for k in keys), ' unfused(each)')
first = next(iter(docs.values()))
for i, c in enumerate(first['cases']):
    row = f"{c['N']}x{c['H']}x{c['BT']} {c['state']}".ljust(26)
    for n, d in docs.items():
        cc = d['cases'][i]
        for k in keys:
            row += f"{cc['fused_configs_us'].get(k, float('nan')):20.1f} "
    row += ' ' + ' '.join(f"{d['cases'][i]['unfused_us']:.1f}" for d in docs.values())
    print(row)
EOF
