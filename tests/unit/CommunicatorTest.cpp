//===- CommunicatorTest.cpp - In-process collectives ----------------------===//

#include "runtime/comm/Communicator.h"
#include "runtime/exec/TensorOps.h"

#include <gtest/gtest.h>

#include <thread>

using namespace spmd;
using namespace spmd::runtime;

namespace {

/// Runs `body(device)` on one thread per device.
template <typename Body> void onDevices(int64_t n, Body body) {
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d)
    threads.emplace_back([&, d] { body(d); });
  for (std::thread &t : threads)
    t.join();
}

TensorRef filled(ElementType type, int64_t elements, int64_t device) {
  auto t = std::make_shared<HostBuffer>(type, std::vector<int64_t>{elements});
  for (int64_t i = 0; i < elements; ++i) {
    int64_t v = (i * 7 + device * 13) % 29 - 14;
    if (isFloat(type))
      t->setFloat(i, v * 0.5);
    else
      t->setInt(i, v);
  }
  return t;
}

struct AllReduceCase {
  ElementType type;
  int64_t elements;
  int64_t devices;
  ReductionKind kind;
};

class AllReduceTest : public ::testing::TestWithParam<AllReduceCase> {};

// Small buffers take the exchange path, large ones (>= 1 MiB) the
// cooperative one; both must equal the reduction in group order.
TEST_P(AllReduceTest, EveryMemberGetsTheReduction) {
  AllReduceCase c = GetParam();
  LocalCommunicator communicator;
  std::vector<TensorRef> inputs, results(c.devices);
  for (int64_t d = 0; d < c.devices; ++d)
    inputs.push_back(filled(c.type, c.elements, d));
  TensorRef expected = reduce(inputs, c.kind);
  std::vector<int64_t> group;
  for (int64_t d = c.devices - 1; d >= 0; --d)
    group.push_back(d);
  onDevices(c.devices, [&](int64_t d) {
    for (int round = 0; round < 2; ++round) {
      llvm::Expected<TensorRef> out = communicator.allReduce(
          "k" + std::to_string(round), "test", d, group, inputs[d], c.kind);
      ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
      results[d] = *out;
    }
  });
  for (int64_t d = 0; d < c.devices; ++d) {
    ASSERT_EQ(results[d]->sizeInBytes(), expected->sizeInBytes());
    EXPECT_EQ(0, std::memcmp(results[d]->data(), expected->data(),
                             expected->sizeInBytes()))
        << "device " << d;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, AllReduceTest,
    ::testing::Values(
        AllReduceCase{ElementType::F32, 100, 4, ReductionKind::Sum},
        AllReduceCase{ElementType::F32, 300001, 4, ReductionKind::Sum},
        AllReduceCase{ElementType::F32, 300001, 3, ReductionKind::Max},
        AllReduceCase{ElementType::F64, 200003, 2, ReductionKind::Min},
        AllReduceCase{ElementType::I32, 300007, 4, ReductionKind::Sum},
        AllReduceCase{ElementType::BF16, 700001, 4, ReductionKind::Max}));

TEST(LocalCommunicator, MissingMemberTimesOutNamingIt) {
  LocalCommunicator communicator(std::chrono::milliseconds(50));
  std::vector<int64_t> group = {0, 1, 2};
  for (int64_t elements : {16, 1 << 20}) {
    llvm::Expected<TensorRef> out = communicator.allReduce(
        "k" + std::to_string(elements), "'spmd.all_reduce' at loc", 0, group,
        filled(ElementType::F32, elements, 0), ReductionKind::Sum);
    ASSERT_FALSE(bool(out));
    std::string message = llvm::toString(out.takeError());
    EXPECT_NE(message.find("'spmd.all_reduce' at loc"), std::string::npos);
    EXPECT_NE(message.find("devices 1, 2"), std::string::npos) << message;
  }
}

} // namespace
