# lit configuration for the spmd tests. Loaded through lit.site.cfg.py in the
# build tree, which says where the tools are.
import os
import shutil
import subprocess

import lit.formats

config.name = "spmd"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
# A run with a forced CPU path writes its temporaries apart: ctest runs it
# beside the per-file lit tests, whose %t files have the same names.
config.test_exec_root = os.path.join(
    config.spmd_obj_root, "tests",
    "lit-" + os.environ["SPMD_CPU_PATH"] if "SPMD_CPU_PATH" in os.environ else "lit")

# spmd-opt from the build, FileCheck and not from LLVM.
path = os.pathsep.join([config.spmd_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
# The instruction set the runtime's kernels use (tests/CMakeLists.txt runs
# the suite on each one the machine supports).
if "SPMD_CPU_PATH" in os.environ:
    config.environment["SPMD_CPU_PATH"] = os.environ["SPMD_CPU_PATH"]

# The shared folder beside the checkout holds third-party inputs; tests that
# read it say `REQUIRES: shared` and are reported unsupported without it.
config.substitutions.append(("%shared", config.spmd_shared_dir))
# Built with assertions and LLVM_DEBUG traces (SPMD_ENABLE_ASSERTIONS).
if config.spmd_asserts:
    config.available_features.add("asserts")
if os.path.isdir(os.path.join(config.spmd_shared_dir, "corpus")):
    config.available_features.add("shared")
# util-linux's taskset, to run a tool on fewer cores.
if shutil.which("taskset"):
    config.available_features.add("taskset")
# The CPU paths this machine runs (`avx512` for tests of what only the
# AVX-512 path does).
paths = subprocess.run([os.path.join(config.spmd_tools_dir, "spmd-run"),
                        "--print-cpu-paths"], capture_output=True, text=True)
for path in paths.stdout.split():
    config.available_features.add(path)
