//===- Partitioner.h - Global program to local SPMD program -----*- C++ -*-===//
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
// emitted once.
//
// Ops are partitioned through their ShardingOpInterface (by default: their
// factor rule, RulePartitioner.cpp), control flow through MLIR's
// RegionBranchOpInterface, CallOpInterface and ReturnLike
// (ControlFlowPartitioners.cpp); ops nothing describes are computed whole.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PARTITIONER_PARTITIONER_H
#define SPMD_PARTITIONER_PARTITIONER_H

#include "ir/LocalIR.h"
#include "ir/Namespaces.h"
#include "ir/RemadePerDevice.h"
#include "ir/SpmdOps.h"
#include "partitioner/ReshardPlanner.h"

#include "absl/container/node_hash_map.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::spmd {

/// A value's mesh and layout.
using Layout = std::pair<const MeshInfo *, ShardState>;

/// What partitionByRule decides for an op (RulePartitioner.cpp): the split
/// of every factor of its rule (none: the op is computed whole), and per
/// tensor of the rule the layout and local type that split gives it and
/// whether the operand is read through its producer.
struct RuleDecision {
  std::optional<std::vector<AxisList>> split;
  std::vector<ShardState> layouts;
  std::vector<RankedTensorType> localTypes;
  llvm::SmallBitVector readsThrough;
};

class Partitioner final : public PartitionContext {
public:
  explicit Partitioner(ModuleOp module);

  /// Partitions every function of the module.
  LogicalResult run();

  // --- PartitionContext --------------------------------------------------

  OpBuilder &builder() override { return b; }
  const LocalValue &lookup(Value global) const override {
    return values.at(global);
  }
  FailureOr<Value> get(Operation *user, Value global,
                       const ShardState &state) override;
  Value current(Value global) override;
  void set(Value global, LocalValue value) override;
  void mapScalar(Value global, Value local) override {
    scalarMap.map(global, local);
  }
  FailureOr<const MeshInfo *> meshFor(Operation *op,
                                      FlatSymbolRefAttr symbol) override;
  /// The sharding propagation gave `value` (an op result or a function
  /// argument), as a layout on its mesh; replicated on the default mesh
  /// when it has none.
  FailureOr<Layout> annotatedLayout(Value value) override;
  LogicalResult partitionByRule(Operation *op) override;
  LogicalResult partitionReplicated(Operation *op) override;

  // --- For the partitioner's own handlers ---------------------------------

  bool has(Value global) const { return values.count(global); }
  /// The layout result `i` of `function` is annotated with; none for
  /// results without a sharding (they pass through as they are).
  FailureOr<std::optional<Layout>> resultLayout(FunctionOpInterface function,
                                                unsigned i);
  /// Replicated on the mesh of the function being partitioned.
  Layout replicated(RankedTensorType type) const;
  /// Symbol tables of the module, for callees.
  SymbolTableCollection &symbolTables() { return symbols; }

  /// Adds to `mapping` every value `op`'s regions use from outside it and
  /// `mapping` does not map yet: scalars to their local forms, tensors
  /// whole (bodies index them at global positions).
  LogicalResult mapCaptured(Operation *op, IRMapping &mapping);
  /// `op` built on this device by its ShardingOpInterface (a clone by
  /// default) from `rebuild`.
  Operation *buildLocal(LocalRebuild &rebuild);

  /// Partitions the ops of `source` into the builder's insertion point;
  /// the terminator is left to the op owning the region, but a function's.
  LogicalResult partitionBlock(Block &source) override;

  /// `global` made afresh in layout `state` on `mesh` when it is remade per
  /// device (isRemadePerDevice): cheaper than moving it. Null otherwise.
  Value rematerialize(Value global, const MeshInfo &mesh,
                      const ShardState &state);
  /// Whether rematerialize makes `global` (at no communication) in every
  /// layout that is not pending a reduction.
  bool isRematerializable(Value global) const {
    return isRemadePerDevice(global);
  }

  /// The rule of the op making `global` when that op only moves its first
  /// operand through windows (ShardingOpInterface::onlyMovesThroughWindows),
  /// as it was before the op was partitioned (the local op takes the
  /// global one's body, which a pad's rule reads its padding value from).
  const OpShardingRule *movingRule(Value global) const {
    auto it = movingRules.find(global);
    return it == movingRules.end() ? nullptr : &it->second;
  }

private:
  /// When an earlier copy of `global` in this block is a free slice of
  /// `state`: `global` brought to `state` by `direct` right where it is
  /// made, and those copies remade from it, if that moves fewer bytes than
  /// `planned` plus theirs (a value split one way for a first user and
  /// gathered for a later one is gathered once). Null otherwise.
  Value reshardEarly(Operation *user, Value global, const ShardState &state,
                     const ReshardPlan &direct, double planned);
  /// `sharding` as a layout (errors at `anchor`), converted once per
  /// attribute.
  FailureOr<Layout> layoutOf(Operation *anchor, ShardingAttr sharding);
  LogicalResult partitionFunction(func::FuncOp function);
  LogicalResult partitionOp(Operation *op);
  /// partitionOp by the op's kind: its interface, trait or rule.
  LogicalResult rebuildOp(Operation *op);

  ModuleOp module;
  OpBuilder b;
  SymbolTableCollection symbols;
  std::vector<std::unique_ptr<MeshInfo>> meshes;
  /// Where values without a sharding live: the mesh of the function being
  /// partitioned.
  const MeshInfo *defaultMesh = nullptr;
  llvm::DenseMap<Value, LocalValue> values;
  llvm::DenseMap<ShardingAttr, Layout> layouts;
  /// A layout a value has been brought to (resharded, remade), with its
  /// local value and the bytes it took.
  struct Copy {
    ShardState state;
    Value local;
    double cost = 0;
  };
  /// A value's copies: made once per layout, and a later reshard may start
  /// from any of them.
  llvm::DenseMap<Value, SmallVector<Copy>> copies;
  /// Copies remade from a later one (Partitioner::get): their uses move to
  /// the new value once the function is built, since ops being built may
  /// still hold them.
  SmallVector<std::pair<Value, Value>> remadeCopies;
  IRMapping scalarMap;
  /// See movingRule.
  llvm::DenseMap<Value, OpShardingRule> movingRules;
  ReshardPlanCache planCache;
  /// partitionByRule's decisions, by all they depend on
  /// (RulePartitioner.cpp): repeated layers decide once. Nodes stay where
  /// they are while the map grows.
  absl::node_hash_map<std::vector<int64_t>, RuleDecision> ruleDecisions;
  std::vector<int64_t> choiceScratch;
};

// Handlers of ops recognised by MLIR's interfaces and traits, rather than
// by a ShardingOpInterface of their own (ControlFlowPartitioners.cpp).

/// An op running its regions (RegionBranchOpInterface): rebuilt with the
/// same scalar operands, each region partitioned, every carried value in
/// the layout of its flow class (ir/RegionFlow.h).
LogicalResult partitionRegionBranch(RegionBranchOpInterface op,
                                    Partitioner &p);
/// A call of a function of the module: operands in the callee's argument
/// layouts, results in its result layouts.
LogicalResult partitionCall(CallOpInterface call, Partitioner &p);
/// A function's return: operands in the function's result layouts.
LogicalResult partitionReturn(Operation *op, Partitioner &p);
/// A constant (ConstantLike): a splat is made locally in its layout, other
/// constants are whole on every device and sliced on use.
LogicalResult partitionConstant(Operation *op, Partitioner &p);

/// Emits the collectives of `plan` on `local` (a tensor of `globalShape`
/// in `from`), the first one marked with `minBytes`, the reshard's lower
/// bound.
Value emitReshard(OpBuilder &b, Location loc, Value local, const MeshInfo &mesh,
                  ArrayRef<int64_t> globalShape, const ShardState &from,
                  const ReshardPlan &plan, double minBytes);

} // namespace mlir::spmd

#endif // SPMD_PARTITIONER_PARTITIONER_H
