// Indices a program computes out of a tensor's bounds: each is refused at
// its op, however large or negative (the largest index would overflow a
// flat offset computed before checking).
// One program per `//---` section (split-file).

//--- extract_huge.mlir
func.func @main(%t: tensor<3x3xf32>) -> f32 {
  %big = arith.constant 9223372036854775807 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract %t[%big, %c1] : tensor<3x3xf32>
  return %x : f32
}

//--- insert_negative.mlir
func.func @main(%t: tensor<3x3xf32>, %v: f32) -> tensor<3x3xf32> {
  %m = arith.constant -1 : index
  %c1 = arith.constant 1 : index
  %u = tensor.insert %v into %t[%c1, %m] : tensor<3x3xf32>
  return %u : tensor<3x3xf32>
}

//--- slice_huge_stride.mlir
func.func @main(%t: tensor<8xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %big = arith.constant 4611686018427387904 : index
  %s = tensor.extract_slice %t[%c0] [2] [%big] : tensor<8xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}

//--- slice_negative_stride.mlir
func.func @main(%t: tensor<8xf32>) -> tensor<3xf32> {
  %c0 = arith.constant 0 : index
  %m = arith.constant -1 : index
  %s = tensor.extract_slice %t[%c0] [3] [%m] : tensor<8xf32> to tensor<3xf32>
  return %s : tensor<3xf32>
}

//--- slice_backwards.mlir
func.func @main(%t: tensor<8xf32>) -> tensor<3xf32> {
  %c2 = arith.constant 2 : index
  %m = arith.constant -1 : index
  %s = tensor.extract_slice %t[%c2] [3] [%m] : tensor<8xf32> to tensor<3xf32>
  return %s : tensor<3xf32>
}

//--- insert_slice_past_end.mlir
func.func @main(%t: tensor<8xf32>, %p: tensor<2xf32>) -> tensor<8xf32> {
  %c7 = arith.constant 7 : index
  %u = tensor.insert_slice %p into %t[%c7] [2] [1] : tensor<2xf32> into tensor<8xf32>
  return %u : tensor<8xf32>
}
