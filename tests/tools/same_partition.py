#!/usr/bin/env python3
"""Tests that spmd-opt --spmd-pipeline, spmd-run and the C++ API partition a
program alike: each corpus model, its entry's first argument sharded over 4
devices (annotate_entry.py), goes through all three, and the partitioned
programs they print must be the same text.

usage: same_partition.py SPMD_OPT SPMD_RUN API_PARTITION WORKDIR FILE.mlir...
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=600, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr}")
    return result.stdout


def main():
    spmd_opt, spmd_run, api, work = sys.argv[1:5]
    files = sys.argv[5:]
    if not files:
        print("skipped: no corpus")
        return 0
    os.makedirs(work, exist_ok=True)
    failures = 0
    for path in files:
        name = os.path.splitext(os.path.basename(path))[0]
        annotated = os.path.join(work, name + ".mlir")
        with open(annotated, "w") as out:
            out.write(run([sys.executable,
                           os.path.join(HERE, "annotate_entry.py"), path]))
        by_opt = run([spmd_opt, annotated, "--spmd-pipeline"])
        dumped = os.path.join(work, name + ".run.mlir")
        # Elided weights cannot run, but they compile.
        subprocess.run([spmd_run, annotated, "--dump-partitioned=" + dumped],
                       capture_output=True, timeout=600)
        by_run = open(dumped).read() if os.path.exists(dumped) else None
        # The API refuses a model whose weights are elided when it loads
        # it: only the other two compile it.
        api_run = subprocess.run([api, annotated], capture_output=True,
                                 text=True, timeout=600)
        elided = api_run.returncode != 0 and "data is elided" in api_run.stderr
        if api_run.returncode != 0 and not elided:
            raise RuntimeError(f"{api} {annotated} failed:\n{api_run.stderr}")
        by_api = None if elided else api_run.stdout
        # The same IR; spmd-opt ends its output with a newline.
        by_opt, by_run, by_api = (t.rstrip("\n") if t is not None else t
                                  for t in (by_opt, by_run, by_api))
        same = by_opt == by_run and (elided or by_api == by_opt)
        print(f"{name}: {'same' if same else 'DIFFERENT'} "
              f"({len(by_opt)} chars{'; elided: not by the API' if elided else ''})")
        if not same:
            failures += 1
            for label, text in (("spmd-run", by_run), ("api", by_api)):
                if text is not None and text != by_opt:
                    with open(os.path.join(work, f"{name}.{label}.diff"),
                              "w") as out:
                        out.write(text)
    print("same partition: " + ("PASS" if failures == 0 else "FAIL"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
