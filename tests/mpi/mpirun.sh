# Sourced by the MPI tests: `run_mpi N ARGS...` runs ARGS on N processes
# of this machine (loopback only). Without mpirun the test is skipped
# (exit 77, which ctest reports as skipped).
if ! command -v mpirun >/dev/null 2>&1; then
  echo "skipped: mpirun not found (install openmpi-bin)"
  exit 77
fi
# Open MPI refuses root unless told; tests run as root in containers.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Loopback only: no network interface is probed.
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
run_mpi() {
  local n=$1
  shift
  mpirun --oversubscribe -np "$n" "$@"
}
