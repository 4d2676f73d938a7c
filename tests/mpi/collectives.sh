#!/usr/bin/env bash
# Every collective kind (tests/mpi/collectives.mlir, i32, exact) on one
# process and under mpirun -np 2 and -np 4: the outputs must be identical
# byte for byte, and each process's bytes through MPI must equal the
# analytic DCN share of each collective (dcn_bytes.py).
#   collectives.sh SPMD_RUN WORK_DIR
set -euo pipefail
source "$(dirname "$0")/mpirun.sh"
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
program=$here/collectives.mlir
rm -rf "$work" && mkdir -p "$work"
python3 "$here/../tools/npy_write.py" "$work/in" 7 i32:64x16 i32:6x5
"$bin" "$program" --inputs="$work/in" --outputs="$work/one"
for case in "2 a2_b4" "4 a2_b4_four"; do
  set -- $case
  run_mpi "$1" "$bin" "$program" --mesh-config="$here/$2.yaml" \
    --inputs="$work/in" --outputs="$work/$2" --report="$work/$2.json"
  for result in "$work"/one/result*.npy; do
    cmp "$result" "$work/$2/$(basename "$result")" ||
      { echo "FAIL: $(basename "$result") differs on $1 processes"; exit 1; }
  done
  python3 "$here/dcn_bytes.py" "$program" "$here/$2.yaml" "$work/$2.json"
done
echo "collectives: PASS"
