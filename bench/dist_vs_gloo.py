#!/usr/bin/env python3
"""spmd::dist::all_reduce against torch.distributed's gloo, same run.

    python3 bench/dist_vs_gloo.py build/bin/spmd-dist-allreduce-bench [--mib 64] [--rounds 9] [--repeats 3]

Both sum MiB mebibytes of f32 over 2 processes of one device each, on this
machine (ours through mpirun, gloo over TCP loopback as torch.distributed
sets it up), alternating `repeats` times; prints each median and the
throughput ratio gloo time / ours (>= 1.0: ours is as fast). PyTorch is
Debian's python3-torch, run by /usr/bin/python3.
"""
import argparse, os, re, statistics, subprocess, sys, tempfile

GLOO = r'''
import statistics, sys, time, torch, torch.distributed as dist, torch.multiprocessing as mp
def run(rank, mib, rounds, port, out):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    t = torch.full((mib * (1 << 20) // 4,), float(rank))
    times = []
    for r in range(rounds + 1):
        dist.barrier()
        s = time.perf_counter()
        dist.all_reduce(t)
        if r > 0:
            times.append(time.perf_counter() - s)
    if rank == 0:
        out.put(statistics.median(times))
    dist.destroy_process_group()
if __name__ == "__main__":
    torch.set_num_threads(1)
    mib, rounds, port = map(int, sys.argv[1:4])
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    ps = [ctx.Process(target=run, args=(r, mib, rounds, port, q)) for r in range(2)]
    [p.start() for p in ps]
    [p.join() for p in ps]
    print(q.get())
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    env = dict(os.environ, SPMD_NUM_DEVICES="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_tcp_if_include="lo", OMPI_MCA_oob_tcp_if_include="lo")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "unknown CPU")
    print(f"# {cpu}; all_reduce of {a.mib} MiB f32, 2 processes x 1 device")
    ours, gloo = [], []
    # torch.multiprocessing's spawn imports the main module again: a file.
    script = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
    script.write(GLOO)
    script.close()
    for k in range(a.repeats):
        out = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", a.bench,
                              str(a.mib), str(a.rounds)], env=env,
                             capture_output=True, text=True, check=True).stdout
        ours.append(float(re.search(r"median ([0-9.]+) s", out).group(1)))
        out = subprocess.run(["/usr/bin/python3", script.name, str(a.mib),
                              str(a.rounds), str(29500 + k)],
                             capture_output=True, text=True, check=True).stdout
        gloo.append(float(out.strip().splitlines()[-1]))
        print(f"round {k}: ours {ours[-1] * 1e3:.1f} ms, gloo {gloo[-1] * 1e3:.1f} ms")
    os.unlink(script.name)
    o, g = statistics.median(ours), statistics.median(gloo)
    print(f"median: ours {o * 1e3:.1f} ms, gloo {g * 1e3:.1f} ms, "
          f"throughput ratio (gloo time / ours) {g / o:.2f}")


if __name__ == "__main__":
    main()
