//===- RemadePerDeviceTest.cpp - Tensors every device makes itself --------===//

#include "ir/RemadePerDevice.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::spmd;

namespace {
class RemadePerDeviceTest : public ::testing::Test {
protected:
  RemadePerDeviceTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        linalg::LinalgDialect, tensor::TensorDialect>();
  }

  /// The values the first function of `source` returns.
  SmallVector<Value> returned(llvm::StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return {};
    auto function = *module->getOps<func::FuncOp>().begin();
    return llvm::to_vector(
        function.getBody().front().getTerminator()->getOperands());
  }

  /// Asserts the free function and the cache agree on `value` and
  /// returns their answer.
  bool remade(Value value) {
    bool answer = isRemadePerDevice(value);
    EXPECT_EQ(cache.isRemade(value), answer);
    return answer;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  RemadePerDeviceCache cache;
};
} // namespace

// Tensors made from scalars only are remade; anything read from a tensor
// that is not (an argument, a computed tensor) is not.
TEST_F(RemadePerDeviceTest, MadeFromScalarsOnly) {
  SmallVector<Value> values = returned(R"mlir(
    func.func @f(%s: f32, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, f32) {
      %e = tensor.empty() : tensor<4xf32>
      %splat = tensor.splat %s : tensor<4xf32>
      %fill = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      %over = linalg.fill ins(%s : f32) outs(%x : tensor<4xf32>) -> tensor<4xf32>
      %sum = arith.addf %e, %e : tensor<4xf32>
      return %e, %splat, %fill, %over, %sum, %x, %s
          : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
            tensor<4xf32>, tensor<4xf32>, f32
    }
  )mlir");
  ASSERT_EQ(values.size(), 7u);
  EXPECT_TRUE(remade(values[0]));  // tensor.empty
  EXPECT_TRUE(remade(values[1]));  // tensor.splat
  EXPECT_TRUE(remade(values[2]));  // a fill of an empty tensor
  EXPECT_FALSE(remade(values[3])); // a fill of an argument
  EXPECT_FALSE(remade(values[4])); // computed
  EXPECT_FALSE(remade(values[5])); // an argument
  EXPECT_FALSE(remade(values[6])); // a scalar is not a tensor
}

// Splat constants are remade; other constants are not (each device slices
// its part of the whole), but every use may still read them in its own
// layout at no cost. A fill over such a constant is neither: it is
// computed where it is, then moved.
TEST_F(RemadePerDeviceTest, Constants) {
  SmallVector<Value> values = returned(R"mlir(
    func.func @f(%s: f32) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %splat = arith.constant dense<1.0> : tensor<4xf32>
      %dense = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %fill = linalg.fill ins(%s : f32) outs(%dense : tensor<4xf32>) -> tensor<4xf32>
      return %splat, %dense, %fill : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }
  )mlir");
  ASSERT_EQ(values.size(), 3u);
  EXPECT_TRUE(remade(values[0]));
  EXPECT_FALSE(remade(values[1]));
  EXPECT_FALSE(remade(values[2]));
  EXPECT_TRUE(cache.isFreeInAnyLayout(values[0]));
  EXPECT_TRUE(cache.isFreeInAnyLayout(values[1]));
  EXPECT_FALSE(cache.isFreeInAnyLayout(values[2]));
}

// A dynamically shaped tensor has one layout (whole): nothing to remake.
TEST_F(RemadePerDeviceTest, DynamicShapesAreNotRemade) {
  SmallVector<Value> values = returned(R"mlir(
    func.func @f(%n: index) -> tensor<?xf32> {
      %e = tensor.empty(%n) : tensor<?xf32>
      return %e : tensor<?xf32>
    }
  )mlir");
  ASSERT_EQ(values.size(), 1u);
  EXPECT_FALSE(remade(values[0]));
  EXPECT_FALSE(cache.isFreeInAnyLayout(values[0]));
}

// Fills of fills are remade however deep (the partitioner remakes them),
// and a long chain is walked without recursion; the cache answers every
// value of it, in any order, as the free function does.
TEST_F(RemadePerDeviceTest, ChainsOfFillsAtAnyDepth) {
  constexpr int kLength = 20000;
  std::string source = "func.func @f(%s: f32, %x: tensor<4xf32>) -> "
                       "(tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {\n"
                       "  %f0 = tensor.empty() : tensor<4xf32>\n"
                       "  %g0 = linalg.fill ins(%s : f32) outs(%x : "
                       "tensor<4xf32>) -> tensor<4xf32>\n";
  for (int i = 1; i <= kLength; ++i)
    for (char chain : {'f', 'g'})
      source += "  %" + std::string(1, chain) + std::to_string(i) +
                " = linalg.fill ins(%s : f32) outs(%" + std::string(1, chain) +
                std::to_string(i - 1) + " : tensor<4xf32>) -> tensor<4xf32>\n";
  std::string middle = "%f" + std::to_string(kLength / 2);
  source += "  return %f" + std::to_string(kLength) + ", " + middle + ", %g" +
            std::to_string(kLength) +
            " : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>\n}\n";
  SmallVector<Value> values = returned(source);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_TRUE(cache.isRemade(values[1]));
  EXPECT_TRUE(remade(values[0]));
  EXPECT_TRUE(remade(values[1]));
  EXPECT_FALSE(remade(values[2]));
}
