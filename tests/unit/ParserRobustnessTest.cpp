//===- ParserRobustnessTest.cpp - No input crashes the spmd parser --------===//
//
// Mutates valid spmd programs thousands of times (deleted and inserted
// characters, odd numbers, repeated pieces) and parses and verifies each.
// A crash fails the test binary; every mutant that is accepted must print
// and parse back to the same text.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "Mutation.h"

#include "gtest/gtest.h"

using namespace mlir;

static const char *const kSeed = R"mlir(
spmd.mesh @mesh = <["data"=2, "model"=4]>
spmd.mesh @perm = <["x"=2, "y"=2], device_ids=[0, 2, 1, 3]>
func.func @f(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", ?}p1, {}], replicated={"model"}>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], partial<max>={"model"}>}) {
  %0 = spmd.sharding_constraint %a <@mesh, [{"data"}, {?}]> : tensor<8x16xf32>
  %1 = arith.addf %0, %0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x16xf32>
  %2 = spmd.all_gather %1 on @mesh axes = ["model"] gather_dim = 1 : tensor<8x16xf32> -> tensor<8x64xf32>
  %3 = spmd.all_reduce %1 on @mesh axes = ["model", "data"] reduction = max : tensor<8x16xf32>
  %4 = spmd.reduce_scatter %1 on @mesh axes = ["model"] scatter_dim = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  %5 = spmd.all_to_all %1 on @mesh axes = ["model"] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  %6 = spmd.collective_permute %1 on @perm axes = ["x"] pairs = [0 -> 1, 1 -> 0] : tensor<8x16xf32>
  %7 = spmd.all_slice %1 on @mesh axes = ["data"] slice_dim = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  %8 = spmd.axis_index "model" on @mesh : index
  return %1 : tensor<8x16xf32>
}
)mlir";

static std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

TEST(ParserRobustness, MutantsNeverCrashAndAcceptedOnesRoundTrip) {
  MLIRContext context;
  context.loadDialect<mlir::spmd::SpmdDialect, func::FuncDialect,
                      arith::ArithDialect>();
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });

  ASSERT_TRUE(parseSourceString<ModuleOp>(kSeed, &context));
  std::mt19937 rng(12345);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string mutant = ::spmd::testing::mutate(kSeed, rng);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(mutant, &context);
    if (!module) {
      ++rejected;
      continue;
    }
    ++accepted;
    std::string printed = print(*module);
    OwningOpRef<ModuleOp> reparsed =
        parseSourceString<ModuleOp>(printed, &context);
    ASSERT_TRUE(reparsed) << "printed form does not parse:\n" << printed;
    EXPECT_EQ(print(*reparsed), printed);
  }
  // Both outcomes must occur, or the mutations exercise nothing.
  EXPECT_GT(accepted, 250);
  EXPECT_GT(rejected, 5000);
}
