//===- MeshTest.cpp - Mesh, groups and hybrid meshes ----------------------===//

#include "mesh/HybridDeviceMesh.h"

#include "gtest/gtest.h"

using namespace spmd;

static DeviceMesh mustCreate(std::vector<std::string> names,
                       std::vector<int64_t> shape,
                       std::vector<int64_t> ids = {}) {
  return llvm::cantFail(DeviceMesh::create(names, shape, ids));
}

static std::string errorOf(llvm::Expected<DeviceMesh> mesh) {
  return mesh ? "" : llvm::toString(mesh.takeError());
}

TEST(DeviceMesh, IotaLayout) {
  DeviceMesh mesh = mustCreate({"data", "model"}, {2, 4});
  EXPECT_EQ(mesh.numDevices(), 8);
  EXPECT_TRUE(mesh.hasIotaDeviceIds());
  EXPECT_EQ(mesh.deviceAt({1, 2}), 6);
  EXPECT_EQ(mesh.coordsOf(6), (llvm::SmallVector<int64_t>{1, 2}));
  EXPECT_EQ(mesh.axisIndex("model"), 1u);
  EXPECT_EQ(mesh.axisIndex("nope"), std::nullopt);
  EXPECT_EQ(mesh.str(), "<[\"data\"=2, \"model\"=4]>");
}

TEST(DeviceMesh, PermutedDeviceIds) {
  DeviceMesh mesh = mustCreate({"x", "y"}, {2, 2}, {0, 2, 1, 3});
  EXPECT_EQ(mesh.deviceAt({0, 1}), 2);
  EXPECT_EQ(mesh.coordsOf(2), (llvm::SmallVector<int64_t>{0, 1}));
  EXPECT_EQ(mesh.coordsOf(1), (llvm::SmallVector<int64_t>{1, 0}));
  EXPECT_EQ(mesh.str(), "<[\"x\"=2, \"y\"=2], device_ids=[0, 2, 1, 3]>");
}

TEST(DeviceMesh, CoordinatesRoundTrip) {
  DeviceMesh mesh = mustCreate({"a", "b", "c"}, {2, 3, 2},
                         {11, 3, 5, 7, 9, 1, 0, 2, 4, 6, 8, 10});
  for (int64_t d = 0; d < mesh.numDevices(); ++d)
    EXPECT_EQ(mesh.deviceAt(mesh.coordsOf(d)), d);
}

TEST(DeviceMesh, RejectsInvalid) {
  EXPECT_NE(errorOf(DeviceMesh::create({"a", "a"}, {2, 2})).find("declared twice"),
            std::string::npos);
  EXPECT_NE(errorOf(DeviceMesh::create({"a"}, {0})).find("sizes must be >= 1"),
            std::string::npos);
  EXPECT_NE(errorOf(DeviceMesh::create({""}, {2})).find("non-empty"),
            std::string::npos);
  EXPECT_NE(errorOf(DeviceMesh::create({"a"}, {4}, {0, 1, 2})).find("3 entries"),
            std::string::npos);
  EXPECT_NE(errorOf(DeviceMesh::create({"a"}, {4}, {0, 1, 1, 3})).find("twice"),
            std::string::npos);
  EXPECT_NE(errorOf(DeviceMesh::create({"a"}, {2}, {0, 2})).find("out of range"),
            std::string::npos);
}

TEST(DeviceMesh, RejectsHugeMeshes) {
  EXPECT_NE(errorOf(DeviceMesh::create({"a", "b"}, {1 << 20, 1 << 20}))
                .find("more than 16777216 devices"),
            std::string::npos);
  // Products that overflow int64 are caught too.
  EXPECT_NE(errorOf(DeviceMesh::create({"a", "b", "c"},
                                 {int64_t(1) << 40, int64_t(1) << 40, 2}))
                .find("more than"),
            std::string::npos);
  EXPECT_EQ(errorOf(DeviceMesh::create({"a"}, {DeviceMesh::kMaxDevices})), "");
}

TEST(DeviceMesh, GroupsOverOneAxis) {
  DeviceMesh mesh = mustCreate({"data", "model"}, {2, 4});
  auto groups = mesh.groups({1});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (llvm::SmallVector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(groups[1], (llvm::SmallVector<int64_t>{4, 5, 6, 7}));
  groups = mesh.groups({0});
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[3], (llvm::SmallVector<int64_t>{3, 7}));
}

TEST(DeviceMesh, GroupsOverSeveralAxesFollowListedOrder) {
  DeviceMesh mesh = mustCreate({"a", "b", "c"}, {2, 2, 2});
  // Minor axis listed first: it is the major index inside the group.
  EXPECT_EQ(mesh.groupOf(0, {2, 0}), (llvm::SmallVector<int64_t>{0, 4, 1, 5}));
  EXPECT_EQ(mesh.indexInGroup(1, {2, 0}), 2);
  EXPECT_EQ(mesh.groupSize({2, 0}), 4);
  auto groups = mesh.groups({2, 0});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1], (llvm::SmallVector<int64_t>{2, 6, 3, 7}));
}

TEST(DeviceMesh, GroupsPartitionTheDevices) {
  DeviceMesh mesh = mustCreate({"a", "b", "c"}, {2, 3, 2},
                         {11, 3, 5, 7, 9, 1, 0, 2, 4, 6, 8, 10});
  std::vector<std::vector<AxisIndex>> axisSets = {
      {}, {0}, {1}, {2}, {0, 1}, {1, 0}, {2, 1}, {0, 1, 2}, {2, 0, 1}};
  for (const auto &axes : axisSets) {
    std::vector<int> seen(mesh.numDevices(), 0);
    for (const auto &group : mesh.groups(axes)) {
      EXPECT_EQ(static_cast<int64_t>(group.size()), mesh.groupSize(axes));
      for (auto [i, device] : llvm::enumerate(group)) {
        ++seen[device];
        EXPECT_EQ(mesh.indexInGroup(device, axes), static_cast<int64_t>(i));
        EXPECT_EQ(mesh.groupOf(device, axes), group);
      }
    }
    for (int count : seen)
      EXPECT_EQ(count, 1);
  }
}

TEST(DeviceMesh, EmptyGroupIsTheDeviceItself) {
  DeviceMesh mesh = mustCreate({"x"}, {4});
  EXPECT_EQ(mesh.groupOf(2, {}), (llvm::SmallVector<int64_t>{2}));
  EXPECT_EQ(mesh.groups({}).size(), 4u);
}

TEST(DeviceMesh, SubMesh) {
  DeviceMesh mesh = mustCreate({"data", "model"}, {2, 4});
  DeviceMesh::SubMesh sub = mesh.subMesh(5, {1});
  EXPECT_EQ(sub.axisNames, std::vector<std::string>{"model"});
  EXPECT_EQ(sub.shape, std::vector<int64_t>{4});
  EXPECT_EQ(sub.devices, (llvm::SmallVector<int64_t>{4, 5, 6, 7}));
}

TEST(HybridDeviceMesh, DcnMajorOrdering) {
  HybridDeviceMesh hybrid = llvm::cantFail(
      HybridDeviceMesh::create({"data", "fsdp", "tensor"}, {1, 4, 1}, {2, 1, 1}));
  const DeviceMesh &mesh = hybrid.mesh();
  EXPECT_EQ(mesh.shape(), (llvm::ArrayRef<int64_t>{2, 4, 1}));
  EXPECT_EQ(hybrid.numProcesses(), 2);
  EXPECT_EQ(hybrid.devicesPerProcess(), 4);
  EXPECT_TRUE(mesh.hasIotaDeviceIds());
  EXPECT_EQ(hybrid.processOf(5), 1);
  EXPECT_EQ(hybrid.devicesOf(1), (llvm::SmallVector<int64_t>{4, 5, 6, 7}));
}

TEST(HybridDeviceMesh, InterleavedAxes) {
  // data = dcn 2 x ici 2; model = ici 2. coord_data = dcn * 2 + ici.
  HybridDeviceMesh hybrid =
      llvm::cantFail(HybridDeviceMesh::create({"data", "model"}, {2, 2}, {2, 1}));
  const DeviceMesh &mesh = hybrid.mesh();
  EXPECT_EQ(mesh.shape(), (llvm::ArrayRef<int64_t>{4, 2}));
  // Every process owns a contiguous block and a contiguous range of
  // data coordinates.
  for (int64_t d = 0; d < mesh.numDevices(); ++d) {
    auto coords = mesh.coordsOf(d);
    EXPECT_EQ(hybrid.processOf(d), coords[0] / 2);
  }
}

TEST(HybridDeviceMesh, ProcessOwnsDcnBlockAlongEveryAxis) {
  HybridDeviceMesh hybrid =
      llvm::cantFail(HybridDeviceMesh::create({"a", "b"}, {2, 3}, {2, 2}));
  const DeviceMesh &mesh = hybrid.mesh();
  EXPECT_EQ(mesh.numDevices(), 24);
  for (int64_t d = 0; d < mesh.numDevices(); ++d) {
    auto c = mesh.coordsOf(d);
    int64_t process = (c[0] / 2) * 2 + (c[1] / 3);
    EXPECT_EQ(hybrid.processOf(d), process);
    EXPECT_EQ(d % 6, (c[0] % 2) * 3 + c[1] % 3);
  }
}

TEST(HybridDeviceMesh, RejectsRankMismatch) {
  auto hybrid = HybridDeviceMesh::create({"a", "b"}, {2}, {});
  ASSERT_FALSE(hybrid);
  EXPECT_NE(llvm::toString(hybrid.takeError()).find("axis_names has 2"),
            std::string::npos);
}
