#!/usr/bin/env bash
# mpirun -np N spmd-run --check: the processes together must compute what
# the unpartitioned program computes on one device.
#   check.sh SPMD_RUN N PROGRAM MESH_CONFIG|- [EXTRA...]
set -euo pipefail
source "$(dirname "$0")/mpirun.sh"
bin=$1 n=$2 program=$3 config=$4
shift 4
[ "$config" = - ] || set -- --mesh-config="$config" "$@"
out=$(run_mpi "$n" "$bin" "$program" --check "$@" 2>&1) || {
  echo "$out"; exit 1; }
echo "$out"
# Only rank 0 prints: one timing line and one check line.
[ "$(grep -c '^compile_ms=' <<<"$out")" = 1 ]
grep -q "processes=$n" <<<"$out"
grep -q "^check: PASS" <<<"$out"
