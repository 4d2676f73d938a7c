#!/usr/bin/env bash
# Usage: build_against.sh PREFIX SOURCE BUILD [CMAKE ARGS...]
# Configures and builds the CMake project SOURCE in BUILD against the
# package installed in PREFIX; the output of each step is in BUILD.*.log.
set -euo pipefail
prefix=$1 source=$2 build=$3
shift 3
cmake -S "$source" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" --no-warn-unused-cli "$@" \
  > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" > "$build.build.log" 2>&1 ||
  { cat "$build.build.log"; exit 1; }
