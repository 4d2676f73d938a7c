//===- ProgramTest.cpp - Programs run from the C++ API --------------------===//

#include "runtime/Program.h"
#include "ir/SpmdDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace spmd;
using namespace spmd::runtime;

namespace {

std::unique_ptr<Program> compile(mlir::MLIRContext &context,
                                 llvm::StringRef source) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  EXPECT_TRUE(module);
  llvm::Expected<std::unique_ptr<Program>> program =
      Program::compile(std::move(module), "");
  EXPECT_TRUE(bool(program)) << llvm::toString(program.takeError());
  return std::move(*program);
}

// An uneven split (5 rows over 2 devices) and a replicated result: every
// shard says which global elements it holds, and toHost reassembles.
TEST(Program, RunShardedKeepsResultsOnTheirDevices) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::spmd::SpmdDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::tensor::TensorDialect>();
  mlir::MLIRContext context(registry);
  std::unique_ptr<Program> program = compile(context, R"mlir(
    spmd.mesh @mesh = <["x"=2]>
    func.func @main(%a: tensor<5x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                    %b: tensor<3xf32>)
        -> (tensor<5x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, tensor<3xf32>) {
      %0 = arith.addf %a, %a : tensor<5x4xf32>
      %1 = arith.mulf %b, %b : tensor<3xf32>
      return %0, %1 : tensor<5x4xf32>, tensor<3xf32>
    })mlir");
  ASSERT_TRUE(program);
  ASSERT_EQ(program->numDevices(), 2);

  HostTensor a(DType::F32, {5, 4}), b(DType::F32, {3});
  for (int64_t i = 0; i < 20; ++i)
    a.setFloat(i, i);
  for (int64_t i = 0; i < 3; ++i)
    b.setFloat(i, i + 1);
  llvm::Expected<std::vector<ShardedTensor>> out = program->runSharded({a, b});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  ASSERT_EQ(out->size(), 2u);

  const ShardedTensor &rows = (*out)[0];
  ASSERT_EQ(rows.localShards().size(), 2u);
  for (const ShardedTensor::Shard &shard : rows.localShards()) {
    const DimSlice &r = shard.slices[0];
    EXPECT_EQ(r.offset, shard.device * 3);
    EXPECT_EQ(r.size, 3);
    EXPECT_EQ(r.valid, shard.device == 0 ? 3 : 2);
    EXPECT_EQ(shard.slices[1].offset, 0);
    EXPECT_EQ(shard.slices[1].valid, 4);
    ASSERT_EQ(shard.data->shape(), llvm::ArrayRef<int64_t>({3, 4}));
    for (int64_t i = 0; i < r.valid * 4; ++i)
      EXPECT_EQ(shard.data->getFloat(i), 2.0 * (r.offset * 4 + i));
  }
  llvm::Expected<HostTensor> whole = rows.toHost();
  ASSERT_TRUE(bool(whole));
  for (int64_t i = 0; i < 20; ++i)
    EXPECT_EQ(whole->getFloat(i), 2.0 * i);

  const ShardedTensor &squares = (*out)[1];
  for (const ShardedTensor::Shard &shard : squares.localShards()) {
    EXPECT_EQ(shard.slices[0].offset, 0);
    EXPECT_EQ(shard.slices[0].valid, 3);
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_EQ(shard.data->getFloat(i), double((i + 1) * (i + 1)));
  }
}

} // namespace
