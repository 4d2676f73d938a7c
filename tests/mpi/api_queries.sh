#!/usr/bin/env bash
# The C++ API under mpirun -np 2 (2 devices each): torch_xla's runtime
# queries per process; run() given a wrong input on one process only, or
# on meshes the processes built from device counts of their own: both
# processes fail at once (no MPI timeout), with the same message. So do
# processes gathering a tensor each placed with another spec.
#   api_queries.sh SPMD_QUERIES_PROCESS
set -euo pipefail
source "$(dirname "$0")/mpirun.sh"
tool=$1
export SPMD_NUM_DEVICES=2 SPMD_MPI_TIMEOUT=60
out=$(run_mpi 2 "$tool" queries 2>&1) || { echo "$out"; exit 1; }
echo "$out"
for rank in 0 1; do
  master=$([ $rank = 0 ] && echo 1 || echo 0)
  want="process $rank: world=2 global=4 addressable=2 local_devices=4 global_ordinal=$rank local_ordinal=$rank master=$master local_master=$master type=CPU memory=ok"
  grep -qxF "$want" <<<"$out" || { echo "expected: $want"; exit 1; }
done
expect_failures() { # expect_failures MODE MESSAGE
  local out line seconds
  out=$(run_mpi 2 "$tool" "$1" 2>&1) || { echo "$out"; exit 1; }
  echo "$out"
  for rank in 0 1; do
    line=$(grep "^process $rank: " <<<"$out")
    [[ $line == *": $2"* ]] || { echo "expected from process $rank: $2"; exit 1; }
    seconds=$(sed 's/^process [0-9]*: \([0-9.]*\) s:.*/\1/' <<<"$line")
    awk -v s="$seconds" 'BEGIN { exit !(s < 10) }' ||
      { echo "process $rank waited $seconds s"; exit 1; }
  done
}
expect_failures bad-input \
  'INVALID_ARGUMENT: process 1: input 0 is f32[8, 5] but the program takes f32[8, 4]'
expect_failures other-counts \
  'FAILED_PRECONDITION: the processes would run different programs for @f'
expect_failures other-placements \
  'FAILED_PRECONDITION: the processes placed this tensor differently'
echo "api queries: PASS"
