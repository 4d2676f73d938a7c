//===- ShardingPropagation.h - Propagation over a module --------*- C++ -*-===//
//
// Builds the factor graph of a module (sharding/Propagation.h): one node per
// tensor value and per function result, one edge per op with a sharding
// rule, identity edges for what control flow ties together (loop-carried
// values, branch results, call arguments and results, returned values).
// Runs the engine and writes every sharding back.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PASSES_SHARDINGPROPAGATION_H
#define SPMD_PASSES_SHARDINGPROPAGATION_H

#include "ir/Namespaces.h"
#include "sharding/Propagation.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::spmd {

struct PropagationOptions {
  PropagationStrategy strategy = PropagationStrategy::Aggressive;
  /// Record in `spmd.sharding_origins` where each dimension's sharding came
  /// from.
  bool debugOrigins = false;
};

LogicalResult propagateShardings(ModuleOp module,
                                 const PropagationOptions &options);

} // namespace mlir::spmd

#endif // SPMD_PASSES_SHARDINGPROPAGATION_H
