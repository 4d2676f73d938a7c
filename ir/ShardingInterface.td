//===- ShardingInterface.td - What an op tells us ----------*- tablegen -*-===//
//
// The one extension point of an op: its factor rule (with the windows its
// inputs are read through), the reduction its reduced results are pending,
// and how it is rebuilt on one device. Upstream dialects get it through
// external models (ir/models/), a user's dialect through its own.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_SHARDINGINTERFACE_TD
#define SPMD_IR_SHARDINGINTERFACE_TD

include "mlir/IR/OpBase.td"

def Spmd_ShardingOpInterface : OpInterface<"ShardingOpInterface"> {
  let cppNamespace = "::mlir::spmd";
  let description = [{
    How an op's tensors relate (its factor rule), so that propagation can
    move shardings through it and the partitioner can split its iteration
    space, and how the op is built again with local shapes. Ops without it
    are covered by their traits (elementwise ops) or computed whole on
    every device.
  }];
  let methods = [
    InterfaceMethod<[{
        The op's factor rule: one tensor per operand (scalars as rank-0
        tensors), then one per result, and the input dimensions read
        through windows. Nullopt when the op cannot be split at all (for
        instance dynamic shapes): it is then computed whole.
      }], "std::optional<::mlir::spmd::OpShardingRule>", "getShardingRule">,
    InterfaceMethod<[{
        The reduction result `result` is pending when a reduction factor of
        the rule is split: each device then holds a partial value to be
        combined with this kind. Nullopt (the default): the reduction
        factors are not split.
      }], "std::optional<::spmd::ReductionKind>", "getReductionKind",
      (ins "unsigned":$result), [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        When the reduction factors `factors` are split unevenly, the
        padding of a shard must contribute nothing. Returns the operands
        whose padding, set to the reduction's identity, achieves that (for a
        sum of products of two inputs, both: 0 * NaN is no zero), each with
        a dimension made of exactly each factor; nullopt when there are
        none.
      }], "std::optional<::llvm::SmallVector<unsigned>>",
      "getIdentityPaddedOperands", (ins "::llvm::ArrayRef<unsigned>":$factors),
      [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        Whether buildLocal leaves the iterations in
        LocalRebuild::skippedIterations without effect. When it does not
        and getIdentityPaddedOperands gives none, reduction factors are
        split evenly only.
      }], "bool", "skipsPaddedIterations", (ins), [{}],
      [{ return false; }]>,
    InterfaceMethod<[{
        Whether the op only moves its first operand: its one result has the
        operand's rank and factors, each element is the operand element the
        rule's windows (stride 1, no extent) name, or the window's fill
        where that lies outside the operand, and dimensions without a window
        are copied whole (a pad of a constant, a unit-stride slice). An op
        reading the result through windows may then read the operand
        instead and make the border itself.
      }], "bool", "onlyMovesThroughWindows", (ins), [{}],
      [{ return false; }]>,
    InterfaceMethod<[{
        Builds the op on one device at the rebuild's insertion point, from
        the local operands and result types it holds. Returns null after
        emitting an error. The default clones the op, which suits ops whose
        attributes say nothing about shapes.
      }], "::mlir::Operation *", "buildLocal",
      (ins "::mlir::spmd::LocalRebuild &":$rebuild), [{}],
      [{ return ::mlir::spmd::cloneLocal(rebuild); }]>,
    InterfaceMethod<[{
        Partitions the op: reads its operands and records its results'
        local forms through `context`. The default splits the factors of
        the rule by cost (PartitionContext::partitionByRule); ops with
        their own communication pattern (one element read from a split
        tensor) override it.
      }], "::mlir::LogicalResult", "partition",
      (ins "::mlir::spmd::PartitionContext &":$context), [{}],
      [{ return context.partitionByRule($_op); }]>,
  ];
}

#endif // SPMD_IR_SHARDINGINTERFACE_TD
