#!/usr/bin/env bash
# The on-disk cache across processes: the first compiles and writes, the
# second reads (no propagation or partitioning), a corrupted entry is
# compiled again and rewritten, never trusted; results checked every time.
set -euo pipefail
bin=$1 dir=$2 layers=${3:-40}
rm -rf "$dir"
"$bin" "$dir" "$layers" | tee /dev/stderr | grep -q "compile: miss"
"$bin" "$dir" "$layers" | tee /dev/stderr | grep -q "compile: disk"
for entry in "$dir"/*.mlir; do
  # Flip one character of the body: the stored hash no longer matches.
  python3 - "$entry" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.index("linalg.matmul")
open(p, "w").write(s[:i] + "linalg.matvec" + s[i + len("linalg.matmul"):])
PY
done
"$bin" "$dir" "$layers" | tee /dev/stderr | grep -q "compile: rejected+miss"
"$bin" "$dir" "$layers" | tee /dev/stderr | grep -q "compile: disk"
# A program's warnings are kept with its entry: a process that reads it
# from disk has the same ones.
rm -rf "$dir"
first=$("$bin" --warnings "$dir")
second=$("$bin" --warnings "$dir")
printf '%s\n%s\n' "$first" "$second" >&2
warning='<string>:8:5: warning: result 0 is said to be the same on every device along "model"'
grep -q "compile: miss" <<<"$first" && grep -qF "$warning" <<<"$first"
grep -q "compile: disk" <<<"$second"
[ "$(tail -n +2 <<<"$first")" = "$(tail -n +2 <<<"$second")" ]
# Entries are those of one build of the compiler: the same libraries with
# one of them rebuilt (another build id) compile again, and keep their own
# entry beside the first build's.
libs=$(dirname "$(ldd "$bin" | awk '/libSpmdPasses/ {print $3}')")
other="$dir.other-build"
rm -rf "$dir" "$other" && mkdir -p "$other"
cp "$libs"/*.so* "$other"/
python3 - "$other/libSpmdPasses.so" <<'PY'
import re, subprocess, sys
path = sys.argv[1]
out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
old = bytes.fromhex(re.search(r"Build ID: ([0-9a-f]+)", out).group(1))
data = open(path, "rb").read()
assert data.count(old) == 1, "the build id is not found once"
open(path, "wb").write(data.replace(old, bytes(b ^ 0xff for b in old)))
PY
"$bin" "$dir" 4 | grep -q "compile: miss"
LD_LIBRARY_PATH="$other" "$bin" "$dir" 4 | tee /dev/stderr | grep -q "compile: miss"
LD_LIBRARY_PATH="$other" "$bin" "$dir" 4 | grep -q "compile: disk"
"$bin" "$dir" 4 | grep -q "compile: disk"
[ "$(ls "$dir"/*.mlir | wc -l)" = 2 ]
rm -rf "$other"
echo "cache: PASS"
