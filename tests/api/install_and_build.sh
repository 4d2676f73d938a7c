#!/usr/bin/env bash
# Usage: install_and_build.sh BUILD WORK SOURCE [CMAKE ARGS...]
# Installs the build tree BUILD into WORK/prefix, then configures and builds
# the CMake project SOURCE against it in WORK/build, as a user's project.
set -euo pipefail
build=$1 work=$2 source=$3
shift 3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > /dev/null
bash "$(dirname "$0")/build_against.sh" "$work/prefix" "$source" \
  "$work/build" "$@"
