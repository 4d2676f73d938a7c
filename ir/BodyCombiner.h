//===- BodyCombiner.h - The reduction a region body applies -----*- C++ -*-===//
//
// A reduction's body folds each element into its accumulator with one
// combining op (`acc = arith.addf(x, acc)`, `arith.maxnumf`, ...). Which
// kind that op is decides both how a split reduction is left pending (the
// sharding models) and which kernel computes it (the runtime): one
// recogniser serves both.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_BODYCOMBINER_H
#define SPMD_IR_BODYCOMBINER_H

#include "ir/Namespaces.h"
#include "sharding/TensorSharding.h"

#include "mlir/IR/Block.h"

#include <optional>

namespace mlir::spmd {

/// The reduction `op` applies when it combines two values: addf and addi
/// are Sum, maximumf and maxsi Max, minimumf and minsi Min, maxnumf MaxNum,
/// minnumf MinNum. Nothing for any other op, or for null.
std::optional<ReductionKind> combinerKind(Operation *op);

/// The combiner of a body that is `yield combiner(element, accumulator)`
/// (operands in either order) and nothing else.
std::optional<ReductionKind> foldCombiner(Block &body, Value element,
                                          Value accumulator);

} // namespace mlir::spmd

#endif // SPMD_IR_BODYCOMBINER_H
