// Tests that spmd.manual_computation's verifier explains each error.
// RUN: spmd-opt %s -split-input-file -verify-diagnostics

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @local_type(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op operand 0: local type 'tensor<8x16xf32>' does not match 'tensor<4x16xf32>', the type of 'tensor<8x16xf32>' split by <@mesh, [{"data"}, {}]>}}
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"data"}, {}]>] out_shardings = [<@mesh, [{}, {}]>] manual_axes = ["data"] (%l: tensor<8x16xf32>) {
    spmd.yield %l : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @result_type(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op result 0: local type 'tensor<4x16xf32>' does not match 'tensor<4x4xf32>'}}
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"data"}, {}]>] out_shardings = [<@mesh, [{"data"}, {"model"}]>] manual_axes = ["data", "model"] (%l: tensor<4x16xf32>) {
    spmd.yield %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unknown_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op manual axis "tensor" is not an axis of @mesh}}
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{}, {}]>] out_shardings = [<@mesh, [{}, {}]>] manual_axes = ["tensor"] (%l: tensor<8x16xf32>) {
    spmd.yield %l : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @collective_on_free_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"data"}, {}]>] out_shardings = [<@mesh, [{"data"}, {}]>] manual_axes = ["data"] (%l: tensor<4x16xf32>) {
    // expected-error @+1 {{'spmd.all_reduce' op axis "model" is not a manual axis of the enclosing spmd.manual_computation (manual axes: ["data"])}}
    %s = spmd.all_reduce %l on @mesh axes = ["model"] : tensor<4x16xf32>
    spmd.yield %s : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @broadcast_on_free_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"data"}, {}]>] out_shardings = [<@mesh, [{"data"}, {}]>] manual_axes = ["data"] (%l: tensor<4x16xf32>) {
    // expected-error @+1 {{'spmd.broadcast' op axis "model" is not a manual axis of the enclosing spmd.manual_computation (manual axes: ["data"])}}
    %s = spmd.broadcast %l on @mesh axes = ["data", "model"] root = 0 : tensor<4x16xf32>
    spmd.yield %s : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @axis_index_on_free_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"data"}, {}]>] out_shardings = [<@mesh, [{"data"}, {}]>] manual_axes = ["data"] (%l: tensor<4x16xf32>) {
    // expected-error @+1 {{'spmd.axis_index' op axis "model" is not a manual axis}}
    %i = spmd.axis_index "model" on @mesh : index
    spmd.yield %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @yield_count(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op body yields 2 values for 1 results}}
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"data"}, {}]>] out_shardings = [<@mesh, [{"data"}, {}]>] manual_axes = ["data"] (%l: tensor<4x16xf32>) {
    spmd.yield %l, %l : tensor<4x16xf32>, tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @sharding_count(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op has 0 in_shardings for 1 operands}}
  %r = spmd.manual_computation(%x) in_shardings = [] out_shardings = [<@mesh, [{"data"}, {}]>] manual_axes = ["data"] (%l: tensor<4x16xf32>) {
    spmd.yield %l : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @not_divisible(%x: tensor<6x12xf32>) -> tensor<6x12xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op operand 0: dimension 1 (12) is not divisible by its manual axes' 8 devices}}
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{}, {"model", "data"}]>] out_shardings = [<@mesh, [{}, {}]>] manual_axes = ["model", "data"] (%l: tensor<6x2xf32>) {
    %e = tensor.empty() : tensor<6x12xf32>
    spmd.yield %e : tensor<6x12xf32>
  } : (tensor<6x12xf32>) -> tensor<6x12xf32>
  return %r : tensor<6x12xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @manual_after_free(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op operand 0: dimension 1 lists manual axis "data" after free axis "model" (manual axes come first)}}
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{}, {"model", "data"}]>] out_shardings = [<@mesh, [{}, {}]>] manual_axes = ["data"] (%l: tensor<8x8xf32>) {
    %e = tensor.empty() : tensor<8x16xf32>
    spmd.yield %e : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @partial(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op operand 0: sharding may not be partial}}
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"data"}, {}], partial={"model"}>] out_shardings = [<@mesh, [{}, {}]>] manual_axes = ["data"] (%l: tensor<4x16xf32>) {
    %e = tensor.empty() : tensor<8x16xf32>
    spmd.yield %e : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @captures(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{}, {}]>] out_shardings = [<@mesh, [{}, {}]>] manual_axes = ["data"] (%l: tensor<8x16xf32>) {
    // expected-error @+1 {{using value defined outside the region}}
    spmd.yield %x : tensor<8x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @nested(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"data"}, {}]>] out_shardings = [<@mesh, [{"data"}, {}]>] manual_axes = ["data"] (%l: tensor<4x16xf32>) {
    // expected-error @+1 {{'spmd.manual_computation' op inside another spmd.manual_computation is not supported yet}}
    %i = spmd.manual_computation(%l) in_shardings = [<@mesh, [{}, {"model"}]>] out_shardings = [<@mesh, [{}, {"model"}]>] manual_axes = ["model"] (%m: tensor<4x4xf32>) {
      spmd.yield %m : tensor<4x4xf32>
    } : (tensor<4x16xf32>) -> tensor<4x16xf32>
    spmd.yield %i : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func private @sumy(%v: tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @call_in_body(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = spmd.manual_computation(%a) in_shardings = [<@mesh, [{"x"}, {}]>] out_shardings = [<@mesh, [{"x"}, {}]>] manual_axes = ["x"] (%l: tensor<4x8xf32>) {
    // expected-error @+1 {{'func.call' op inside a spmd.manual_computation is not supported yet}}
    %s = func.call @sumy(%l) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    spmd.yield %s : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @constraint_in_body(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = spmd.manual_computation(%a) in_shardings = [<@mesh, [{"x"}, {}]>] out_shardings = [<@mesh, [{"x"}, {}]>] manual_axes = ["x"] (%l: tensor<4x8xf32>) {
    // expected-error @+1 {{'spmd.sharding_constraint' op inside a spmd.manual_computation: its body is per-device code}}
    %c = spmd.sharding_constraint %l <@mesh, [{"y"}, {}]> : tensor<4x8xf32>
    spmd.yield %c : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @dynamic(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op operand 0: needs a static shape, not 'tensor<?x8xf32>'}}
  %r = spmd.manual_computation(%a) in_shardings = [<@mesh, [{"x"}, {}]>] out_shardings = [<@mesh, [{"x"}, {}]>] manual_axes = ["x"] (%l: tensor<?x8xf32>) {
    spmd.yield %l : tensor<?x8xf32>
  } : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @no_yield(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op body yields 0 values for 1 results}}
  %r = spmd.manual_computation(%a) in_shardings = [<@mesh, [{"x"}, {}]>] out_shardings = [<@mesh, [{"x"}, {}]>] manual_axes = ["x"] (%l: tensor<4x8xf32>) {
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// The generic form may leave the terminator out.
spmd.mesh @mesh = <["x"=2]>
func.func @generic_without_yield(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op body must end with spmd.yield}}
  %r = "spmd.manual_computation"(%a) <{in_shardings = [#spmd.sharding<@mesh, [{"x"}]>], manual_axes = ["x"], out_shardings = [#spmd.sharding<@mesh, [{"x"}]>]}> ({
  ^bb0(%l: tensor<4xf32>):
    %s = arith.addf %l, %l : tensor<4xf32>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
