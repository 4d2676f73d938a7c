// Tests that the collective ops' verifiers explain each error.
// RUN: spmd-opt %s -split-input-file -verify-diagnostics

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unknown_mesh(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.all_reduce' op @grid does not name a spmd.mesh}}
  %0 = spmd.all_reduce %x on @grid axes = ["model"] : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unknown_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.all_reduce' op mesh @mesh has no axis named "tensor"}}
  %0 = spmd.all_reduce %x on @mesh axes = ["tensor"] : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @axis_twice(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.all_gather' op lists axis "model" twice}}
  %0 = spmd.all_gather %x on @mesh axes = ["model", "model"] gather_dim = 0 : tensor<8xf32> -> tensor<128xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @gather_size(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{result dimension 1 is 4 but 8 is expected (operand dimension 2 gathered over 4 devices)}}
  %0 = spmd.all_gather %x on @mesh axes = ["model"] gather_dim = 1 : tensor<8x2xf32> -> tensor<8x4xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @gather_other_dim(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{result dimension 0 is 4 but 8 is expected}}
  %0 = spmd.all_gather %x on @mesh axes = ["model"] gather_dim = 1 : tensor<8x2xf32> -> tensor<4x8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @gather_dim_range(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{gather_dim 2 is out of range for 'tensor<8x2xf32>'}}
  %0 = spmd.all_gather %x on @mesh axes = ["model"] gather_dim = 2 : tensor<8x2xf32> -> tensor<8x2xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @gather_element_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{result 'tensor<16xf16>' must have the rank and element type of 'tensor<8xf32>'}}
  %0 = spmd.all_gather %x on @mesh axes = ["data"] gather_dim = 0 : tensor<8xf32> -> tensor<16xf16>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unknown_reduction(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'reduction' [sum, max, min, maxnum, minnum, prod]}}
  %0 = spmd.all_reduce %x on @mesh axes = ["data"] reduction = mean : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @scatter_size(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result dimension 0 is 4 but 2 is expected (operand dimension 8 scattered over 4 devices)}}
  %0 = spmd.reduce_scatter %x on @mesh axes = ["model"] scatter_dim = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @scatter_dim_range(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{scatter_dim -1 is out of range}}
  %0 = spmd.reduce_scatter %x on @mesh axes = ["model"] scatter_dim = -1 : tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @all_to_all_uneven(%x: tensor<6x8xf32>) {
  // expected-error @+1 {{split dimension 0 of size 6 is not divisible by the group size 4}}
  %0 = spmd.all_to_all %x on @mesh axes = ["model"] split_dim = 0 concat_dim = 1 : tensor<6x8xf32> -> tensor<2x32xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @all_to_all_concat(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{result dimension 1 is 8 but 32 is expected (operand dimension 8 concatenated over 4 devices)}}
  %0 = spmd.all_to_all %x on @mesh axes = ["model"] split_dim = 0 concat_dim = 1 : tensor<8x8xf32> -> tensor<2x8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @slice_size(%x: tensor<7x8xf32>) {
  // expected-error @+1 {{result dimension 0 is 3 but 2 is expected (operand dimension 7 sliced over 4 devices)}}
  %0 = spmd.all_slice %x on @mesh axes = ["model"] slice_dim = 0 : tensor<7x8xf32> -> tensor<3x8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @permute_outside_group(%x: tensor<8xf32>) {
  // expected-error @+1 {{pair 1 -> 2 names a device outside the group of 2}}
  %0 = spmd.collective_permute %x on @mesh axes = ["data"] pairs = [0 -> 1, 1 -> 2] : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @permute_sends_twice(%x: tensor<8xf32>) {
  // expected-error @+1 {{device 0 sends twice}}
  %0 = spmd.collective_permute %x on @mesh axes = ["model"] pairs = [0 -> 1, 0 -> 2] : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @permute_receives_twice(%x: tensor<8xf32>) {
  // expected-error @+1 {{device 3 receives twice}}
  %0 = spmd.collective_permute %x on @mesh axes = ["model"] pairs = [0 -> 3, 1 -> 3] : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @permute_syntax(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected '->'}}
  %0 = spmd.collective_permute %x on @mesh axes = ["model"] pairs = [0, 1] : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @axis_index_unknown_axis() {
  // expected-error @+1 {{'spmd.axis_index' op mesh @mesh has no axis named "batch"}}
  %0 = spmd.axis_index "batch" on @mesh : index
  return
}

// -----

func.func @axis_index_unknown_mesh() {
  // expected-error @+1 {{'spmd.axis_index' op @mesh does not name a spmd.mesh}}
  %0 = spmd.axis_index "x" on @mesh : index
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = spmd.all_reduce %x on @mesh axes = ["data"] : tensor<*xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @redistribute_wrong_local_type(%x: tensor<32x256xf32>) {
  // expected-error @+1 {{'spmd.redistribute' op the result type 'tensor<16x256xf32>' is not the local type of its layout}}
  %0 = spmd.redistribute %x on @mesh axes = ["data", "model"] from <@mesh, [{"data"}, {"model"}]> to <@mesh, [{"model"}, {"data"}]> global_shape = [64, 1024] : tensor<32x256xf32> -> tensor<16x256xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @redistribute_axis_outside_group(%x: tensor<32x256xf32>) {
  // expected-error @+1 {{'spmd.redistribute' op axis "data" of a layout is not in the group}}
  %0 = spmd.redistribute %x on @mesh axes = ["model"] from <@mesh, [{"data"}, {"model"}]> to <@mesh, [{"model"}, {"data"}]> global_shape = [64, 1024] : tensor<32x256xf32> -> tensor<16x512xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @redistribute_partial(%x: tensor<64x256xf32>) {
  // expected-error @+1 {{'spmd.redistribute' op layouts may not be partial}}
  %0 = spmd.redistribute %x on @mesh axes = ["model"] from <@mesh, [{}, {"model"}], partial={"data"}> to <@mesh, [{"model"}, {}]> global_shape = [64, 1024] : tensor<64x256xf32> -> tensor<16x1024xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @broadcast_root_outside(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.broadcast' op root 4 is not a position of the group of 4}}
  %0 = spmd.broadcast %x on @mesh axes = ["model"] root = 4 : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @reduce_root_negative(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.reduce' op root -1 is not a position of the group of 8}}
  %0 = spmd.reduce %x on @mesh axes = ["data", "model"] root = -1 reduction = min : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @reduce_types_differ(%x: tensor<8xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same type}}
  %0 = "spmd.reduce"(%x) <{mesh = @mesh, axes = ["model"], root = 0 : i64}> : (tensor<8xf32>) -> tensor<8xf64>
  return
}
