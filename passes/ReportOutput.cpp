//===- ReportOutput.cpp - Where the passes' JSON reports go ---------------===//

#include "passes/Passes.h"

#include "llvm/Support/FileSystem.h"
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
  std::error_code ec;
  llvm::raw_fd_ostream os(output, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return emitError(module.getLoc()) << "cannot write the " << what << " to '"
                                      << output << "': " << ec.message();
  os << llvm::formatv("{0:2}", report) << "\n";
  return success();
}
