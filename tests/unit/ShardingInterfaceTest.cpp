//===- ShardingInterfaceTest.cpp - Models and the rules they give ---------===//

#include "ir/ShardingModels.h"
#include "ir/SpmdDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "tests/unit/ModelsContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::spmd;

namespace {
class ShardingModelsTest : public ::testing::Test {
protected:
  ShardingModelsTest() {
    ::spmd::testing::loadModelDialects(context);
    module = parseSourceString<ModuleOp>(R"mlir(
      func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
        %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
        return %m : tensor<4x2xf32>
      })mlir",
                                         &context);
    matmul = &*module->getBody()
                   ->front()
                   .getRegion(0)
                   .front()
                   .getOperations()
                   .begin();
  }

  /// The error verifyShardingRule reports for `rule` on the matmul.
  std::string errorOf(const OpShardingRule &rule) {
    std::string message;
    ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    if (succeeded(verifyShardingRule(matmul, rule)))
      return "";
    return message;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Operation *matmul;
};
} // namespace

TEST_F(ShardingModelsTest, ModelsGiveValidRules) {
  ASSERT_TRUE(llvm::isa<ShardingOpInterface>(matmul));
  std::optional<OpShardingRule> rule = getShardingRule(matmul);
  ASSERT_TRUE(rule);
  EXPECT_EQ(errorOf(*rule), "");
  EXPECT_EQ(getReductionKind(matmul, 0), ::spmd::ReductionKind::Sum);
}

TEST_F(ShardingModelsTest, BrokenRulesAreErrorsNamingWhatIsWrong) {
  OpShardingRule rule = *getShardingRule(matmul);

  OpShardingRule fewer = rule;
  fewer.tensors.pop_back();
  EXPECT_EQ(errorOf(fewer), "the sharding rule of 'linalg.matmul' lists 3 "
                            "tensors for 4 operands and results");

  OpShardingRule rank = rule;
  rank.tensors[1].pop_back();
  EXPECT_EQ(errorOf(rank), "the sharding rule of 'linalg.matmul' gives "
                           "tensor 1 1 dimensions; it has 2");

  OpShardingRule factor = rule;
  factor.tensors[0][0] = {7};
  EXPECT_EQ(errorOf(factor),
            "the sharding rule of 'linalg.matmul' names factor 7 of 3");

  OpShardingRule window = rule;
  window.windows.push_back({3, 0, 0, 1, 0, 0});
  EXPECT_EQ(errorOf(window), "the sharding rule of 'linalg.matmul' has a "
                             "window outside its operands and factors");
}
