#!/usr/bin/env bash
# Faults under mpirun: never a hang, always an error naming the rank.
#   faults.sh SPMD_RUN WORK_DIR
# 1. A config for 4 processes started with -np 2: every rank prints the
#    same one-line message and exits 2.
# 2. Rank 1 stops early (its inputs are missing): rank 0 stops with
#    "rank 1 stopped: ..." instead of waiting.
# 3. Rank 1 is killed mid-run (SIGKILL). With mpirun's defaults the job
#    ends at once and mpirun names rank 1; with --enable-recovery (mpirun
#    leaves the survivors running) rank 0 notices by itself within
#    --mpi-timeout and names rank 1. Both within the bound.
set -uo pipefail
source "$(dirname "$0")/mpirun.sh"
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
program=$here/collectives.mlir
config=$here/a2_b4.yaml
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

# 1. Process count mismatch.
out=$(run_mpi 2 "$bin" "$program" --mesh-config="$here/a2_b4_four.yaml" 2>&1)
code=$?
echo "$out"
[ $code -ne 0 ] || fail "a config for 4 processes ran on 2"
lines=$(grep "describes 4 processes but 2 were started" <<<"$out")
[ "$(wc -l <<<"$lines")" = 2 ] || fail "not every rank printed the message"
[ "$(sort -u <<<"$lines" | wc -l)" = 1 ] || fail "the ranks' messages differ"

# 2. Rank 1 exits early.
start=$(date +%s)
python3 "$here/../tools/npy_write.py" "$work/inputs" 1 i32:64x16 i32:6x5
out=$(mpirun --oversubscribe \
  -np 1 "$bin" "$program" --mesh-config="$config" --iters=1000 \
    --inputs="$work/inputs" : \
  -np 1 "$bin" "$program" --mesh-config="$config" --iters=1000 \
    --inputs="$work/missing" 2>&1)
code=$?
elapsed=$(( $(date +%s) - start ))
echo "$out"
[ $code -ne 0 ] || fail "the job succeeded without rank 1"
grep -q "rank 1 stopped: .*missing" <<<"$out" ||
  fail "rank 0 did not name rank 1 and its error"
[ $elapsed -le 30 ] || fail "took $elapsed s"

# 3. Rank 1 killed mid-run.
kill_rank1() {
  # The MPI process is the child of this shell: killed after 3 s of runs.
  echo "\"$bin\" \"$program\" --mesh-config=\"$config\" --iters=1000000 \
    --mpi-timeout=5 & pid=\$!; sleep 3; kill -9 \$pid; wait \$pid"
}
for mode in default recovery; do
  flags=()
  [ $mode = recovery ] && flags=(--enable-recovery)
  start=$(date +%s)
  # Rank 0 reports its own exit code (mpirun --enable-recovery exits 0
  # whatever its processes did).
  out=$(timeout 120 mpirun --oversubscribe "${flags[@]}" \
    -np 1 bash -c "\"$bin\" \"$program\" --mesh-config=\"$config\" \
      --iters=1000000 --mpi-timeout=5; echo \"rank 0 exit \$?\"" : \
    -np 1 bash -c "$(kill_rank1)" 2>&1)
  code=$?
  elapsed=$(( $(date +%s) - start ))
  echo "$out" | grep -v "^ *$"
  echo "$mode: exit $code after $elapsed s"
  [ $code -ne 124 ] || fail "$mode: hung"
  # 3 s of runs, then the 5 s timeout at most, and the teardown.
  [ $elapsed -le 20 ] || fail "$mode: took $elapsed s"
  if [ $mode = default ]; then
    [ $code -ne 0 ] || fail "default: mpirun exited 0"
    grep -Eq "process rank 1 |Process name: \[\[[0-9]+,1\],1\]" <<<"$out" ||
      fail "mpirun did not name rank 1"
  else
    grep -q "spmd-run: error: .*rank 1 did not answer within 5.00 s" <<<"$out" ||
      fail "rank 0 did not name rank 1"
    grep -q "rank 0 exit 1" <<<"$out" || fail "rank 0 did not exit 1"
  fi
done
# 4. Rank 0's check of the whole program outlasts the timeout: rank 0 says
#    it is alive meanwhile, so rank 1 waits for the verdict. Killed during
#    its check (--enable-recovery), rank 1 names it within the timeout
#    (it waited 30 minutes). The timeout, 3 s, is a fraction of the check
#    (13 s here, more under the sanitizers); at 1 s, rank 0's own start
#    (it keeps whole copies of the inputs for the check) once came later
#    than that under ASan on a loaded machine.
slow=$here/slow-check.mlir
out=$(timeout 300 mpirun --oversubscribe -np 2 "$bin" "$slow" \
  --mesh-config="$here/x_2x2.yaml" --check --mpi-timeout=3 2>&1)
code=$?
echo "$out"
[ $code -eq 0 ] || fail "a check longer than the timeout failed ($code)"
[ "$(grep -c "check: PASS" <<<"$out")" = 1 ] || fail "no verdict"
start=$(date +%s)
out=$(timeout 300 mpirun --oversubscribe --enable-recovery \
  -np 1 bash -c "\"$bin\" \"$slow\" --mesh-config=\"$here/x_2x2.yaml\" \
    --check --mpi-timeout=5 > \"$work/rank0.out\" & pid=\$!; \
    until grep -q run_ms \"$work/rank0.out\"; do sleep 0.1; done; \
    sleep 0.5; kill -9 \$pid; wait \$pid" : \
  -np 1 bash -c "\"$bin\" \"$slow\" --mesh-config=\"$here/x_2x2.yaml\" \
    --check --mpi-timeout=5; echo \"rank 1 exit \$?\"" 2>&1)
elapsed=$(( $(date +%s) - start ))
echo "$out" | grep -v "^ *$"
echo "rank 0 killed in its check: after $elapsed s"
grep -q "rank 0's check: rank 0 did not answer within 5.00 s" <<<"$out" ||
  fail "rank 1 did not name rank 0"
grep -q "rank 1 exit 1" <<<"$out" || fail "rank 1 did not exit 1"
[ $elapsed -le 60 ] || fail "rank 1 took $elapsed s"
# 5. Ranks given different flags (another --seed: other random inputs)
#    or configs: refused on every rank before anything runs (the seeds
#    gave a silently wrong result; the configs an MPI rank error).
for second in "--seed=2 --mesh-config=$config" \
              "--seed=1 --mesh-config=$here/x_2x2.yaml"; do
  out=$(timeout 120 mpirun --oversubscribe \
    -np 1 "$bin" "$program" --mesh-config="$config" --seed=1 --check : \
    -np 1 "$bin" "$program" --check $second 2>&1)
  code=$?
  echo "$out"
  [ $code -ne 0 ] || fail "ranks given $second ran"
  [ "$(grep -c "the processes were given different programs" <<<"$out")" = 2 ] ||
    fail "not every rank named the difference ($second)"
done
# 6. Ranks given input files that differ (each reads only its shards, so
#    they once ran on halves of two tensors): refused on every rank; the
#    same files in two folders run.
tools=$here/../tools
python3 "$tools/npy_write.py" "$work/in1" 1 i32:64x16 i32:6x5 >/dev/null
python3 "$tools/npy_write.py" "$work/in2" 2 i32:64x16 i32:6x5 >/dev/null
cp -r "$work/in1" "$work/in1-copy"
out=$(timeout 120 mpirun --oversubscribe \
  -np 1 "$bin" "$program" --mesh-config="$config" --inputs="$work/in1" : \
  -np 1 "$bin" "$program" --mesh-config="$config" --inputs="$work/in2" 2>&1)
code=$?
echo "$out"
[ $code -ne 0 ] || fail "ranks given different input files ran"
[ "$(grep -c "or input files: under mpirun" <<<"$out")" = 2 ] ||
  fail "not every rank named the input files"
out=$(timeout 120 mpirun --oversubscribe \
  -np 1 "$bin" "$program" --mesh-config="$config" --inputs="$work/in1" : \
  -np 1 "$bin" "$program" --mesh-config="$config" \
  --inputs="$work/in1-copy" 2>&1) || {
  echo "$out"; fail "the same files in two folders did not run"; }
echo "faults: PASS"
