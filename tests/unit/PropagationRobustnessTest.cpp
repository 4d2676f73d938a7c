//===- PropagationRobustnessTest.cpp - No program crashes propagation -----===//
//
// Mutates an annotated program that uses every rule family, and runs each
// mutant that parses and verifies through --spmd-import --spmd-propagate.
// Errors are fine; a crash fails the test binary.
//
//===----------------------------------------------------------------------===//

#include "passes/Dialects.h"
#include "Mutation.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;

static const char *const kSeed = R"mlir(
spmd.mesh @mesh = <["data"=2, "model"=4]>
shard.grid @grid(shape = 2x2)
func.func @callee(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = math.tanh %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
func.func @f(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", ?}p1, {}]>},
             %w: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
             %n: index, %c: i1, %g: tensor<4x4xf32>)
    -> (tensor<128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}, tensor<8x20xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %gs = shard.shard %g to %s annotate_for_users : tensor<4x4xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %t = func.call @callee(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%a = %t) -> (tensor<8x16xf32>) {
    %k = spmd.sharding_constraint %a <@mesh, [{"data"}, {?}]> : tensor<8x16xf32>
    %b = arith.addf %k, %k : tensor<8x16xf32>
    scf.yield %b : tensor<8x16xf32>
  }
  %r = scf.if %c -> tensor<8x16xf32> {
    scf.yield %l : tensor<8x16xf32>
  } else {
    scf.yield %t : tensor<8x16xf32>
  }
  %col = tensor.collapse_shape %r [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %sl = tensor.extract_slice %m[0, 4] [8, 16] [1, 1] : tensor<8x32xf32> to tensor<8x16xf32>
  %p = tensor.pad %sl low[0, 2] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x16xf32> to tensor<8x20xf32>
  return %col, %p : tensor<128xf32>, tensor<8x20xf32>
}
)mlir";

TEST(PropagationRobustness, MutantsNeverCrash) {
  DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  std::mt19937 rng(777);
  int parsed = 0, propagated = 0;
  for (int i = 0, e = ::spmd::testing::mutantCount(4000); i < e; ++i) {
    // A fresh context each time: failed passes may leave state behind.
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    std::string mutant = i == 0 ? kSeed : ::spmd::testing::mutate(kSeed, rng);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(mutant, &context);
    if (!module)
      continue;
    ++parsed;
    PassManager pm(&context);
    pm.addPass(mlir::spmd::createSpmdImport());
    pm.addPass(mlir::spmd::createSpmdPropagate());
    if (succeeded(pm.run(*module)))
      ++propagated;
    else if (i == 0)
      ADD_FAILURE() << "the unmutated program must propagate";
  }
  int count = ::spmd::testing::mutantCount(4000);
  EXPECT_GT(parsed, count / 50);
  EXPECT_GT(propagated, count / 70);
}
