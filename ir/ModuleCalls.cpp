//===- ModuleCalls.cpp - Which functions of a module call which -----------===//

#include "ir/ModuleCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"

namespace mlir::spmd {

CallMap callsOf(ModuleOp module) {
  CallMap calls;
  module.walk([&](CallOpInterface call) {
    auto function = call->getParentOfType<func::FuncOp>();
    auto callee =
        llvm::dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
    if (function && callee)
      calls[function.getSymName()].push_back(
          {callee.getLeafReference().getValue(), call});
  });
  return calls;
}

llvm::StringSet<> reachedFrom(const CallMap &calls, ArrayRef<StringRef> roots) {
  llvm::StringSet<> reached;
  SmallVector<StringRef> work(roots);
  while (!work.empty()) {
    StringRef name = work.pop_back_val();
    if (reached.insert(name).second)
      for (const auto &[callee, call] : calls.lookup(name))
        work.push_back(callee);
  }
  return reached;
}

} // namespace mlir::spmd
