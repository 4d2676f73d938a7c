#!/usr/bin/env bash
# Saves killed (SIGKILL) at random points: after each, the folder loads, on
# another mesh and spec, as one complete step: the last step a save
# reported, or the one after it (killed after its index was renamed into
# place, before it printed), never a mix and never an earlier one.
#   checkpoint_kill.sh SPMD_CHECKPOINT_PROCESS WORKDIR RUNS
set -euo pipefail
tool=$1 work=$2 runs=$3
rm -rf "$work" && mkdir -p "$work"
dir=$work/checkpoint
"$tool" save "$dir" 2x4 a,b 1 >/dev/null
last=1
for run in $(seq 1 "$runs"); do
  start=$((run * 1000))
  "$tool" save "$dir" 2x4 a,b "$start" --repeat >"$work/log" 2>&1 &
  pid=$!
  # 0 to 400 ms: before the first save ends, in the middle of one, between.
  sleep "0.$(printf '%03d' $((RANDOM % 400)))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  reported=$( (grep -o '^saved [0-9]*' "$work/log" || true) | tail -1 | cut -d' ' -f2)
  out=$("$tool" verify "$dir" 4x2 b,- 2>&1) || {
    echo "run $run: the checkpoint does not load after a kill: $out"
    exit 1
  }
  step=${out#step }
  if [ -n "$reported" ]; then
    ok=$([ "$step" = "$reported" ] || [ "$step" = $((reported + 1)) ] && echo y || echo n)
  else
    ok=$([ "$step" = "$last" ] || [ "$step" = "$start" ] && echo y || echo n)
  fi
  if [ "$ok" != y ]; then
    echo "run $run: loaded step $step; last reported ${reported:-none}, before that $last"
    exit 1
  fi
  leftovers=$(ls "$dir" | grep -c . || true)
  echo "run $run: killed after step ${reported:-none} was reported saved; loads step $step ($leftovers files in the folder)"
  last=$step
done
echo "killed saves: PASS"
