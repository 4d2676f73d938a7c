//===- RemadePerDevice.h - Tensors every device makes itself ----*- C++ -*-===//
//
// A tensor made from scalars only is made afresh by every device in
// whatever layout its reader wants, without communication: scalars are the
// same on every device. The partitioner remakes such a tensor instead of
// resharding it, auto-sharding charges no resharding for it, and
// propagation lets each of its uses take its own sharding (as it does for
// constants, which every device holds whole); all three ask here.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_REMADEPERDEVICE_H
#define SPMD_IR_REMADEPERDEVICE_H

#include "ir/Namespaces.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::spmd {

/// Whether `value` is a statically shaped tensor made from scalars only:
/// tensor.empty, tensor.splat, a splat constant (of any dialect), or
/// linalg.fill of a scalar into such a tensor. Other constants are not:
/// their elements differ, so they are sliced where they lie. Costs the
/// length of the chain of fills that makes `value`.
bool isRemadePerDevice(Value value);

/// isRemadePerDevice for many values of IR that does not change meanwhile:
/// each chain of fills is walked once, not once per value on it.
class RemadePerDeviceCache {
public:
  bool isRemade(Value value);
  /// Whether each use of `value` can read it in a layout of its own without
  /// communication: it is remade, or it is a constant, which the
  /// partitioner keeps whole on every device and slices where it is read.
  bool isFreeInAnyLayout(Value value);

private:
  llvm::DenseMap<Value, bool> known;
};

} // namespace mlir::spmd

#endif // SPMD_IR_REMADEPERDEVICE_H
