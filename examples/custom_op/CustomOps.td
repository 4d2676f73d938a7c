//===- CustomOps.td - A user's dialect with one op ---------*- tablegen -*-===//

#ifndef CUSTOM_OPS_TD
#define CUSTOM_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Custom_Dialect : Dialect {
  let name = "custom";
  let cppNamespace = "::custom";
  let summary = "A dialect of the user's own, joining the compiler from its "
                "own folder";
}

def Custom_SumSquaresOp : Op<Custom_Dialect, "sum_squares", [Pure]> {
  let summary = "Sum of squares along the last dimension";
  let description = [{
    ```mlir
    %n = custom.sum_squares %x : tensor<6x10xf32> -> tensor<6xf32>
    ```
    `n[i] = sum_j x[i, j]^2`: the result drops the input's last dimension.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$input);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // CUSTOM_OPS_TD
