#!/usr/bin/env bash
# Usage: consumer.sh BUILD WORK
# tests/api/consumer, a user's project, built against the installed
# package and run, three times: on C++17, on C++14 and on the compiler's
# default (clang 14's is C++14, when it is there): Spmd::spmd brings C++17
# itself. Configuring it must find abseil and Spmd only, with MLIR, LLVM,
# Eigen, fmt and MPI hidden, and print no "Could NOT find".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1 work=$2
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > /dev/null

# The installed headers: spmd.h and the plugin SDK, nothing else.
extra=$(cd "$work/prefix/include" &&
        find . -type f ! -path ./spmd/spmd.h ! -path './spmd/sdk/*')
if [[ -n $extra ]]; then
  echo "install: FAIL (headers beyond spmd.h and the SDK: $extra)"
  exit 1
fi

hidden=()
for package in MLIR LLVM Eigen3 fmt MPI; do
  hidden+=("-DCMAKE_DISABLE_FIND_PACKAGE_$package=ON")
done

# Usage: build_and_run NAME [CMAKE ARGS...]
build_and_run() {
  local name=$1 dir=$work/$1
  shift
  bash "$here/build_against.sh" "$work/prefix" "$here/consumer" "$dir" \
    "${hidden[@]}" "$@"
  if grep -i "could not find" "$dir.configure.log"; then
    echo "$name: FAIL (configuring reports a missing package)"
    exit 1
  fi
  local found
  found=$(sed -n 's/^\([A-Za-z0-9_]*\)_DIR:PATH=.*/\1/p' "$dir/CMakeCache.txt" |
          sort | tr '\n' ' ')
  if [[ $found != "Spmd absl " ]]; then
    echo "$name: FAIL (packages found: $found)"
    exit 1
  fi
  echo "$name: $("$dir/consumer" | tr '\n' ' ')"
}

build_and_run c++17 -DCMAKE_CXX_STANDARD=17
build_and_run c++14 -DCMAKE_CXX_STANDARD=14
if command -v clang++-14 > /dev/null; then
  build_and_run default -DCMAKE_CXX_COMPILER=clang++-14
else
  build_and_run default
fi
