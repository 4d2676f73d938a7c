//===- BodyCombinerTest.cpp - Reductions of bodies and collectives --------===//
//
// The reduction kinds of region bodies (ir/BodyCombiner.h), what a split
// reduction leaves pending, and the collective kind of each spmd op.
//
//===----------------------------------------------------------------------===//

#include "ir/BodyCombiner.h"
#include "ir/ShardingModels.h"
#include "ir/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include "tests/unit/ModelsContext.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::spmd;

namespace {
class BodyCombinerTest : public ::testing::Test {
protected:
  BodyCombinerTest() {
    ::spmd::testing::loadModelDialects(context);
  }

  OwningOpRef<ModuleOp> parse(StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  /// The first op of `module`'s first function.
  static Operation *firstOp(ModuleOp module) {
    return &module.getBody()->front().getRegion(0).front().front();
  }

  /// A row reduction of `type`s whose body is `body` (%x element, %acc
  /// accumulator, yielding %r).
  OwningOpRef<ModuleOp> reduction(StringRef type, StringRef body) {
    return parse(llvm::formatv(R"mlir(
      func.func @f(%in: tensor<4x8x{0}>, %init: tensor<4x{0}>) -> tensor<4x{0}> {{
        %0 = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                              affine_map<(i, j) -> (i)>],
                             iterator_types = ["parallel", "reduction"]}
            ins(%in : tensor<4x8x{0}>) outs(%init : tensor<4x{0}>) {{
        ^bb0(%x: {0}, %acc: {0}):
          {1}
          linalg.yield %r : {0}
        } -> tensor<4x{0}>
        return %0 : tensor<4x{0}>
      })mlir",
                               type, body)
                     .str());
  }

  /// The combiner of the reduction's body, as the runtime asks for it.
  static std::optional<::spmd::ReductionKind> foldOf(ModuleOp module) {
    Block &body = *llvm::cast<linalg::LinalgOp>(firstOp(module)).getBlock();
    return foldCombiner(body, body.getArgument(0), body.getArgument(1));
  }

  MLIRContext context;
};
} // namespace

TEST_F(BodyCombinerTest, EveryCombiningOpHasItsKind) {
  using ::spmd::ReductionKind;
  struct Case {
    StringRef type, body;
    ReductionKind kind;
  } cases[] = {
      {"f32", "%r = arith.addf %x, %acc : f32", ReductionKind::Sum},
      {"i32", "%r = arith.addi %acc, %x : i32", ReductionKind::Sum},
      {"f32", "%r = arith.maximumf %x, %acc : f32", ReductionKind::Max},
      {"i32", "%r = arith.maxsi %x, %acc : i32", ReductionKind::Max},
      {"f32", "%r = arith.minimumf %acc, %x : f32", ReductionKind::Min},
      {"i32", "%r = arith.minsi %x, %acc : i32", ReductionKind::Min},
      {"f32", "%r = arith.maxnumf %x, %acc : f32", ReductionKind::MaxNum},
      {"f32", "%r = arith.minnumf %x, %acc : f32", ReductionKind::MinNum},
  };
  for (const Case &c : cases) {
    OwningOpRef<ModuleOp> module = reduction(c.type, c.body);
    ASSERT_TRUE(module) << c.body.str();
    EXPECT_EQ(foldOf(*module), c.kind) << c.body.str();
    // A split reduction is pending as its own kind (maxnumf as maxnum: a
    // device whose block is all NaN must not win).
    EXPECT_EQ(getReductionKind(firstOp(*module), 0), c.kind) << c.body.str();
  }
}

TEST_F(BodyCombinerTest, OtherBodiesAreNoFold) {
  for (StringRef body :
       {"%r = arith.mulf %x, %acc : f32", "%r = arith.addf %x, %x : f32",
        "%y = arith.negf %x : f32\n"
        "%r = arith.addf %y, %acc : f32"}) {
    OwningOpRef<ModuleOp> module = reduction("f32", body);
    ASSERT_TRUE(module) << body.str();
    EXPECT_EQ(foldOf(*module), std::nullopt) << body.str();
  }
  EXPECT_EQ(combinerKind(nullptr), std::nullopt);
}

TEST_F(BodyCombinerTest, EachCollectiveOpIsTheKindItsNameSpells) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    spmd.mesh @mesh = <["x"=2]>
    func.func @f(%a: tensor<4x4xf32>) {
      %0 = spmd.all_gather %a on @mesh axes = ["x"] gather_dim = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
      %1 = spmd.all_slice %a on @mesh axes = ["x"] slice_dim = 0 : tensor<4x4xf32> -> tensor<2x4xf32>
      %2 = spmd.all_to_all %a on @mesh axes = ["x"] split_dim = 0 concat_dim = 1 : tensor<4x4xf32> -> tensor<2x8xf32>
      %3 = spmd.all_reduce %a on @mesh axes = ["x"] reduction = max : tensor<4x4xf32>
      %4 = spmd.reduce_scatter %a on @mesh axes = ["x"] scatter_dim = 0 reduction = min : tensor<4x4xf32> -> tensor<2x4xf32>
      %5 = spmd.collective_permute %a on @mesh axes = ["x"] pairs = [0 -> 1, 1 -> 0] : tensor<4x4xf32>
      %6 = spmd.redistribute %a on @mesh axes = ["x"] from <@mesh, [{"x"}, {}]> to <@mesh, [{}, {"x"}]> global_shape = [8, 4] : tensor<4x4xf32> -> tensor<8x2xf32>
      return
    })mlir");
  ASSERT_TRUE(module);
  std::set<CollectiveKind> seen;
  module->walk([&](CollectiveOpInterface op) {
    CollectiveKind kind = op.getCollectiveKind();
    EXPECT_EQ(op->getName().stripDialect(),
              ::spmd::stringifyCollectiveKind(kind));
    seen.insert(kind);
  });
  EXPECT_EQ(seen.size(), 7u);
  module->walk([](AllReduceOp op) {
    EXPECT_EQ(op.getReduction(), ::spmd::ReductionKind::Max);
  });
  module->walk([](ReduceScatterOp op) {
    EXPECT_EQ(op.getReduction(), ::spmd::ReductionKind::Min);
  });
}

TEST_F(BodyCombinerTest, CollectivesCarryEveryReductionKind) {
  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    spmd.mesh @mesh = <["x"=2]>
    func.func @f(%a: tensor<4xf32>) {
      %0 = spmd.all_reduce %a on @mesh axes = ["x"] reduction = maxnum : tensor<4xf32>
      return
    })mlir");
  ASSERT_TRUE(module) << message;
  module->walk([](AllReduceOp op) {
    EXPECT_EQ(op.getReduction(), ::spmd::ReductionKind::MaxNum);
  });
  module = parse(R"mlir(
    spmd.mesh @mesh = <["x"=2]>
    func.func @f(%a: tensor<4xf32>) {
      %0 = spmd.all_reduce %a on @mesh axes = ["x"] reduction = mean : tensor<4xf32>
      return
    })mlir");
  EXPECT_FALSE(module);
  EXPECT_NE(message.find("[sum, max, min, maxnum, minnum, prod]"),
            std::string::npos)
      << message;
}
