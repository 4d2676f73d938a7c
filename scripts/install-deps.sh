#!/usr/bin/env bash
# Installs the Debian packages the build and tests need; does nothing when
# they are all present already.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ python3
  clang-22 libclang-rt-22-dev
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libeigen3-dev libabsl-dev libfmt-dev
  libopenmpi-dev openmpi-bin
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev
  coinor-libcbc-dev pkg-config
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
