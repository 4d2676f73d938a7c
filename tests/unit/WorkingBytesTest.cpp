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

  /// The working bytes of the multiply-add generic over loops (m1, m2, n,
  /// k) of 4 x 5 x 3 x 6 whose operands are read through `mapA`, `mapB`
  /// and `mapC` and have types `a`, `b` and `c`.
  int64_t ofContraction(const std::string &mapA, const std::string &a,
                        const std::string &mapB, const std::string &b,
                        const std::string &mapC, const std::string &c) {
    std::string source =
        "func.func @f(%a: " + a + ", %b: " + b + ", %c: " + c + ") -> " + c +
        " {\n  %r = linalg.generic {indexing_maps = [affine_map<(m1, m2, n, "
        "k) -> " +
        mapA + ">, affine_map<(m1, m2, n, k) -> " + mapB +
        ">, affine_map<(m1, m2, n, k) -> " + mapC +
        ">], iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
        "\"reduction\"]} ins(%a, %b : " +
        a + ", " + b + ") outs(%c : " + c +
        ") {\n  ^bb0(%x: f32, %y: f32, %o: f32):\n"
        "    %p = arith.mulf %x, %y : f32\n"
        "    %s = arith.addf %o, %p : f32\n"
        "    linalg.yield %s : f32\n  } -> " +
        c + "\n  return %r : " + c + "\n}\n";
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return -1;
    Operation *generic = nullptr;
    module->walk([&](linalg::GenericOp op) { generic = op; });
    return mlir::spmd::workingBytes(generic);
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
// The GEMM reads and writes operands where they lie, as matrices with a
// leading dimension, maybe transposed; others it copies densely, and the
// plan prices those copies (a budget was exceeded by a copy of C).
TEST_F(WorkingBytesTest, ContractionsPriceTheirDenseCopies) {
  // Rows (m1, m2) of A, B and C each one stride: nothing copied. C is
  // transposed: the GEMM writes C^T = B^T A^T where it lies.
  EXPECT_EQ(ofContraction("(m1, m2, k)", "tensor<4x5x6xf32>", "(k, n)",
                          "tensor<6x3xf32>", "(n, m1, m2)",
                          "tensor<3x4x5xf32>"),
            0);
  // A's rows m1 and m2 lie apart (k between them): A is copied.
  EXPECT_EQ(ofContraction("(m1, k, m2)", "tensor<4x6x5xf32>", "(k, n)",
                          "tensor<6x3xf32>", "(m1, m2, n)",
                          "tensor<4x5x3xf32>"),
            4 * 6 * 5 * 4);
  // So do C's: C is copied (and A is not).
  EXPECT_EQ(ofContraction("(m1, m2, k)", "tensor<4x5x6xf32>", "(k, n)",
                          "tensor<6x3xf32>", "(m1, n, m2)",
                          "tensor<4x3x5xf32>"),
            4 * 3 * 5 * 4);
}
} // namespace
