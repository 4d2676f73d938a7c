#!/usr/bin/env bash
# Usage: install_and_build.sh BUILD WORK SOURCE
# Installs the build tree BUILD into WORK/prefix, then configures and builds
# the CMake project SOURCE against it in WORK/build, as a user's project.
set -euo pipefail
build=$1 work=$2 source=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > /dev/null
cmake -S "$source" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work.configure.log" 2>&1 ||
  { cat "$work.configure.log"; exit 1; }
cmake --build "$work/build" > "$work.build.log" 2>&1 ||
  { cat "$work.build.log"; exit 1; }
