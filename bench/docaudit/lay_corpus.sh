#!/usr/bin/env bash
# Lays the Tessera corpus out as a whole repository: every path of PATHS.txt
# as an empty file, then the real documents copied over them, so repository
# paths and links the documents cite resolve as they do in the full tree.
#   bench/docaudit/lay_corpus.sh CORPUS_DIR DEST_DIR [--no-config]
# --no-config: lay no .fusecert.yaml (the defaults alone, as the corpus test runs).
set -euo pipefail
corpus=${1:?corpus dir (../shared/corpus/tessera)}
dest=${2:?destination root}
corpus=$(cd "$corpus" && pwd)
rm -rf "$dest"
mkdir -p "$dest"
( cd "$dest" &&
  grep -v '^$' "$corpus/PATHS.txt" | grep '/' | sed 's|/[^/]*$||' | sort -u | tr '\n' '\0' | xargs -0 mkdir -p &&
  grep -v '^$' "$corpus/PATHS.txt" | tr '\n' '\0' | xargs -0 touch )
# Only files of that commit: a real file whose path PATHS.txt lists. Anything
# else under the corpus folder (a stray copy such as base/) is not part of the
# repository, and laying it would invent top-level folders the documents'
# paths would then resolve against.
( cd "$corpus" && grep -v '^$' PATHS.txt | while IFS= read -r f; do
    if [ -f "$f" ]; then install -D -m 644 "$f" "$dest/$f"; fi
  done )
if [ "${3:-}" != "--no-config" ]; then
  install -m 644 "$(dirname "$0")/tessera.fusecert.yaml" "$dest/.fusecert.yaml"
fi
echo "laid $(wc -l < "$corpus/PATHS.txt") paths under $dest"
