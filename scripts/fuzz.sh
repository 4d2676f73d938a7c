#!/usr/bin/env bash
# Runs the libFuzzer targets of a build configured with -DSPMD_FUZZ=ON
# (scripts/sanitizer-tests.sh makes one in build-asan/): each for SECONDS
# (default 60), from the repository's inputs as seeds. New inputs go to
# BUILD/fuzz/<target>/corpus and are kept for the next run; a crash, hang
# (over 20 s) or allocation over 4 GiB is saved under BUILD/fuzz/<target>/
# and fails the run. The random seed is FUZZ_SEED (default 1, so CI runs
# the same inputs each time). The targets run at once, so the run takes
# SECONDS whatever their number. Long mode with fresh inputs:
#   FUZZ_SEED=$RANDOM scripts/fuzz.sh 3600
#   usage: scripts/fuzz.sh [SECONDS] [BUILD]
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-asan}
seed=${FUZZ_SEED:-1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0:detect_container_overflow=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run() {
  local target=$1 dict=$2 maxlen=$3
  shift 3
  local dir=$build/fuzz/$target status=0
  mkdir -p "$dir/corpus"
  echo "fuzz: $target for ${seconds} s, seed $seed"
  if ! "$build/bin/spmd-fuzz-$target" "$dir/corpus" "$@" \
      -dict="tests/fuzz/$dict" -max_len="$maxlen" \
      -max_total_time="$seconds" -seed="$seed" -timeout=20 -rss_limit_mb=4096 \
      -malloc_limit_mb=4096 -artifact_prefix="$dir/" -print_final_stats=1 \
      >"$dir/log" 2>&1; then
    status=1
    echo "fuzz: $target FAILED; log: $dir/log"
    grep -E "ERROR|SUMMARY|Test unit written" "$dir/log" | head -5
  fi
  grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$dir/log" |
    sed "s/^/fuzz: $target /"
  return $status
}

# Each target in the background, its lines printed when all are done.
pids=()
for spec in "pipeline mlir.dict 16384 tests/lit/run/Inputs tests/lit/partition" \
            "mesh-config mesh-config.dict 4096 tests/lit/Inputs" \
            "npy npy.dict 4096 tests/fuzz/seeds/npy" \
            "safetensors safetensors.dict 4096 tests/fuzz/seeds/safetensors"; do
  set -- $spec
  mkdir -p "$build/fuzz/$1"
  run $spec >"$build/fuzz/$1/summary" 2>&1 &
  pids+=("$!:$1")
done
failed=0
for entry in "${pids[@]}"; do
  wait "${entry%%:*}" || failed=1
  cat "$build/fuzz/${entry#*:}/summary"
done
[ $failed -eq 0 ] && echo "fuzz: no crashes, no hangs"
exit $failed
