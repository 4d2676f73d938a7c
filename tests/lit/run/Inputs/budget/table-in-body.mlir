// An embedding lookup whose table only the body reads (tensor.extract).
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @lookup(%ids: tensor<8x16xi64> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                  %table: tensor<2000x64xf32>) -> tensor<8x16x64xf32> {
  %ee = tensor.empty() : tensor<8x16x64xf32>
  %emb = linalg.generic {indexing_maps = [affine_map<(b, s, h) -> (b, s)>, affine_map<(b, s, h) -> (b, s, h)>],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<8x16xi64>) outs(%ee : tensor<8x16x64xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %h = linalg.index 2 : index
    %v = tensor.extract %table[%i, %h] : tensor<2000x64xf32>
    linalg.yield %v : f32
  } -> tensor<8x16x64xf32>
  return %emb : tensor<8x16x64xf32>
}
