//===- PartitionPass.cpp - spmd-partition ---------------------------------===//

#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "partitioner/Partitioner.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDPARTITION
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

namespace {
struct PartitionPass : mlir::spmd::impl::SpmdPartitionBase<PartitionPass> {
  /// Ops are rebuilt through their sharding models.
  void getDependentDialects(DialectRegistry &registry) const override {
    SpmdPartitionBase::getDependentDialects(registry);
    mlir::spmd::registerShardingModels(registry);
  }

  void runOnOperation() override {
    if (failed(mlir::spmd::Partitioner(getOperation()).run()))
      signalPassFailure();
  }
};
} // namespace
