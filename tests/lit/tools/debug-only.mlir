// Tests that --debug-only traces propagation's and partitioning's decisions.
//
// --debug-only explains each decision of propagation and partitioning: the
// dimension a sharding reached through which factor of which op, and the
// split chosen for each op with its cost, then every reshard.
// REQUIRES: asserts
// RUN: spmd-opt %s --spmd-pipeline --debug-only=spmd-propagate,spmd-partition -o /dev/null 2>&1 | FileCheck %s
// RUN: spmd-opt %s --spmd-pipeline --debug-only=spmd-partition -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONLY

spmd.mesh @mesh = <["data"=2, "model"=2]>

// CHECK: spmd-propagate: shardings of priority p0 and below
// CHECK: spmd-propagate: 'linalg.matmul' at {{.*}}debug-only.mlir:[[@LINE+9]]:8: result 0 dim 0 [] -> [data] through factor i (p0)
// CHECK: spmd-propagate: 'linalg.matmul' at {{.*}}debug-only.mlir:[[@LINE+8]]:8: result 0 dim 1 [] -> [model] through factor j (p0)
// CHECK: spmd-partition: 'linalg.matmul' at {{.*}}debug-only.mlir:[[@LINE+7]]:8: split i=[data] j=[model] k=[], the cheapest of {{[0-9]+}} (cost {{.*}} bytes)
// CHECK: spmd-partition: reshard for 'func.return' at {{.*}}debug-only.mlir:[[@LINE+7]]:3: <@mesh, [{"data"}, {"model"}]> -> <@mesh, [{}, {}]> by all_gather all_gather
// ONLY-NOT: spmd-propagate:
// ONLY: spmd-partition: 'linalg.matmul'
func.func @mm(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
              %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
              %c: tensor<8x4xf32>) -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}
