#!/usr/bin/env bash
# spmd::spawn and spmd::dist across processes: the collective tests of
# spmd-api-tests (every op and type, groups crossing processes, point to
# point, a mismatch and a device that never comes) under mpirun -np N.
#   dist.sh SPMD_API_TESTS N
set -euo pipefail
source "$(dirname "$0")/mpirun.sh"
tests=$1 n=$2
export SPMD_MPI_TIMEOUT=30
out=$(run_mpi "$n" "$tests" --gtest_color=no \
  --gtest_filter='*DistCollectives*:DistAcrossProcesses.*:Xm.*' 2>&1) ||
  { echo "$out"; echo "dist: FAIL"; exit 1; }
passed=$(grep -c '^\[  PASSED  \] 51 tests' <<<"$out" || true)
[ "$passed" = "$n" ] || { echo "$out"; echo "dist: FAIL ($passed of $n processes passed 51 tests)"; exit 1; }
echo "dist: PASS on $n processes"
