#!/usr/bin/env bash
# The on-disk cache with what others may leave in it. Usage:
#   cache_hostile.sh SPMD_CACHE_PROCESS WORK_DIR planted|malformed|modes
# planted: links, FIFOs, devices, directories and oversized files where the
#   entry or its temporary file go: no file outside the cache is written,
#   no compile blocks, the entry is written anyway.
# malformed: entries whose hash was recomputed after the text was changed
#   into what crashed MLIR's parser or the runtime, or what the runtime
#   cannot run: each is refused (counted as rejected) and compiled again.
# modes: a cache that users other than its owner can write is refused,
#   unless read-only.
# Every compile must finish within 1 s with the right result.
set -euo pipefail
bin=$1 work=$2 section=$3
layers=2
rm -rf "$work"
mkdir -p "$work"
chmod 755 "$work"
dir=$work/cache
"$bin" "$dir" $layers >/dev/null
name=$(cd "$dir" && ls -- *.mlir)
key=${name%.mlir}
good=$work/good.mlir
cp "$dir/$name" "$good"
entry=$dir/$name
victim=$work/victim
case_name=

fail() {
  echo "FAIL ($case_name): $*"
  exit 1
}

# A new cache holding nothing.
fresh() {
  case_name=$1
  rm -rf "$dir"
  mkdir "$dir"
  chmod 755 "$dir"
  echo "not to be written" >"$victim"
}

# expect HOW [--readonly]: one process compiles (HOW: miss, disk or
# rejected+miss) within 1 s and checks its result.
expect() {
  local how=$1 out status=0
  shift
  out=$(timeout 10 "$bin" "$dir" $layers "$@" 2>&1) || status=$?
  [ $status -eq 0 ] || fail "exit status $status: $out"
  grep -q "^compile: $how " <<<"$out" || fail "expected compile: $how, got: $out"
  grep -q "^check: PASS" <<<"$out" || fail "$out"
  local seconds
  seconds=$(sed -n 's/^compile: [^ ]* //p' <<<"$out")
  awk -v s="$seconds" 'BEGIN { exit !(s < 1) }' ||
    fail "the compile took $seconds s"
}

# The entry is a regular file again, as the first process wrote it (a
# compile writes the same text each time).
rewritten() {
  [ -f "$entry" ] && [ ! -L "$entry" ] && cmp -s "$entry" "$good" ||
    fail "the entry was not written"
}

unchanged_victim() {
  [ "$(cat "$victim")" = "not to be written" ] || fail "the victim was written"
}

# The temporary names a cache might use, and the entry itself.
tmp_names=("$name.tmp" "$key.tmp" "$name.tmp.0" ".$name.tmp" "$name~"
           "$name.tmp.00000000" "$name.lock")

planted() {
  for tmp in "${tmp_names[@]}"; do
    fresh "link to a victim as $tmp"
    ln -s "$victim" "$dir/$tmp"
    expect miss
    unchanged_victim
    rewritten
    fresh "link to a missing file as $tmp"
    ln -s "$work/nothing/here" "$dir/$tmp"
    expect miss
    [ ! -e "$work/nothing" ] || fail "the link was followed"
    rewritten
    fresh "FIFO as $tmp"
    mkfifo "$dir/$tmp"
    expect miss
    rewritten
    fresh "directory as $tmp"
    mkdir "$dir/$tmp"
    expect miss
    rewritten
  done

  fresh "link to a victim as the entry"
  ln -s "$victim" "$entry"
  expect rejected+miss
  unchanged_victim
  rewritten
  fresh "link to a victim as the entry, read-only"
  ln -s "$victim" "$entry"
  expect rejected+miss --readonly
  unchanged_victim
  [ -L "$entry" ] || fail "a read-only cache was written"
  fresh "link to a good entry elsewhere"
  cp "$good" "$work/elsewhere.mlir"
  ln -s "$work/elsewhere.mlir" "$entry"
  expect rejected+miss
  rewritten
  fresh "FIFO as the entry"
  mkfifo "$entry"
  expect rejected+miss
  rewritten
  fresh "FIFO as the entry, read-only"
  mkfifo "$entry"
  expect rejected+miss --readonly
  [ -p "$entry" ] || fail "a read-only cache was written"
  fresh "/dev/zero as the entry"
  ln -s /dev/zero "$entry"
  expect rejected+miss
  rewritten
  fresh "/dev/zero as the entry, read-only"
  ln -s /dev/zero "$entry"
  expect rejected+miss --readonly
  fresh "directory as the entry"
  mkdir "$entry"
  expect rejected+miss
  expect rejected+miss
  [ -z "$(ls -A "$entry")" ] || fail "written into the directory"
  [ "$(ls -A "$dir")" = "$name" ] || fail "temporary files left: $(ls -A "$dir")"
  fresh "an entry larger than 1 GiB (sparse)"
  cp "$good" "$entry"
  truncate -s 1073741825 "$entry"
  expect rejected+miss
  rewritten
  fresh "an empty entry"
  : >"$entry"
  expect rejected+miss
  rewritten
  fresh "an entry cut short"
  head -c 200 "$good" >"$entry"
  expect rejected+miss
  rewritten
  fresh "no temporary files left"
  expect miss
  [ "$(ls -A "$dir")" = "$name" ] || fail "temporary files left: $(ls -A "$dir")"
  fresh "entries are writable by their owner only, whatever the umask"
  (umask 000 && expect miss)
  [ -z "$(find "$entry" -perm /022)" ] || fail "$(ls -l "$entry")"
  case_name="an entry written is read"
  expect disk
}

# mutant NAME PYTHON: the good entry changed by PYTHON (s is its text, the
# header included), then sealed: its hash is right.
mutant() {
  fresh "$1"
  python3 - "$good" "$entry" "$2" <<'PY'
import sys
s = open(sys.argv[1]).read()
header, body = s.split("\n", 1)
exec(sys.argv[3])
open(sys.argv[2], "w").write(header + "\n" + body)
PY
  "$bin" --seal "$entry"
}

# The entry's module with `function` added.
add_function='body = body.rstrip()[:-1] + FUNCTION + "}\n"'

malformed() {
  mutant "entry function renamed" 'body = body.replace("@chain", "@chain2")'
  expect rejected+miss
  rewritten
  mutant "entry function renamed, read-only" 'body = body.replace("@chain", "@chain2")'
  cp "$entry" "$work/mutant.mlir"
  expect rejected+miss --readonly
  cmp -s "$entry" "$work/mutant.mlir" || fail "a read-only cache was written"
  mutant "300000 nested brackets" \
    'body = body.replace("{spmd.partitioned}", "{spmd.partitioned, x = " + "[" * 300000 + "]" * 300000 + "}")'
  expect rejected+miss
  rewritten
  # A list of a name, and one of a number past 64 bits: MLIR's parser
  # dereferenced the null attribute either makes.
  for list in "[x]" "[99999999999999999999]"; do
    mutant "linalg.reduce dimensions = $list" "FUNCTION = '''
  func.func @r(%a: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = linalg.reduce ins(%a : tensor<4x4xf32>) outs(%b : tensor<4xf32>) dimensions = $list
      (%x: f32, %y: f32) {
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
      }
    return %0 : tensor<4xf32>
  }
'''
$add_function"
    expect rejected+miss
    rewritten
  done
  mutant "malformed linalg.transpose permutation" "FUNCTION = '''
  func.func @t(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = linalg.transpose ins(%a : tensor<4x4xf32>) outs(%b : tensor<4x4xf32>) permutation = [
    return %0 : tensor<4x4xf32>
  }
'''
$add_function"
  expect rejected+miss
  rewritten
  mutant "huge tensor.from_elements" "FUNCTION = '''
  func.func @f(%a: f32) -> tensor<99999999999xf32> {
    %0 = tensor.from_elements %a : tensor<99999999999xf32>
    return %0 : tensor<99999999999xf32>
  }
'''
$add_function"
  expect rejected+miss
  rewritten
  mutant "a 4096x4096 mesh" 'body = """module attributes {spmd.partitioned} {
  spmd.mesh @mesh = <["data"=4096, "model"=4096]>
  func.func @chain(%arg0: tensor<16x16xf32>, %arg1: tensor<16x16xf32>) -> tensor<16x16xf32> {
    return %arg0 : tensor<16x16xf32>
  }
}
"""'
  expect rejected+miss
  rewritten
  mutant "a tensor larger than memory" 'body = body.replace("tensor<8x4xf32>", "tensor<8x4000000000000xf32>")'
  expect rejected+miss
  rewritten
  mutant "an op that does not verify" 'body = body.replace("math.tanh %2", "math.tanh %arg1")'
  expect rejected+miss
  rewritten
  mutant "not MLIR" 'body = "\x00\xff garbage {{{ ((( <<<"'
  expect rejected+miss
  rewritten
  fresh "another key's entry"
  sed "1s/$key/0000000000000001/" "$good" >"$entry"
  expect rejected+miss
  rewritten
}

modes() {
  fresh "a group-writable cache"
  chmod g+w "$dir"
  out=$(timeout 10 "$bin" "$dir" $layers 2>&1) && fail "accepted: $out"
  grep -q "is writable by its group (mode 0775)" <<<"$out" || fail "$out"
  fresh "a world-writable cache"
  chmod o+w "$dir"
  out=$(timeout 10 "$bin" "$dir" $layers 2>&1) && fail "accepted: $out"
  grep -q "is writable by every user (mode 0757)" <<<"$out" || fail "$out"
  fresh "a world-writable sticky cache, as /tmp"
  chmod 1777 "$dir"
  out=$(timeout 10 "$bin" "$dir" $layers 2>&1) && fail "accepted: $out"
  grep -q "is writable by every user" <<<"$out" || fail "$out"
  fresh "a group-writable cache, read-only"
  cp "$good" "$entry"
  chmod g+w "$dir"
  expect disk --readonly
  fresh "a world-writable cache, read-only"
  cp "$good" "$entry"
  chmod o+w "$dir"
  expect disk --readonly
  fresh "a cache made under umask 002"
  rm -rf "$dir"
  (umask 002 && expect miss)
  [ -z "$(find "$dir" -maxdepth 0 -perm /022)" ] || fail "$(ls -ld "$dir")"
  # Only root can give a directory away.
  if [ "$(id -u)" = 0 ]; then
    fresh "a cache of another user"
    cp "$good" "$entry"
    chown 65534 "$dir"
    out=$(timeout 10 "$bin" "$dir" $layers 2>&1) && fail "accepted: $out"
    grep -q "belongs to another user (uid 65534" <<<"$out" || fail "$out"
    case_name="a cache of another user, read-only"
    expect disk --readonly
  else
    echo "skipped: a cache of another user (needs root to chown)"
  fi
}

"$section"
echo "cache $section: PASS"
