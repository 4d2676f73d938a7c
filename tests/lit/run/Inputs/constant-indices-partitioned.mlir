// A partitioned program (as spmd-opt writes, or a user by hand) is not
// imported again: its kernels read SSA-constant paddings, sizes and strides
// as static ones.
module attributes {spmd.partitioned} {
  func.func @main(%x: tensor<4x6xf32>) -> tensor<3x7xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0.0 : f32
    %s = tensor.extract_slice %x[%c1, %c0] [2, 6] [%c1, %c1] : tensor<4x6xf32> to tensor<2x6xf32>
    %p = tensor.pad %s low[%c1, %c0] high[%c0, %c1] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<2x6xf32> to tensor<3x7xf32>
    return %p : tensor<3x7xf32>
  }
}
