// Tests that malformed or contradictory inputs to spmd-propagate each get one
// clear error where they are written.
// RUN: spmd-opt %s --spmd-propagate -split-input-file -verify-diagnostics

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @constraint_unknown_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{@nomesh does not name a spmd.mesh}}
  %0 = spmd.sharding_constraint %x <@nomesh, [{"data"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @same_axis_two_dims(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{mesh axis "model" is used twice (again in dimension 1)}}
  %0 = spmd.sharding_constraint %x <@mesh, [{"model"}, {"model"}]> : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{mesh axis "data" is used twice (again in partial)}}
func.func @axis_sharded_and_partial(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}], partial={"data"}>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{mesh axis "model" is used twice (again in replicated)}}
func.func @axis_sharded_and_replicated(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}], replicated={"model"}>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{mesh @mesh has no axis named "tensor"}}
func.func @argument_unknown_axis(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"tensor"}]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{mesh @mesh has no axis named "seq"}}
func.func @partial_unknown_axis(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], partial={"seq"}>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{sharding has 1 dimensions but the tensor has rank 2}}
func.func @argument_rank(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}) -> tensor<8x8xf32> {
  return %x : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{sharding has 3 dimensions but the tensor has rank 1}}
func.func @result_rank(%x: tensor<8xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {}]>}) {
  return %x : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @constraint_rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharding has 2 dimensions but the tensor has rank 1}}
  %0 = spmd.sharding_constraint %x <@mesh, [{"data"}, {}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @per_value_count(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.sharding' has 0 shardings but the op has 1 results}}
  %0 = math.exp %x {spmd.sharding = #spmd.sharding_per_value<[]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @per_value_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{result #0: sharding <@mesh, [{"batch"}]> does not fit 'tensor<8xf32>': mesh @mesh has no axis named "batch"}}
  %0 = math.exp %x {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"batch"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @a = <["x"=2]>
spmd.mesh @b = <["x"=2]>
// Contradictory: the operands of one op live on different meshes.
func.func @mixed_meshes(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}]>},
                        %y: tensor<8xf32> {spmd.sharding = #spmd.sharding<@b, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.addf' relates tensors sharded on different meshes (@a, @b); reshard them onto one mesh first}}
  %0 = arith.addf %x, %y : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @a = <["x"=2]>
spmd.mesh @b = <["x"=4]>
// Contradictory: a call passes a tensor on one mesh to a parameter on
// another.
func.func @callee(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@b, [{"x"}]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func @caller(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'func.call' relates tensors sharded on different meshes (@a, @b)}}
  %0 = func.call @callee(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @a = <["x"=2]>
spmd.mesh @b = <["x"=2]>
// Contradictory: a loop-carried value constrained to two meshes.
func.func @loop_meshes(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}]>}, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<8xf32>) {
    // expected-error @+1 {{'spmd.sharding_constraint' relates tensors sharded on different meshes (@a, @b)}}
    %c = spmd.sharding_constraint %acc <@b, [{"x"}]> : tensor<8xf32>
    %next = arith.negf %c : tensor<8xf32>
    scf.yield %next : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @bad_priority(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a priority 'p<N>' after the axes}}
  %0 = spmd.sharding_constraint %x <@mesh, [{"data"}p]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @bad_reduction(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unknown reduction 'avg' (expected sum, max, min, maxnum or minnum)}}
  %0 = spmd.sharding_constraint %x <@mesh, [{}], partial<avg>={"data"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @model() {
  return
}
// expected-error @+1 {{@model does not name a spmd.mesh}}
func.func @symbol_is_a_function(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@model, [{}]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{invalid mesh: mesh axis "data" has size 0}}
spmd.mesh @mesh = <["data"=0]>

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{'spmd.sharding' on argument #0 must be a #spmd.sharding, got #spmd.sharding_per_value}}
func.func @argument_per_value(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @open_marker_first(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected '}'}}
  %0 = spmd.sharding_constraint %x <@mesh, [{?, "model"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{cannot split a tensor of dynamic shape (@dynamic arg 0): only statically shaped tensors are sharded}}
func.func @dynamic(%x: tensor<?x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @dynamic_constraint(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{cannot split a tensor of dynamic shape}}
  %0 = spmd.sharding_constraint %x <@mesh, [{}, {"model"}]> : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// A replicated sharding on a dynamic shape is what the tensor gets anyway.
func.func @dynamic_replicated(%x: tensor<?x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}
