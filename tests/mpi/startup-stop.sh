#!/usr/bin/env bash
# A process stopped (SIGSTOP) at a random point of start-up must not hang
# the others: each of them ends within the timeout (3 s here) plus 5 s of
# the stop, with exit code 1 and one error line that names the ranks it
# waited for; one of them at least names the stopped rank.
#   startup-stop.sh SPMD_RUN WORK_DIR [TRIALS_PER_SIZE] [SEED] [MAX_DELAY_MS]
# 1. Healthy runs on 2 and 4 processes with the short timeout: no error.
# 2. The end: rank 0 stalls writing its report (a FIFO nobody reads) and
#    is stopped there; rank 1, already ending, must not wait for it in
#    MPI_Finalize forever.
# 3. TRIALS_PER_SIZE (20) trials each on -np 2 and -np 4: one rank chosen
#    at random is stopped at a random delay in 0 .. MAX_DELAY_MS (800) ms
#    after the launch (MPI start-up, communicator creation, the first
#    runs).
# After each, the stopped rank is killed once the others ended (or the
# bound passed); mpirun and every process it started must then be gone.
# That last check failed once in some hundreds of trials in the sanitizer
# job under load (mpirun and one of the four processes stayed; not seen
# in 170 trials here): such a trial prints the processes left and runs
# again, and fails only if the repetition leaves processes too.
# --enable-recovery keeps mpirun from ending the others when the first one
# fails, so that each is seen ending by itself. The timeout comes from
# SPMD_MPI_TIMEOUT at -np 2 and from --mpi-timeout at -np 4.
set -uo pipefail
source "$(dirname "$0")/mpirun.sh"
# SPMD_STOP_TRIALS overrides TRIALS_PER_SIZE (the sanitizer job runs fewer).
bin=$1 work=$2 trials=${SPMD_STOP_TRIALS:-${3:-20}} seed=${4:-$$} max_delay=${5:-800}
here=$(cd "$(dirname "$0")" && pwd)
program=$here/collectives.mlir
timeout_s=3
bound_ms=$(((timeout_s + 5) * 1000))
# How an error names the ranks it waited for.
waited="(ranks? [0-9, ]+ did not answer|waited for ranks? [0-9]|rank [0-9]+ stopped)"
rm -rf "$work" && mkdir -p "$work"
RANDOM=$seed
echo "seed $seed, $trials trials per process count"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
alive() { kill -0 "$1" 2>/dev/null; }
failures=0 late=0 worst=0 total_start=$(now_ms) trial_name="" summary=()
left_over=()
# Each failure is printed where it happens and again at the end with its
# trial, so that a log cut in the middle still shows it.
failed() {
  echo "  FAIL: $*"
  failures=$((failures + 1))
  summary+=("$trial_name: $*")
}

# Each rank's pid (and its shell's) is written before it starts; its exit
# code and end time after.
wrapper='r=$OMPI_COMM_WORLD_RANK d=$0
  "$@" >"$d/out.$r" 2>"$d/err.$r" & p=$!
  echo "$p $$" >"$d/pid.$r.tmp" && mv "$d/pid.$r.tmp" "$d/pid.$r"
  wait $p; c=$?
  echo "$c $(($(date +%s%N) / 1000000))" >"$d/end.$r.tmp"
  mv "$d/end.$r.tmp" "$d/end.$r"'

# A process's state (ps's STAT: Z is a zombie, T stopped, D in the kernel).
state() { ps -o stat= -p "$1" 2>/dev/null || echo gone; }
# ROOT and every process under it: pid, parent, state, where it waits,
# command.
show_tree() {
  ps -e -o pid=,ppid=,stat=,wchan:24=,args= | awk -v root="$1" '
    { line[$1] = $0; parent[$1] = $2 }
    END { for (p in line) { q = p
            while (q != "" && q != root && q in parent && q != 1) q = parent[q]
            if (q == root) print "    " line[p] } }'
}

# trial NP VICTIM DELAY_MS DIR ITERS [ARGS...]: runs the program on NP
# processes (ITERS runs: enough that no stop comes after the end) and
# stops rank VICTIM DELAY_MS ms after the launch; VICTIM -1 stops none.
trial() {
  local np=$1 victim=$2 delay_ms=$3 dir=$4 iters=$5
  shift 5
  trial_name="np $np, rank $victim stopped after $delay_ms ms ($dir)"
  mkdir -p "$dir"
  local config=$here/a2_b4.yaml env=(env SPMD_MPI_TIMEOUT=$timeout_s) args=()
  if [ "$np" = 4 ]; then
    config=$here/a2_b4_four.yaml env=(env) args=(--mpi-timeout=$timeout_s)
  fi
  local launched mpirun_pid
  launched=$(now_ms)
  "${env[@]}" mpirun --oversubscribe --enable-recovery -np "$np" \
    bash -c "$wrapper" "$dir" "$bin" "$program" --mesh-config="$config" \
    --iters="$iters" "${args[@]}" "$@" >"$dir/mpirun.out" 2>&1 &
  mpirun_pid=$!
  local victim_pid="" stopped=0 stopped_ms deadline r all named=0
  if [ "$victim" -ge 0 ]; then
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    # A rank not started yet is stopped as soon as it is.
    deadline=$(($(now_ms) + 10000))
    while [ ! -f "$dir/pid.$victim" ] && [ "$(now_ms)" -lt $deadline ]; do
      sleep 0.01
    done
    [ -f "$dir/pid.$victim" ] && read -r victim_pid _ <"$dir/pid.$victim"
    [ -n "$victim_pid" ] && kill -STOP "$victim_pid" 2>/dev/null && stopped=1
  fi
  stopped_ms=$(now_ms)
  local at=$((stopped_ms - launched))
  # Wait for the others, up to the bound (a healthy run: 30 s).
  local bound=$((victim >= 0 ? bound_ms : 30000))
  deadline=$((stopped_ms + bound))
  while :; do
    all=1
    for ((r = 0; r < np; ++r)); do
      [ $r = "$victim" ] || [ -f "$dir/end.$r" ] || all=0
    done
    [ $all = 1 ] || [ "$(now_ms)" -ge $deadline ] && break
    sleep 0.02
  done
  local ended=()
  for ((r = 0; r < np; ++r)); do
    [ -f "$dir/end.$r" ] && ended[$r]=1
  done

  # Clean up: the stopped rank, then any rank still running.
  local pids=() p s
  for ((r = 0; r < np; ++r)); do
    [ -f "$dir/pid.$r" ] && read -r p s <"$dir/pid.$r" && pids+=("$p" "$s")
  done
  [ -n "$victim_pid" ] && kill -KILL "$victim_pid" 2>/dev/null
  for ((r = 0; r < np; ++r)); do
    [ -f "$dir/end.$r" ] || { read -r p _ <"$dir/pid.$r" &&
      kill -KILL "$p"; } 2>/dev/null
  done
  [ ${#pids[@]} = 0 ] || kill -CONT "${pids[@]}" 2>/dev/null
  deadline=$(($(now_ms) + 15000))
  while alive $mpirun_pid && [ "$(now_ms)" -lt $deadline ]; do sleep 0.05; done
  left_over=()
  if alive $mpirun_pid; then
    left_over+=("mpirun did not end after the stopped rank was killed; it and what runs under it:
$(show_tree $mpirun_pid)")
    pkill -KILL -P $mpirun_pid 2>/dev/null
    kill -KILL $mpirun_pid 2>/dev/null
  fi
  wait $mpirun_pid 2>/dev/null
  for ((r = 0; r < np; ++r)); do
    [ -f "$dir/pid.$r" ] && read -r p s <"$dir/pid.$r" || continue
    alive "$p" && left_over+=("rank $r's spmd-run ($p, $(state "$p")) is left over") &&
      kill -KILL "$p"
    alive "$s" && left_over+=("rank $r's shell ($s, $(state "$s")) is left over") &&
      kill -KILL "$s"
  done

  if [ "$victim" -ge 0 ] && [ $stopped = 0 ]; then
    echo "np $np: rank $victim ended before the stop at $at ms (not counted)"
    late=$((late + 1))
    return
  fi
  # Every other rank ended well: the stop came after the victim's last
  # exchange (a rank started late under load and stopped on its way out),
  # so it tested nothing.
  local healthy=1 code end_ms
  for ((r = 0; r < np; ++r)); do
    [ $r = "$victim" ] && continue
    [ -n "${ended[$r]:-}" ] && read -r code end_ms <"$dir/end.$r" &&
      [ "$code" = 0 ] && ! grep -q "error:" "$dir/err.$r" || healthy=0
  done
  if [ "$victim" -ge 0 ] && [ $healthy = 1 ]; then
    echo "np $np: rank $victim stopped at $at ms, after its last exchange:" \
      "the others completed (not counted)"
    late=$((late + 1))
    return
  fi
  if [ "$victim" -ge 0 ]; then
    echo "np $np: rank $victim stopped at $at ms after the launch"
  else
    echo "np $np: nothing stopped"
  fi
  for ((r = 0; r < np; ++r)); do
    [ $r = "$victim" ] && continue
    if [ -z "${ended[$r]:-}" ]; then
      failed "rank $r did not end within $((bound / 1000)) s of the stop"
      sed 's/^/    /' "$dir/err.$r" 2>/dev/null
      continue
    fi
    local code end_ms took
    read -r code end_ms <"$dir/end.$r"
    took=$((end_ms - stopped_ms))
    echo "  rank $r: exit $code after $took ms"
    sed 's/^/    /' "$dir/err.$r"
    if [ "$victim" -lt 0 ]; then
      [ "$code" = 0 ] && ! grep -q "error:" "$dir/err.$r" ||
        failed "rank $r: a healthy run failed"
      continue
    fi
    [ $took -gt $worst ] && worst=$took
    if [ "$code" != 1 ] || [ "$(grep -c "error:" "$dir/err.$r")" != 1 ] ||
      ! grep -Eq "^spmd-run: error: .*$waited" "$dir/err.$r"; then
      failed "rank $r: expected exit 1 and one error naming the ranks it" \
        "waited for"
    fi
    grep -Eq "^spmd-run: error: .*ranks? ([0-9]+, )*$victim([^0-9]|$)" \
      "$dir/err.$r" && named=1
  done
  # A rank may wait for another that waits for the stopped one (and name
  # it), but some rank waited for the stopped one itself.
  [ "$victim" -lt 0 ] || [ $named = 1 ] ||
    failed "no rank named rank $victim"
}

# trial, run again once if it left processes (see the top); the second
# time they fail it.
checked_trial() {
  trial "$@"
  [ ${#left_over[@]} = 0 ] && return
  printf '  left (the trial runs again): %s\n' "${left_over[@]}"
  trial "$1" "$2" "$3" "$4-again" "${@:5}"
  local m
  for m in "${left_over[@]}"; do failed "$m (in both runs)"; done
}

# 1. Healthy runs: the watchdog of start-up and end never fires.
checked_trial 2 -1 0 "$work/healthy-np2" 20
checked_trial 4 -1 0 "$work/healthy-np4" 20

# 2. Rank 0 stopped while it writes its report, rank 1 at its end.
mkfifo "$work/report.fifo"
checked_trial 2 0 2500 "$work/end-np2" 1 --report="$work/report.fifo"

# 3. Stops at random points of start-up.
for np in 2 4; do
  for ((t = 0; t < trials; ++t)); do
    checked_trial "$np" $((RANDOM % np)) $((RANDOM % (max_delay + 1))) \
      "$work/np$np-$t" 5000
  done
done
echo "$((2 * trials)) trials ($late ended before the stop or its effect) in" \
  "$((($(now_ms) - total_start) / 1000)) s; slowest end after a stop:" \
  "$worst ms; $failures failures"
# A stop after the end tests nothing: the runs must outlast the delays.
[ $((4 * late)) -le $((2 * trials)) ] ||
  failed "$late of $((2 * trials)) ranks ended before they were stopped"
[ $failures = 0 ] || {
  printf '  FAIL: %s\n' "${summary[@]}"
  echo "startup-stop: FAIL"
  exit 1
}
echo "startup-stop: PASS"
