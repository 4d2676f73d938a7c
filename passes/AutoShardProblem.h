//===- AutoShardProblem.h - A function as an auto-sharding problem -*- C++ -*-//
//
// Builds auto-sharding's integer program (partitioner/AutoShardModel.h)
// from one function, and reads a solution back as layouts of its values.
//
// Every tensor value of the function's body is one of:
//  - pinned: its layout is written (an argument or result annotation, a
//    sharding_constraint, a sharding on the op that makes it); the choice
//    never changes it, and reshards into and out of it are costs of the
//    nodes on either side;
//  - free: made by a node (a free argument, an op with a factor rule);
//    its layout is the one the node's chosen strategy gives it;
//  - remade: made from scalars only (isRemadePerDevice: tensor.empty,
//    splats, fills of those), which every layout gets for free; each is
//    held, in the layout its reader wants, where it is read;
//  - unknown: made by an op without a rule (loops, calls); propagation
//    gives it a layout later: no time is charged for it, and its memory
//    is held whole (an over-estimate).
//
// Memory is what the runtime allocates: values while live, each reshard's
// copy (and its collectives' pieces) where its reader runs, tables linalg
// bodies read, kernels' working buffers (ir/WorkingBytes.h), and what ops
// without a rule may hold in any layout.
//
// Ops whose factors are all parallel (elementwise ops, transposes,
// reshapes) join the node of an operand with as many elements: their
// layouts follow that operand's, so they add no choice. On large graphs,
// nodes with the same structure (the repeated layers of a model) share one
// choice, which keeps the program as small as one layer.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PASSES_AUTOSHARDPROBLEM_H
#define SPMD_PASSES_AUTOSHARDPROBLEM_H

#include "ir/Namespaces.h"
#include "ir/ShardingInterface.h"
#include "partitioner/AutoShardModel.h"
#include "partitioner/AutoShardStrategies.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

#include <chrono>
#include <limits>

namespace mlir::spmd {

struct AutoShardSettings {
  /// Bytes per device; +inf for no limit, else at most 2^63 (INT64_MAX
  /// as a double).
  double memoryBudget = std::numeric_limits<double>::infinity();
  /// How many times slower a DCN axis moves a byte than an ICI axis.
  double dcnCost = 10;
  double flopsPerSecond = 1e12;
  /// Bytes per second one device sends over an ICI axis.
  double bytesPerSecond = 1e11;
  /// Above this many nodes, nodes of the same structure share a choice.
  unsigned shareAbove = 256;
  /// Seconds the whole of autoShardModule may take: building each
  /// function's problem and solving it; enumerate every choice instead of
  /// CBC (tiny graphs).
  double timeLimit = 30;
  bool enumerate = false;

  /// The ranges the settings (and spmd-auto-shard's options) take: wide
  /// enough for any machine, narrow enough that every modelled cost is a
  /// finite double whatever the program's sizes.
  static constexpr double kMinSpeed = 1e-3, kMaxSpeed = 1e30;
  static constexpr double kMaxDcnCost = 1e6;
  static constexpr double kMaxTimeLimit = 1e9;
  /// Budgets are int64 counts of bytes: INT64_MAX, as a double.
  static constexpr double kBudgetLimit = 0x1p63;

  /// Fails, reporting through `error` which setting is out of its range.
  LogicalResult verify(function_ref<InFlightDiagnostic()> error) const;
};

class AutoShardProblem {
public:
  /// The problem of `function` on `mesh`, whose axes `dcnAxes[a]` cross
  /// hosts. Fails (with a diagnostic) on shardings that do not fit.
  /// Past `deadline`, the ops and values still to add keep only their
  /// replicated strategy.
  static FailureOr<AutoShardProblem>
  build(func::FuncOp function, const MeshInfo &mesh, ArrayRef<bool> dcnAxes,
        const AutoShardSettings &settings,
        std::chrono::steady_clock::time_point deadline =
            std::chrono::steady_clock::time_point::max());

  /// The layout `value` has under `choice`: its pinned layout, the one its
  /// node's strategy gives it, or nullopt (remade or unknown values).
  std::optional<ShardState> layout(Value value,
                                   ArrayRef<unsigned> choice) const;
  /// Whether the layout of `value` is chosen (not written by the user).
  bool isChosen(Value value) const { return free.count(value); }
  /// The layout chosen for the function's result `index`, or nullopt
  /// where the user wrote one or its value is not modelled.
  std::optional<ShardState> resultLayout(unsigned index,
                                         ArrayRef<unsigned> choice) const;

  /// The mesh axes of each factor of `op`'s rule under `choice`, for ops
  /// the model chose a strategy for (not those following an operand's
  /// layout); nullopt for the others.
  std::optional<llvm::ArrayRef<AxisList>>
  factorSplit(Operation *op, ArrayRef<unsigned> choice) const;

  /// The modelled seconds of `choice`, the part of them spent computing,
  /// and its peak bytes per device.
  double seconds(ArrayRef<unsigned> choice) const;
  double computeSeconds(ArrayRef<unsigned> choice) const;

  ShardingProblem problem;
  /// Seconds no choice changes (reshards between written layouts).
  double fixedSeconds = 0;
  /// Counts before nodes shared their choices.
  unsigned opsModelled = 0, nodesBeforeSharing = 0;
  /// Nodes whose strategies a beam searched (meshes of too many axes to
  /// try every choice), and those left with the replicated strategy alone
  /// because the time limit passed while the problem was built.
  unsigned nodesSearched = 0, nodesCutByTimeLimit = 0;
  /// Reshards costed without a search because the time limit had passed.
  uint64_t reshardsEstimated = 0;

private:
  struct FreeValue {
    unsigned node;
    std::vector<ShardState> layouts;
  };
  llvm::MapVector<Value, FreeValue> free;
  struct Splits {
    unsigned node;
    /// Per strategy, the axes of each factor.
    std::vector<std::vector<AxisList>> factorAxes;
  };
  llvm::DenseMap<Operation *, Splits> splits;
  /// Function results left open: their index and their own node.
  std::vector<std::pair<unsigned, FreeValue>> results;
  llvm::DenseMap<Value, ShardState> pinned;
  /// Per node and strategy: the compute part of its cost.
  std::vector<std::vector<double>> compute;

  friend class AutoShardProblemBuilder;
};

} // namespace mlir::spmd

#endif // SPMD_PASSES_AUTOSHARDPROBLEM_H
