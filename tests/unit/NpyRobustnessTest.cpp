//===- NpyRobustnessTest.cpp - No .npy file crashes the reader ------------===//
//
// Mutated .npy files (headers with edge numbers, cut or repeated pieces,
// shapes promising more than the file holds) are read or refused with an
// error; none crashes, none allocates what its header promises first.
//
//===----------------------------------------------------------------------===//

#include "Mutation.h"
#include "runtime/exec/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace spmd::runtime;

TEST(NpyRobustness, MutantsNeverCrash) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("npy-mutants", dir));
  std::string path = (dir + "/seed.npy").str();
  HostBuffer seed(ElementType::F32, {3, 5});
  for (int64_t i = 0; i < seed.numElements(); ++i)
    seed.setFloat(i, i * 0.5);
  ASSERT_FALSE(bool(writeNpy(path, seed)));
  std::string bytes = (*llvm::MemoryBuffer::getFile(path))->getBuffer().str();
  std::mt19937 rng(5);
  int read = 0;
  for (int i = 0, e = spmd::testing::mutantCount(2000); i < e; ++i) {
    std::string mutant = spmd::testing::mutate(bytes, rng);
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      ASSERT_FALSE(ec);
      os << mutant;
    }
    llvm::Expected<HostBuffer> tensor = readNpy(path);
    if (tensor)
      ++read;
    else
      llvm::consumeError(tensor.takeError());
  }
  llvm::sys::fs::remove_directories(dir);
  EXPECT_GT(read, spmd::testing::mutantCount(2000) / 200);
}

/// The magic, version and header of a version 1.0 .npy file of `descr`
/// and `shape` (NumPy's spelling), padded as NumPy pads it.
static std::string npyHeader(const std::string &descr,
                             const std::string &shape) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) +
         char(header.size() >> 8) + header;
}

// A bool is a byte, 0 or 1: another byte (from a view cast in NumPy) would
// read as its low bit here and as true there; it is refused, naming it.
TEST(NpyRobustness, BoolsOtherThanZeroOrOneAreRefused) {
  std::string file = npyHeader("|b1", "(4,)");
  llvm::Expected<HostBuffer> good =
      parseNpy(file + std::string("\x00\x01\x01\x00", 4), "flags.npy");
  ASSERT_TRUE(bool(good)) << llvm::toString(good.takeError());
  EXPECT_EQ(good->getInt(1), 1);
  llvm::Expected<HostBuffer> bad =
      parseNpy(file + std::string("\x00\x01\x02\x01", 4), "flags.npy");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "flags.npy: element 2 is 2, not a bool (0 or 1)");
}

// Data longer than the header's shape (a header that lost a dimension, or
// names a narrower type than was written) is refused, as is data shorter.
TEST(NpyRobustness, DataOfAnotherSizeThanTheHeaderSaysIsRefused) {
  std::string file = npyHeader("<f4", "(2,)");
  ASSERT_TRUE(bool(parseNpy(file + std::string(8, '\0'), "x.npy")));
  for (size_t bytes : {4, 9, 16}) {
    llvm::Expected<HostBuffer> bad =
        parseNpy(file + std::string(bytes, '\0'), "x.npy");
    ASSERT_FALSE(bool(bad)) << bytes;
    EXPECT_EQ(llvm::toString(bad.takeError()),
              "x.npy: holds " + std::to_string(bytes) +
                  " bytes of data, but its header promises 8");
  }
}
