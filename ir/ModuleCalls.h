//===- ModuleCalls.h - Which functions of a module call which ---*- C++ -*-===//
//
// The executor compiles, and the error scales rewrite, only the functions
// an entry reaches: both walk the same calls.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_MODULECALLS_H
#define SPMD_IR_MODULECALLS_H

#include "ir/Namespaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <utility>

namespace mlir::spmd {

/// The calls in each function of a module: callee name and call op.
using CallMap = llvm::StringMap<SmallVector<std::pair<StringRef, Operation *>>>;

CallMap callsOf(ModuleOp module);

/// `roots` and every function they call, directly or through others.
llvm::StringSet<> reachedFrom(const CallMap &calls, ArrayRef<StringRef> roots);

} // namespace mlir::spmd

#endif // SPMD_IR_MODULECALLS_H
