//===- PipelineFuzzer.cpp - Any text through parser, pipeline, kernels ----===//
//
// Bytes as MLIR text: refused by the tools' guard or parsed, then every
// function compiled as spmd-run compiles it (import, propagation,
// partitioning, kernels). Errors are expected; a crash, a hang, a leak or
// an allocation beyond the fuzzer's limit is a bug.
//
//===----------------------------------------------------------------------===//

#include "passes/Dialects.h"
#include "passes/UpstreamParserGuard.h"
#include "driver/Compile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Longer texts add parsing time, not new paths.
  if (size > (64 << 10))
    return 0;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  if (mlir::spmd::findUpstreamParserHazard(text, "fuzz"))
    return 0;
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry;
    mlir::spmd::registerInputDialects(*r);
    return r;
  }();
  // A fresh context per input: what one input uniqued cannot hide or
  // cause a failure of the next.
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 0;
  SmallVector<std::string> entries;
  for (auto function : module->getOps<func::FuncOp>())
    entries.push_back(function.getSymName().str());
  for (const std::string &entry : entries) {
    OwningOpRef<ModuleOp> copy = parseSourceString<ModuleOp>(text, &context);
    llvm::Expected<std::unique_ptr<::spmd::runtime::LoadedProgram>> program =
        ::spmd::driver::compile(std::move(copy), entry);
    if (!program) {
      llvm::consumeError(program.takeError());
      continue;
    }
    // The reference checks run (unpartitioned, and in f64).
    llvm::consumeError((*program)->compileReference());
  }
  return 0;
}
