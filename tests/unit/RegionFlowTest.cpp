//===- RegionFlowTest.cpp - Values carried through loops and branches -----===//

#include "ir/RegionFlow.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::spmd;

namespace {
class RegionFlowTest : public ::testing::Test {
protected:
  RegionFlowTest() {
    context.loadDialect<arith::ArithDialect, cf::ControlFlowDialect,
                        func::FuncDialect, scf::SCFDialect>();
  }

  /// The first RegionBranchOpInterface op of `source`.
  RegionBranchOpInterface parse(llvm::StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    RegionBranchOpInterface found;
    module->walk([&](RegionBranchOpInterface op) {
      if (!found)
        found = op;
    });
    return found;
  }

  /// The class holding `input`.
  static const CarriedValue *classOf(ArrayRef<CarriedValue> classes,
                                     Value input) {
    for (const CarriedValue &carried : classes)
      if (llvm::is_contained(carried.inputs, input))
        return &carried;
    return nullptr;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};
} // namespace

// A value given as two inits is two carried values: one class per position,
// each holding its own operand of the loop, its region argument, what the
// body yields there and the result.
TEST_F(RegionFlowTest, OneValueAtTwoPositionsIsTwoClasses) {
  auto loop = llvm::cast<scf::ForOp>(parse(R"mlir(
    func.func @f(%x: i32, %n: index) -> (i32, i32) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %x, %q = %x) -> (i32, i32) {
        %s = arith.addi %p, %q : i32
        scf.yield %s, %q : i32, i32
      }
      return %r#0, %r#1 : i32, i32
    })mlir")
                                     .getOperation());
  SmallVector<CarriedValue> classes = regionFlowClasses(loop);
  Operation *yield = loop.getBody()->getTerminator();
  for (unsigned i = 0; i < 2; ++i) {
    const CarriedValue *carried = classOf(classes, loop.getRegionIterArg(i));
    ASSERT_NE(carried, nullptr);
    EXPECT_TRUE(llvm::is_contained(carried->inputs, loop.getResult(i)));
    EXPECT_TRUE(
        llvm::is_contained(carried->operands, &loop.getInitsMutable()[i]));
    EXPECT_TRUE(
        llvm::is_contained(carried->operands, &yield->getOpOperand(i)));
    EXPECT_EQ(carried->operands.size(), 2u);
    EXPECT_EQ(carried->inputs.size(), 2u);
  }
  EXPECT_NE(classOf(classes, loop.getRegionIterArg(0)),
            classOf(classes, loop.getRegionIterArg(1)));
}

// scf.while carries two values: the init and what the body yields enter
// the condition region; what the condition passes on (its own operand,
// which may be anything) enters the body and the results.
TEST_F(RegionFlowTest, WhileCarriesTwoValues) {
  auto loop = llvm::cast<scf::WhileOp>(parse(R"mlir(
    func.func @f(%x: i32) -> i32 {
      %c3 = arith.constant 3 : i32
      %r = scf.while (%a = %x) : (i32) -> i32 {
        %more = arith.cmpi slt, %a, %c3 : i32
        scf.condition(%more) %a : i32
      } do {
      ^bb0(%b: i32):
        %c = arith.addi %b, %b : i32
        scf.yield %c : i32
      }
      return %r : i32
    })mlir")
                                       .getOperation());
  SmallVector<CarriedValue> classes = regionFlowClasses(loop);
  ASSERT_EQ(classes.size(), 2u);
  const CarriedValue *before = classOf(classes, loop.getBeforeArguments()[0]);
  const CarriedValue *after = classOf(classes, loop.getAfterArguments()[0]);
  ASSERT_TRUE(before && after);
  EXPECT_NE(before, after);
  EXPECT_EQ(before->inputs.size(), 1u);
  EXPECT_TRUE(llvm::is_contained(before->operands, &loop.getInitsMutable()[0]));
  EXPECT_TRUE(llvm::is_contained(
      before->operands, &loop.getYieldOp().getResultsMutable()[0]));
  EXPECT_TRUE(llvm::is_contained(after->inputs, loop.getResult(0)));
  EXPECT_TRUE(llvm::is_contained(
      after->operands, &loop.getConditionOp().getArgsMutable()[0]));
  EXPECT_EQ(after->operands.size(), 1u);
}

// A branch's results receive what either region yields.
TEST_F(RegionFlowTest, BranchResultsJoinBothYields) {
  auto branch = llvm::cast<scf::IfOp>(parse(R"mlir(
    func.func @f(%c: i1, %x: i32, %y: i32) -> (i32, i32) {
      %r:2 = scf.if %c -> (i32, i32) {
        scf.yield %x, %y : i32, i32
      } else {
        scf.yield %y, %x : i32, i32
      }
      return %r#0, %r#1 : i32, i32
    })mlir")
                                      .getOperation());
  SmallVector<CarriedValue> classes = regionFlowClasses(branch);
  ASSERT_EQ(classes.size(), 2u);
  for (unsigned i = 0; i < 2; ++i) {
    const CarriedValue *carried = classOf(classes, branch.getResult(i));
    ASSERT_NE(carried, nullptr);
    EXPECT_EQ(carried->operands.size(), 2u);
    for (OpOperand *operand : carried->operands)
      EXPECT_EQ(operand->getOperandNumber(), i);
  }
  EXPECT_TRUE(hasStructuredRegions(branch));
}

// Regions of several blocks, or ended by a terminator with regions of its
// own (scf.reduce), are not rebuilt region by region.
TEST_F(RegionFlowTest, UnstructuredRegions) {
  auto parallel = parse(R"mlir(
    func.func @f(%n: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %s = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%c0) -> index {
        scf.reduce(%i : index) {
        ^bb0(%a: index, %b: index):
          %t = arith.addi %a, %b : index
          scf.reduce.return %t : index
        }
      }
      return %s : index
    })mlir");
  ASSERT_TRUE(parallel);
  EXPECT_FALSE(hasStructuredRegions(parallel));
  auto blocks = parse(R"mlir(
    func.func @f(%c: i1) -> i32 {
      %r = scf.execute_region -> i32 {
        cf.cond_br %c, ^a, ^b
      ^a:
        %x = arith.constant 1 : i32
        scf.yield %x : i32
      ^b:
        %y = arith.constant 2 : i32
        scf.yield %y : i32
      }
      return %r : i32
    })mlir");
  ASSERT_TRUE(blocks);
  EXPECT_FALSE(hasStructuredRegions(blocks));
}
