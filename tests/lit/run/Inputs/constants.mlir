// Dense constants of every element type, splat and not.
func.func @constants() -> (tensor<3xf32>, tensor<2x2xf64>, tensor<3xf16>, tensor<3xbf16>,
                           tensor<4xi1>, tensor<3xi8>, tensor<3xi32>, tensor<3xindex>,
                           tensor<5xf32>, tensor<3xi1>) {
  %0 = arith.constant dense<[1.5, -2.0, 3.25]> : tensor<3xf32>
  %1 = arith.constant dense<[[1.0, 2.0], [-0.5, 4.0]]> : tensor<2x2xf64>
  %2 = arith.constant dense<[0.5, 1.0, -2.0]> : tensor<3xf16>
  %3 = arith.constant dense<[0.5, 1.0, -2.0]> : tensor<3xbf16>
  %4 = arith.constant dense<[true, false, true, true]> : tensor<4xi1>
  %5 = arith.constant dense<[1, -2, 127]> : tensor<3xi8>
  %6 = arith.constant dense<[100000, -7, 0]> : tensor<3xi32>
  %7 = arith.constant dense<[7, -8, 9]> : tensor<3xindex>
  %8 = arith.constant dense<0.75> : tensor<5xf32>
  %9 = arith.constant dense<true> : tensor<3xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<3xf32>, tensor<2x2xf64>, tensor<3xf16>, tensor<3xbf16>, tensor<4xi1>, tensor<3xi8>, tensor<3xi32>, tensor<3xindex>, tensor<5xf32>, tensor<3xi1>
}
