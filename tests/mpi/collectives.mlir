// Every collective kind over axis sets inside and across processes, on
// i32 (exact): the outputs of one process and of mpirun -np 2 and 4 must
// be identical (tests/mpi/collectives.sh). Every result is declared split
// over all devices, so that the output holds every device's value.
module attributes {spmd.partitioned} {
spmd.mesh @mesh = <["a"=2, "b"=4]>
func.func @main(%x: tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
                %u: tensor<6x5xi32>)
    -> (tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
        tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
        tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
        tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
        tensor<8x32xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x32xi32>},
        tensor<64x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<512x16xi32>},
        tensor<8x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x2xi32>},
        tensor<4x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<32x16xi32>},
        tensor<1x5xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<8x5xi32>},
        tensor<64x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<512x2xi32>},
        tensor<4x32xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<32x32xi32>},
        tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
        tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
        tensor<4x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<32x16xi32>},
        tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
        tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>},
        tensor<8x16xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {}]>, spmd.global_type = tensor<64x16xi32>}) {
  // sum over the processes
  %0 = spmd.all_reduce %x on @mesh axes = ["a"] : tensor<8x16xi32>
  // every device, hierarchical
  %1 = spmd.all_reduce %x on @mesh axes = ["a", "b"] reduction = max : tensor<8x16xi32>
  // the ICI axis major
  %2 = spmd.all_reduce %x on @mesh axes = ["b", "a"] reduction = min : tensor<8x16xi32>
  // inside each process
  %3 = spmd.all_reduce %x on @mesh axes = ["b"] : tensor<8x16xi32>
  %4 = spmd.all_gather %x on @mesh axes = ["a"] gather_dim = 1 : tensor<8x16xi32> -> tensor<8x32xi32>
  %5 = spmd.all_gather %x on @mesh axes = ["b", "a"] gather_dim = 0 : tensor<8x16xi32> -> tensor<64x16xi32>
  %6 = spmd.reduce_scatter %x on @mesh axes = ["a", "b"] scatter_dim = 1 : tensor<8x16xi32> -> tensor<8x2xi32>
  %7 = spmd.reduce_scatter %x on @mesh axes = ["a"] scatter_dim = 0 reduction = max : tensor<8x16xi32> -> tensor<4x16xi32>
  // uneven: pieces past the end are zeros
  %8 = spmd.reduce_scatter %u on @mesh axes = ["a", "b"] scatter_dim = 0 : tensor<6x5xi32> -> tensor<1x5xi32>
  %9 = spmd.all_to_all %x on @mesh axes = ["a", "b"] split_dim = 1 concat_dim = 0 : tensor<8x16xi32> -> tensor<64x2xi32>
  %10 = spmd.all_to_all %x on @mesh axes = ["a"] split_dim = 0 concat_dim = 1 : tensor<8x16xi32> -> tensor<4x32xi32>
  %11 = spmd.collective_permute %x on @mesh axes = ["a"] pairs = [0 -> 1, 1 -> 0] : tensor<8x16xi32>
  // targets without a source get zeros
  %12 = spmd.collective_permute %x on @mesh axes = ["a", "b"] pairs = [0 -> 5, 5 -> 2, 3 -> 7, 6 -> 6] : tensor<8x16xi32>
  // no communication
  %13 = spmd.all_slice %x on @mesh axes = ["a"] slice_dim = 0 : tensor<8x16xi32> -> tensor<4x16xi32>
  // from one group position; onto one (the others keep their operand)
  %14 = spmd.broadcast %x on @mesh axes = ["b", "a"] root = 5 : tensor<8x16xi32>
  %15 = spmd.reduce %x on @mesh axes = ["a", "b"] root = 6 reduction = max : tensor<8x16xi32>
  %16 = spmd.reduce %x on @mesh axes = ["a"] root = 1 : tensor<8x16xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16 : tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x32xi32>, tensor<64x16xi32>, tensor<8x2xi32>, tensor<4x16xi32>, tensor<1x5xi32>, tensor<64x2xi32>, tensor<4x32xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<4x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>, tensor<8x16xi32>
}
}
