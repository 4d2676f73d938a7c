#!/usr/bin/env bash
# A separate CMake project built against the installed package with
# find_package(Spmd CONFIG), then run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/install_and_build.sh" "$1" "$2" "$here/consumer"
"$2/build/consumer"
