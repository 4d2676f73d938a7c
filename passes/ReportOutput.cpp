//===- ReportOutput.cpp - Where the passes' JSON reports go ---------------===//

#include "passes/Passes.h"
#include "support/Files.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

LogicalResult mlir::spmd::writeReport(ModuleOp module,
                                      const llvm::json::Value &report,
                                      StringRef output, StringRef what) {
  if (output == "-") {
    llvm::outs() << llvm::formatv("{0:2}", report) << "\n";
    return success();
  }
  llvm::Error written = writeFile(output, what, [&](llvm::raw_ostream &os) {
    os << llvm::formatv("{0:2}", report) << "\n";
  });
  if (written)
    return emitError(module.getLoc()) << llvm::toString(std::move(written));
  return success();
}
