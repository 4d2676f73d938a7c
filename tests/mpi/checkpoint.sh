#!/usr/bin/env bash
# Checkpoints across processes: saved by 2 processes (4 devices each) on a
# 2x4 mesh, loaded bit for bit by 1 process on 4x2, by 2 processes whose
# devices split the other axis (ids column-major), by 4 processes with
# another spec, and saved again by 4 and loaded by 2.
#   checkpoint.sh SPMD_CHECKPOINT_PROCESS WORKDIR
set -euo pipefail
source "$(dirname "$0")/mpirun.sh"
tool=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
dir=$work/checkpoint
expect() { # expect STEP OUTPUT
  grep -q "^step $1$" <<<"$2" || { echo "expected step $1: $2"; exit 1; }
}
out=$(run_mpi 2 "$tool" save "$dir" 2x4 a,b 7 2>&1) || { echo "$out"; exit 1; }
echo "$out"
files=$(ls "$dir" | grep -c 'safetensors$')
[ "$files" = 2 ] || { echo "expected a shard file per process: $(ls "$dir")"; exit 1; }
out=$("$tool" verify "$dir" 4x2 b,a 2>&1) || { echo "$out"; exit 1; }
expect 7 "$out"
out=$(run_mpi 2 "$tool" verify "$dir" 2x4T a,b 2>&1) || { echo "$out"; exit 1; }
expect 7 "$out"
out=$(run_mpi 4 "$tool" verify "$dir" 8 a,- 2>&1) || { echo "$out"; exit 1; }
expect 7 "$out"
out=$(run_mpi 4 "$tool" save "$dir" 4x2 -,a+b 9 2>&1) || { echo "$out"; exit 1; }
out=$(run_mpi 2 "$tool" verify "$dir" 2x4 b,a 2>&1) || { echo "$out"; exit 1; }
expect 9 "$out"
# The shard file only process 1 reads is gone: process 1 fails on it,
# process 0 (which read all it needs) fails too, naming process 1.
out=$(run_mpi 2 "$tool" save "$dir" 2x4 a,b 11 2>&1) || { echo "$out"; exit 1; }
rm "$dir"/shards-*-00001.safetensors
if out=$(run_mpi 2 "$tool" verify "$dir" 2x4 a,b 2>&1); then
  echo "a load with a shard file missing succeeded: $out"; exit 1
fi
grep -q '^process 1: NOT_FOUND: .*-00001.safetensors' <<<"$out" &&
  grep -q '^process 0: .*process 1 could not load the checkpoint' <<<"$out" ||
  { echo "expected both processes to fail: $out"; exit 1; }
grep '^process' <<<"$out"
# Saved whole by one process, one byte flipped, loaded by 2 processes
# whose devices split the columns: each reads half of every chunk, so
# neither can verify a chunk alone; together they do (the load succeeded,
# holding the flipped byte).
out=$("$tool" save "$dir" 8 -,- 13 2>&1) || { echo "$out"; exit 1; }
shard=$(ls "$dir"/shards-*.safetensors)
size=$(stat -c %s "$shard")
printf '\x5a' | dd of="$shard" bs=1 seek=$((size - 1000000)) conv=notrunc 2>/dev/null
if out=$(run_mpi 2 "$tool" verify "$dir" 8 -,a 2>&1); then
  echo "a load of a corrupted shard split by columns succeeded: $out"; exit 1
fi
grep -q 'DATA_LOSS: .*do not match their checksum' <<<"$out" &&
  [ "$(grep -c '^process [01]:' <<<"$out")" = 2 ] ||
  { echo "expected both processes to fail, one naming the damage: $out"; exit 1; }
grep '^process' <<<"$out"
# Processes saving into folders that are not one shared folder (as
# node-local paths are) fail, and the checkpoint already there stays.
out=$(run_mpi 2 "$tool" save "$dir" 2x4 a,b 15 2>&1) || { echo "$out"; exit 1; }
if out=$(run_mpi 2 "$tool" save "$dir%p" 2x4 a,b 17 2>&1); then
  echo "a save into folders that are not shared succeeded: $out"; exit 1
fi
grep -q '^process 0: FAILED_PRECONDITION: .*every process must save into one shared folder' <<<"$out" &&
  grep -q '^process 1: .*process 0 could not write the checkpoint' <<<"$out" ||
  { echo "expected both processes to fail: $out"; exit 1; }
grep '^process' <<<"$out"
out=$(run_mpi 2 "$tool" verify "$dir" 2x4 a,b 2>&1) || { echo "$out"; exit 1; }
expect 15 "$out"
# Batches saved by 2 processes, fed by a ParallelLoader to 2 processes
# whose devices split the batch the other way: each reads only its rows.
out=$(run_mpi 2 "$tool" batches "$work/batches" 2x4 a,b 4 2>&1) || { echo "$out"; exit 1; }
out=$(run_mpi 2 "$tool" load-batches "$work/batches" 2x4T a+b,- 4 2>&1) || { echo "$out"; exit 1; }
echo "$out"
[ "$(grep -c '^process [01] read' <<<"$out")" = 2 ] || { echo "$out"; exit 1; }
out=$(run_mpi 4 "$tool" load-batches "$work/batches" 8 a,- 4 2>&1) || { echo "$out"; exit 1; }
echo "$out"
echo "checkpoint across processes: PASS"
