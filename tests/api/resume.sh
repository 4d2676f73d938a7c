#!/usr/bin/env bash
# examples/api/resume.cpp killed (SIGKILL) after step 5 of 10, its last
# checkpoint after step 4 (data parallel), resumed with the weights split
# (FSDP, another mesh and spec): it ends with the loss of a run never
# interrupted, within float rounding (the two sum gradients in other
# orders).
#   resume.sh SPMD_EXAMPLE_RESUME WORKDIR
set -uo pipefail
example=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
"$example" "$work/killed" 10 dp 5 >"$work/first.log" 2>&1
status=$?
cat "$work/first.log"
[ "$status" = 137 ] || { echo "expected the run to be killed (137), got $status"; exit 1; }
"$example" "$work/killed" 10 fsdp >"$work/resumed.log" 2>&1 || { cat "$work/resumed.log"; exit 1; }
cat "$work/resumed.log"
grep -q "^resumed at step 4 " "$work/resumed.log" || { echo "did not resume at step 4"; exit 1; }
"$example" "$work/whole" 10 dp >"$work/whole.log" 2>&1 || { cat "$work/whole.log"; exit 1; }
cat "$work/whole.log"
resumed=$(grep '^final loss' "$work/resumed.log" | cut -d' ' -f3)
whole=$(grep '^final loss' "$work/whole.log" | cut -d' ' -f3)
python3 - "$resumed" "$whole" <<'PY' || exit 1
import sys
a, b = map(float, sys.argv[1:3])
ok = abs(a - b) <= 1e-5 * abs(b)
print(f"final loss resumed {a}, uninterrupted {b}: {'equal' if ok else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
PY
echo "resume: PASS"
