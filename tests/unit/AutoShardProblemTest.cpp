//===- AutoShardProblemTest.cpp - Auto-sharding real graphs exactly -------===//
//
// On programs of at most 8 ops (hand-written patterns and random chains of
// matmuls, elementwise ops, transposes and reductions), the plan CBC
// chooses costs exactly what enumerating every choice finds, under the
// same model, with and without a memory budget.
//
//===----------------------------------------------------------------------===//

#include "passes/AutoShardProblem.h"
#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "ir/SpmdDialect.h"
#include "ir/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

using namespace mlir;
using namespace mlir::spmd;

namespace {

class AutoShardProblemTest : public ::testing::Test {
protected:
  AutoShardProblemTest() {
    DialectRegistry registry;
    registry.insert<SpmdDialect, arith::ArithDialect, func::FuncDialect,
                    linalg::LinalgDialect, tensor::TensorDialect,
                    math::MathDialect>();
    registerShardingModels(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Builds the first function's problem; CBC and enumeration must agree.
  /// Returns the number of choices, which are enumerated only up to 2e7;
  /// `feasible` tells whether a plan fit.
  double checkExact(const std::string &source, double budgetFraction = 0,
                    bool *feasible = nullptr) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return 0;
    auto meshOp = *module->getOps<MeshOp>().begin();
    MeshInfo mesh{FlatSymbolRefAttr::get(meshOp.getSymNameAttr()),
                  meshOp.getMesh().toMesh()};
    auto function = *module->getOps<func::FuncOp>().begin();
    SmallVector<bool> dcn(mesh.mesh.rank(), false);
    dcn[0] = true;
    AutoShardSettings settings;
    FailureOr<AutoShardProblem> problem =
        AutoShardProblem::build(function, mesh, dcn, settings);
    EXPECT_TRUE(succeeded(problem));
    if (failed(problem))
      return 0;
    EXPECT_LE(problem->opsModelled, 8u) << source;
    ShardingProblem &p = problem->problem;
    double choices = 1;
    for (size_t v = 0; v < p.nodes.size(); ++v)
      choices *= double(p.strategies(v));
    if (choices > 2e7)
      return choices;
    if (budgetFraction > 0) {
      auto unlimited = solveWithCbc(p, 60);
      EXPECT_TRUE(bool(unlimited));
      if (!unlimited)
        return choices;
      p.memoryBudget = peakMemory(p, unlimited->choice) * budgetFraction;
    }
    auto exact = solveExhaustively(p);
    auto cbc = solveWithCbc(p, 60);
    if (feasible)
      *feasible = bool(exact);
    EXPECT_EQ(bool(exact), bool(cbc)) << source;
    if (!exact || !cbc) {
      if (!exact && !cbc) {
        EXPECT_EQ(llvm::toString(exact.takeError()),
                  llvm::toString(cbc.takeError()));
      } else {
        llvm::consumeError(exact.takeError());
        llvm::consumeError(cbc.takeError());
      }
      return choices;
    }
    EXPECT_EQ(cbc->status, ShardingSolution::Status::Optimal);
    EXPECT_NEAR(cbc->cost, exact->cost, 1e-9 * std::max(1.0, exact->cost))
        << source;
    EXPECT_LE(peakMemory(p, cbc->choice), p.memoryBudget);
    return choices;
  }

  MLIRContext context;
};

/// The Megatron MLP with only its input annotated (also a lit input).
std::string megatron() {
  std::ifstream file(SPMD_AUTO_SHARD_MLP);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST_F(AutoShardProblemTest, MegatronMlpIsSolvedExactly) {
  std::string source = megatron();
  ASSERT_FALSE(source.empty()) << SPMD_AUTO_SHARD_MLP;
  EXPECT_GT(checkExact(source), 1000);
  checkExact(source, 0.6);
  checkExact(source, 0.3);
}

TEST_F(AutoShardProblemTest, SoftmaxRowsAreSolvedExactly) {
  // Max-free softmax with a sharding constraint in the middle.
  const char *source = R"mlir(
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @softmax(%s: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = math.exp %a : f32
    linalg.yield %x : f32
  } -> tensor<8x16xf32>
  %pc = spmd.sharding_constraint %p <@mesh, [{"x"}, {}]> : tensor<8x16xf32>
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.reduce ins(%pc : tensor<8x16xf32>) outs(%fr : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%pc, %sum : tensor<8x16xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %q = arith.divf %a, %c : f32
    linalg.yield %q : f32
  } -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}
)mlir";
  EXPECT_GT(checkExact(source), 10);
  checkExact(source, 0.5);
}

/// Random chains: a running value through matmuls with new weights,
/// elementwise ops (with an earlier value of the same shape), transposes
/// and row sums broadcast back.
std::string randomChain(std::mt19937 &rng, int ops) {
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  const int sizes[] = {4, 8, 12, 16};
  std::string args, body;
  int numArgs = 0, numValues = 0;
  auto arg = [&](int r, int c, bool annotate) {
    std::string name = "%a" + std::to_string(numArgs++);
    if (!args.empty())
      args += ", ";
    args += name + ": tensor<" + std::to_string(r) + "x" + std::to_string(c) +
            "xf32>";
    if (annotate)
      args += " {spmd.sharding = #spmd.sharding<@mesh, [{\"x\"}, {}]>}";
    return name;
  };
  auto fresh = [&] { return "%v" + std::to_string(numValues++); };
  auto type = [](int r, int c) {
    return "tensor<" + std::to_string(r) + "x" + std::to_string(c) + "xf32>";
  };
  int rows = sizes[pick(4)], cols = sizes[pick(4)];
  std::string cur = arg(rows, cols, pick(2) == 0);
  std::vector<std::pair<std::string, std::pair<int, int>>> seen{
      {cur, {rows, cols}}};
  body += "  %z = arith.constant 0.0 : f32\n";
  for (int i = 0; i < ops; ++i) {
    std::string out = fresh();
    std::string e = fresh();
    switch (pick(4)) {
    case 0: { // matmul with a new weight
      int n = sizes[pick(4)];
      std::string w = arg(cols, n, false);
      std::string f = fresh();
      body += "  " + e + " = tensor.empty() : " + type(rows, n) + "\n";
      body += "  " + f + " = linalg.fill ins(%z : f32) outs(" + e + " : " +
              type(rows, n) + ") -> " + type(rows, n) + "\n";
      body += "  " + out + " = linalg.matmul ins(" + cur + ", " + w + " : " +
              type(rows, cols) + ", " + type(cols, n) + ") outs(" + f + " : " +
              type(rows, n) + ") -> " + type(rows, n) + "\n";
      cols = n;
      break;
    }
    case 1: { // add an earlier value of the same shape, or itself
      std::string other = cur;
      for (auto &[v, shape] : seen)
        if (shape == std::make_pair(rows, cols) && pick(2))
          other = v;
      body += "  " + e + " = tensor.empty() : " + type(rows, cols) + "\n";
      body += "  " + out + " = linalg.add ins(" + cur + ", " + other + " : " +
              type(rows, cols) + ", " + type(rows, cols) + ") outs(" + e +
              " : " + type(rows, cols) + ") -> " + type(rows, cols) + "\n";
      break;
    }
    case 2: { // transpose
      body += "  " + e + " = tensor.empty() : " + type(cols, rows) + "\n";
      body += "  " + out + " = linalg.transpose ins(" + cur + " : " +
              type(rows, cols) + ") outs(" + e + " : " + type(cols, rows) +
              ") permutation = [1, 0]\n";
      std::swap(rows, cols);
      break;
    }
    default: { // row sums, broadcast back and subtracted
      std::string f = fresh(), s = fresh(), e2 = fresh();
      std::string vec = "tensor<" + std::to_string(rows) + "xf32>";
      body += "  " + e + " = tensor.empty() : " + vec + "\n";
      body += "  " + f + " = linalg.fill ins(%z : f32) outs(" + e + " : " +
              vec + ") -> " + vec + "\n";
      body += "  " + s + " = linalg.reduce ins(" + cur + " : " +
              type(rows, cols) + ") outs(" + f + " : " + vec +
              ") dimensions = [1]\n    (%in: f32, %acc: f32) {\n"
              "      %r = arith.addf %in, %acc : f32\n"
              "      linalg.yield %r : f32\n    }\n";
      body += "  " + e2 + " = tensor.empty() : " + type(rows, cols) + "\n";
      body += "  " + out +
              " = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, "
              "j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], "
              "iterator_types = [\"parallel\", \"parallel\"]} ins(" +
              cur + ", " + s + " : " + type(rows, cols) + ", " + vec +
              ") outs(" + e2 + " : " + type(rows, cols) +
              ") {\n  ^bb0(%a: f32, %b: f32, %o: f32):\n"
              "    %q = arith.subf %a, %b : f32\n    linalg.yield %q : f32\n"
              "  } -> " +
              type(rows, cols) + "\n";
      ++i; // two ops
      break;
    }
    }
    cur = out;
    seen.push_back({cur, {rows, cols}});
  }
  return "spmd.mesh @mesh = <[\"x\"=2, \"y\"=2]>\nfunc.func @f(" + args +
         ") -> " + type(rows, cols) + " {\n" + body + "  return " + cur +
         " : " + type(rows, cols) + "\n}\n";
}

TEST_F(AutoShardProblemTest, RandomChainsAreSolvedExactly) {
  std::mt19937 rng(20261124);
  int budgeted = 0, checked = 0;
  for (int round = 0; round < 40; ++round) {
    std::string source = randomChain(rng, 2 + round % 4);
    SCOPED_TRACE("round " + std::to_string(round));
    double fraction = round % 2 ? 0.6 + 0.1 * (round % 5) : 0;
    bool feasible = false;
    if (checkExact(source, fraction, &feasible) <= 2e7) {
      ++checked;
      // Budgets that bind, and still let some plan fit.
      budgeted += fraction > 0 && feasible;
    }
  }
  EXPECT_GE(checked, 30);
  EXPECT_GE(budgeted, 5);
}

} // namespace
