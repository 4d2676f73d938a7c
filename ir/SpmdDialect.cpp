//===- SpmdDialect.cpp - The spmd dialect ---------------------------------===//

#include "ir/SpmdOps.h"

#include "ir/Namespaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::spmd;

#include "ir/SpmdDialect.cpp.inc"
#include "ir/SpmdInterfaces.cpp.inc"

void SpmdDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "ir/SpmdOps.cpp.inc"
      >();
}

/// `spmd.sharding_origins`: strings, or (on ops) arrays of strings.
static LogicalResult verifyOrigins(NamedAttribute attr,
                                   function_ref<InFlightDiagnostic()> emitError,
                                   bool nested = false) {
  auto array = llvm::dyn_cast<ArrayAttr>(attr.getValue());
  bool ok = array && llvm::all_of(array, [&](Attribute element) {
              if (!nested)
                return llvm::isa<StringAttr>(element);
              auto inner = llvm::dyn_cast<ArrayAttr>(element);
              return inner && llvm::all_of(inner, llvm::IsaPred<StringAttr>);
            });
  if (!ok)
    return emitError() << "'" << attr.getName().getValue() << "' must be "
                       << (nested ? "an array of arrays of strings"
                                  : "an array of strings");
  return success();
}

/// `spmd.sharding` on a function argument or result: a #spmd.sharding that
/// fits the value's type.
static LogicalResult verifyValueSharding(Operation *op, NamedAttribute attr,
                                         Type type, Location loc,
                                         StringRef what) {
  auto emitError = [&] { return mlir::emitError(loc); };
  if (attr.getName() == SpmdDialect::kOriginsAttrName)
    return verifyOrigins(attr, emitError);
  if (attr.getName() == SpmdDialect::kGlobalTypeAttrName) {
    if (!llvm::isa<TypeAttr>(attr.getValue()))
      return emitError() << "'" << attr.getName().getValue()
                         << "' must be a type";
    return success();
  }
  if (attr.getName() != SpmdDialect::kShardingAttrName)
    return emitError() << "unknown attribute '" << attr.getName().getValue()
                       << "' on " << what;
  auto sharding = llvm::dyn_cast<ShardingAttr>(attr.getValue());
  if (!sharding)
    return emitError() << "'" << attr.getName().getValue() << "' on " << what
                       << " must be a #spmd.sharding, got " << attr.getValue();
  return verifyShardingFor(sharding, type, op, emitError);
}

/// `spmd.sharding` on argument or result `index` of a function.
static LogicalResult verifyFunctionAttribute(Operation *op, NamedAttribute attr,
                                             bool isResult, unsigned index) {
  auto function = llvm::dyn_cast<FunctionOpInterface>(op);
  StringRef what = isResult ? "result" : "argument";
  if (!function)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is only allowed on function " << what << "s";
  // Arguments of a function with a body have their own locations.
  Location loc = op->getLoc();
  if (!isResult && !function.isExternal())
    loc = function.getArgument(index).getLoc();
  Type type = isResult ? function.getResultTypes()[index]
                       : function.getArgumentTypes()[index];
  return verifyValueSharding(op, attr, type, loc,
                             (what + " #" + Twine(index)).str());
}

LogicalResult SpmdDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  return verifyFunctionAttribute(op, attr, /*isResult=*/false, argIndex);
}

LogicalResult SpmdDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  return verifyFunctionAttribute(op, attr, /*isResult=*/true, resultIndex);
}

/// `spmd.sharding` on an op: one #spmd.sharding per result.
LogicalResult SpmdDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kOriginsAttrName)
    return verifyOrigins(
        attr, [&] { return op->emitError(); }, /*nested=*/true);
  if (attr.getName() == kPartitionedAttrName) {
    if (!llvm::isa<ModuleOp>(op) || !llvm::isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' is a unit attribute of modules";
    return success();
  }
  if (attr.getName() == kMemoryBudgetAttrName) {
    auto bytes = llvm::dyn_cast<IntegerAttr>(attr.getValue());
    if (!llvm::isa<ModuleOp>(op) || !bytes || bytes.getValue().isNegative())
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' is a non-negative integer on modules";
    return success();
  }
  if (attr.getName() == kMinBytesAttrName) {
    auto bytes = llvm::dyn_cast<IntegerAttr>(attr.getValue());
    if (!llvm::isa<CollectiveOpInterface>(op) || !bytes ||
        bytes.getValue().isNegative())
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' is a non-negative integer on collectives";
    return success();
  }
  if (attr.getName() == kShardingRuleAttrName) {
    if (!llvm::isa<StringAttr>(attr.getValue()))
      return op->emitError()
             << "'" << attr.getName().getValue() << "' is a string";
    return success();
  }
  if (attr.getName() == kFactorSplitAttrName) {
    // Its axes are checked against the op's mesh where it is read.
    auto factors = llvm::dyn_cast<ArrayAttr>(attr.getValue());
    if (!factors || !llvm::all_of(factors, [](Attribute factor) {
          auto axes = llvm::dyn_cast<ArrayAttr>(factor);
          return axes && llvm::all_of(axes, llvm::IsaPred<StringAttr>);
        }))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' is an array, per factor, of axis names";
    return success();
  }
  if (attr.getName() != kShardingAttrName)
    return op->emitError() << "unknown attribute '" << attr.getName().getValue()
                           << "'";
  auto perValue = llvm::dyn_cast<ShardingPerValueAttr>(attr.getValue());
  if (!perValue)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' on an op must be a #spmd.sharding_per_value";
  if (perValue.getShardings().size() != op->getNumResults())
    return op->emitError() << "'" << attr.getName().getValue() << "' has "
                           << perValue.getShardings().size()
                           << " shardings but the op has "
                           << op->getNumResults() << " results";
  for (auto [index, sharding] : llvm::enumerate(perValue.getShardings())) {
    auto emitError = [&, index = index] {
      return op->emitError() << "result #" << index << ": ";
    };
    if (failed(verifyShardingFor(sharding, op->getResult(index).getType(), op,
                                 emitError)))
      return failure();
  }
  return success();
}
