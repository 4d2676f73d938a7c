//===- SpmdInterfaces.td - Interfaces of spmd ops ----------*- tablegen -*-===//

#ifndef SPMD_IR_SPMDINTERFACES_TD
#define SPMD_IR_SPMDINTERFACES_TD

include "mlir/IR/OpBase.td"

def Spmd_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mlir::spmd";
  let description = [{
    A collective over a group of devices: those that differ only in their
    coordinates along `axes` of `mesh`. Shared verification resolves the
    mesh and axes once; each op checks its shapes against the group size.
  }];
  let methods = [
    InterfaceMethod<"Which collective the op is.",
      "::spmd::CollectiveKind", "getCollectiveKind", (ins), /*methodBody=*/"",
      /*defaultImplementation=*/"return ConcreteOp::kCollectiveKind;">,
    InterfaceMethod<"The mesh the collective runs on.",
      "::mlir::FlatSymbolRefAttr", "getMeshAttr">,
    InterfaceMethod<"The mesh axes spanning the group, major to minor.",
      "::mlir::ArrayAttr", "getAxesAttr">,
    InterfaceMethod<[{
        Checks operand and result types for a group of `groupSize` devices.
      }], "::mlir::LogicalResult", "verifyGroupShapes",
      (ins "int64_t":$groupSize)>,
    InterfaceMethod<[{
        Checks what depends on the mesh beyond the group size (layouts the
        op names); `axes` are the group's axis names.
      }], "::mlir::LogicalResult", "verifyOnMesh",
      (ins "const ::spmd::DeviceMesh &":$mesh,
           "const ::llvm::SmallSet<::llvm::StringRef, 4> &":$axes),
      /*methodBody=*/"", /*defaultImplementation=*/"return ::mlir::success();">,
    InterfaceMethod<[{
        The dimensions of the operand and result along which members trade
        data (resized, split or concatenated). Along the others the op is
        elementwise across the group: split there over other axes, each
        piece meets the pieces of the same place.
      }], "::llvm::SmallVector<int64_t, 2>", "getMovedDims", (ins),
      /*methodBody=*/"", /*defaultImplementation=*/"return {};">,
    InterfaceMethod<[{
        The group's axes along which every member receives the same result
        whatever its own operand: all of them for all_gather, all_reduce
        and broadcast; for redistribute those its `to` layout leaves whole.
        Along the others each member may receive its own.
      }], "::llvm::SmallVector<::llvm::StringRef>", "getAxesMadeSame", (ins),
      /*methodBody=*/"", /*defaultImplementation=*/"return {};">,
  ];
}

#endif // SPMD_IR_SPMDINTERFACES_TD
