//===- Locations.cpp - Locations as compilers print them ------------------===//

#include "ir/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

void mlir::spmd::printFileLineCol(llvm::raw_ostream &os, Location loc) {
  if (auto file = llvm::dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ':' << file.getLine() << ':'
       << file.getColumn();
    return;
  }
  if (auto named = llvm::dyn_cast<NameLoc>(loc))
    return printFileLineCol(os, named.getChildLoc());
  if (auto callSite = llvm::dyn_cast<CallSiteLoc>(loc))
    return printFileLineCol(os, callSite.getCallee());
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return printFileLineCol(os, fused.getLocations().front());
  loc.print(os);
}
