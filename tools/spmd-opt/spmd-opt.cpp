//===- spmd-opt.cpp - The spmd pass driver --------------------------------===//
//
// mlir-opt with the spmd dialect and passes and the dialects every tool of
// the compiler reads (passes/Dialects.h).
//
//===----------------------------------------------------------------------===//

#include "passes/Dialects.h"
#include "passes/Passes.h"
#include "passes/UpstreamParserGuard.h"
#include "tools/DebugOptions.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  mlir::spmd::registerSpmdPasses();
  mlir::spmd::registerSpmdPipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  spmd::tools::registerDebugOptions();
  // Diagnostics name the op by its location, not by a generic-form dump
  // (`--mlir-print-op-on-diagnostic` turns the dump back on).
  // Inputs MLIR's own linalg parsers would crash on are errors instead.
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.starts_with("-") || llvm::StringRef(argv[i - 1]) == "-o" ||
        !llvm::sys::fs::is_regular_file(arg))
      continue;
    if (auto text = llvm::MemoryBuffer::getFile(arg))
      if (std::optional<std::string> hazard =
              mlir::spmd::findUpstreamParserHazard((*text)->getBuffer(), arg)) {
        llvm::errs() << *hazard << "\n";
        return 1;
      }
  }
  std::vector<char *> args(argv, argv + argc);
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  if (llvm::none_of(args, [](llvm::StringRef arg) {
        return arg.contains("mlir-print-op-on-diagnostic");
      }))
    args.insert(args.begin() + 1, quiet);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      int(args.size()), args.data(), "spmd-opt: SPMD sharding compiler driver\n",
      registry));
}
