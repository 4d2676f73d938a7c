#!/usr/bin/env python3
"""A campaign against the on-disk compile cache: no entry, file or mode that
others may leave in a cache directory may crash or hang a compile, change a
file outside the cache, or be trusted unless its hash was recomputed.

Usage: cache_campaign.py SPMD_CACHE_PROCESS [--seed=S] [--cases=N]
           [--jobs=J] [--timeout=SEC] [--work=DIR]

Cases that fail are kept in DIR (default: a temporary folder).

Each case is one run of tests/api/cache_process.cpp (a 2-layer sharded
chain compiled with the cache, run on 8 devices and checked) on a cache
directory of its own holding one of:
  stale:     the good entry with its text changed (characters deleted and
             inserted, numbers replaced, pieces repeated, bytes flipped,
             cut short) and its hash not recomputed;
  sealed:    the same with the hash recomputed (--seal);
  hazard:    statements that crashed MLIR's parser or the runtime (deep
             nesting, malformed linalg lists, huge tensor.from_elements,
             huge meshes and tensors, renamed or missing functions), sealed;
  special:   a FIFO, a socket, a directory, a hard link or a symbolic link
             (to a victim file, /dev/zero, /dev/null, nowhere, a good entry)
             as the entry or under a name a temporary file might take;
  mode:      the directory group- or world-writable (or another user's,
             when run as root), the entry of another mode;
  oversized: a sparse entry of more than 1 GiB.
A quarter of the cases run with the cache read-only.

Expected: a directory others can write is refused unless read-only; else
the compile succeeds with the right result, the entry is rewritten (to the
same text as the first process wrote) unless read-only or a directory is in
the way, a read-only cache is left as it was, the victim is unchanged and
no temporary file is left. An entry whose hash was recomputed may be
trusted (`disk`): then a wrong result or a run error is the trust model's,
counted apart (`trusted`), never a crash or a hang.

Ends with the figures and `cases: N passed, M failed`; exits 1 if M > 0.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutation_campaign  # noqa: E402

LAYERS = "2"
CHARS = "{}[]<>(),=?@\"0123456789-%:x \n"
TMP_NAMES = ["{name}.tmp", "{key}.tmp", "{name}.tmp.0", ".{name}.tmp",
             "{name}~", "{name}.tmp.0000000000000000", "{name}.lock"]
MODES = [0o700, 0o755, 0o750, 0o705, 0o775, 0o777, 0o757, 0o1777, 0o720,
         0o702, 0o770]


def mutate_text(text, rng):
    """mutation_campaign's mutants (characters deleted and inserted, numbers
    replaced, pieces repeated), or the text cut or two lines swapped."""
    kind = rng.randrange(4)
    if kind < 2 or not text:
        return mutation_campaign.mutate_text(text, rng, CHARS)
    if kind == 2:
        return text[:rng.randrange(len(text))]
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def flip_bytes(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def deep(rng):
    depth = rng.choice([100, 511, 513, 2000, 300000])
    open_, close = rng.choice([("[", "]"), ("(", ")"), ("{", "}"), ("<", ">")])
    return open_ * depth + close * depth


def function(rng, name):
    """A function that crashed MLIR's parser or the runtime, as text."""
    kind = rng.randrange(5)
    if kind == 0:
        op, keyword, rank = rng.choice([("reduce", "dimensions", 1),
                                        ("broadcast", "dimensions", 2),
                                        ("transpose", "permutation", 2)])
        lst = rng.choice(["[x]", "[", "[1,", "[-]", "[1 2]", "3", "[0, ]",
                          "[99999999999999999999]", "[%a]", "[[0]]"])
        out = "tensor<4xf32>" if rank == 1 else "tensor<4x4xf32>"
        body = ("      (%x: f32, %y: f32) {\n        %s = arith.addf %x, %y : f32\n"
                "        linalg.yield %s : f32\n      }\n") if op == "reduce" else ""
        return ("  func.func @%s(%%a: tensor<4x4xf32>, %%b: %s) -> %s {\n"
                "    %%0 = linalg.%s ins(%%a : tensor<4x4xf32>) outs(%%b : %s) %s = %s\n%s"
                "    return %%0 : %s\n  }\n") % (name, out, out, op, out, keyword, lst, body, out)
    if kind == 1:
        dims = "x".join(rng.choice(["99999999999", "4294967297", "?", "65536",
                                    "0", "3"]) for _ in range(rng.randint(1, 3)))
        t = "tensor<%sxf32>" % dims
        return ("  func.func @%s(%%a: f32) -> %s {\n"
                "    %%0 = tensor.from_elements %%a, %%a, %%a : %s\n"
                "    return %%0 : %s\n  }\n") % (name, t, t, t)
    if kind == 2:
        return "  func.func @%s() attributes {x = %s} {\n    return\n  }\n" % (name, deep(rng))
    if kind == 3:
        t = "tensor<%dx%dxf32>" % (rng.choice([1, 4096, 1 << 20, 1 << 31]),
                                   rng.choice([1, 4096, 1 << 20, 1 << 31]))
        return ("  func.func @%s() -> %s {\n    %%0 = tensor.empty() : %s\n"
                "    return %%0 : %s\n  }\n") % (name, t, t, t)
    return "  func.func private @%s(%s)\n" % (name, deep(rng))


def hazard(body, rng):
    """The good entry's body (text) with something that crashed or hung."""
    kind = rng.randrange(8)
    if kind == 0:
        return body.replace("{spmd.partitioned}", "{spmd.partitioned, x = %s}" % deep(rng))
    if kind == 1:
        return body.rstrip()[:-1] + function(rng, rng.choice(["r", "chain", "main"])) + "}\n"
    if kind == 2:
        sizes = [rng.choice([0, 1, 2, 3, 4, 8, 4096, 65536, 1 << 31]) for _ in range(2)]
        return body.replace('"data"=2, "model"=4', '"data"=%d, "model"=%d' % tuple(sizes))
    if kind == 3:
        d, m = rng.choice([(4096, 4096), (8192, 2), (65536, 1), (4, 4), (2, 8)])
        return ('module attributes {spmd.partitioned} {\n'
                '  spmd.mesh @mesh = <["data"=%d, "model"=%d]>\n'
                '  func.func @chain(%%arg0: tensor<16x16xf32>, %%arg1: tensor<16x16xf32>) -> tensor<16x16xf32> {\n'
                '    return %%arg0 : tensor<16x16xf32>\n  }\n}\n') % (d, m)
    if kind == 4:
        return body.replace(rng.choice(["@chain", "@mesh", "spmd.partitioned",
                                        "spmd.global_type", "spmd.sharding",
                                        '"model"', "%arg1"]),
                            rng.choice(["@other", "", "@chain", "x", '"data"']))
    if kind == 5:
        return body.replace("tensor<8x4xf32>", "tensor<%sx4xf32>" %
                            rng.choice(["4000000000000", "?", "0", "16", "9223372036854775807"]))
    if kind == 6:
        extra = '  spmd.mesh @big = <["a"=%d]>\n' % rng.choice([16, 8192, 1 << 24])
        return body.replace("  spmd.mesh @mesh", extra + "  spmd.mesh @mesh", 1).replace(
            "on @mesh", "on @big")
    return body.replace("module attributes", "module @m attributes", 1) + rng.choice(
        ["", "module {}\n", "func.func @chain() {\n  return\n}\n"])


class Case:
    def __init__(self, index, rng, good, name):
        self.index = index
        self.rng = rng
        self.good = good
        self.name = name
        self.key = name[:-len(".mlir")]
        self.kind = rng.choice(["stale", "stale", "sealed", "sealed", "hazard",
                                "hazard", "special", "special", "mode", "oversized"])
        self.readonly = rng.random() < 0.25
        self.sealed = self.kind in ("sealed", "hazard")
        self.planted = []        # names the case put there besides the entry
        self.entry_kind = "file"  # what is at the entry's path: file, none, dir, other
        self.mode = 0o755
        self.owner = None
        self.note = self.kind


def prepare(case, folder, binary, victim):
    rng = case.rng
    os.makedirs(folder)
    os.chmod(folder, 0o755)
    entry = os.path.join(folder, case.name)
    header, body = case.good.split(b"\n", 1)
    if case.kind in ("stale", "sealed"):
        how = rng.randrange(3)
        if how == 0:
            text = header + b"\n" + mutate_text(body.decode(), rng).encode()
        elif how == 1:
            text = flip_bytes(case.good, rng)
        else:
            text = case.good[:rng.randrange(len(case.good) + 1)]
        with open(entry, "wb") as f:
            f.write(text)
        case.note += ["-text", "-bytes", "-cut"][how]
    elif case.kind == "hazard":
        with open(entry, "wb") as f:
            f.write(header + b"\n" + hazard(body.decode(), rng).encode())
    elif case.kind == "special":
        at_entry = rng.random() < 0.5
        if at_entry:
            target = entry
        else:
            target = os.path.join(folder, rng.choice(TMP_NAMES).format(name=case.name, key=case.key))
            case.planted.append(os.path.basename(target))
            if rng.random() < 0.5:
                with open(entry, "wb") as f:
                    f.write(case.good)
            else:
                case.entry_kind = "none"
        what = rng.choice(["fifo", "socket", "dir", "hardlink", "victim", "devzero",
                           "devnull", "dangling", "good-elsewhere"])
        if what == "fifo":
            os.mkfifo(target)
        elif what == "socket":
            s = socket.socket(socket.AF_UNIX)
            s.bind(target)
            s.close()
        elif what == "dir":
            os.mkdir(target)
        elif what == "hardlink":
            os.link(victim, target)
        elif what == "victim":
            os.symlink(victim, target)
        elif what == "devzero":
            os.symlink("/dev/zero", target)
        elif what == "devnull":
            os.symlink("/dev/null", target)
        elif what == "dangling":
            os.symlink(os.path.join(folder, "..", "nowhere", "x"), target)
        else:
            elsewhere = os.path.join(folder, "..", "elsewhere-%d.mlir" % case.index)
            with open(elsewhere, "wb") as f:
                f.write(case.good)
            os.symlink(elsewhere, target)
        if at_entry:
            case.entry_kind = "dir" if what == "dir" else "other"
        case.note += "-%s-%s" % (what, "entry" if at_entry else "tmp")
    elif case.kind == "mode":
        with open(entry, "wb") as f:
            f.write(case.good)
        os.chmod(entry, rng.choice([0o000, 0o200, 0o444, 0o644, 0o666, 0o600]))
        case.mode = rng.choice(MODES)
        if os.geteuid() == 0 and rng.random() < 0.2:
            case.owner = 65534
            os.chown(folder, 65534, -1)
        os.chmod(folder, case.mode)
        case.note += "-%04o%s" % (case.mode, "-other-owner" if case.owner else "")
    else:  # oversized
        with open(entry, "wb") as f:
            f.write(case.good)
            f.truncate((1 << 30) + rng.choice([1, 4096, 1 << 30]))
    if case.sealed and os.path.isfile(entry):
        subprocess.run([binary, "--seal", entry], check=True)


def snapshot(path):
    """What is at `path`, without following a link."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(st.st_mode):
        if st.st_size > (1 << 30):
            return ("big", st.st_size, st.st_ino)
        try:
            with open(path, "rb") as f:
                return ("file", f.read())
        except PermissionError:  # a mode case, not run as root
            return ("unreadable", st.st_ino)
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path))
    return ("other", stat.S_IFMT(st.st_mode), st.st_ino)


def run_case(case, binary, root, timeout):
    """None if the case behaved, else why not; and the outcome."""
    folder = os.path.join(root, "case-%d" % case.index)
    victim = os.path.join(root, "victim-%d" % case.index)
    with open(victim, "wb") as f:
        f.write(b"not to be written\n")
    prepare(case, folder, binary, victim)
    entry = os.path.join(folder, case.name)
    before = snapshot(entry)
    cmd = [binary, folder, LAYERS] + (["--readonly"] if case.readonly else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return "hang: no answer within %d s" % timeout, "hang", 0.0
    out = p.stdout + p.stderr
    m = re.search(r"^compile: (\S+) ([0-9.]+)", p.stdout, re.M)
    how, seconds = (m.group(1), float(m.group(2))) if m else (None, 0.0)
    if p.returncode < 0 or p.returncode not in (0, 1, 3, 4):
        return "crash: exit %d: %s" % (p.returncode, out[-400:]), "crash", seconds
    with open(victim, "rb") as f:
        if f.read() != b"not to be written\n":
            return "the victim was written", "victim", seconds
    refused = not case.readonly and (case.mode & 0o022 or case.owner is not None)
    if refused:
        if p.returncode == 1 and ("is writable by" in out or "belongs to another user" in out):
            return None, "refused", seconds
        return "a cache others can write was not refused: %s" % out[-300:], "accepted", seconds
    if p.returncode == 1:
        return "the compile failed: %s" % out[-400:], "error", seconds
    trusted = how == "disk" and before != ("file", case.good)
    if p.returncode in (3, 4) or (trusted and "check: PASS" not in out):
        if trusted and case.sealed:
            return None, "trusted-wrong", seconds
        return "wrong result or run error (%s): %s" % (how, out[-400:]), "wrong", seconds
    if trusted and not case.sealed:
        return "an entry whose hash was not recomputed was trusted", "trusted-stale", seconds
    after = snapshot(entry)
    if case.readonly:
        if after != before:
            return "a read-only cache was written", "written", seconds
    elif case.entry_kind == "dir":
        if after[0] != "other" or os.listdir(entry):
            return "the directory at the entry was changed", "written", seconds
    elif not trusted and after != ("file", case.good):
        return "the entry was not rewritten: %r" % (after,)[:200], "not-written", seconds
    left = [n for n in os.listdir(folder) if n != case.name and n not in case.planted]
    if left:
        return "files left in the cache: %s" % left, "left", seconds
    return None, "trusted" if trusted else (how or "?"), seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=30)
    parser.add_argument("--work")
    args = parser.parse_args()
    root = args.work or tempfile.mkdtemp(prefix="cache-campaign-")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    os.chmod(root, 0o755)
    seed_dir = os.path.join(root, "seed")
    p = subprocess.run([args.binary, seed_dir, LAYERS], capture_output=True, text=True)
    if p.returncode != 0:
        print("the first process failed:", p.stdout, p.stderr)
        return 1
    name = [n for n in os.listdir(seed_dir) if n.endswith(".mlir")][0]
    with open(os.path.join(seed_dir, name), "rb") as f:
        good = f.read()

    master = random.Random(args.seed)
    cases = [Case(i, random.Random(master.getrandbits(64)), good, name)
             for i in range(args.cases)]
    outcomes, failures, slowest, slow = {}, [], (0.0, None), 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_case, c, args.binary, root, args.timeout): c for c in cases}
        for future in concurrent.futures.as_completed(futures):
            case = futures[future]
            why, outcome, seconds = future.result()
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            slowest = max(slowest, (seconds, case.note))
            slow += seconds >= 1
            if why:
                failures.append((case.index, case.note, why))
            else:  # only failures are kept
                shutil.rmtree(os.path.join(root, "case-%d" % case.index))
                for name in ["victim-%d", "elsewhere-%d.mlir"]:
                    if os.path.exists(os.path.join(root, name % case.index)):
                        os.remove(os.path.join(root, name % case.index))
    kinds = {}
    for c in cases:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    for index, note, why in sorted(failures):
        print("FAIL case %d (%s, seed %d): %s" % (index, note, args.seed, why))
    print("kinds: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    print("outcomes: " + ", ".join("%s %d" % kv for kv in sorted(outcomes.items())))
    print("crashes: %d, hangs: %d" % (outcomes.get("crash", 0), outcomes.get("hang", 0)))
    print("slowest compile: %.3f s (%s); compiles of 1 s or more: %d" % (slowest + (slow,)))
    print("cases: %d passed, %d failed" % (len(cases) - len(failures), len(failures)))
    if not failures and not args.work:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
