//===- ValueTypes.h - The types of every value defined ----------*- C++ -*-===//

#ifndef SPMD_IR_VALUETYPES_H
#define SPMD_IR_VALUETYPES_H

#include "ir/Namespaces.h"
#include "mlir/IR/Operation.h"

namespace mlir::spmd {

/// Calls `fn(op, type)` for every result and region argument of `root` and
/// the ops nested in it (the op defining the value, or owning the region).
inline void forEachDefinedType(Operation *root,
                               function_ref<void(Operation *, Type)> fn) {
  root->walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      fn(op, type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          fn(op, arg.getType());
  });
}

} // namespace mlir::spmd

#endif // SPMD_IR_VALUETYPES_H
