#!/usr/bin/env bash
# Installs the build tree into a prefix, then configures, builds and runs a
# separate CMake project against it with find_package(Spmd CONFIG).
set -euo pipefail
build=$1 work=$2 source=$(dirname "$0")/consumer
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > /dev/null
cmake -S "$source" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work.configure.log" 2>&1 ||
  { cat "$work.configure.log"; exit 1; }
cmake --build "$work/build" > "$work.build.log" 2>&1 ||
  { cat "$work.build.log"; exit 1; }
"$work/build/consumer"
