//===- FactorSplit.cpp - The factor split a plan computes an op by --------===//

#include "ir/FactorSplit.h"
#include "ir/SpmdDialect.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::spmd;

ArrayAttr mlir::spmd::factorSplitAttr(MLIRContext *context,
                                      const DeviceMesh &mesh,
                                      ArrayRef<AxisList> split) {
  SmallVector<Attribute> factors;
  for (const AxisList &axes : split) {
    SmallVector<Attribute> names;
    for (AxisIndex axis : axes)
      names.push_back(StringAttr::get(context, mesh.axisName(axis)));
    factors.push_back(ArrayAttr::get(context, names));
  }
  return ArrayAttr::get(context, factors);
}

FailureOr<std::optional<std::vector<AxisList>>>
mlir::spmd::readFactorSplit(Operation *op, const DeviceMesh &mesh,
                            unsigned numFactors) {
  Attribute attr = op->getAttr(SpmdDialect::kFactorSplitAttrName);
  if (!attr)
    return std::optional<std::vector<AxisList>>();
  auto bad = [&]() {
    return op->emitError("'")
           << SpmdDialect::kFactorSplitAttrName << "' must list, for each of "
           << "the op's " << numFactors
           << " factors, the mesh axes it is split over (names of axes of "
           << mesh.str() << ", each once); got " << attr;
  };
  auto factors = dyn_cast<ArrayAttr>(attr);
  if (!factors || factors.size() != numFactors)
    return bad();
  std::vector<AxisList> split;
  llvm::SmallBitVector used(mesh.rank());
  for (Attribute factor : factors) {
    auto names = dyn_cast<ArrayAttr>(factor);
    if (!names)
      return bad();
    AxisList &axes = split.emplace_back();
    for (Attribute name : names) {
      auto text = dyn_cast<StringAttr>(name);
      std::optional<AxisIndex> axis =
          text ? mesh.axisIndex(text.getValue()) : std::nullopt;
      if (!axis || used.test(*axis))
        return bad();
      used.set(*axis);
      axes.push_back(*axis);
    }
  }
  return std::optional(std::move(split));
}
