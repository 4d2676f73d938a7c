//===- PipelineRobustnessTest.cpp - No program crashes compile or run -----===//
//
// Mutates the programs of the exactness tests (uneven reductions, global
// positions, pending sums, element access, branches, captured tables, every
// op of the input language) and
// compiles each mutant that parses through the whole pipeline; small ones
// (at most 8 devices, 4096 elements per tensor) also run, partitioned and
// not. Errors are fine; a crash fails the test binary.
//
//===----------------------------------------------------------------------===//

#include "Mutation.h"
#include "ir/SpmdOps.h"
#include "ir/ValueTypes.h"
#include "passes/Dialects.h"
#include "passes/UpstreamParserGuard.h"
#include "driver/Compile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"


using namespace mlir;
using ::spmd::runtime::HostBuffer;
using ::spmd::runtime::LoadedProgram;
using ::spmd::runtime::TensorSpec;

/// Whether running `module` stays small: few devices, small tensors.
static bool isSmall(ModuleOp module) {
  for (auto mesh : module.getOps<mlir::spmd::MeshOp>())
    if (mesh.getMesh().toMesh().numDevices() > 8)
      return false;
  bool small = true;
  mlir::spmd::forEachDefinedType(module, [&](Operation *, Type type) {
    if (auto tensor = llvm::dyn_cast<RankedTensorType>(type))
      if (!tensor.hasStaticShape() || tensor.getNumElements() > 4096)
        small = false;
  });
  return small;
}

class PipelineRobustness : public testing::TestWithParam<const char *> {};

TEST_P(PipelineRobustness, MutantsNeverCrash) {
  std::string path = std::string(SPMD_LIT_INPUTS) + "/" + GetParam();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buffer)) << path;
  std::string seed = (*buffer)->getBuffer().str();
  DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  std::mt19937 rng(4242);
  int parsed = 0, compiled = 0, ran = 0;
  for (int i = 0, e = ::spmd::testing::mutantCount(2000); i < e; ++i) {
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    std::string mutant = i == 0 ? seed : ::spmd::testing::mutate(seed, rng);
    // MLIR's own linalg parsers crash on some malformed lists; the tools
    // refuse those before parsing, and so does this test.
    if (mlir::spmd::findUpstreamParserHazard(mutant, "mutant"))
      continue;
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(mutant, &context);
    if (!module)
      continue;
    ++parsed;
    bool small = isSmall(*module);
    // Every function in turn, each from a fresh parse.
    SmallVector<std::string> entries;
    for (auto function : module->getOps<func::FuncOp>())
      entries.push_back(function.getSymName().str());
    for (const std::string &entry : entries) {
      OwningOpRef<ModuleOp> copy =
          parseSourceString<ModuleOp>(mutant, &context);
      llvm::Expected<std::unique_ptr<LoadedProgram>> program =
          ::spmd::driver::compile(std::move(copy), entry);
      if (!program) {
        llvm::consumeError(program.takeError());
        continue;
      }
      ++compiled;
      if (!small)
        continue;
      std::vector<HostBuffer> inputs;
      for (const TensorSpec &spec : (*program)->inputs())
        inputs.emplace_back(spec.type, spec.shape);
      llvm::Expected<std::vector<HostBuffer>> out = (*program)->run(inputs);
      if (out)
        ++ran;
      else
        llvm::consumeError(out.takeError());
      llvm::Expected<std::vector<HostBuffer>> reference =
          (*program)->runGlobal(inputs);
      if (!reference)
        llvm::consumeError(reference.takeError());
    }
  }
  int count = ::spmd::testing::mutantCount(2000);
  EXPECT_GT(parsed, count / 100);
  EXPECT_GT(compiled, count / 100);
  EXPECT_GT(ran, count / 200);
}

INSTANTIATE_TEST_SUITE_P(Inputs, PipelineRobustness,
                         testing::Values("exactness.mlir",
                                         "element-access.mlir",
                                         "branches.mlir", "embedding.mlir",
                                         "coverage.mlir"));
