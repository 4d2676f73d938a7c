//===- spmd-opt.cpp - The spmd pass driver --------------------------------===//
//
// mlir-opt with the spmd dialect and passes and the dialects every tool of
// the compiler reads (passes/Dialects.h). It runs MLIR's driver on a
// buffer of its own reading and writes the output itself, so that
// command-line errors, unreadable inputs (a device, a FIFO) and outputs
// that cannot be written (a full disk) are one error line, not a fatal IO
// error or a read without end.
//
//===----------------------------------------------------------------------===//

#include "passes/Dialects.h"
#include "driver/Pipeline.h"
#include "passes/UpstreamParserGuard.h"
#include "support/Files.h"
#include "tools/CommandLine.h"
#include "tools/DebugOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"

#include <cstdio>

namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  mlir::spmd::registerSpmdPasses();
  ::spmd::driver::registerSpmdPipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  spmd::tools::registerDebugOptions();
  static cl::opt<std::string> inputFilename(
      cl::Positional, cl::desc("<input file>"), cl::init("-"));
  static cl::opt<std::string> outputFilename("o", cl::desc("Output filename"),
                                             cl::value_desc("filename"),
                                             cl::init("-"));
  std::string helpHeader = mlir::registerCLIOptions(
      "spmd-opt: SPMD sharding compiler driver\n", registry);
  // Diagnostics name the op by its location, not by a generic-form dump
  // (`--mlir-print-op-on-diagnostic` turns the dump back on).
  std::vector<char *> args(argv, argv + argc);
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  if (llvm::none_of(args, [](llvm::StringRef arg) {
        return arg.contains("mlir-print-op-on-diagnostic");
      }))
    args.insert(args.begin() + 1, quiet);
  spmd::tools::checkPluginArguments(argc, argv, "spmd-opt");
  spmd::tools::parseCommandLine(int(args.size()), args.data(), helpHeader,
                                "spmd-opt");
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return 0;
  }
  // The passes and their options are read when the pipeline is built: an
  // option a pass does not have is a command-line error too, found before
  // the input is read (MLIR printed it without `error:`, exit 1). Built as
  // for a module, unless the input need not be one.
  if (!config.shouldUseExplicitModule()) {
    bool built = false;
    std::string printed = spmd::tools::catchStandardError([&] {
      mlir::MLIRContext context(registry,
                                mlir::MLIRContext::Threading::DISABLED);
      mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName(),
                           mlir::OpPassManager::Nesting::Implicit);
      built = mlir::succeeded(config.setupPassPipeline(pm));
    });
    if (!built)
      spmd::tools::commandLineError("spmd-opt", "spmd-opt", printed);
  }

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> input =
      spmd::tools::readProgramFile(inputFilename);
  if (!input) {
    llvm::errs() << "spmd-opt: error: " << llvm::toString(input.takeError())
                 << "\n";
    return 1;
  }
  // Inputs MLIR's own linalg parsers would crash on are errors instead.
  if (std::optional<std::string> hazard = mlir::spmd::findUpstreamParserHazard(
          (*input)->getBuffer(), (*input)->getBufferIdentifier())) {
    llvm::errs() << *hazard << "\n";
    return 1;
  }

  // The output is kept whole and written once the passes succeeded (to
  // standard output also what they printed before failing, as mlir-opt).
  std::string output;
  llvm::raw_string_ostream os(output);
  bool succeeded = mlir::succeeded(
      mlir::MlirOptMain(os, std::move(*input), registry, config));
  if (!succeeded && outputFilename != "-")
    return 1;
  llvm::outs().flush();
  if (llvm::Error error =
          spmd::writeFile(outputFilename, "output",
                          [&](llvm::raw_ostream &out) { out << output; })) {
    llvm::errs() << "spmd-opt: error: " << llvm::toString(std::move(error))
                 << "\n";
    return 1;
  }
  return succeeded ? 0 : 1;
}
