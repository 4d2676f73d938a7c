//===- IntegerTypesTest.cpp - Integers of every width ---------------------===//
//
// Every width from 1 to 64 bits is an element type: stored in the smallest
// of 1, 2, 4 or 8 bytes, wrapped to its width on every store, and written
// to and read from .npy through that container.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Executable.h"
#include "runtime/exec/Npy.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

using namespace spmd::runtime;

namespace {

int64_t largest(unsigned width) {
  return width == 64 ? INT64_MAX : (int64_t(1) << (width - 1)) - 1;
}
int64_t smallest(unsigned width) { return -largest(width) - 1; }

TEST(IntegerTypes, EveryWidthIsAnElementType) {
  mlir::MLIRContext context;
  for (unsigned width = 1; width <= 64; ++width) {
    SCOPED_TRACE(width);
    llvm::Expected<ElementType> type =
        elementTypeOf(mlir::IntegerType::get(&context, width));
    ASSERT_TRUE(bool(type)) << llvm::toString(type.takeError());
    EXPECT_EQ(*type, integerElementType(width));
    EXPECT_EQ(intWidth(*type), width);
    EXPECT_FALSE(isFloat(*type));
    EXPECT_EQ(elementTypeName(*type), "i" + std::to_string(width));
    EXPECT_EQ(elementTypeBytes(*type), width <= 8    ? 1
                                       : width <= 16 ? 2
                                       : width <= 32 ? 4
                                                     : 8);
  }
  EXPECT_EQ(integerElementType(4), integerElementType(4));
  EXPECT_NE(integerElementType(4), ElementType::I8);
  for (unsigned width : {0u, 65u, 128u}) {
    llvm::Expected<ElementType> type =
        elementTypeOf(mlir::IntegerType::get(&context, width));
    ASSERT_FALSE(bool(type));
    EXPECT_NE(llvm::toString(type.takeError()).find("integers of 1 to 64 bits"),
              std::string::npos);
  }
}

TEST(IntegerTypes, StoresWrapToTheWidth) {
  for (unsigned width = 2; width <= 63; ++width) {
    SCOPED_TRACE(width);
    HostBuffer t(integerElementType(width), {4});
    t.setInt(0, largest(width) + 1);
    t.setInt(1, smallest(width) - 1);
    t.setInt(2, int64_t((uint64_t(1) << width) - 1)); // all ones: -1
    t.setInt(3, int64_t(uint64_t(1) << width));       // wraps to 0
    EXPECT_EQ(t.getInt(0), smallest(width));
    EXPECT_EQ(t.getInt(1), largest(width));
    EXPECT_EQ(t.getInt(2), -1);
    EXPECT_EQ(t.getInt(3), 0);
    EXPECT_EQ(t.getFloat(0), double(smallest(width)));
  }
  HostBuffer bits(ElementType::I1, {2});
  bits.setInt(0, -1);
  bits.setInt(1, 2);
  EXPECT_EQ(bits.getInt(0), 1);
  EXPECT_EQ(bits.getInt(1), 0);
}

TEST(IntegerTypes, NpyRoundTripsThroughTheContainer) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("npy-widths", dir));
  std::string path = (dir + "/t.npy").str();
  for (unsigned width = 1; width <= 64; ++width) {
    SCOPED_TRACE(width);
    ElementType type = integerElementType(width);
    HostBuffer t(type, {4});
    int64_t values[] = {smallest(width), largest(width), 0, -1};
    for (int64_t i = 0; i < 4; ++i)
      t.setInt(i, values[i]);
    ASSERT_FALSE(bool(writeNpy(path, t)));
    llvm::Expected<HostBuffer> read = readNpy(path, type);
    ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
    EXPECT_EQ(read->type(), type);
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(read->getInt(i), t.getInt(i));
    // The file holds the container's type, which reads as itself.
    llvm::Expected<HostBuffer> raw = readNpy(path);
    ASSERT_TRUE(bool(raw)) << llvm::toString(raw.takeError());
    EXPECT_EQ(raw->getInt(0), t.getInt(0));
  }
  // An int8 file with a value beyond i4's literals is refused for i4.
  HostBuffer wide(ElementType::I8, {2});
  wide.setInt(0, 15);
  wide.setInt(1, 16);
  ASSERT_FALSE(bool(writeNpy(path, wide)));
  llvm::Expected<HostBuffer> refused = readNpy(path, integerElementType(4));
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError())
                .find("element 1 is 16, outside [-8, 15], the values of i4"),
            std::string::npos);
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
