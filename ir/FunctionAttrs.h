//===- FunctionAttrs.h - Argument and result attributes in bulk -*- C++ -*-===//
//
// Setting one argument's attribute rebuilds the list of every argument's
// dictionary, so annotating all arguments one by one is quadratic in their
// number (10,000 weights are common). These update all of them at once.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_FUNCTIONATTRS_H
#define SPMD_IR_FUNCTIONATTRS_H

#include "ir/Namespaces.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::spmd {

/// Calls `update(i, attrs)` with each argument's attributes, then stores
/// them all.
void updateArgAttrs(func::FuncOp function,
                    function_ref<void(unsigned, NamedAttrList &)> update);
/// The same for results.
void updateResultAttrs(func::FuncOp function,
                       function_ref<void(unsigned, NamedAttrList &)> update);

} // namespace mlir::spmd

#endif // SPMD_IR_FUNCTIONATTRS_H
