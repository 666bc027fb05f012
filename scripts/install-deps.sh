#!/usr/bin/env bash
# Installs fusecert's build and test dependencies from Debian packages (apt only).
# Idempotent: packages already present are skipped. Add a package to the list of
# the feature that needs it; nothing is downloaded from anywhere but apt.
set -euo pipefail

PKGS_BUILD=(g++ cmake ninja-build pkg-config python3)
# nlohmann-json3-dev: also the JSON of kernels/ (a standalone kernels build on a GPU
# host without apt takes the .deb carried along: bench/kernels/device_run.sh).
PKGS_PROVER=(libz3-dev z3 libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libssl-dev)
# python3-jsonschema: tests/schemas validates every JSON output against docs/schemas/.
PKGS_TEST=(googletest libgtest-dev libgmock-dev python3-jsonschema)
# docaudit: cmark-gfm for Markdown; RE2 so a configured id_pattern runs in linear time.
PKGS_DOCS=(libcmark-gfm-dev libcmark-gfm-extensions-dev libre2-dev)
PKGS_IR=(llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools cvc5)
PKGS_SHELL=(libedit-dev tmux expect git pre-commit)
# Hardening (issue #7): clang + libFuzzer runtime for fuzz/, GNU time for the
# bad-input corpus's memory bound, locales for the determinism test's de_DE.UTF-8.
PKGS_FUZZ=(clang-19 libclang-rt-19-dev time locales)
# Installing (issue #22): the man page from --help, the .deb's shlibs Depends,
# bash completion; the workflow test's schema validation (Debian's python3).
PKGS_INSTALL=(help2man dpkg-dev bash-completion python3-jsonschema python3-yaml)

ALL=("${PKGS_BUILD[@]}" "${PKGS_PROVER[@]}" "${PKGS_TEST[@]}" "${PKGS_DOCS[@]}" "${PKGS_IR[@]}" "${PKGS_SHELL[@]}" "${PKGS_FUZZ[@]}" "${PKGS_INSTALL[@]}")

missing=()
for p in "${ALL[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# de_DE.UTF-8 for tests/determinism (generated once; needs the locales package).
ensure_locale() {
  if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
    echo "install-deps: generating the de_DE.UTF-8 locale"
    ${SUDO:-} localedef -i de_DE -f UTF-8 de_DE.UTF-8 || echo "install-deps: could not generate de_DE.UTF-8 (the determinism test will say so and skip that locale)"
  fi
}

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#ALL[@]} packages present"
  ensure_locale
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
ensure_locale
