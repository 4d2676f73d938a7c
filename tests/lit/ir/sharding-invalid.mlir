// Tests that the sharding attributes' and spmd.sharding_constraint's
// verifiers explain each error.
// RUN: spmd-opt %s -split-input-file -verify-diagnostics

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unknown_mesh(%x: tensor<8xf32>) {
  // expected-error @+1 {{@nomesh does not name a spmd.mesh}}
  %0 = spmd.sharding_constraint %x <@nomesh, [{"data"}]> : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unknown_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{mesh @mesh has no axis named "batch"}}
  %0 = spmd.sharding_constraint %x <@mesh, [{"batch"}]> : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @axis_on_two_dims(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{mesh axis "data" is used twice (again in dimension 1)}}
  %0 = spmd.sharding_constraint %x <@mesh, [{"data"}, {"model", "data"}]> : tensor<8x8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{mesh axis "model" is used twice (again in replicated)}}
func.func @sharded_and_replicated(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}], replicated={"model"}>}) {
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{mesh axis "data" is used twice (again in partial)}}
func.func @sharded_and_partial(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}], partial={"data"}>}) {
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @constraint_rank(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{sharding has 1 dimensions but the tensor has rank 2}}
  %0 = spmd.sharding_constraint %x <@mesh, [{"data"}]> : tensor<8x8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{does not fit 'tensor<8xf32>': sharding has 2 dimensions but the tensor has rank 1}}
func.func @argument_rank(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{does not fit 'tensor<8x8xf32>': sharding has 3 dimensions}}
func.func @result_rank(%x: tensor<8x8xf32>) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {}]>}) {
  return %x : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @per_value_count(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.sharding' has 2 shardings but the op has 1 results}}
  %0 = arith.negf %x {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>, <@mesh, [{}]>]>} : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @per_value_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{result #0: sharding <@mesh, [{}, {}]> does not fit 'tensor<8xf32>'}}
  %0 = arith.negf %x {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @per_value_unknown_mesh(%x: tensor<8xf32>) {
  // expected-error @+1 {{@other does not name a spmd.mesh}}
  %0 = arith.negf %x {spmd.sharding = #spmd.sharding_per_value<[<@other, [{}]>]>} : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @op_needs_per_value(%x: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.sharding' on an op must be a #spmd.sharding_per_value}}
  %0 = arith.negf %x {spmd.sharding = #spmd.sharding<@mesh, [{}]>} : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{sharding <@mesh, [{"data"}]> does not fit 'f32': sharding has 1 dimensions but the tensor has rank 0}}
func.func @scalar(%x: f32 {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{sharding applies to ranked tensors and scalars, not 'tensor<*xf32>'}}
func.func @unranked(%x: tensor<*xf32> {spmd.sharding = #spmd.sharding<@mesh, []>}) {
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{'spmd.sharding' on argument #0 must be a #spmd.sharding, got "data"}}
func.func @not_a_sharding(%x: tensor<8xf32> {spmd.sharding = "data"}) {
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
// expected-error @+1 {{unknown attribute 'spmd.shard' on argument #0}}
func.func @misspelled(%x: tensor<8xf32> {spmd.shard = #spmd.sharding<@mesh, [{}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unknown_op_attribute(%x: tensor<8xf32>) {
  // expected-error @+1 {{unknown attribute 'spmd.shardings'}}
  %0 = arith.negf %x {spmd.shardings = 1} : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @bad_priority(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected a priority 'p<N>' after the axes}}
  %0 = spmd.sharding_constraint %x <@mesh, [{"data"}q1]> : tensor<8xf32>
  return
}

// -----

// A priority beyond int64 is named as too large, not as a missing one.
spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @huge_priority(%x: tensor<8xf32>) {
  // expected-error @+1 {{priority 'p99999999999999999999' is too large (at most p9223372036854775807)}}
  %0 = spmd.sharding_constraint %x <@mesh, [{"data"}p99999999999999999999]> : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @bad_reduction(%x: tensor<8xf32>) {
  // expected-error @+1 {{unknown reduction 'mean' (expected sum, max, min, maxnum or minnum)}}
  %0 = spmd.sharding_constraint %x <@mesh, [{}], partial<mean>={"data"}> : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @pending_product(%x: tensor<8xf32>) {
  // expected-error @+1 {{a partial value cannot be a pending product}}
  %0 = spmd.sharding_constraint %x <@mesh, [{}], partial<prod>={"data"}> : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @replicated_twice(%x: tensor<8xf32>) {
  // expected-error @+1 {{'replicated' given twice}}
  %0 = spmd.sharding_constraint %x <@mesh, [{}], replicated={"data"}, replicated={"model"}> : tensor<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @unknown_field(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected 'replicated' or 'partial', got 'unreduced'}}
  %0 = spmd.sharding_constraint %x <@mesh, [{}], unreduced={"data"}> : tensor<8xf32>
  return
}

// -----

func.func @mesh() {
  return
}
// expected-error @+1 {{@mesh does not name a spmd.mesh}}
func.func @symbol_not_a_mesh(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @open_marker_not_last(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected '}'}}
  %0 = spmd.sharding_constraint %x <@mesh, [{?, "data"}]> : tensor<8xf32>
  return
}

