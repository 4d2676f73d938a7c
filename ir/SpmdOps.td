//===- SpmdOps.td - Ops of the spmd dialect ----------------*- tablegen -*-===//

#ifndef SPMD_IR_SPMDOPS_TD
#define SPMD_IR_SPMDOPS_TD

include "ir/SpmdAttrs.td"
include "ir/SpmdInterfaces.td"
include "ir/ShardingInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Mesh and annotations
//===----------------------------------------------------------------------===//

def Spmd_MeshOp : Spmd_Op<"mesh", [Symbol]> {
  let summary = "Declares a named mesh of devices";
  let description = [{
    ```mlir
    spmd.mesh @mesh = <["data"=2, "model"=4]>
    spmd.mesh @perm = <["x"=2, "y"=2], device_ids=[0, 2, 1, 3]>
    spmd.mesh @hybrid = <["data"=2, "model"=4]> {dcn_shape = array<i64: 2, 1>}
    ```
    `dcn_shape` (set from a HybridMesh file's `dcn_mesh_shape`) gives how
    many hosts each axis spans; an axis spanning more than one crosses the
    slow network, which auto-sharding's cost model charges for.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Spmd_MeshAttr:$mesh,
                       OptionalAttr<DenseI64ArrayAttr>:$dcn_shape);
  let assemblyFormat = "$sym_name `=` $mesh attr-dict";
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$sym_name, "MeshAttr":$mesh), [{
      build($_builder, $_state, sym_name, mesh, ::mlir::DenseI64ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Spmd_ShardingConstraintOp : Spmd_Op<"sharding_constraint", [
    Pure, AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Spmd_ShardingOpInterface, ["partition"]>]> {
  let summary = "Requires a value to have a sharding (mark_sharding)";
  let description = [{
    ```mlir
    %y = spmd.sharding_constraint %x <@mesh, [{"data"}, {} ]> : tensor<8x16xf32>
    ```
    The result equals the input; propagation treats the sharding as written
    by the user, and the partitioner brings the input to it.
  }];
  let arguments = (ins AnyRankedTensor:$input, Spmd_ShardingAttr:$sharding);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input $sharding attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Manual regions
//===----------------------------------------------------------------------===//

def Spmd_ManualComputationOp : Spmd_Op<"manual_computation", [
    IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Spmd_ShardingOpInterface, ["partition"]>]> {
  let summary = "A region written per device over some mesh axes (shard_map)";
  let description = [{
    The body is the program of one device over `manual_axes`: its
    arguments and yields have the local types of `in_shardings` and
    `out_shardings` over those axes (each dimension divided by the sizes
    of its manual axes, which must come first in its list and divide it),
    and it moves data between devices only through the collectives it
    writes, on manual axes. Over the other (free) axes the body is global,
    as the rest of the program. Propagation takes the shardings at the
    boundary as written by the user, and carries their free axes through
    the body; the partitioner brings the operands to `in_shardings` and
    partitions the body over the free axes.
    ```mlir
    %r = spmd.manual_computation(%x, %w)
        in_shardings = [<@mesh, [{"data"}, {} ]>, <@mesh, [{}, {"model"} ]>]
        out_shardings = [<@mesh, [{"data"}, {"model"} ]>]
        manual_axes = ["data", "model"]
        (%lx: tensor<32x1024xf32>, %lw: tensor<1024x1024xf32>) {
      ...
      spmd.yield %y : tensor<32x1024xf32>
    } : (tensor<64x1024xf32>, tensor<1024x4096xf32>) -> tensor<64x4096xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$tensors,
                       TypedArrayAttrBase<Spmd_ShardingAttr,
                                          "shardings">:$in_shardings,
                       TypedArrayAttrBase<Spmd_ShardingAttr,
                                          "shardings">:$out_shardings,
                       StrArrayAttr:$manual_axes);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $tensors `)` `in_shardings` `=` custom<Shardings>($in_shardings)
    `out_shardings` `=` custom<Shardings>($out_shardings)
    `manual_axes` `=` $manual_axes custom<ManualBody>($body) attr-dict
    `:` functional-type($tensors, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The sharding of `sharding`'s tensor over the manual axes only: each
    /// dimension keeps its leading manual axes.
    ::spmd::TensorSharding manualPart(ShardingAttr sharding);
    /// The rest of `sharding`: the free axes that split the body's local
    /// tensor (each dimension's axes after its manual ones).
    ::spmd::TensorSharding freePart(ShardingAttr sharding);
    /// The mesh the boundary's shardings name; null when it has none
    /// (which the verifier refuses).
    ::mlir::FlatSymbolRefAttr getMesh();
  }];
}

def Spmd_YieldOp : Spmd_Op<"yield", [
    Pure, Terminator, ReturnLike,
    ParentOneOf<["ManualComputationOp", "FusionOp"]>]> {
  let summary = "The results of a manual region, or of a fusion";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// `kind` names the op's ::spmd::CollectiveKind, whose name table spells
// it as the op's mnemonic.
class Spmd_CollectiveOp<string mnemonic, string kind, list<Trait> traits = [],
                        list<string> verifiers = ["verifyGroupShapes"]>
    : Spmd_Op<mnemonic, !listconcat(traits, [
        Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        DeclareOpInterfaceMethods<Spmd_CollectiveOpInterface, verifiers>,
        DeclareOpInterfaceMethods<Spmd_ShardingOpInterface>])> {
  let extraClassDeclaration = [{
    static constexpr ::spmd::CollectiveKind kCollectiveKind =
        ::spmd::CollectiveKind::}] # kind # [{;
  }];
  let extraClassDefinition = [{
    ::mlir::LogicalResult
    $cppClass::verifySymbolUses(::mlir::SymbolTableCollection &tables) {
      return ::mlir::spmd::verifyCollective(*this, tables);
    }
    std::optional<::mlir::spmd::OpShardingRule> $cppClass::getShardingRule() {
      return ::mlir::spmd::collectiveShardingRule(*this);
    }
  }];
}

def Spmd_AllGatherOp : Spmd_CollectiveOp<"all_gather", "AllGather", [],
    ["verifyGroupShapes", "getMovedDims", "getAxesMadeSame"]> {
  let summary = "Concatenates the group's shards along a dimension";
  let description = [{
    Every device receives the concatenation, in group order, of the
    operands of its group along `gather_dim`:
    ```mlir
    %1 = spmd.all_gather %0 on @mesh axes = ["model"] gather_dim = 1
        : tensor<4x2xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$gather_dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `gather_dim` `=` $gather_dim attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Spmd_AllReduceOp : Spmd_CollectiveOp<"all_reduce", "AllReduce",
    [AllTypesMatch<["input", "result"]>],
    ["verifyGroupShapes", "getAxesMadeSame"]> {
  let summary = "Reduces the group's operands elementwise";
  let description = [{
    ```mlir
    %1 = spmd.all_reduce %0 on @mesh axes = ["model"] : tensor<4x8xf32>
    %2 = spmd.all_reduce %0 on @mesh axes = ["data"] reduction = max
        : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes,
                       DefaultValuedAttr<Spmd_ReductionAttr,
                                         "::spmd::ReductionKind::Sum">:$reduction);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes (`reduction` `=` custom<Reduction>($reduction)^)?
    attr-dict `:` type($result)
  }];
}

def Spmd_BroadcastOp : Spmd_CollectiveOp<"broadcast", "Broadcast",
    [AllTypesMatch<["input", "result"]>],
    ["verifyGroupShapes", "getAxesMadeSame"]> {
  let summary = "Every member receives the operand of group position `root`";
  let description = [{
    ```mlir
    %1 = spmd.broadcast %0 on @mesh axes = ["x"] root = 2 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$root);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `root` `=` $root attr-dict
    `:` type($result)
  }];
}

def Spmd_ReduceOp : Spmd_CollectiveOp<"reduce", "Reduce",
                                      [AllTypesMatch<["input", "result"]>]> {
  let summary = "Reduces the group's operands onto group position `root`";
  let description = [{
    The member at `root` receives the elementwise reduction (default sum);
    the others keep their operand:
    ```mlir
    %1 = spmd.reduce %0 on @mesh axes = ["x"] root = 0 reduction = max
        : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$root,
                       DefaultValuedAttr<Spmd_ReductionAttr,
                                         "::spmd::ReductionKind::Sum">:$reduction);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `root` `=` $root
    (`reduction` `=` custom<Reduction>($reduction)^)? attr-dict
    `:` type($result)
  }];
}

def Spmd_ReduceScatterOp
    : Spmd_CollectiveOp<"reduce_scatter", "ReduceScatter", [],
                        ["verifyGroupShapes", "getMovedDims"]> {
  let summary = "Reduces the group's operands and keeps one shard each";
  let description = [{
    Device i of the group receives shard i (of ceil(d / n) elements, the
    last padded) of the elementwise reduction along `scatter_dim`:
    ```mlir
    %1 = spmd.reduce_scatter %0 on @mesh axes = ["model"] scatter_dim = 0
        : tensor<8x8xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$scatter_dim,
                       DefaultValuedAttr<Spmd_ReductionAttr,
                                         "::spmd::ReductionKind::Sum">:$reduction);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `scatter_dim` `=` $scatter_dim
    (`reduction` `=` custom<Reduction>($reduction)^)? attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Spmd_AllToAllOp : Spmd_CollectiveOp<"all_to_all", "AllToAll", [],
    ["verifyGroupShapes", "getMovedDims"]> {
  let summary = "Splits along one dimension and concatenates along another";
  let description = [{
    Device i sends shard j of its operand (split along `split_dim`) to
    device j, and concatenates what it receives along `concat_dim`:
    ```mlir
    %1 = spmd.all_to_all %0 on @mesh axes = ["model"] split_dim = 1
        concat_dim = 0 : tensor<2x8xf32> -> tensor<8x2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$split_dim,
                       I64Attr:$concat_dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `split_dim` `=` $split_dim
    `concat_dim` `=` $concat_dim attr-dict `:` type($input) `->` type($result)
  }];
}

def Spmd_RedistributeOp : Spmd_CollectiveOp<"redistribute", "Redistribute", [],
    ["verifyGroupShapes", "verifyOnMesh", "getMovedDims", "getAxesMadeSame"]> {
  let summary = "Moves a tensor between two layouts of the same mesh";
  let description = [{
    An all-to-all of uneven pieces: every device of the group sends each
    other device the part of its block (in layout `from`) that the other's
    block in layout `to` covers, and keeps what its own covers. Layouts are
    shardings of a tensor of `global_shape`; neither may be partial. The
    group spans every axis either layout names. One collective for any
    change of layout, such as moving two axes between dimensions at once:
    ```mlir
    %1 = spmd.redistribute %0 on @mesh axes = ["data", "model"]
        from <@mesh, [{"data"}, {"model"} ]> to <@mesh, [{"model"}, {"data"} ]>
        global_shape = [64, 1024] : tensor<32x256xf32> -> tensor<16x512xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, Spmd_ShardingAttr:$from,
                       Spmd_ShardingAttr:$to, DenseI64ArrayAttr:$global_shape);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `from` $from `to` $to
    `global_shape` `=` $global_shape attr-dict `:` type($input) `->`
    type($result)
  }];
}

def Spmd_CollectivePermuteOp
    : Spmd_CollectiveOp<"collective_permute", "CollectivePermute",
                        [AllTypesMatch<["input", "result"]>]> {
  let summary = "Sends each operand to another device of the group";
  let description = [{
    `pairs` lists `source -> target` positions inside the group; a device
    that is no target receives zeros.
    ```mlir
    %1 = spmd.collective_permute %0 on @mesh axes = ["x"]
        pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes,
                       DenseI64ArrayAttr:$source_target_pairs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes
    `pairs` `=` custom<Pairs>($source_target_pairs) attr-dict
    `:` type($result)
  }];
}

def Spmd_AllSliceOp : Spmd_CollectiveOp<"all_slice", "AllSlice", [],
    ["verifyGroupShapes", "getMovedDims"]> {
  let summary = "Keeps this device's shard of a replicated value (no comm)";
  let description = [{
    Device i of the group keeps shard i (ceil(d / n) elements, the last
    padded) along `slice_dim`. It moves no data.
    ```mlir
    %1 = spmd.all_slice %0 on @mesh axes = ["model"] slice_dim = 1
        : tensor<4x8xf32> -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$slice_dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `slice_dim` `=` $slice_dim attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Spmd_AxisIndexOp : Spmd_Op<"axis_index", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "This device's coordinate along a mesh axis";
  let description = [{
    ```mlir
    %i = spmd.axis_index "model" on @mesh : index
    ```
  }];
  let arguments = (ins StrAttr:$axis, FlatSymbolRefAttr:$mesh);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis `on` $mesh attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Computations the Fuse phase hands to a library kernel
//===----------------------------------------------------------------------===//

def Spmd_LayerNormOp : Spmd_Op<"layer_norm", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "Normalizes each row (the last dimension) of a tensor";
  let description = [{
    `y = (x - mean) * rsqrt(var + epsilon)`, then `* scale` and `+ shift`
    when given, where `mean` and `var` (the biased variance) are taken over
    the last dimension. `scale` and `shift` hold one f32 per element of that
    dimension, in any shape of that many elements.
    ```mlir
    %y = spmd.layer_norm %x scale %g : tensor<1024xf32>
        epsilon = 1.0e-05 : tensor<8x1024xf32>
    ```
    The Fuse phase makes it from the linalg ops that compute a layer norm
    (`--spmd-raise-layer-norm`), so that the executor runs it in one pass
    over each row; it is not for input programs, and has no sharding rule.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$input,
                       Optional<RankedTensorOf<[F32]>>:$scale,
                       Optional<RankedTensorOf<[F32]>>:$shift,
                       F32Attr:$epsilon);
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^ `:` type($scale))?
    (`shift` $shift^ `:` type($shift))? `epsilon` `=` $epsilon attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
}

def Spmd_FusionOp : Spmd_Op<"fusion", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Ops the executor may run as one library call";
  let description = [{
    Its body is ops of the enclosing block, moved into it with their order
    kept, and yields what the last of them makes: a 2-D convolution, the
    `tensor.pad` that makes its input (when it is the pad's only reader)
    and the elementwise `linalg.generic` that is the only reader of its
    result. It means what its body means, run op by op; the executor may
    instead run it as one oneDNN convolution, with the padding and the
    elementwise ops (post-ops) inside, where that gives the same numbers.
    ```mlir
    %y = spmd.fusion -> tensor<1x56x56x64xf32> {
      %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] { ... }
      %c = linalg.conv_2d_nhwc_hwcf ins(%p, %w : ...) outs(%zero : ...)
      %r = linalg.generic ... ins(%c : ...) outs(%e : ...) { ... }
      spmd.yield %r : tensor<1x56x56x64xf32>
    }
    ```
    The Fuse phase makes it (`--spmd-fuse-convolutions`); it is not for
    input programs, and has no sharding rule.
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`->` type($results)^)? $body attr-dict";
  let hasVerifier = 1;
}

#endif // SPMD_IR_SPMDOPS_TD
