//===- Dialects.cpp - The dialects every tool of the compiler reads -------===//

#include "passes/Dialects.h"
#include "ir/SpmdDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

void mlir::spmd::registerInputDialects(DialectRegistry &registry) {
  registry.insert<SpmdDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  DLTIDialect, func::FuncDialect, linalg::LinalgDialect,
                  ml_program::MLProgramDialect, math::MathDialect,
                  scf::SCFDialect, shard::ShardDialect, tensor::TensorDialect,
                  tosa::TosaDialect>();
}
