#!/bin/sh
# Certify a generated module with N (default 10000) candidates and report wall
# time and peak memory (GNU time). usage: bench/ir/run.sh path/to/fusecert [N]
set -e
FC=${1:?usage: run.sh path/to/fusecert [N]}
N=${2:-10000}
DIR=$(mktemp -d)
python3 "$(dirname "$0")/gen_module.py" "$N" > "$DIR/bench.mlir"
echo "module: $(wc -c < "$DIR/bench.mlir") bytes, $N candidates"
/usr/bin/time -f "certify (text): wall %e s, peak RSS %M KiB" "$FC" certify "$DIR/bench.mlir" > "$DIR/out.txt"
echo "verdicts: $(grep -c ': legal:' "$DIR/out.txt") legal of $(grep -cE ': (legal|illegal|inconclusive):' "$DIR/out.txt")"
/usr/bin/time -f "certify --out (certificates): wall %e s, peak RSS %M KiB" "$FC" certify "$DIR/bench.mlir" --out "$DIR/certs" > /dev/null
echo "certificates: $(ls "$DIR/certs" | wc -l), $(du -sh "$DIR/certs" | cut -f1)"
rm -rf "$DIR"
