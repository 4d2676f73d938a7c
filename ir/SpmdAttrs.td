//===- SpmdAttrs.td - Mesh and sharding attributes ---------*- tablegen -*-===//

#ifndef SPMD_IR_SPMDATTRS_TD
#define SPMD_IR_SPMDATTRS_TD

include "ir/SpmdBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

// The reduction of a collective: ::spmd::ReductionKind, whose name table
// parses and prints it, stored as its number in an i32.
def Spmd_ReductionAttr : Attr<
    CPred<"::mlir::spmd::isCollectiveReductionAttr($_self)">,
    "a reduction kind (sum, max, min, maxnum or minnum)"> {
  let storageType = "::mlir::IntegerAttr";
  let returnType = "::spmd::ReductionKind";
  let convertFromStorage =
      "static_cast<::spmd::ReductionKind>($_self.getInt())";
  let constBuilderCall = "::mlir::spmd::reductionAttr($_builder.getContext(), $0)";
}

def Spmd_MeshAttr : Spmd_Attr<"Mesh", "mesh"> {
  let summary = "Named axes of a device mesh";
  let description = [{
    `<["data"=2, "model"=4]>` or `<["x"=2, "y"=2], device_ids=[0, 2, 1, 3]>`.
    Device ids (default iota) are laid out row-major over the mesh shape.
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::StringAttr", "axis names">:$axisNames,
    ArrayRefParameter<"int64_t", "axis sizes">:$shape,
    OptionalArrayRefParameter<"int64_t", "device ids, row-major">:$deviceIds
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The mesh as a value of the mesh library.
    ::spmd::DeviceMesh toMesh() const;
    static MeshAttr get(::mlir::MLIRContext *context, const ::spmd::DeviceMesh &mesh);
  }];
}

def Spmd_DimShardingAttr : Spmd_Attr<"DimSharding", "dim"> {
  let summary = "How one tensor dimension is split over mesh axes";
  let description = [{
    `{"data", "model"}` (closed), `{"data", ?}` (open: propagation may add
    axes after the listed ones), optionally followed by a priority `p<N>`.
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::StringAttr", "axes, major to minor">:$axes,
    "bool":$isOpen,
    OptionalParameter<"std::optional<int64_t>", "priority">:$priority
  );
  let hasCustomAssemblyFormat = 1;
}

def Spmd_ShardingAttr : Spmd_Attr<"Sharding", "sharding"> {
  let summary = "How a tensor is laid out over a mesh";
  let description = [{
    `<@mesh, [{"data"}, {?} ], replicated={"x"}, partial<max>={"y"}>`:
    one entry per dimension, axes explicitly replicated, and axes over which
    the value is a pending reduction (sum unless written otherwise).
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    ArrayRefParameter<"DimShardingAttr", "per-dimension shardings">:$dims,
    OptionalArrayRefParameter<"::mlir::StringAttr", "replicated axes">:$replicated,
    OptionalArrayRefParameter<"::mlir::StringAttr", "partial axes">:$partial,
    DefaultValuedParameter<"::spmd::ReductionKind",
                           "::spmd::ReductionKind::Sum",
                           "pending reduction">:$partialKind
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::spmd::TensorSharding toTensorSharding() const;
    static ShardingAttr get(::mlir::MLIRContext *context,
                            const ::spmd::TensorSharding &sharding);
  }];
}

def Spmd_ShardingPerValueAttr : Spmd_Attr<"ShardingPerValue",
                                          "sharding_per_value"> {
  let summary = "The sharding of each result of an op";
  let description = "`<[<@mesh, [{\"data\"}, {}]>, <@mesh, [{}]>]>`";
  let parameters = (ins
    ArrayRefParameter<"ShardingAttr", "one sharding per result">:$shardings
  );
  let hasCustomAssemblyFormat = 1;
}

#endif // SPMD_IR_SPMDATTRS_TD
