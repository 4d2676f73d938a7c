#!/usr/bin/env bash
# The C++ API's Megatron example under mpirun -np 2 with a HybridMesh file:
# each process holds the shards of its own block of devices, and rank 0's
# check against one device passes.
#   api_example.sh EXAMPLE CONFIG
set -euo pipefail
source "$(dirname "$0")/mpirun.sh"
out=$(run_mpi 2 "$1" "$2" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
grep -q "^process 0 of 2: local devices 0 1 2 3$" <<<"$out"
grep -q "^process 1 of 2: local devices 4 5 6 7$" <<<"$out"
grep -q "^check: PASS" <<<"$out"
