// A non-iota GSPMD device order next to replicated and maximal operands
// (0,2,1,3 would be <=[2,2]T(1,0)).
func.func @main(%a: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,2]0,3,1,2}"}, %b: tensor<8x6xf32> {mhlo.sharding = "{replicated}"}, %c: tensor<8x6xf32> {mhlo.sharding = "{maximal device=0}"}) -> tensor<8x6xf32> {
  %s = arith.addf %a, %b : tensor<8x6xf32>
  %t = arith.addf %s, %c : tensor<8x6xf32>
  return %t : tensor<8x6xf32>
}
