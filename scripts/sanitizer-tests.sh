#!/usr/bin/env bash
# Builds the libraries, tools and tests with clang's AddressSanitizer and
# UndefinedBehaviorSanitizer, assertions (and the --debug-only traces, whose
# lit test runs here) and the libFuzzer targets (build-asan/), runs
# the unit tests, the lit tests, the robustness tests (300 mutants each) and
# one generator seed under them, then each fuzz target for FUZZ_SECONDS
# (default 60; scripts/fuzz.sh). Any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
cmake -S . -B build-asan -G Ninja -DCMAKE_CXX_COMPILER=clang++-22 \
  -DSPMD_SANITIZE=ON -DSPMD_FUZZ=ON -DSPMD_ENABLE_ASSERTIONS=ON \
  -DSPMD_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan
# libMLIR and libLLVM are not instrumented: their allocators' and
# containers' annotations from inline headers would be read as errors.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allow_user_poisoning=0:detect_container_overflow=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export SPMD_MUTANTS=300
# Left to the main job: the corpus models (auto-sharded and on MPI too),
# the long generator, oracle and reshard runs, the largest auto-sharding
# problems (many axes, repeated layers, whole models' patterns and budgets,
# the solver against brute force) and the check's tolerance tests on its
# largest programs. Under the sanitizers they take most of the time and
# add no new code paths: smaller tests of each run here, the nonlinear
# programs (their element-wise kernels) run 40, not 200, and the other
# random campaigns half their cases (spmd_cases in tests/CMakeLists.txt).
# So are the projects built against the installed package: an instrumented
# install links only into programs built with the same sanitizers. The best CPU
# path runs the other tests here; the baseline path is forced for the
# kernel unit tests and the oracle (the oracle on the best path, the lit
# and corpus runs on the baseline path, and the forced AVX2 and AVX-512
# runs are the main job's), and the check that the optimised evaluator's
# CPU-path copies inline it (a property of the optimised build). The random-stop MPI test runs 5 trials per
# process count, not 10: each trial sleeps through a timeout, and the
# sanitizers add no path to the waits.
export SPMD_STOP_TRIALS=5
ctest --test-dir build-asan -j2 --output-on-failure \
  -E '^(run/corpus/|pipeline/corpus/|propagate/corpus/|autoshard/corpus/|mpi/corpus/|run/fuzz/(seed-[2-9]|nonlinear)|run/oracle/|run/reshard-pairs|run/differential|api/out-of-tree-|cpu-path/avx|runtime/cpu-path-inlining|cpu-path/baseline/(lit|corpus)|lit/auto-shard/many-axes|lit/run/auto-shard-(layers|patterns|budget)\.|AutoShardProblemTest\.RandomChains|CheckProgram\.(NonlinearOpsAfterSplitSums|ThousandthOffAfterSplitSums|LargeRoundingErrors))'
python3 tests/tools/fuzz_programs.py build-asan/bin/spmd-run --nonlinear \
  --seed=1 --cases=40 --jobs=2
# The fuzzers look for leaks too: each input makes and destroys a context,
# so state a context should own but does not (kept in an op's external
# model, which MLIR frees without its destructor) shows up.
ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=0/detect_leaks=1} \
  scripts/fuzz.sh "${FUZZ_SECONDS:-60}" build-asan
echo "sanitizer wall-clock: $(( $(date +%s) - start )) s"
