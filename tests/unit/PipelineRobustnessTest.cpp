//===- PipelineRobustnessTest.cpp - No program crashes compile or run -----===//
//
// Mutates the programs of the exactness tests (uneven reductions, global
// positions, pending sums, element access, branches, captured tables, every
// op of the input language) and
// compiles each mutant that parses through the whole pipeline; small ones
// (at most 8 devices, 4096 elements per tensor) also run, partitioned and
// not. Errors are fine; a crash fails the test binary. A mutant compiles
// only the entries its edits can change: compiling an untouched function of
// an untouched module again would repeat the seed's run.
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

/// The line in `text` that holds byte `offset` (1-based, as locations are).
static unsigned lineOf(StringRef text, size_t offset) {
  return 1 + text.take_front(offset).count('\n');
}

/// The entries of `module` (parsed from `mutant`) whose compile an edit of
/// `seed` can change: the functions whose lines hold an edit and those that
/// name one (calls); every function when an edit lies outside all functions
/// (the module's meshes and globals reach every one).
static SmallVector<std::string>
entriesToCompile(ModuleOp module, StringRef seed, StringRef mutant) {
  size_t prefix = 0, suffix = 0;
  size_t common = std::min(seed.size(), mutant.size());
  while (prefix < common && seed[prefix] == mutant[prefix])
    ++prefix;
  while (suffix < common - prefix &&
         seed[seed.size() - 1 - suffix] == mutant[mutant.size() - 1 - suffix])
    ++suffix;
  unsigned firstEdited = lineOf(mutant, prefix);
  unsigned lastEdited =
      lineOf(mutant, std::max(prefix, mutant.size() - suffix));
  bool seedItself = prefix == mutant.size() && seed.size() == mutant.size();
  // Each top-level op spans its line up to the next one's.
  SmallVector<std::pair<Operation *, unsigned>> starts;
  for (Operation &op : module.getBody()->getOperations())
    if (auto loc = llvm::dyn_cast<FileLineColLoc>(op.getLoc()))
      starts.push_back({&op, loc.getLine()});
  bool editsOutsideFunctions = starts.empty() || firstEdited < starts[0].second;
  llvm::SmallPtrSet<Operation *, 8> edited;
  for (size_t i = 0; i < starts.size(); ++i) {
    unsigned begin = starts[i].second;
    unsigned end = i + 1 < starts.size() ? starts[i + 1].second : UINT_MAX;
    if (lastEdited < begin || firstEdited >= end)
      continue;
    if (isa<func::FuncOp>(starts[i].first))
      edited.insert(starts[i].first);
    else
      editsOutsideFunctions = true;
  }
  SmallVector<std::string> entries;
  for (auto function : module.getOps<func::FuncOp>())
    entries.push_back(function.getSymName().str());
  if (seedItself || editsOutsideFunctions)
    return entries;
  for (bool grew = true; grew;) {
    grew = false;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (edited.contains(function))
        continue;
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(function);
      bool namesEdited = !uses; // unknown uses: it may
      if (uses)
        for (const SymbolTable::SymbolUse &use : *uses)
          namesEdited |= edited.contains(
              module.lookupSymbol(use.getSymbolRef().getRootReference()));
      if (namesEdited)
        grew = edited.insert(function).second || grew;
    }
  }
  llvm::erase_if(entries, [&](const std::string &name) {
    return !edited.contains(module.lookupSymbol(name));
  });
  return entries;
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
    // Each entry in turn, each from a fresh parse.
    SmallVector<std::string> entries = entriesToCompile(*module, seed, mutant);
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
