//===- FunctionMesh.cpp - The mesh a function's values default to ---------===//

#include "ir/FunctionMesh.h"
#include "ir/Namespaces.h"
#include "ir/SpmdOps.h"

using namespace mlir;
using namespace mlir::spmd;

FlatSymbolRefAttr mlir::spmd::firstShardingMesh(func::FuncOp function) {
  StringRef name = SpmdDialect::kShardingAttrName;
  for (unsigned i = 0; i < function.getNumArguments(); ++i)
    if (auto sharding = function.getArgAttrOfType<ShardingAttr>(i, name))
      return sharding.getMesh();
  for (unsigned i = 0; i < function.getNumResults(); ++i)
    if (auto sharding = function.getResultAttrOfType<ShardingAttr>(i, name))
      return sharding.getMesh();
  FlatSymbolRefAttr mesh;
  function.walk([&](Operation *op) {
    if (auto constraint = llvm::dyn_cast<ShardingConstraintOp>(op))
      mesh = constraint.getSharding().getMesh();
    else if (auto perValue = op->getAttrOfType<ShardingPerValueAttr>(name))
      for (ShardingAttr sharding : perValue.getShardings())
        if (sharding && !mesh)
          mesh = sharding.getMesh();
    return mesh ? WalkResult::interrupt() : WalkResult::advance();
  });
  return mesh;
}
