#!/usr/bin/env bash
# examples/custom_op built on its own against the installed package, then
# loaded as a plugin by the installed spmd-run: its three functions run on 4
# devices and are checked against one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source=$(cd "$here/../../examples/custom_op" && pwd)
bash "$here/install_and_build.sh" "$1" "$2" "$source"
plugin=$(find "$2/build" -name '*SpmdCustomOpPlugin*.so' | head -1)
for entry in norms rows both; do
  "$2/prefix/bin/spmd-run" --load-dialect-plugin="$plugin" \
    "$source/norms.mlir" --entry=$entry --check | grep -E "devices=4|check:"
done
