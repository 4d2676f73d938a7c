//===- WorkingBytesTest.cpp - Working buffers the kernels allocate --------===//

#include "ir/WorkingBytes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;

namespace {
class WorkingBytesTest : public ::testing::Test {
protected:
  WorkingBytesTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        linalg::LinalgDialect, ml_program::MLProgramDialect,
                        tensor::TensorDialect>();
  }

  /// The working bytes of the last linalg.matmul in `source`.
  int64_t ofMatmul(const std::string &source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return -1;
    Operation *matmul = nullptr;
    module->walk([&](linalg::MatmulOp op) { matmul = op; });
    EXPECT_TRUE(matmul);
    return matmul ? mlir::spmd::workingBytes(matmul) : -1;
  }

  /// A matmul of `m`x`k` by `k`x`n` whose B is `weights` (defining %w).
  static std::string matmul(int m, int k, int n, const std::string &weights,
                            const std::string &globals = "") {
    std::string a = "tensor<" + std::to_string(m) + "x" + std::to_string(k) +
                    "xf32>",
                b = "tensor<" + std::to_string(k) + "x" + std::to_string(n) +
                    "xf32>",
                c = "tensor<" + std::to_string(m) + "x" + std::to_string(n) +
                    "xf32>";
    return globals + "func.func @f(%x: " + a + ", %arg: " + b + ", %c: " + c +
           ") -> " + c + " {\n" + weights +
           "  %r = linalg.matmul ins(%x, %w : " + a + ", " + b +
           ") outs(%c : " + c + ") -> " + c + "\n  return %r : " + c + "\n}\n";
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

constexpr int64_t kMatmulScratch = 128 << 10;

TEST_F(WorkingBytesTest, ConstantWeightsPriceTheMatmulScratchpad) {
  EXPECT_EQ(ofMatmul(matmul(64, 128, 128,
                            "  %w = arith.constant dense<1.0> : "
                            "tensor<128x128xf32>\n")),
            kMatmulScratch);
  // A load of a constant global.
  EXPECT_EQ(
      ofMatmul(matmul(
          64, 128, 128,
          "  %w = ml_program.global_load_const @g : tensor<128x128xf32>\n",
          "ml_program.global private @g(dense<1.0> : tensor<128x128xf32>)"
          " : tensor<128x128xf32>\n")),
      kMatmulScratch);
}

/// `%w` as a generic that writes the transpose of a constant, its body
/// `body` (yielding `%p`, the constant's element, copies it).
std::string transposingGeneric(const std::string &body) {
  return "  %v = arith.constant dense<1.0> : tensor<128x128xf32>\n"
         "  %e = tensor.empty() : tensor<128x128xf32>\n"
         "  %w = linalg.generic {indexing_maps = [affine_map<(i, j) -> "
         "(j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = "
         "[\"parallel\", \"parallel\"]} ins(%v : tensor<128x128xf32>) "
         "outs(%e : tensor<128x128xf32>) {\n"
         "  ^bb0(%p: f32, %o: f32):\n" +
         body + "  } -> tensor<128x128xf32>\n";
}

// torch-mlir's w.t(): the executor folds or fuses the copy into the matmul
// before it runs, so the plan prices what the kernel will allocate.
TEST_F(WorkingBytesTest, TransposedConstantWeightsArePricedToo) {
  EXPECT_EQ(ofMatmul(matmul(64, 128, 128,
                            transposingGeneric("    linalg.yield %p : f32\n"))),
            kMatmulScratch);
  EXPECT_EQ(
      ofMatmul(matmul(64, 128, 128,
                      "  %v = arith.constant dense<1.0> : tensor<128x128xf32>\n"
                      "  %e = tensor.empty() : tensor<128x128xf32>\n"
                      "  %w = linalg.transpose ins(%v : tensor<128x128xf32>) "
                      "outs(%e : tensor<128x128xf32>) permutation = [1, 0]\n")),
      kMatmulScratch);
}

TEST_F(WorkingBytesTest, OtherWeightsAndSmallProductsPriceNothing) {
  // Weights given each call.
  EXPECT_EQ(ofMatmul(matmul(64, 128, 128,
                            "  %w = arith.addf %arg, %arg : "
                            "tensor<128x128xf32>\n")),
            0);
  // One multiply-add short of 2^20.
  EXPECT_EQ(ofMatmul(matmul(63, 128, 130,
                            "  %w = arith.constant dense<1.0> : "
                            "tensor<128x130xf32>\n")),
            0);
  // A copy that computes (negates) its input is not a copy.
  EXPECT_EQ(ofMatmul(matmul(64, 128, 128,
                            transposingGeneric("    %n = arith.negf %p : f32\n"
                                               "    linalg.yield %n : f32\n"))),
            0);
}
} // namespace
