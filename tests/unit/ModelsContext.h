//===- ModelsContext.h - A context with the sharding models -----*- C++ -*-===//

#ifndef SPMD_TESTS_UNIT_MODELSCONTEXT_H
#define SPMD_TESTS_UNIT_MODELSCONTEXT_H

#include "ir/ShardingModels.h"
#include "ir/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace spmd::testing {

/// Loads into `context` the spmd, arith, func, linalg and tensor dialects,
/// with the sharding models of their ops.
inline void loadModelDialects(mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::spmd::SpmdDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::tensor::TensorDialect>();
  mlir::spmd::registerShardingModels(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

} // namespace spmd::testing

#endif // SPMD_TESTS_UNIT_MODELSCONTEXT_H
