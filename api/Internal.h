//===- Internal.h - What the public types hold ------------------*- C++ -*-===//
//
// The public header (spmd/spmd.h) shows handles only; their state, in terms
// of the compiler's own types, is defined here for the API's sources.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_API_INTERNAL_H
#define SPMD_API_INTERNAL_H

#include "spmd/spmd.h"

#include "mesh/DeviceMesh.h"
#include "runtime/devices/Devices.h"
#include "runtime/exec/LoadedProgram.h"
#include "sharding/ShardLayout.h"
#include "sharding/TensorSharding.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <chrono>
#include <mutex>
#include <optional>

namespace llvm {
class SourceMgr;
} // namespace llvm
namespace mlir {
class AsmParserState;
} // namespace mlir

namespace spmd {
namespace runtime {
class MpiWorld;
} // namespace runtime
namespace detail {

/// An llvm::Error as a status (consumed).
absl::Status toStatus(llvm::Error error,
                      absl::StatusCode code = absl::StatusCode::kInvalidArgument);

/// What a Mesh keeps from the public.
struct MeshAccess {
  /// Built from a HybridMesh, whose ICI shape says how many devices each
  /// process runs.
  static bool statesDevicesPerProcess(const Mesh &mesh);
};

/// The compiler's mesh for `mesh`, or its error: a mesh larger than the
/// devices that exist too.
absl::StatusOr<DeviceMesh> deviceMesh(const Mesh &mesh);
/// `spec` on `mesh` for a tensor of `rank` dimensions, as a sharding on a
/// mesh symbol named `meshName`: fails on a rank mismatch, an unknown axis
/// or index, an axis used twice.
absl::StatusOr<TensorSharding> shardingOf(const DeviceMesh &mesh,
                                          std::string meshName,
                                          const PartitionSpec &spec,
                                          unsigned rank);

/// The devices of `mesh` this process holds, [first, first + count): under
/// MPI each process holds one block of the mesh's devices.
absl::StatusOr<std::pair<int64_t, int64_t>>
localDevices(const DeviceMesh &mesh);

/// Where a tensor goes on a mesh as a spec says: its layout, and the
/// devices of this process, [firstDevice, firstDevice + numDevices).
struct Placement {
  DeviceMesh mesh;
  TensorSharding sharding;
  ShardLayout layout;
  int64_t firstDevice, numDevices;
  /// The tensor on the devices: `locals[i]` on device firstDevice + i.
  ShardedTensor wrap(std::vector<runtime::TensorRef> locals,
                     runtime::ElementType type) const;
};
absl::StatusOr<Placement> placement(const Mesh &mesh, const PartitionSpec &spec,
                                    llvm::ArrayRef<int64_t> shape);
/// The tensor of `shape` whose row-major data is `data`, placed on `mesh`
/// as `spec` says; `data` is read only where this process's shards lie
/// (a file mapped in memory, say).
absl::StatusOr<ShardedTensor> place(const uint8_t *data,
                                    runtime::ElementType type,
                                    llvm::ArrayRef<int64_t> shape,
                                    const Mesh &mesh,
                                    const PartitionSpec &spec);

/// The processes mpirun started, or null when this process runs alone.
runtime::MpiWorld *mpiProcesses();
/// `local` agreed on by every process (each calls it): the error of the
/// lowest process that failed, "process K: ..." with its code, on every
/// process; OK when none failed. Alone, `local` itself. Each process waits
/// for the others up to `wait` (default: the world's timeout).
absl::Status
agreeOnFirstError(absl::Status local, const std::string &what,
                  std::optional<std::chrono::milliseconds> wait = {});

/// Whether every process has the same `value` (each calls it; true when
/// alone).
absl::StatusOr<bool> sameOnEveryProcess(uint64_t value,
                                        const std::string &what);

/// The lock of `state`'s calls (none for a moved-from program).
inline std::unique_lock<std::recursive_mutex>
lockProgram(const std::unique_ptr<ProgramState> &state);

/// The code of a failure to read `path` (a file or a folder): NotFound
/// when nothing is there, FailedPrecondition when it is there but of
/// another kind, else InvalidArgument.
absl::StatusCode fileErrorCode(const std::string &path, bool folder = false);

/// What a moved-from Program answers.
absl::Status movedFrom();

/// The reduction `op` stands for on elements of a type; `boolean` for i1,
/// whose true is -1 (signed): the logical or is then the minimum.
ReductionKind reductionKindOf(dist::ReduceOp op, bool boolean);

runtime::ElementType toRuntime(DType type);
std::optional<DType> fromRuntime(runtime::ElementType type);

struct TensorStorage {
  runtime::TensorRef tensor;
  /// Why the shape given was refused.
  absl::Status status;
  static const runtime::HostBuffer &of(const HostTensor &t) {
    return *t.storage_->tensor;
  }
  /// The user's storage, written in place (spmd::dist's results).
  static runtime::HostBuffer &mutableOf(HostTensor &t) {
    return *t.storage_->tensor;
  }
  static const runtime::TensorRef &ref(const HostTensor &t) {
    return t.storage_->tensor;
  }
  static HostTensor wrap(runtime::TensorRef tensor);
};

/// A tensor on the devices: the runtime's shards with the mesh and the
/// sharding that place them.
struct ShardedStorage {
  runtime::ShardedBuffer tensor;
  DeviceMesh mesh;
  TensorSharding sharding;
  DType dtype;
  std::vector<int64_t> shape;

  static const ShardedStorage &of(const ShardedTensor &t) {
    return *t.storage_;
  }
  static ShardedTensor wrap(std::shared_ptr<ShardedStorage> storage);
  /// Each device's buffer, by device.
  std::vector<runtime::TensorRef> locals() const;
};

/// The MLIR element type of `type`.
mlir::Type elementType(runtime::ElementType type, mlir::MLIRContext *context);

/// A context with every dialect programs may use, diagnostics naming ops
/// by location.
std::unique_ptr<mlir::MLIRContext> newContext();

/// The main buffer of `sourceMgr` parsed in `context` and verified, as
/// every program the API reads: statements MLIR's parser would crash on
/// are refused first (passes/UpstreamParserGuard.h), and top-level ops are
/// put in a module. Errors carry the diagnostics. The module must be
/// destroyed before `context`; `asmState`'s ranges point into `sourceMgr`.
absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>>
parseModule(const llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context,
            mlir::AsmParserState *asmState = nullptr);

/// A compiled program: the executable and the shardings of its inputs. It
/// owns the context it was compiled in, so it outlives the Program that
/// asked for it (the cache hands it to others).
struct Compiled {
  Compiled(std::unique_ptr<mlir::MLIRContext> context, DeviceMesh mesh)
      : context(std::move(context)), mesh(std::move(mesh)) {}
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<runtime::LoadedProgram> program;
  DeviceMesh mesh;
  std::vector<TensorSharding> inputShardings, outputShardings;
  /// The partitioned module, as text.
  std::string partitioned;
  /// The compiler's warnings about the program (Program::warnings).
  std::vector<std::string> warnings;
  /// Runs of one Program at a time (its pools are its own).
  std::mutex running;
};

/// An argument of the entry without a sharding whose input to run() was
/// on the devices: the argument takes the input's sharding (as jit does
/// with committed arrays).
struct FollowedSharding {
  unsigned argument;
  DeviceMesh mesh;
  TensorSharding sharding;
};

struct ProgramState {
  ProgramState();
  /// Serialises the calls on the program (docs/api.md, Threads): every
  /// public call holds it, and calls others.
  mutable std::recursive_mutex mutex;
  /// Unique in the process, so that values outliving their program are
  /// never taken for another's.
  const uint64_t id;
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string entry;
  /// Values by the SSA names of the source; a name given to values of
  /// several regions maps to null.
  llvm::StringMap<mlir::Value> names;
  /// The sharding constraint made for an intermediate value.
  llvm::DenseMap<mlir::Value, mlir::Operation *> constraints;
  std::shared_ptr<Compiled> compiled;
  /// The arguments whose shardings the last run's inputs gave.
  std::vector<FollowedSharding> followed;
  /// The hash of the module `compiled` was made from (and of the options).
  uint64_t compiledHash = 0;
  /// The program as written for one device (spmd-drop-shardings), which
  /// the devices of spmd::spawn run, and the hash of the module it was
  /// made from.
  std::shared_ptr<Compiled> oneDevice;
  uint64_t oneDeviceHash = 0;
  /// The plan report of the last auto-sharded compile, and the warnings of
  /// its pipeline (the solver's).
  std::string autoShardReport;
  std::vector<std::string> autoShardWarnings;
  /// The options of the last compile(options), for compile() and run().
  Program::CompileOptions options;
  /// The first error of the tensor builder.
  absl::Status builderStatus;
  /// The shard_map body the builder is filling: its block (not yet in the
  /// region), the mesh symbol and the manual axes.
  struct ManualScope {
    mlir::Block *body;
    std::string mesh;
    std::vector<std::string> axes;
  };
  std::optional<ManualScope> manualScope;
  /// The blocks of shard_map bodies that failed, kept so that the values
  /// the caller holds in them stay valid.
  std::vector<std::unique_ptr<mlir::Block>> discardedBodies;

  /// A Program holding `state`.
  static Program wrap(std::unique_ptr<ProgramState> state);

  mlir::func::FuncOp entryFunction() const;
  Value handle(mlir::Value value) const;
  /// The value `v` names, if it is one of this program's.
  absl::StatusOr<mlir::Value> resolve(const Value &v) const;
  /// The `spmd.mesh` symbol for `mesh`, made on first use; `dcnShape`
  /// (hosts per axis) when it spans several.
  absl::StatusOr<std::string> meshSymbol(const DeviceMesh &mesh,
                                         llvm::ArrayRef<int64_t> dcnShape);
  /// Erases the meshes no sharding uses any more.
  void pruneMeshes();
  /// The `spmd.mesh` symbol of `mesh` for a new sharding; an error when
  /// the program's shardings are on another mesh (one mesh per program:
  /// collectives relate values of one mesh).
  absl::StatusOr<std::string> meshFor(const Mesh &mesh);
};

inline std::unique_lock<std::recursive_mutex>
lockProgram(const std::unique_ptr<ProgramState> &state) {
  return state ? std::unique_lock<std::recursive_mutex>(state->mutex)
               : std::unique_lock<std::recursive_mutex>();
}

//===----------------------------------------------------------------------===//
// Metrics and the compile cache (process-wide, as torch_xla's).
//===----------------------------------------------------------------------===//

void addCounter(const std::string &name, int64_t delta = 1);
void addTime(const std::string &name, double seconds);

/// What identifies the compiler of this process in on-disk cache keys:
/// the build ids of spmd's loaded libraries, MLIR's and LLVM's.
uint64_t compilerIdentity();

/// A compiled program for `key` (a stable hash of the program text), from
/// memory, then from the on-disk cache (entries this build of the compiler
/// wrote), else compiled from `moduleText`.
absl::StatusOr<std::shared_ptr<Compiled>>
cachedCompile(uint64_t key, const std::string &moduleText,
              const std::string &entry);

/// Keeps the warnings `context` emits while it lives, each as the tools
/// print it (mlir::spmd::describeDiagnostic); other diagnostics go on to
/// the handlers registered before it.
class WarningCollector {
public:
  WarningCollector(mlir::MLIRContext &context,
                   std::vector<std::string> &warnings);
  ~WarningCollector();

private:
  mlir::MLIRContext &context;
  uint64_t handler;
};

} // namespace detail
} // namespace spmd

#endif // SPMD_API_INTERNAL_H
