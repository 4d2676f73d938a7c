//===- AttrConversionTest.cpp - Attributes <-> library values -------------===//

#include "ShardingEnumeration.h"
#include "ir/SpmdDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using mlir::spmd::MeshAttr;
using mlir::spmd::ShardingAttr;

namespace {
class AttrConversion : public ::testing::Test {
protected:
  AttrConversion() { context.loadDialect<mlir::spmd::SpmdDialect>(); }

  std::string print(mlir::Attribute attr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    attr.print(os);
    return text;
  }

  mlir::MLIRContext context;
};
} // namespace

TEST_F(AttrConversion, EveryShardingRoundTripsThroughTheAttribute) {
  spmd::DeviceMesh mesh =
      llvm::cantFail(spmd::DeviceMesh::create({"a", "b", "c"}, {2, 2, 2}));
  for (spmd::TensorSharding s :
       spmd::testing::allShardings(mesh, 2, /*withPartial=*/true)) {
    s.dims[0].open = true;
    s.dims[1].priority = 2;
    if (s.isPartial())
      s.partialKind = spmd::ReductionKind::Max;
    ShardingAttr attr = ShardingAttr::get(&context, s);
    EXPECT_EQ(attr.toTensorSharding(), s);
    // The attribute prints as the library prints the value.
    EXPECT_EQ(print(attr), "#spmd.sharding" + s.str());
    EXPECT_EQ(mlir::parseAttribute(print(attr), &context), attr);
  }
}

TEST_F(AttrConversion, MeshRoundTrip) {
  for (std::vector<int64_t> ids :
       {std::vector<int64_t>{}, std::vector<int64_t>{3, 1, 0, 2}}) {
    spmd::DeviceMesh mesh =
        llvm::cantFail(spmd::DeviceMesh::create({"x", "y"}, {2, 2}, ids));
    MeshAttr attr = MeshAttr::get(&context, mesh);
    EXPECT_EQ(attr.toMesh(), mesh);
    EXPECT_EQ(print(attr), "#spmd.mesh" + mesh.str());
  }
}

TEST_F(AttrConversion, ReductionKinds) {
  for (spmd::ReductionKind kind :
       {spmd::ReductionKind::Sum, spmd::ReductionKind::Max,
        spmd::ReductionKind::Min, spmd::ReductionKind::MaxNum,
        spmd::ReductionKind::MinNum, spmd::ReductionKind::Prod}) {
    mlir::IntegerAttr attr = mlir::spmd::reductionAttr(&context, kind);
    EXPECT_TRUE(mlir::spmd::isCollectiveReductionAttr(attr));
    EXPECT_EQ(static_cast<spmd::ReductionKind>(attr.getInt()), kind);
  }
  EXPECT_FALSE(mlir::spmd::isCollectiveReductionAttr(
      mlir::IntegerAttr::get(mlir::IntegerType::get(&context, 32), 6)));
}
