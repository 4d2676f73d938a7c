//===- SafetensorsRobustnessTest.cpp - No safetensors file crashes --------===//
//
// Mutated safetensors files (header lengths and offsets with edge numbers,
// cut or repeated pieces, shapes promising more than the file holds) are
// read or refused with an error naming the file; none crashes, none
// allocates what its header promises before checking the file holds it.
//
//===----------------------------------------------------------------------===//

#include "Mutation.h"
#include "runtime/exec/Safetensors.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace spmd::runtime;

namespace {
/// A file of every type the format and the runtime share.
std::string seedFile(const std::string &path) {
  std::vector<HostBuffer> tensors;
  std::vector<SafetensorsTensor> entries;
  for (ElementType type : {ElementType::F32, ElementType::BF16, ElementType::I1,
                           ElementType::I64, ElementType::F16}) {
    tensors.emplace_back(type, std::vector<int64_t>{2, 3});
    entries.push_back({"t" + std::to_string(entries.size()),
                       type,
                       {2, 3},
                       tensors.back().data()});
  }
  EXPECT_TRUE(bool(writeSafetensors(path, entries, {{"format", "pt"}})));
  return (*llvm::MemoryBuffer::getFile(path))->getBuffer().str();
}
} // namespace

TEST(SafetensorsRobustness, MutantsNeverCrash) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(
      llvm::sys::fs::createUniqueDirectory("safetensors-mutants", dir));
  std::string path = (dir + "/seed.safetensors").str();
  std::string bytes = seedFile(path);
  auto seed = parseSafetensors(bytes, path);
  ASSERT_TRUE(bool(seed)) << llvm::toString(seed.takeError());
  EXPECT_EQ(seed->size(), 5u);
  std::mt19937 rng(7);
  int read = 0, refused = 0;
  for (int i = 0, e = spmd::testing::mutantCount(2000); i < e; ++i) {
    std::string mutant = spmd::testing::mutate(bytes, rng);
    // Every fourth mutant also has its header length changed.
    if (i % 4 == 0 && mutant.size() >= 8)
      mutant[std::uniform_int_distribution<int>(0, 7)(rng)] ^=
          char(1 << std::uniform_int_distribution<int>(0, 7)(rng));
    auto tensors = parseSafetensors(mutant, "mutant.safetensors");
    if (tensors) {
      ++read;
      continue;
    }
    ++refused;
    std::string message = llvm::toString(tensors.takeError());
    EXPECT_NE(message.find("mutant.safetensors"), std::string::npos) << message;
  }
  llvm::sys::fs::remove_directories(dir);
  // Both outcomes happen: mutants of numbers inside data stay readable.
  EXPECT_GT(read, 0);
  EXPECT_GT(refused, spmd::testing::mutantCount(2000) / 2);
}

TEST(SafetensorsRobustness, TheFormatsRulesAreChecked) {
  auto file = [](const std::string &header, size_t dataBytes) {
    std::string bytes(8, '\0');
    uint64_t n = header.size();
    std::memcpy(bytes.data(), &n, 8);
    return bytes + header + std::string(dataBytes, '\0');
  };
  auto refused = [&](const std::string &header, size_t dataBytes,
                     const std::string &why) {
    auto tensors = parseSafetensors(file(header, dataBytes), "f");
    ASSERT_FALSE(bool(tensors)) << header;
    std::string message = llvm::toString(tensors.takeError());
    EXPECT_NE(message.find(why), std::string::npos) << message;
  };
  const std::string ok =
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  ASSERT_TRUE(bool(parseSafetensors(file(ok, 8), "f")));
  refused(ok, 7, "truncated");
  refused(ok, 9, "holds 9");
  refused(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4,
          "hold 4 bytes");
  refused(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8,
          "holes");
  refused(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
          R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
          8, "overlaps");
  refused(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1, "U8");
  refused(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", 0,
          "shape");
  // Integers as the format's writers emit them (Python's json and serde
  // refuse 2.0 where a count belongs).
  refused(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", 8,
          "shape");
  refused(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8e0]}})", 8,
          "data_offsets");
  refused(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],)"
          R"("data_offsets":[0,0]}})",
          0, "2^64");
  refused(R"({"__metadata__":{"k":1}})", 0, "__metadata__");
  refused(std::string(100, '['), 0, "not a JSON object");
  refused("{" + std::string(100000, '[') + "}", 0, "nests");
  auto huge = parseSafetensors(std::string(8, '\xff'), "f");
  ASSERT_FALSE(bool(huge));
  EXPECT_NE(llvm::toString(huge.takeError()).find("more than the limit"),
            std::string::npos);
  // A bool that is neither 0 nor 1.
  std::string bools =
      file(R"({"a":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", 0) +
      std::string("\x01\x02", 2);
  auto tensors = parseSafetensors(bools, "f");
  ASSERT_FALSE(bool(tensors));
  EXPECT_NE(llvm::toString(tensors.takeError()).find("not a bool"),
            std::string::npos);
}
