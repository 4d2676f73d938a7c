//===- Partitioner.h - Global program to local SPMD program ------*- C++
//-*-===//
//
// Rewrites functions whose values carry shardings (after propagation) into
// the per-device program: every tensor gets its local shape, and data moves
// only through explicit spmd collectives.
//
// Each global tensor value is tracked as a LocalValue: its local (per
// device) value and the layout that local value actually has, which may
// still be a pending reduction (partial). Layouts change only on demand
// (`get`): an op asks for its operands in the layouts it computes in, a
// return for the layouts the function promises. So partial results are
// reduced as late as possible, and a reshard of one value to one layout is
// emitted once. Each op family has a handler in a registry
// (OpPartitioners.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PARTITIONER_PARTITIONER_H
#define SPMD_PARTITIONER_PARTITIONER_H

#include "ir/SpmdOps.h"
#include "partitioner/ReshardPlanner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <map>

namespace mlir::spmd {

/// A mesh the partitioner works on: its symbol and its value.
struct MeshInfo {
  FlatSymbolRefAttr symbol;
  ::spmd::Mesh mesh;
};

/// Where a global tensor value lives now.
struct LocalValue {
  Value local;
  const MeshInfo *mesh = nullptr;
  ::spmd::ShardState state;
};

class Partitioner {
public:
  explicit Partitioner(ModuleOp module);

  /// Partitions every function of the module.
  LogicalResult run();

  // --- For op handlers ---------------------------------------------------

  OpBuilder &builder() { return b; }
  /// The mesh named `symbol`, or an error on `op`.
  FailureOr<const MeshInfo *> meshFor(Operation *op, FlatSymbolRefAttr symbol);
  /// The sharding propagation gave `value` (an op result, a function or
  /// loop argument), as a layout on its mesh; replicated on the default
  /// mesh when it has none.
  FailureOr<std::pair<const MeshInfo *, ::spmd::ShardState>>
  annotatedLayout(Value value);
  /// The layout result `i` of `function` is annotated with; none for
  /// results without a sharding (they pass through as they are).
  FailureOr<std::optional<std::pair<const MeshInfo *, ::spmd::ShardState>>>
  resultLayout(func::FuncOp function, unsigned i);

  /// The current local form of a global tensor value.
  const LocalValue &lookup(Value global) const { return values.at(global); }
  bool has(Value global) const { return values.count(global); }
  void set(Value global, LocalValue value);
  /// The local value of `global` in layout `state`, resharding (once per
  /// value and layout) if needed.
  FailureOr<Value> get(Operation *user, Value global,
                       const ::spmd::ShardState &state);
  /// Scalar (non-tensor) values map one to one.
  IRMapping &scalars() { return scalarMap; }
  /// The local form of any operand: a tensor in its current layout, or the
  /// mapped scalar.
  Value current(Value global);

  /// The local type of a tensor of `type` in `state` on `mesh`.
  static RankedTensorType localType(RankedTensorType type, const MeshInfo &mesh,
                                    const ::spmd::ShardState &state);

  /// Reshard plans, remembered.
  ::spmd::ReshardPlanCache &plans() { return planCache; }

  /// Partitions the ops of `source` into the builder's insertion point.
  LogicalResult partitionBlock(Block &source);

private:
  LogicalResult partitionFunction(func::FuncOp function);
  /// `global` made afresh in layout `state` on `mesh` when it is made from
  /// scalars only (tensor.empty, a splat constant, a fill of those): cheaper
  /// than moving it. Null otherwise.
  Value rematerialize(Value global, const MeshInfo &mesh,
                      const ::spmd::ShardState &state);
  LogicalResult partitionOp(Operation *op);

  ModuleOp module;
  OpBuilder b;
  std::vector<std::unique_ptr<MeshInfo>> meshes;
  /// Where values without a sharding live: the mesh of the function being
  /// partitioned.
  const MeshInfo *defaultMesh = nullptr;
  llvm::DenseMap<Value, LocalValue> values;
  /// Reshards already emitted: (value, layout key) -> local value.
  std::map<std::pair<void *, std::string>, Value> reshards;
  IRMapping scalarMap;
  ::spmd::ReshardPlanCache planCache;
};

/// Emits the collectives of `plan` on `local` (a tensor in `from`).
Value emitReshard(OpBuilder &b, Location loc, Value local, const MeshInfo &mesh,
                  const ::spmd::ReshardPlan &plan);

/// This device's index along `axes` (major to minor), as an index value.
Value linearIndex(OpBuilder &b, Location loc, const MeshInfo &mesh,
                  ArrayRef<::spmd::AxisIndex> axes);

/// The global position of this device's first element of a dimension
/// split over `axes` in shards of `shardSize`.
Value shardOffset(OpBuilder &b, Location loc, const MeshInfo &mesh,
                  ArrayRef<::spmd::AxisIndex> axes, int64_t shardSize);

/// Makes `linalg.index` in the body of the local op `op` mean the global
/// loop position: `offsets[d]` (null where loop d is not split) is added to
/// every index of loop d.
void globalizeLoopIndices(OpBuilder &b, linalg::LinalgOp op,
                          ArrayRef<Value> offsets);

/// Makes every iteration of the local op `op` whose loop `l` position is
/// not below `bound` (per (l, bound) pair) leave its outputs unchanged,
/// whatever the body computes: the padding of uneven shards contributes
/// nothing to any reduction. Named ops are generalized first; returns the
/// op that replaces `op`, or failure if it cannot be generalized.
FailureOr<linalg::LinalgOp> skipIterationsPast(OpBuilder &b, linalg::LinalgOp op,
                                    ArrayRef<std::pair<unsigned, Value>> bounds);

/// `local` with the elements of dimension `dim` at positions outside
/// [lo, hi) replaced by `fill`.
Value maskOutside(OpBuilder &b, Location loc, Value local, int64_t dim,
                  Value lo, Value hi, TypedAttr fill);

/// The number of valid (not padding) positions of this device's shard of a
/// dimension of `globalSize` split over `axes` in shards of `shardSize`
/// (negative or above `shardSize` at the ends: compare, do not index).
Value validCount(OpBuilder &b, Location loc, const MeshInfo &mesh,
                 ArrayRef<::spmd::AxisIndex> axes, int64_t globalSize,
                 int64_t shardSize);

/// The identity of reduction `kind` for elements of `type`.
TypedAttr identityOf(OpBuilder &b, ::spmd::ReductionKind kind, Type type);

/// `local` on the first device of each group over `axes`, a tensor of
/// `identity` on the others: a partial value over `axes` whose reduction is
/// `local`.
Value keepOnFirst(OpBuilder &b, Location loc, Value local,
                  const MeshInfo &mesh, ArrayRef<::spmd::AxisIndex> axes,
                  TypedAttr identity);

/// The element size in bytes of a tensor element type.
int64_t elementBytes(Type type);

} // namespace mlir::spmd

#endif // SPMD_PARTITIONER_PARTITIONER_H
