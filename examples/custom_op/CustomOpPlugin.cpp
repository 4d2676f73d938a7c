//===- CustomOpPlugin.cpp - The dialect as a plugin of the tools ----------===//
//
// Loaded by each tool (each command on one line):
//   spmd-run --load-dialect-plugin=libSpmdCustomOpPlugin.so norms.mlir --check
//   spmd-opt --load-dialect-plugin=libSpmdCustomOpPlugin.so --spmd-pipeline
//            norms.mlir
//
//===----------------------------------------------------------------------===//

#include "CustomDialect.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "SpmdCustomOp", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<custom::CustomDialect>();
            custom::registerShardingModel(*registry);
            custom::registerKernelModel(*registry);
          }};
}
