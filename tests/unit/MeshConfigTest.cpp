//===- MeshConfigTest.cpp - HybridMesh configuration files ----------------===//

#include "Mutation.h"
#include "mesh/MeshConfig.h"

#include "gtest/gtest.h"

#include <chrono>

using namespace spmd;

namespace {
struct Failure {
  unsigned line = 0, column = 0;
  std::string message;
};
} // namespace

static Failure failureOf(llvm::StringRef text,
                         std::optional<int64_t> processes = std::nullopt) {
  llvm::Expected<HybridDeviceMesh> mesh =
      parseMeshConfig(text, "cfg.yaml", processes);
  Failure failure;
  if (mesh) {
    failure.message = "<no error>";
    return failure;
  }
  llvm::handleAllErrors(mesh.takeError(), [&](const ConfigError &err) {
    failure = {err.line, err.column, err.message};
  });
  return failure;
}

TEST(MeshConfig, Yaml) {
  auto mesh = parseMeshConfig("axis_names: [data, fsdp, tensor]\n"
                              "ici_mesh_shape: [1, 4, 1]\n"
                              "dcn_mesh_shape: [2, 1, 1]\n",
                              "cfg.yaml");
  ASSERT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
  EXPECT_EQ(mesh->mesh().shape(), (llvm::ArrayRef<int64_t>{2, 4, 1}));
  EXPECT_EQ(mesh->mesh().axisName(1), "fsdp");
  EXPECT_EQ(mesh->numProcesses(), 2);
}

TEST(MeshConfig, BlockSequencesAndComments) {
  auto mesh = parseMeshConfig("# two hosts\naxis_names:\n  - data\n  - model\n"
                              "ici_mesh_shape:\n  - 2\n  - 2\n",
                              "cfg.yaml");
  ASSERT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
  EXPECT_EQ(mesh->numProcesses(), 1);
  EXPECT_EQ(mesh->mesh().numDevices(), 4);
}

TEST(MeshConfig, Json) {
  auto mesh = parseMeshConfig(
      R"({"axis_names": ["data", "model"], "ici_mesh_shape": [2, 2],
          "dcn_mesh_shape": [2, 1]})",
      "cfg.json");
  ASSERT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
  EXPECT_EQ(mesh->mesh().shape(), (llvm::ArrayRef<int64_t>{4, 2}));
}

TEST(MeshConfig, UnknownKeyHasLine) {
  Failure f =
      failureOf("axis_names: [a]\nici_mesh_shape: [2]\ndcn_shape: [1]\n");
  EXPECT_EQ(f.line, 3u);
  EXPECT_EQ(f.column, 1u);
  EXPECT_NE(f.message.find("unknown key 'dcn_shape'"), std::string::npos);
}

TEST(MeshConfig, RankMismatch) {
  Failure f = failureOf("axis_names: [a, b]\nici_mesh_shape: [2]\n");
  EXPECT_EQ(f.line, 2u);
  EXPECT_NE(f.message.find("'ici_mesh_shape' has 1 entries"),
            std::string::npos);
  f = failureOf(
      "axis_names: [a]\nici_mesh_shape: [2]\ndcn_mesh_shape: [1, 2]\n");
  EXPECT_EQ(f.line, 3u);
  EXPECT_NE(f.message.find("'dcn_mesh_shape' has 2"), std::string::npos);
}

TEST(MeshConfig, ZeroSize) {
  Failure f = failureOf("axis_names: [a, b]\nici_mesh_shape: [2, 0]\n");
  EXPECT_EQ(f.line, 2u);
  EXPECT_EQ(f.column, 21u);
  EXPECT_NE(f.message.find("size 0"), std::string::npos);
}

TEST(MeshConfig, ProductMismatchWithProcesses) {
  Failure f = failureOf(
      "axis_names: [a]\nici_mesh_shape: [2]\ndcn_mesh_shape: [4]\n", 2);
  EXPECT_EQ(f.line, 3u);
  EXPECT_NE(f.message.find("4 processes but 2 were started"),
            std::string::npos);
  EXPECT_EQ(failureOf("axis_names: [a]\nici_mesh_shape: [2]\n", 2).line, 1u);
  EXPECT_TRUE(bool(parseMeshConfig(
      "axis_names: [a]\nici_mesh_shape: [2]\ndcn_mesh_shape: [4]\n", "c", 4)));
}

TEST(MeshConfig, MissingKeysDuplicatesAndTypes) {
  EXPECT_NE(failureOf("axis_names: [a]\n").message.find("'ici_mesh_shape'"),
            std::string::npos);
  EXPECT_NE(failureOf("axis_names: [a]\naxis_names: [b]\nici_mesh_shape: [1]\n")
                .message.find("appears twice"),
            std::string::npos);
  EXPECT_NE(failureOf("axis_names: [a, a]\nici_mesh_shape: [1, 1]\n")
                .message.find("twice"),
            std::string::npos);
  EXPECT_NE(failureOf("axis_names: [a]\nici_mesh_shape: [x]\n")
                .message.find("integers"),
            std::string::npos);
  EXPECT_NE(failureOf("axis_names: a\nici_mesh_shape: [1]\n")
                .message.find("list of axis names"),
            std::string::npos);
  EXPECT_NE(failureOf("- 1\n- 2\n").message.find("expected a mapping"),
            std::string::npos);
}

TEST(MeshConfig, SyntaxErrorHasPosition) {
  Failure f = failureOf("axis_names: [a, b\n");
  EXPECT_EQ(f.line, 1u);
  EXPECT_NE(f.message.find("invalid YAML/JSON"), std::string::npos)
      << f.message;
  f = failureOf("{\"axis_names\": [\"a\"]\n \"ici_mesh_shape\": [1]}");
  EXPECT_EQ(f.line, 2u);
  EXPECT_NE(f.message.find("invalid JSON"), std::string::npos) << f.message;
}

TEST(MeshConfig, MissingFile) {
  auto mesh = loadMeshConfigFile("/nonexistent/mesh.yaml");
  ASSERT_FALSE(bool(mesh));
  EXPECT_NE(
      llvm::toString(mesh.takeError()).find("/nonexistent/mesh.yaml: error"),
      std::string::npos);
}

// Mutated configs (YAML and JSON, with anchors, aliases and edge numbers)
// are read or refused with an error; none crashes, none takes long.
TEST(MeshConfig, MutantsNeverCrashOrHang) {
  const char *const seeds[] = {
      "axis_names: [data, model]\nici_mesh_shape: [1, 4]\n"
      "dcn_mesh_shape: [2, 1]\n",
      "{\"axis_names\": [\"data\", \"fsdp\", \"tensor\"], "
      "\"ici_mesh_shape\": [1, 4, 1], \"dcn_mesh_shape\": [2, 1, 1]}\n",
      "axis_names:\n  - a\n  - b\nici_mesh_shape: &s [2, 2]\n"
      "dcn_mesh_shape: *s\n",
  };
  std::mt19937 rng(99);
  int read = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0, e = spmd::testing::mutantCount(3000); i < e; ++i) {
    std::string mutant = spmd::testing::mutate(seeds[i % 3], rng);
    llvm::Expected<spmd::HybridDeviceMesh> mesh =
        spmd::parseMeshConfig(mutant, "mutant.yaml");
    if (mesh)
      ++read;
    else
      llvm::consumeError(mesh.takeError());
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  EXPECT_GT(read, spmd::testing::mutantCount(3000) / 30);
  EXPECT_LT(seconds, 20);
}

// Binary garbage (any bytes, NULs included) is refused with an error.
TEST(MeshConfig, BinaryGarbageIsAnError) {
  std::mt19937 rng(3);
  for (int i = 0; i < 500; ++i) {
    std::string bytes(1 + rng() % 2000, '\0');
    for (char &c : bytes)
      c = char(rng());
    llvm::Expected<spmd::HybridDeviceMesh> mesh =
        spmd::parseMeshConfig(bytes, "garbage.yaml");
    EXPECT_FALSE(bool(mesh));
    llvm::consumeError(mesh.takeError());
  }
}
