// Tests that spmd-propagate's debug-origins option names the annotation each
// dimension's sharding came from.
// RUN: spmd-opt %s --spmd-propagate=debug-origins=true | FileCheck %s

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Each dimension names the annotation its sharding came from.
// CHECK-LABEL: func.func @origins
// CHECK-SAME: spmd.sharding_origins = ["@origins arg 0", ""]
// CHECK: linalg.matmul
// CHECK-SAME: spmd.sharding_origins = {{\[\[}}"@origins arg 0", "@origins arg 1"]]
// CHECK: math.exp
// CHECK-SAME: spmd.sharding_origins = {{\[\[}}"constraint at {{.*}}debug-origins.mlir:[[@LINE+6]]:8", "constraint at {{.*}}debug-origins.mlir:[[@LINE+6]]:8"]]
func.func @origins(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                   %w: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %1 = math.tanh %0 : tensor<8x32xf32>
  %2 = spmd.sharding_constraint %1 <@mesh, [{"data"}, {"model", ?}]> : tensor<8x32xf32>
  %3 = math.exp %2 : tensor<8x32xf32>
  return %3 : tensor<8x32xf32>
}
