#!/usr/bin/env bash
# examples/custom_op built on its own against the installed package, then
# loaded as a plugin by the installed spmd-run: its three functions run on 4
# devices and are checked against one.
set -euo pipefail
build=$1 work=$2 source=$(cd "$(dirname "$0")/../../examples/custom_op" && pwd)
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > /dev/null
cmake -S "$source" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work.configure.log" 2>&1 ||
  { cat "$work.configure.log"; exit 1; }
cmake --build "$work/build" > "$work.build.log" 2>&1 ||
  { cat "$work.build.log"; exit 1; }
plugin=$(find "$work/build" -name '*SpmdCustomOpPlugin*.so' | head -1)
for entry in norms rows both; do
  "$work/prefix/bin/spmd-run" --load-dialect-plugin="$plugin" \
    "$source/norms.mlir" --entry=$entry --check | grep -E "devices=4|check:"
done
