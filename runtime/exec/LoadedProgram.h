//===- LoadedProgram.h - A partitioned module on the devices ----*- C++ -*-===//
//
// What spmd-run and the C++ API run: a module the driver compiled
// (partitioned and fused; driver/Compile.h), loaded into an Executable;
// host tensors go in and out whole (global), split and assembled by the
// entry function's argument and result shardings. The unpartitioned
// programs a check runs against come from the driver too, built when a
// check first needs them.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_PROGRAM_H
#define SPMD_RUNTIME_PROGRAM_H

#include "runtime/comm/MpiCommunicator.h"
#include "runtime/devices/Devices.h"
#include "runtime/exec/Check.h"
#include "runtime/exec/Executable.h"
#include "sharding/TensorSharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

#include <functional>

namespace spmd::runtime {

/// A global tensor's type (a scalar argument or result: shape empty and
/// `scalar` set; it travels as a 0-d tensor on the host).
struct TensorSpec {
  ElementType type;
  std::vector<int64_t> shape;
  bool scalar = false;
};

/// The most bytes one tensor of a program may need: SPMD_MAX_TENSOR_BYTES
/// if set, else the machine's memory. Programs with larger tensors are
/// refused when compiled.
int64_t maxTensorBytes();

/// Every tensor of `module` fits maxTensorBytes(); checked before anything
/// runs, since kernels cannot fail halfway.
llvm::Error checkTensorSizes(mlir::ModuleOp module);

/// The function named `name`, or when `name` is empty the function no
/// other function calls (the first, if several); null if none.
mlir::func::FuncOp findEntry(mlir::ModuleOp module, llvm::StringRef name);

/// The unpartitioned programs a check runs, ready to run (in the context of
/// the LoadedProgram's module): `global` as written, `wide` the same computing
/// in f64 (none when the program computes in f64 or cannot be widened), and
/// `scaled` the f64 program with the error scales of its float results
/// after them (none where the scales have no rule or would take too long).
/// A program with manual regions has no unpartitioned form: its reference
/// is `onDevices` instead, the program partitioned with every value
/// replicated but at the regions' boundaries, run on the devices.
struct ReferenceModules {
  mlir::OwningOpRef<mlir::ModuleOp> global, wide, scaled;
  std::unique_ptr<class LoadedProgram> onDevices;
};
using ReferenceBuilder = std::function<llvm::Expected<ReferenceModules>()>;

/// What the compiler knows of a partitioned module that its IR no longer
/// says.
struct CompileFacts {
  /// The communication report (spmd-comm-report).
  llvm::json::Value commReport = llvm::json::Object{};
  /// Each collective a run calls and its volume per device (the report's
  /// `comm_bytes`).
  std::vector<std::pair<CollectiveKind, int64_t>> collectiveBytes;
  /// The longest reduction of the unpartitioned program (for check
  /// tolerances).
  int64_t longestReduction = 1;
  /// Builds the unpartitioned programs when a check first needs them (none
  /// for a module given already partitioned).
  ReferenceBuilder reference;
  /// Every device in this process even under MPI: a check's reference,
  /// which the process checking runs alone.
  bool inOneProcess = false;
};

class LoadedProgram {
public:
  /// Loads `module`, partitioned and ready to run (or of one device), for its
  /// mesh's devices; `entry` empty means the function no other function
  /// calls.
  static llvm::Expected<std::unique_ptr<LoadedProgram>>
  load(mlir::ModuleOp module, llvm::StringRef entry, CompileFacts facts);

  llvm::StringRef entry() const { return entryName; }
  llvm::ArrayRef<TensorSpec> inputs() const { return inputSpecs; }
  llvm::ArrayRef<TensorSpec> outputs() const { return outputSpecs; }
  int64_t numDevices() const { return devices; }
  /// The devices this process runs: all of them, or under MPI (`mpirun
  /// -np P`) its block of numDevices() / P.
  int64_t firstLocalDevice() const { return firstLocal; }
  int64_t numLocalDevices() const { return localDevices; }
  /// The processes the program runs on (1 without MPI).
  int64_t numProcesses() const { return world ? world->size() : 1; }
  /// Bytes this process sent through MPI per collective op, since the last
  /// clear (none without MPI).
  std::map<std::string, MpiCommunicator::Traffic> mpiTraffic() const;
  void clearMpiTraffic();
  /// Threads each device's kernels may use (default: cores / devices).
  int64_t threadsPerDevice() const { return threads; }
  void setThreadsPerDevice(int64_t n) { threads = std::max<int64_t>(n, 1); }
  bool hasGlobalProgram() const {
    return global || devicesReference || buildReference;
  }
  /// The longest reduction of the program (for check tolerances).
  int64_t longestReduction() const { return reductionLength; }
  const llvm::json::Value &commReport() const { return report; }
  llvm::ArrayRef<std::pair<CollectiveKind, int64_t>> collectiveBytes() const {
    return commBytes;
  }
  /// Peak bytes of tensor storage each device held during the last run on
  /// all devices (empty before one).
  std::vector<int64_t> peakBytesOfLastRun() const;

  /// Runs on all devices: global inputs in, global outputs out (under MPI
  /// on every process; every process must call it).
  llvm::Expected<std::vector<HostBuffer>> run(llvm::ArrayRef<HostBuffer> args);
  /// Runs on all devices: global inputs in; the results stay split, each
  /// local device's shard with the global ranges it holds.
  llvm::Expected<std::vector<ShardedBuffer>>
  runSharded(llvm::ArrayRef<HostBuffer> args);
  /// The same with inputs already split (`perDevice[i]` as `shard` gives
  /// local device i).
  llvm::Expected<std::vector<ShardedBuffer>>
  runSharded(std::vector<std::vector<TensorRef>> perDevice);
  /// Runs on all devices with inputs already split (`perDevice[i]` as
  /// `shard` gives local device i); results stay on their devices.
  llvm::Expected<std::vector<std::vector<RValue>>>
  runShards(std::vector<std::vector<TensorRef>> perDevice);
  /// The global tensor of a result of this program. Under MPI every
  /// process must call it; each sends its shards to rank 0, which
  /// assembles; with `everywhere` rank 0 then sends it to every process,
  /// else the others get an empty tensor.
  llvm::Expected<HostBuffer> toHost(const ShardedBuffer &tensor,
                                    bool everywhere = true);
  /// Runs a program of one device on the calling thread, its kernels on
  /// that thread alone: how each device of spmd::spawn runs programs, many
  /// at once. `args` (of the inputs' types and shapes) are only read.
  llvm::Expected<std::vector<TensorRef>>
  runOnCallingThread(llvm::ArrayRef<TensorRef> args) const;
  /// Runs the unpartitioned program on one device (a program with manual
  /// regions: its replicated form on the devices, ReferenceModules).
  llvm::Expected<std::vector<HostBuffer>>
  runGlobal(llvm::ArrayRef<HostBuffer> args);
  /// Loads the unpartitioned programs, which only checks run (runGlobal and
  /// runWideGlobal do it when first called).
  llvm::Error compileReference();
  /// Whether the unpartitioned program also exists computed in f64 (it
  /// computes in narrower floats and could be widened).
  bool hasWideGlobalProgram();
  /// Runs the unpartitioned program in f64 on one device: float inputs are
  /// widened, float results are f64.
  llvm::Expected<std::vector<HostBuffer>>
  runWideGlobal(llvm::ArrayRef<HostBuffer> args);
  /// `outputs` of the partitioned program on `args` against the
  /// unpartitioned program's (Check.h), with its f64 results and their
  /// error scales (passes/ErrorScales.h) where it has an f64 form; where the
  /// scales have no rule for one of its ops, the f64 program on the
  /// absolute values of the inputs gives them.
  /// `shards[o]`, where given, holds every device's buffer of output o
  /// (shardsOnHost): each copy of it (copyHolders) past the first must agree
  /// with the first (copiesAgree), and the devices of the first that does
  /// not are named in CheckResult::copyMismatch.
  llvm::Expected<CheckResult>
  check(llvm::ArrayRef<HostBuffer> args, llvm::ArrayRef<HostBuffer> outputs,
        llvm::ArrayRef<std::vector<TensorRef>> shards = {});
  /// Every device's buffer of a result on rank 0 (gatherShardsToHost);
  /// under MPI every process calls it.
  llvm::Expected<std::vector<TensorRef>>
  shardsOnHost(const ShardedBuffer &tensor);

  /// The input split over this process's devices, as `run` splits it.
  std::vector<TensorRef> shard(unsigned input, const HostBuffer &global) const;
  /// The same from the input's row-major data (of its type and shape),
  /// read only where this process's shards lie.
  std::vector<TensorRef> shard(unsigned input, const uint8_t *global) const;

private:
  LoadedProgram() = default;
  /// The copies of `shards` (check) against their first, into `result`.
  void checkCopies(llvm::ArrayRef<std::vector<TensorRef>> shards,
                   CheckResult &result) const;
  /// Which of the program's devices this process runs (all without MPI).
  llvm::Error placeOnProcesses();
  /// The MPI communicators of the collectives of `module`.
  llvm::Error prepareMpi(mlir::ModuleOp module);
  /// `threads` per device for `runningDevices` devices at once, helpers
  /// from the LoadedProgram's pool (made or grown here).
  KernelThreads kernelThreads(int64_t runningDevices);

  std::string entryName;
  std::vector<TensorSpec> inputSpecs, outputSpecs;
  std::vector<std::optional<ShardLayout>> inputLayouts, outputLayouts;
  std::vector<ReductionKind> inputPartialKinds, outputPartialKinds;
  int64_t devices = 1;
  int64_t firstLocal = 0, localDevices = 1;
  MpiWorld *world = nullptr; // with more than one process
  bool inOneProcess = false; // CompileFacts::inOneProcess
  std::unique_ptr<MpiCommunicator> mpi;
  int64_t threads = 1;
  int64_t reductionLength = 1;
  /// `scaled`: wideGlobal computing error scales too (passes/ErrorScales.h).
  std::unique_ptr<Executable> local, global, wideGlobal, scaled;
  std::unique_ptr<LoadedProgram> devicesReference;
  /// Builds the unpartitioned programs until compileReference (so the
  /// context must outlive the LoadedProgram).
  ReferenceBuilder buildReference;
  std::shared_ptr<const MemoryStats> lastRunMemory;
  std::unique_ptr<KernelThreadPool> kernelPool;
  DevicePool devicePool;
  llvm::json::Value report = llvm::json::Object{};
  std::vector<std::pair<CollectiveKind, int64_t>> commBytes;
};

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_PROGRAM_H
