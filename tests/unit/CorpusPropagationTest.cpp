//===- CorpusPropagationTest.cpp - Propagation on real models -------------===//
//
// Every model of ../shared/corpus, with the first argument of its entry
// functions sharded on dimension 0 over a 4-device axis, goes through
// --spmd-import --spmd-propagate; then every tensor value has a sharding,
// and a second run prints the same bytes.
//
//===----------------------------------------------------------------------===//

#include "passes/Dialects.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace mlir;

static std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(SPMD_SHARED_DIR "/corpus", ec), end;
       !ec && it != end; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      files.push_back(it->path());
  llvm::sort(files);
  if (files.empty())
    files.push_back(""); // One skipped case says why.
  return files;
}

namespace {
/// One run in a context of its own (a second parse in the same context
/// would rename the models' dense resources).
class PropagationRun {
public:
  PropagationRun() {
    DialectRegistry registry;
    mlir::spmd::registerInputDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses the file, shards entry arguments, runs import and propagation,
  /// and prints the result ("" on failure).
  std::string run(const std::string &path) {
    module = parseSourceFile<ModuleOp>(path, &context);
    if (!module)
      return "";
    annotate(*module);
    PassManager pm(&context);
    pm.addPass(mlir::spmd::createSpmdImport());
    pm.addPass(mlir::spmd::createSpmdPropagate());
    if (failed(pm.run(*module)))
      return "";
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  }

  /// spmd.mesh @mesh = <["x"=4]>, and dimension 0 of the first argument of
  /// every function no other function calls split over it.
  void annotate(ModuleOp module) {
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    mlir::spmd::MeshOp::create(
        builder, module.getLoc(), "mesh",
        mlir::spmd::MeshAttr::get(
            &context, llvm::cantFail(::spmd::DeviceMesh::create({"x"}, {4}))));
    llvm::StringSet<> called;
    module.walk([&](func::CallOp call) { called.insert(call.getCallee()); });
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || called.contains(function.getSymName()) ||
          function.getNumArguments() == 0)
        continue;
      auto type =
          llvm::dyn_cast<RankedTensorType>(function.getArgumentTypes()[0]);
      if (!type || type.getRank() == 0)
        continue;
      std::vector<::spmd::DimSharding> dims(type.getRank());
      dims[0].axes = {"x"};
      function.setArgAttr(0, mlir::spmd::SpmdDialect::kShardingAttrName,
                          mlir::spmd::ShardingAttr::get(
                              &context, ::spmd::TensorSharding("mesh", dims)));
    }
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

class CorpusPropagation : public ::testing::TestWithParam<std::string> {};
} // namespace

static bool hasSharding(DictionaryAttr attrs) {
  return attrs && attrs.get(mlir::spmd::SpmdDialect::kShardingAttrName);
}

TEST_P(CorpusPropagation, EveryValueShardedAndDeterministic) {
  const std::string &path = GetParam();
  if (path.empty())
    GTEST_SKIP() << "skipped: " << SPMD_SHARED_DIR << "/corpus not found";
  PropagationRun first, second;
  std::string text = first.run(path);
  ASSERT_FALSE(text.empty()) << "import or propagation failed on " << path;
  EXPECT_EQ(second.run(path), text) << "output differs between runs";

  int64_t values = 0;
  for (auto function : first.module->getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    for (unsigned i = 0; i < function.getNumArguments(); ++i)
      if (llvm::isa<TensorType>(function.getArgumentTypes()[i])) {
        ++values;
        EXPECT_TRUE(hasSharding(function.getArgAttrDict(i)))
            << "@" << function.getSymName().str() << " argument " << i;
      }
    for (unsigned i = 0; i < function.getNumResults(); ++i)
      if (llvm::isa<TensorType>(function.getResultTypes()[i])) {
        ++values;
        EXPECT_TRUE(hasSharding(function.getResultAttrDict(i)))
            << "@" << function.getSymName().str() << " result " << i;
      }
    function.walk([&](Operation *op) {
      if (llvm::isa<mlir::spmd::SpmdDialect>(op->getDialect()) ||
          llvm::none_of(op->getResultTypes(), llvm::IsaPred<TensorType>))
        return;
      values += op->getNumResults();
      auto shardings = op->getAttrOfType<mlir::spmd::ShardingPerValueAttr>(
          mlir::spmd::SpmdDialect::kShardingAttrName);
      EXPECT_TRUE(shardings &&
                  shardings.getShardings().size() == op->getNumResults())
          << "no sharding on " << op->getName().getStringRef().str();
    });
  }
  EXPECT_GT(values, 0);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusPropagation,
                         ::testing::ValuesIn(corpusFiles()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           std::string name =
                               llvm::sys::path::stem(info.param).str();
                           for (char &c : name)
                             if (!isalnum(c))
                               c = '_';
                           return name.empty() ? std::string("none") : name;
                         });
