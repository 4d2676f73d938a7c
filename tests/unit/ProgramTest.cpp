//===- ProgramTest.cpp - Programs run from the C++ API --------------------===//

#include "driver/Compile.h"
#include "ir/SpmdDialect.h"
#include "passes/Dialects.h"
#include "runtime/devices/Devices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <thread>

using namespace ::spmd;
using namespace ::spmd::runtime;

namespace {

std::unique_ptr<LoadedProgram> compile(mlir::MLIRContext &context,
                                       llvm::StringRef source) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  EXPECT_TRUE(module);
  llvm::Expected<std::unique_ptr<LoadedProgram>> program =
      driver::compile(std::move(module), "");
  EXPECT_TRUE(bool(program)) << llvm::toString(program.takeError());
  return std::move(*program);
}

mlir::DialectRegistry inputDialects() {
  mlir::DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  return registry;
}

// An uneven split (5 rows over 2 devices) and a replicated result: every
// shard says which global elements it holds, and toHost reassembles.
TEST(LoadedProgram, RunShardedKeepsResultsOnTheirDevices) {
  mlir::MLIRContext context(inputDialects());
  std::unique_ptr<LoadedProgram> program = compile(context, R"mlir(
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

  HostBuffer a(ElementType::F32, {5, 4}), b(ElementType::F32, {3});
  for (int64_t i = 0; i < 20; ++i)
    a.setFloat(i, i);
  for (int64_t i = 0; i < 3; ++i)
    b.setFloat(i, i + 1);
  llvm::Expected<std::vector<ShardedBuffer>> out = program->runSharded({a, b});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  ASSERT_EQ(out->size(), 2u);

  const ShardedBuffer &rows = (*out)[0];
  ASSERT_EQ(rows.localShards().size(), 2u);
  for (const ShardedBuffer::Shard &shard : rows.localShards()) {
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
  llvm::Expected<HostBuffer> whole = rows.toHost();
  ASSERT_TRUE(bool(whole));
  for (int64_t i = 0; i < 20; ++i)
    EXPECT_EQ(whole->getFloat(i), 2.0 * i);

  const ShardedBuffer &squares = (*out)[1];
  for (const ShardedBuffer::Shard &shard : squares.localShards()) {
    EXPECT_EQ(shard.slices[0].offset, 0);
    EXPECT_EQ(shard.slices[0].valid, 3);
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_EQ(shard.data->getFloat(i), double((i + 1) * (i + 1)));
  }
}

// Every device holds its share of a pending sum over "c" of its rows
// (split over "a", replicated over "b"), on a mesh whose device ids are
// permuted: the global tensor has each group's sum, in every row.
// Every buffer starts on a 64-byte boundary, whatever its size: kernels
// that peel elements up to an aligned address round them apart from the
// rest, so devices computing one replicated value from buffers at other
// offsets held copies that differed in the last bit (--check failed on
// them now and then).
TEST(HostBuffer, EveryBufferIsAlignedTo64Bytes) {
  std::vector<HostBuffer> buffers;
  for (int64_t n = 1; n < 300; n += 7)
    for (ElementType type :
         {ElementType::F64, ElementType::F16, ElementType::I8})
      buffers.emplace_back(type, std::vector<int64_t>{n});
  for (const HostBuffer &buffer : buffers)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 64, 0u)
        << buffer.numElements();
}

TEST(Assemble, SumsEachPartialGroupIntoItsShard) {
  DeviceMesh mesh = llvm::cantFail(
      DeviceMesh::create({"a", "b", "c"}, {2, 2, 2}, {5, 2, 7, 0, 3, 6, 1, 4}));
  TensorSharding sharding("mesh", {{{"a"}, false, {}}, {}}, {}, {"c"});
  ShardLayout layout = llvm::cantFail(ShardLayout::get(sharding, mesh, {4, 3}));
  std::vector<TensorRef> locals;
  for (int64_t device = 0; device < 8; ++device) {
    auto local = std::make_shared<HostBuffer>(ElementType::F32,
                                              std::vector<int64_t>{2, 3});
    int64_t first = layout.sliceOf(device)[0].offset * 3;
    bool lead = mesh.indexInGroup(device, layout.partialAxes()) == 0;
    for (int64_t i = 0; i < 6; ++i)
      local->setFloat(i, lead ? first + i - 0.5 : 0.5);
    locals.push_back(local);
  }
  llvm::Expected<HostBuffer> global =
      assemble(locals, layout, ReductionKind::Sum);
  ASSERT_TRUE(bool(global)) << llvm::toString(global.takeError());
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(global->getFloat(i), i) << "element " << i;
}

// An argument that is a pending sum over "y": the devices get shares whose
// sum over "y" is the input (the first device of each group the value, the
// others zeros), so returning it replicated gives the input back, not twice
// it.
TEST(LoadedProgram, PartialSumArgumentIsSplitIntoShares) {
  mlir::MLIRContext context(inputDialects());
  std::unique_ptr<LoadedProgram> program = compile(context, R"mlir(
    spmd.mesh @mesh = <["x"=2, "y"=2]>
    func.func @main(%a: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], partial={"y"}>})
        -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
      return %a : tensor<4xf32>
    })mlir");
  ASSERT_TRUE(program);
  ASSERT_EQ(program->numDevices(), 4);

  HostBuffer a(ElementType::F32, {4});
  for (int64_t i = 0; i < 4; ++i)
    a.setFloat(i, i + 1);
  std::vector<TensorRef> shards = program->shard(0, a);
  ASSERT_EQ(shards.size(), 4u);
  // Devices are row-major over ["x", "y"]: y is the device's lowest bit.
  for (int64_t device = 0; device < 4; ++device)
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(shards[device]->getFloat(i), device % 2 == 0 ? i + 1 : 0.0)
          << "device " << device << " element " << i;

  llvm::Expected<std::vector<HostBuffer>> out = program->run({a});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ((*out)[0].getFloat(i), i + 1.0);
}

// A pending max (or min) is its value on every device: each device may keep
// the input whole.
TEST(LoadedProgram, PartialMaxArgumentIsOnEveryDevice) {
  mlir::MLIRContext context(inputDialects());
  std::unique_ptr<LoadedProgram> program = compile(context, R"mlir(
    spmd.mesh @mesh = <["x"=2, "y"=2]>
    func.func @main(%a: tensor<3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}], partial<max>={"x", "y"}>})
        -> (tensor<3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
      return %a : tensor<3xi32>
    })mlir");
  ASSERT_TRUE(program);

  HostBuffer a(ElementType::I32, {3});
  for (int64_t i = 0; i < 3; ++i)
    a.setInt(i, -5 + 4 * i);
  for (const TensorRef &shard : program->shard(0, a))
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_EQ(shard->getInt(i), -5 + 4 * i);
  llvm::Expected<std::vector<HostBuffer>> out = program->run({a});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_EQ((*out)[0].getInt(i), -5 + 4 * i);
}

} // namespace

namespace {

bool sameBytes(const HostBuffer &a, const HostBuffer &b) {
  return a.sizeInBytes() == b.sizeInBytes() &&
         std::memcmp(a.data(), b.data(), a.sizeInBytes()) == 0;
}

// Two Programs running at once in one process: each gets the values and
// the per-device peak memory it gets alone (the figures were process-wide,
// and one run reset the other's).
TEST(LoadedProgram, TwoProgramsRunAtOnceWithTheirOwnMemoryFigures) {
  mlir::MLIRContext contextA(inputDialects()), contextB(inputDialects());
  std::unique_ptr<LoadedProgram> a = compile(contextA, R"mlir(
    spmd.mesh @mesh = <["x"=4]>
    func.func @main(%a: tensor<1024x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
        -> (tensor<1024x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
      %0 = arith.mulf %a, %a : tensor<1024x256xf32>
      %1 = arith.addf %0, %a : tensor<1024x256xf32>
      return %1 : tensor<1024x256xf32>
    })mlir");
  std::unique_ptr<LoadedProgram> b = compile(contextB, R"mlir(
    spmd.mesh @mesh = <["y"=2]>
    func.func @main(%a: tensor<2048x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
        -> tensor<512xf32> {
      %z = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<512xf32>
      %f = linalg.fill ins(%z : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
      %r = linalg.reduce { arith.addf } ins(%a : tensor<2048x512xf32>) outs(%f : tensor<512xf32>) dimensions = [0]
      return %r : tensor<512xf32>
    })mlir");
  ASSERT_TRUE(a && b);
  HostBuffer inA(ElementType::F32, {1024, 256}),
      inB(ElementType::F32, {2048, 512});
  for (int64_t i = 0; i < inA.numElements(); ++i)
    inA.setFloat(i, (i % 17) * 0.25);
  for (int64_t i = 0; i < inB.numElements(); ++i)
    inB.setFloat(i, (i % 13) * 0.5);

  auto runAlone = [](LoadedProgram &program, const HostBuffer &input) {
    llvm::Expected<std::vector<HostBuffer>> out = program.run({input});
    EXPECT_TRUE(bool(out)) << llvm::toString(out.takeError());
    return std::make_pair(std::move((*out)[0]), program.peakBytesOfLastRun());
  };
  auto [aloneA, peaksA] = runAlone(*a, inA);
  auto [aloneB, peaksB] = runAlone(*b, inB);
  ASSERT_EQ(peaksA.size(), 4u);
  ASSERT_EQ(peaksB.size(), 2u);
  // A device holds at least its argument shard and its result.
  EXPECT_GE(peaksA[0], 2 * 256 * 256 * 4);
  EXPECT_GE(peaksB[0], 1024 * 512 * 4);

  std::vector<std::string> failures;
  std::mutex mutex;
  auto repeat = [&](LoadedProgram &program, const HostBuffer &input,
                    const HostBuffer &expected,
                    const std::vector<int64_t> &peaks, const char *name) {
    for (int i = 0; i < 8; ++i) {
      llvm::Expected<std::vector<HostBuffer>> out = program.run({input});
      std::lock_guard<std::mutex> guard(mutex);
      if (!out)
        failures.push_back(llvm::toString(out.takeError()));
      else if (!sameBytes((*out)[0], expected))
        failures.push_back(std::string(name) + ": other values");
      else if (program.peakBytesOfLastRun() != peaks)
        failures.push_back(std::string(name) + ": other peaks");
    }
  };
  std::thread first([&, &alone = aloneA, &peaks = peaksA] {
    repeat(*a, inA, alone, peaks, "A");
  });
  std::thread second([&, &alone = aloneB, &peaks = peaksB] {
    repeat(*b, inB, alone, peaks, "B");
  });
  first.join();
  second.join();
  EXPECT_TRUE(failures.empty()) << failures.front();
}

} // namespace
