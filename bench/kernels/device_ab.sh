#!/bin/bash
# A/B of _pingpong variants in one GPU call, with the variants compiled in
# parallel: the standalone kernels are configured once; the whole tree
# (this checkout's defaults: variant "new") builds while each other variant's
# copy of fused_wgmma_pingpong.cu is compiled with its -D flags by the same
# nvcc command, then linked into its own runner (the library with that one
# object replaced). The evidence rows run on "new"; the benchmark runs on
# SHAPES for every variant, ROUNDS times in turn (A B C A B C: drift falls on
# all), and the SASS of the AdamW bf16/bf16 _pingpong kernels of each variant
# is kept. Writes under $OUT (at most 7 files): ab.txt (the summary: median
# of the rounds per config), evidence-new.json, build.txt (configure, nvcc and
# ptxas -v output), sass.tgz, bin-runner.tgz and bin-tests.tgz (the "new"
# runner and GPU tests, for a later call to carry instead of rebuilding).
#   VARIANTS: "name:FLAGS ..." (FLAGS comma-separated -D flags), besides new
#   SHAPES (default: the four target shapes), REPS (default 20), ROUNDS (2)
#   NLOHMANN_DEB: the nlohmann-json3-dev .deb (the GPU host has no registry)
set -u
OUT=${OUT:-/tmp/fusecert-ab-out}
SHAPES=${SHAPES:-4096x4096x512,4096x4096x2048,4096x14336x512,4096x14336x2048}
REPS=${REPS:-20}
ROUNDS=${ROUNDS:-2}
VARIANTS=${VARIANTS:-"old:-DFK_PP_PREFETCH=0,-DFK_PP_ONEBRANCH=0"}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
log=$OUT/build.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -1; } >"$log" 2>&1
prefix=()
[ -n "${NLOHMANN_DEB:-}" ] && dpkg -x "$NLOHMANN_DEB" /tmp/nlohmann && prefix=(-DCMAKE_PREFIX_PATH=/tmp/nlohmann/usr)
B=/tmp/bk
cmake -S kernels -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" >>"$log" 2>&1 || { echo "configure failed"; tail -30 "$log"; exit 1; }
obj=$(cd $B && ninja -t commands fusecert-kernels | grep -o '[^ ]*fused_wgmma_pingpong\.cu\.o' | head -1)
cc=$(cd $B && ninja -t commands fusecert-kernels | grep -F -- "-o $obj" | head -1)
link=$(cd $B && ninja -t commands fusecert-kernels | tail -1)
lib=$(echo "$link" | grep -o '[^ ]*libfusecert_kernels_cuda\.a' | head -1)
[ -n "$obj" ] && [ -n "$cc" ] && [ -n "$lib" ] || { echo "could not find the build commands"; exit 1; }
echo "== $(date -u +%T) building new (ninja) and the variants (nvcc) in parallel" | tee -a "$log"
targets=fusecert-kernels
ninja -C $B -t targets all | grep -q '^test_kernels_gpu:' && targets="$targets test_kernels_gpu"
(ninja -C $B $targets >"$OUT/ninja.log" 2>&1; echo "ninja rc=$?" >>"$OUT/ninja.log") &
names=()
for v in $VARIANTS; do
  name=${v%%:*}; flags=$(echo "${v#*:}" | tr ',' ' ')
  names+=("$name")
  mkdir -p /tmp/v-$name
  vcc=${cc//$obj//tmp/v-$name/fused_wgmma_pingpong.cu.o}
  vcc=$(echo "$vcc" | sed -E "s#(nvcc[^ ]*) #\1 $flags #")
  (cd $B && eval "$vcc" >/tmp/v-$name/cc.log 2>&1; echo "rc=$?" >>/tmp/v-$name/cc.log) &
done
wait
echo "== $(date -u +%T) built" | tee -a "$log"
cat "$OUT/ninja.log" >>"$log"; rm -f "$OUT/ninja.log"
grep -q "ninja rc=0" "$log" || { echo "new failed to build"; grep -E "error|rc=" "$log" | head -30; exit 1; }
for n in "${names[@]}"; do
  echo "== variant $n" >>"$log"; cat /tmp/v-$n/cc.log >>"$log"
  cp $B/$lib /tmp/v-$n/lib.a && ar r /tmp/v-$n/lib.a /tmp/v-$n/fused_wgmma_pingpong.cu.o &&
    vlink=${link//$lib//tmp/v-$n/lib.a} &&
    vlink=$(echo "$vlink" | sed -E "s# -o fusecert-kernels # -o /tmp/v-$n/fusecert-kernels #") &&
    (cd $B && eval "$vlink") >>"$log" 2>&1 || echo "variant $n failed to link" | tee -a "$log"
done
mkdir -p /tmp/v-new && cp $B/fusecert-kernels /tmp/v-new/
all=(new "${names[@]}")
mkdir -p /tmp/sass
for n in "${all[@]}"; do
  [ -x /tmp/v-$n/fusecert-kernels ] || continue
  cuobjdump --dump-sass /tmp/v-$n/fusecert-kernels >/tmp/sass/all.txt 2>&1
  python3 - "$n" <<'EOF'
import re, sys
name = sys.argv[1]
s = open('/tmp/sass/all.txt').read()
for p in re.split(r'\n\s*Function : ', s)[1:]:
    fn = p.split('\n', 1)[0].strip()
    m = re.search(r'pingpong_kernelILi([0-9])ELi(\d)ELi(\d+)ELNS0_9OptimizerE0ELNS0_5DTypeE1ELS4_1ELb(\d)E', fn)
    if m:
        open('/tmp/sass/%s-s%s-nc%s-bn%s-cdiv%s.sass' % (name, m.group(1), m.group(2), m.group(3), m.group(4)), 'w').write(p)
EOF
  echo "SASS $n: HGMMA $(grep -c HGMMA /tmp/sass/all.txt) LDL+STL $(grep -cE 'LDL|STL' /tmp/sass/all.txt) MUFU.RCP $(grep -c 'MUFU.RCP' /tmp/sass/all.txt) FCHK $(grep -c FCHK /tmp/sass/all.txt)" | tee -a "$log"
done
tar -C /tmp/sass -czf "$OUT/sass.tgz" $(cd /tmp/sass && ls *.sass 2>/dev/null)
tar -C $B -czf "$OUT/bin-runner.tgz" fusecert-kernels 2>>"$log"
[ -x $B/tests/test_kernels_gpu ] && tar -C $B -czf "$OUT/bin-tests.tgz" tests/test_kernels_gpu 2>>"$log"
if [ -z "${SKIP_EVIDENCE:-}" ]; then
  echo "== $(date -u +%T) evidence (new)" | tee -a "$log"
  timeout 300 /tmp/v-new/fusecert-kernels evidence --format json >"$OUT/evidence-new.json" 2>>"$log"
  echo "evidence rc=$?"
  python3 -c "import json;d=json.load(open('$OUT/evidence-new.json'));[print(r['row'],r['id'],r['passed'],r['details'].get('mismatching_elements',''),r['details'].get('div_checked','')) for r in d['rows']]"
fi
for r in $(seq 1 "$ROUNDS"); do
  for n in "${all[@]}"; do
    [ -x /tmp/v-$n/fusecert-kernels ] || continue
    echo "== $(date -u +%T) round $r: $n" >>"$log"
    timeout 200 /tmp/v-$n/fusecert-kernels bench --format json --reps "$REPS" --shapes "$SHAPES" \
      >/tmp/ab-$n-$r.json 2>>"$log"
  done
done
python3 - "$ROUNDS" "${all[@]}" <<'EOF' | tee "$OUT/ab.txt"
import json, sys, os, statistics
rounds = int(sys.argv[1]); names = sys.argv[2:]
docs = {n: [json.load(open(f'/tmp/ab-{n}-{r}.json')) for r in range(1, rounds + 1)
            if os.path.exists(f'/tmp/ab-{n}-{r}.json')] for n in names}
docs = {n: d for n, d in docs.items() if d}
keys = ['wgmma_128x128x64_pingpong', 'wgmma_128x128x64_pingpong_s4', 'wgmma_128x128x64_pingpong_cdiv',
        'wgmma_128x128x64_pingpong_s4_cdiv', 'wgmma_128x64x64_pingpong_s5']
print('median of', rounds, 'rounds (each round: every variant in turn); per round in brackets')
first = next(iter(docs.values()))[0]
for i, c in enumerate(first['cases']):
    print(f"{c['N']}x{c['H']}x{c['BT']} {c['state']}:")
    for n, ds in docs.items():
        cells = []
        for k in keys:
            vals = [d['cases'][i]['fused_configs_us'].get(k, float('nan')) for d in ds]
            cells.append(f"{k[6:]} {statistics.median(vals):7.1f} [{' '.join(f'{x:.1f}' for x in vals)}]")
        best = [d['cases'][i]['fused_us'] for d in ds]
        unf = [d['cases'][i]['unfused_us'] for d in ds]
        print(f"  {n:8s} best {statistics.median(best):7.1f} unfused {statistics.median(unf):7.1f} | " + ' | '.join(cells))
EOF
echo "== $(date -u +%T) done" | tee -a "$log"
