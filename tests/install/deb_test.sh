#!/bin/sh
# The Debian package (issue #22): cpack builds fusecert_<version>_<arch>.deb
# from the build tree; its Depends are the run-time libraries (libz3-4,
# libmlir-19, ...), each a package this Debian knows, and no build or test
# package; it holds the binary, the rules, the man page, the completion and
# the copyright file (Debian policy 12.5), and not the CUDA runner; unpacked anywhere, its binary proves from its own
# share/fusecert/rules.
# Usage: deb_test.sh BUILD_DIR SRCDIR CPACK
set -u
BUILD=$1 SRC=$2 CPACK=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
unset FUSECERT_RULES_DIR

"$CPACK" --config "$BUILD/CPackConfig.cmake" -B "$W/pkg" >"$W/cpack.log" 2>&1 ||
  { echo "FAIL: cpack: $(tail -20 "$W/cpack.log")"; exit 1; }
set -- "$W"/pkg/fusecert_*.deb
[ $# -eq 1 ] && [ -f "$1" ] || { echo "FAIL: want one fusecert_*.deb, got: $(ls "$W/pkg")"; exit 1; }
DEB=$1
[ "$(dpkg-deb -f "$DEB" Package)" = fusecert ] || fail "package name: $(dpkg-deb -f "$DEB" Package)"
ls "$W"/pkg/*.deb | grep -q kernels && fail "a kernels package was built (CUDA is not in Debian)"

deps=$(dpkg-deb -f "$DEB" Depends)
for want in libz3-4 libmlir-19 libyaml-cpp0.7 libcmark-gfm0.29.0.gfm.6 libssl3 libc6; do
  printf '%s\n' "$deps" | tr ',' '\n' | grep -q "^ *$want\( \|$\)" || fail "Depends lacks $want: $deps"
done
for bad in -dev g++ cmake googletest ninja; do
  printf '%s' "$deps" | grep -q -- "$bad" && fail "Depends names a build/test package ($bad): $deps"
done
# Every dependency is a package this Debian has (here: installed by install-deps.sh).
for p in $(printf '%s\n' "$deps" | tr ',' '\n' | sed -e 's/(.*)//' -e 's/|.*//' -e 's/ //g'); do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || fail "dependency $p is not a package here"
done
dpkg-deb -f "$DEB" Recommends | grep -q cvc5 || fail "cvc5 (check-cert --solver cvc5) not recommended"

dpkg-deb -c "$DEB" >"$W/contents"
for f in ./usr/bin/fusecert ./usr/share/fusecert/rules/propositions.yaml ./usr/share/fusecert/rules/docaudit/default.yaml \
         ./usr/share/man/man1/fusecert.1 ./usr/share/bash-completion/completions/fusecert \
         ./usr/share/doc/fusecert/copyright; do
  grep -q " $f\( \|$\)" "$W/contents" || fail "not in the package: $f"
done
grep -q "fusecert-kernels" "$W/contents" && fail "the CUDA runner is in the package"

dpkg-deb -x "$DEB" "$W/root" || fail "dpkg-deb -x"
# Debian policy 12.5: the copyright file, machine-readable (DEP-5), the one
# of the source tree; when the tree gets a LICENSE, its text must be in it.
CR="$W/root/usr/share/doc/fusecert/copyright"
cmp -s "$CR" "$SRC/cmake/copyright" || fail "the packaged copyright is not cmake/copyright"
[ "$(head -1 "$CR")" = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ] ||
  fail "copyright is not DEP-5: $(head -1 "$CR")"
grep -q "^Files: \*$" "$CR" || fail "copyright has no 'Files: *' paragraph"
# CLI11 and nlohmann-json are compiled into the binary: their licences, as Debian ships them.
grep -q "^License: BSD-3-clause$" "$CR" && grep -q "^License: Expat$" "$CR" ||
  fail "copyright lacks the BSD-3-clause (CLI11) or Expat (nlohmann-json) licence text"
if [ -f "$SRC/LICENSE" ]; then
  first=$(grep -m1 . "$SRC/LICENSE" | sed 's/^ *//')
  grep -qF "$first" "$CR" || fail "LICENSE exists but copyright does not carry it ($first)"
fi
mkdir -p "$W/cwd" && cd "$W/cwd" || exit 1
"$W/root/usr/bin/fusecert" prove P2 --no-witness >"$W/prove.log" 2>&1 || fail "the packaged binary does not prove: $(tail -5 "$W/prove.log")"
"$W/root/usr/bin/fusecert" --version | grep -q "MLIR" || fail "the packaged --version"

[ $fails -eq 0 ] && echo PASS
exit $fails
