//===- ShardingInterface.h - What an op tells the compiler ------*- C++ -*-===//
//
// ShardingOpInterface (ShardingInterface.td) and what its methods exchange
// with the compiler: the op's factor rule with its windows, the local
// rebuild, and the partitioner's services (PartitionContext) for ops that
// partition themselves. The partitioner implements PartitionContext, so
// this library does not depend on it.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_SHARDINGINTERFACE_H
#define SPMD_IR_SHARDINGINTERFACE_H

#include "ir/Namespaces.h"
#include "sharding/ShardState.h"
#include "sharding/ShardingRule.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::spmd {

/// A mesh the partitioner works on: its symbol and its value.
struct MeshInfo {
  FlatSymbolRefAttr symbol;
  DeviceMesh mesh;
};

/// Where a global tensor value lives during partitioning: its local value
/// and the layout that value has (possibly a pending reduction).
struct LocalValue {
  Value local;
  const MeshInfo *mesh = nullptr;
  ShardState state;
};

/// An input dimension read through a window: operand `operand`'s dimension
/// `dim` is indexed by `stride * factor + sum(step_w * w) + offset`, where
/// `factor` is a factor of the outputs and the w loops only index this
/// window (their extent is sum(step_w * (size_w - 1))). A slice is a
/// window of extent 0, a pad one of offset -low. When `factor` is split,
/// each device needs a few elements of its neighbours (a halo).
struct WindowedDim {
  unsigned operand;
  unsigned dim;
  unsigned factor;
  int64_t stride;
  int64_t extent;
  int64_t offset;
  /// The value of reads outside the input (a pad's border); null where
  /// valid outputs never read outside.
  TypedAttr fill = {};
};

/// An op's factor rule and the input dimensions it reads through windows,
/// made together so that the windows name the rule's factors.
struct OpShardingRule : ShardingRule {
  OpShardingRule() = default;
  explicit OpShardingRule(ShardingRule rule) : ShardingRule(std::move(rule)) {}

  SmallVector<WindowedDim> windows;
};

/// What an op needs to build itself on one device. The partitioner has
/// chosen how each factor of the op's rule is split and brought every
/// tensor operand to the layout that implies (windows cut out with their
/// halos): local operands are by position, since one value used twice may
/// be needed in two layouts. Scalars and the tensors the op's regions read
/// from outside map by value.
class LocalRebuild {
public:
  LocalRebuild(Operation *op, OpBuilder &builder, ArrayRef<Value> operands,
               IRMapping &mapping, ArrayRef<Type> resultTypes,
               const OpShardingRule *rule, ArrayRef<AxisList> split,
               ArrayRef<std::pair<unsigned, Value>> skippedIterations,
               llvm::function_ref<Value(unsigned)> loopOffset)
      : op(op), b(builder), locals(operands), map(mapping), types(resultTypes),
        rule(rule), splitAxes(split), skipped(skippedIterations),
        offsetOf(loopOffset) {}

  /// The global op.
  Operation *getOp() const { return op; }
  OpBuilder &builder() { return b; }
  /// The local form of operand `i`.
  Value operand(unsigned i) const { return locals[i]; }
  ArrayRef<Value> operands() const { return locals; }
  /// Scalars (also those among the operands) and the tensors the op's
  /// regions read from outside, global to local.
  IRMapping &mapping() { return map; }
  /// The local types of the results.
  ArrayRef<Type> resultTypes() const { return types; }
  /// The rule the op was partitioned by; null when it is computed whole.
  const OpShardingRule *getRule() const { return rule; }
  /// Whether factor `factor` of the rule is split over some mesh axes.
  bool isSplit(unsigned factor) const {
    return factor < splitAxes.size() && !splitAxes[factor].empty();
  }
  /// Split reduction factors whose padded iterations the local op must
  /// leave without effect, with the number of valid iterations on this
  /// device (below zero or above the shard at the ends: compare, do not
  /// index). Empty when the operands' padding was set to the identity.
  ArrayRef<std::pair<unsigned, Value>> skippedIterations() const {
    return skipped;
  }
  /// The global position of this device's first iteration of `factor`, or
  /// null when the factor is not split (made at the builder's insertion
  /// point at the first request).
  Value loopOffset(unsigned factor) const { return offsetOf(factor); }

private:
  Operation *op;
  OpBuilder &b;
  ArrayRef<Value> locals;
  IRMapping &map;
  ArrayRef<Type> types;
  const OpShardingRule *rule;
  ArrayRef<AxisList> splitAxes;
  ArrayRef<std::pair<unsigned, Value>> skipped;
  llvm::function_ref<Value(unsigned)> offsetOf;
};

/// The partitioner, as ops that partition themselves see it.
class PartitionContext {
public:
  virtual ~PartitionContext() = default;

  virtual OpBuilder &builder() = 0;
  /// The current local form of the global tensor `global`.
  virtual const LocalValue &lookup(Value global) const = 0;
  /// The local value of `global` in layout `state`, resharded (once per
  /// value and layout) if needed; errors are reported on `user`.
  virtual FailureOr<Value> get(Operation *user, Value global,
                               const ShardState &state) = 0;
  /// The local form of any value: a tensor in its current layout, or the
  /// mapped scalar.
  virtual Value current(Value global) = 0;
  /// Records the local form of a global tensor.
  virtual void set(Value global, LocalValue value) = 0;
  /// Records the local form of a global scalar.
  virtual void mapScalar(Value global, Value local) = 0;
  /// The mesh named `symbol`, or an error on `op`.
  virtual FailureOr<const MeshInfo *> meshFor(Operation *op,
                                              FlatSymbolRefAttr symbol) = 0;
  /// The layout propagation gave `value`; replicated on the default mesh
  /// when it has none.
  virtual FailureOr<std::pair<const MeshInfo *, ShardState>>
  annotatedLayout(Value value) = 0;

  /// The default partitioning: splits the factors of the op's rule by cost.
  virtual LogicalResult partitionByRule(Operation *op) = 0;
  /// Computes the global op on every device from replicated operands.
  virtual LogicalResult partitionReplicated(Operation *op) = 0;
  /// Partitions the ops of `source`, a block of a region the op being
  /// partitioned owns, at the builder's insertion point; its terminator is
  /// left to that op.
  virtual LogicalResult partitionBlock(Block &source) = 0;
};

/// `rebuild`'s op cloned with its local operands and result types, without
/// the global sharding attributes.
Operation *cloneLocal(LocalRebuild &rebuild);

/// Whether `op` takes or makes a tensor. Ops on scalars only compute the
/// same on every device and have no sharding.
bool touchesTensors(Operation *op);

/// The local type of a tensor of `type` in `state` on `mesh`.
RankedTensorType localType(RankedTensorType type, const MeshInfo &mesh,
                           const ShardState &state);

} // namespace mlir::spmd

#include "ir/ShardingInterface.h.inc"

namespace mlir::spmd {

/// The rule of `op`: its ShardingOpInterface's, else the one its traits
/// imply (elementwise ops, constants); nullopt when neither gives one or a shape is
/// dynamic.
std::optional<OpShardingRule> getShardingRule(Operation *op);

/// Checks that `rule` fits `op`: one tensor per operand and result with its
/// rank (0 for scalars), factors that exist, windows on input dimensions.
/// A model that breaks this is an error on `op` naming what is wrong.
LogicalResult verifyShardingRule(Operation *op, const OpShardingRule &rule);

/// The reduction result `result` of `op` is pending when its reduction
/// factors are split; nullopt when they must not be split.
std::optional<ReductionKind> getReductionKind(Operation *op, unsigned result);

/// The reduction every result of `op` is pending when a reduction factor
/// is split: nullopt when some result has none or they differ (the
/// padding of shared inputs can hold one identity only). What the
/// partitioner does and what auto-sharding may choose.
std::optional<ReductionKind> getSplitReductionKind(Operation *op);

} // namespace mlir::spmd

#endif // SPMD_IR_SHARDINGINTERFACE_H
