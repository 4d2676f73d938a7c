//===- SpmdOps.cpp - Ops of the spmd dialect ------------------------------===//

#include "ir/SpmdOps.h"

#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::spmd;

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

LogicalResult MeshOp::verify() {
  std::optional<ArrayRef<int64_t>> dcn = getDcnShape();
  if (!dcn)
    return success();
  ArrayRef<int64_t> shape = getMesh().getShape();
  if (dcn->size() != shape.size())
    return emitOpError("dcn_shape has ")
           << dcn->size() << " entries for a mesh of " << shape.size()
           << " axes";
  for (auto [i, hosts] : llvm::enumerate(*dcn))
    if (hosts < 1 || shape[i] % hosts != 0)
      return emitOpError("dcn_shape entry ")
             << i << " (" << hosts << ") must be at least 1 and divide axis "
             << getMesh().getAxisNames()[i] << " (" << shape[i] << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

LogicalResult
ShardingConstraintOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyShardingFor(
      getSharding(), getInput().getType(), *this, [&] { return emitOpError(); },
      &tables);
}

std::optional<OpShardingRule> ShardingConstraintOp::getShardingRule() {
  return OpShardingRule(
      ShardingRule::identity(getInput().getType().getShape(), 2));
}

/// The input, brought to the written layout.
LogicalResult ShardingConstraintOp::partition(PartitionContext &context) {
  FailureOr<const MeshInfo *> mesh =
      context.meshFor(*this, getSharding().getMesh());
  if (failed(mesh))
    return failure();
  // verifySymbolUses checked the sharding against this mesh.
  ShardState state =
      llvm::cantFail(toState((*mesh)->mesh, getSharding().toTensorSharding()));
  FailureOr<Value> local = context.get(*this, getInput(), state);
  if (failed(local))
    return failure();
  context.set(getResult(), {*local, *mesh, state});
  return success();
}

LogicalResult AxisIndexOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto emitError = [&] { return emitOpError(); };
  FailureOr<MeshAttr> mesh =
      lookupMesh(*this, getMeshAttr(), emitError, &tables);
  if (failed(mesh))
    return failure();
  if (!mesh->toMesh().axisIndex(getAxis()))
    return emitError() << "mesh " << getMeshAttr() << " has no axis named \""
                       << getAxis() << "\"";
  return verifyManualAxis(*this, getMeshAttr(), getAxisAttr());
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  RankedTensorType type = getInput().getType();
  if (type.getRank() == 0)
    return emitOpError("needs a dimension to normalize over");
  int64_t rowLength = type.getShape().back();
  for (Value operand : {getScale(), getShift()}) {
    if (!operand)
      continue;
    StringRef name = operand == getScale() ? "scale" : "shift";
    if (ShapedType::isDynamic(rowLength))
      return emitOpError("needs a static last dimension to take a ") << name;
    auto given = llvm::cast<RankedTensorType>(operand.getType());
    if (!given.hasStaticShape() || given.getNumElements() != rowLength)
      return emitOpError("needs ")
             << name << " to hold one element per element of a row ("
             << rowLength << "), not " << given;
  }
  return success();
}

LogicalResult FusionOp::verify() {
  auto yield = llvm::dyn_cast<YieldOp>(getBody().front().getTerminator());
  if (!yield || yield->getOperandTypes() != getResultTypes())
    return emitOpError("must yield values of its result types");
  return success();
}

//===----------------------------------------------------------------------===//
// Collective shapes
//===----------------------------------------------------------------------===//

namespace {
/// What a collective expects of one dimension of its result.
struct DimRule {
  int64_t dim;
  int64_t expected;
  const char *why; // e.g. "gathered over 4 devices"
};
} // namespace

/// Checks that `dim` is a dimension of the operand.
static LogicalResult checkDimIndex(Operation *op, RankedTensorType type,
                                   int64_t dim, StringRef name) {
  if (dim < 0 || dim >= type.getRank())
    return op->emitOpError()
           << name << " " << dim << " is out of range for " << type;
  return success();
}

/// The result equals the operand in rank, element type and every dimension
/// but those in `rules`, which must have their expected sizes.
static LogicalResult checkResultShape(Operation *op, ArrayRef<DimRule> rules) {
  auto input = llvm::cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  if (input.getRank() != result.getRank() ||
      input.getElementType() != result.getElementType())
    return op->emitOpError()
           << "result " << result << " must have the rank and element type of "
           << input;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    const DimRule *rule =
        llvm::find_if(rules, [&](const DimRule &r) { return r.dim == d; });
    int64_t expected =
        rule != rules.end() ? rule->expected : input.getDimSize(d);
    if (result.getDimSize(d) != expected) {
      InFlightDiagnostic diag = op->emitOpError()
                                << "result dimension " << d << " is "
                                << result.getDimSize(d) << " but " << expected
                                << " is expected";
      if (rule != rules.end())
        diag << " (operand dimension " << input.getDimSize(d) << " "
             << rule->why << ")";
      return diag;
    }
  }
  return success();
}

static std::string overDevices(StringRef what, int64_t groupSize) {
  return (what + " over " + std::to_string(groupSize) + " devices").str();
}

/// Collectives that resize one dimension: gathers multiply it by the group
/// size, scatters and slices keep ceil(d / n) of it.
static LogicalResult verifyResizedDim(Operation *op, int64_t dim,
                                      StringRef dimName, StringRef verb,
                                      int64_t groupSize, bool gathers) {
  auto input = llvm::cast<RankedTensorType>(op->getOperand(0).getType());
  if (failed(checkDimIndex(op, input, dim, dimName)))
    return failure();
  int64_t size = input.getDimSize(dim);
  int64_t expected =
      gathers ? size * groupSize : llvm::divideCeil(size, groupSize);
  std::string why = overDevices(verb, groupSize);
  return checkResultShape(op, {{dim, expected, why.c_str()}});
}

SmallVector<int64_t, 2> AllGatherOp::getMovedDims() {
  return {static_cast<int64_t>(getGatherDim())};
}
SmallVector<int64_t, 2> ReduceScatterOp::getMovedDims() {
  return {static_cast<int64_t>(getScatterDim())};
}
SmallVector<int64_t, 2> AllSliceOp::getMovedDims() {
  return {static_cast<int64_t>(getSliceDim())};
}
SmallVector<int64_t, 2> AllToAllOp::getMovedDims() {
  return {static_cast<int64_t>(getSplitDim()),
          static_cast<int64_t>(getConcatDim())};
}
/// Its layouts span every dimension.
/// Every axis of `op`'s group.
static SmallVector<StringRef> groupAxes(CollectiveOpInterface op) {
  return llvm::to_vector(op.getAxesAttr().getAsValueRange<StringAttr>());
}

SmallVector<int64_t, 2> RedistributeOp::getMovedDims() {
  return llvm::to_vector<2>(llvm::seq<int64_t>(0, getGlobalShape().size()));
}

SmallVector<StringRef> RedistributeOp::getAxesMadeSame() {
  ::spmd::TensorSharding to = getTo().toTensorSharding();
  auto used = [&](StringRef axis) {
    return llvm::is_contained(to.partial, axis) ||
           llvm::any_of(to.dims, [&](const ::spmd::DimSharding &dim) {
             return llvm::is_contained(dim.axes, axis);
           });
  };
  SmallVector<StringRef> same;
  for (StringRef axis : groupAxes(*this))
    if (!used(axis))
      same.push_back(axis);
  return same;
}

std::optional<OpShardingRule>
mlir::spmd::collectiveShardingRule(CollectiveOpInterface op) {
  Operation *operation = op;
  std::optional<SmallVector<int64_t>> input =
      rules::staticShape(operation->getOperand(0));
  std::optional<SmallVector<int64_t>> result =
      rules::staticShape(operation->getResult(0));
  if (!input || !result || input->size() != result->size())
    return std::nullopt;
  SmallVector<int64_t, 2> moved = op.getMovedDims();
  OpShardingRule rule;
  TensorFactors inputDims, resultDims;
  for (auto [d, size] : llvm::enumerate(*input)) {
    if (!llvm::is_contained(moved, int64_t(d))) {
      unsigned factor = rule.addFactor(size, FactorKind::Parallel);
      inputDims.push_back({factor});
      resultDims.push_back({factor});
      continue;
    }
    inputDims.push_back({rule.addFactor(size, FactorKind::NeedReplication)});
    resultDims.push_back(
        {rule.addFactor((*result)[d], FactorKind::NeedReplication)});
  }
  rule.addTensor(std::move(inputDims));
  rule.addTensor(std::move(resultDims));
  return rule;
}

LogicalResult AllGatherOp::verifyGroupShapes(int64_t groupSize) {
  return verifyResizedDim(*this, getGatherDim(), "gather_dim", "gathered",
                          groupSize, /*gathers=*/true);
}

LogicalResult AllReduceOp::verifyGroupShapes(int64_t) { return success(); }

SmallVector<StringRef> AllReduceOp::getAxesMadeSame() {
  return groupAxes(*this);
}
SmallVector<StringRef> AllGatherOp::getAxesMadeSame() {
  return groupAxes(*this);
}
SmallVector<StringRef> BroadcastOp::getAxesMadeSame() {
  return groupAxes(*this);
}

/// `root` names a position of the group.
static LogicalResult verifyRoot(Operation *op, int64_t root,
                                int64_t groupSize) {
  if (root >= 0 && root < groupSize)
    return success();
  return op->emitOpError() << "root " << root
                           << " is not a position of the group of "
                           << groupSize;
}

LogicalResult BroadcastOp::verifyGroupShapes(int64_t groupSize) {
  return verifyRoot(*this, getRoot(), groupSize);
}

LogicalResult ReduceOp::verifyGroupShapes(int64_t groupSize) {
  return verifyRoot(*this, getRoot(), groupSize);
}

LogicalResult ReduceScatterOp::verifyGroupShapes(int64_t groupSize) {
  return verifyResizedDim(*this, getScatterDim(), "scatter_dim", "scattered",
                          groupSize, /*gathers=*/false);
}

LogicalResult AllSliceOp::verifyGroupShapes(int64_t groupSize) {
  return verifyResizedDim(*this, getSliceDim(), "slice_dim", "sliced",
                          groupSize, /*gathers=*/false);
}

LogicalResult AllToAllOp::verifyGroupShapes(int64_t groupSize) {
  RankedTensorType input = getInput().getType();
  int64_t split = getSplitDim(), concat = getConcatDim();
  if (failed(checkDimIndex(*this, input, split, "split_dim")) ||
      failed(checkDimIndex(*this, input, concat, "concat_dim")))
    return failure();
  // Every device sends equal pieces, so the split must be exact.
  if (input.getDimSize(split) % groupSize != 0)
    return emitOpError() << "split dimension " << split << " of size "
                         << input.getDimSize(split)
                         << " is not divisible by the group size " << groupSize;
  if (split == concat)
    return checkResultShape(*this, {});
  std::string splitWhy = overDevices("split", groupSize);
  std::string concatWhy = overDevices("concatenated", groupSize);
  return checkResultShape(
      *this,
      {{split, input.getDimSize(split) / groupSize, splitWhy.c_str()},
       {concat, input.getDimSize(concat) * groupSize, concatWhy.c_str()}});
}

LogicalResult RedistributeOp::verifyGroupShapes(int64_t) {
  RankedTensorType input = getInput().getType(), result = getType();
  int64_t rank = getGlobalShape().size();
  if (input.getRank() != rank || result.getRank() != rank ||
      getFrom().getDims().size() != size_t(rank) ||
      getTo().getDims().size() != size_t(rank))
    return emitOpError() << "operand, result, layouts and global_shape must "
                            "have one rank";
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "operand and result element types differ";
  if (!getFrom().getPartial().empty() || !getTo().getPartial().empty())
    return emitOpError() << "layouts may not be partial";
  return success();
}

/// The layouts give the local shapes, and name only the group's axes.
LogicalResult
RedistributeOp::verifyOnMesh(const DeviceMesh &mesh,
                             const llvm::SmallSet<StringRef, 4> &axes) {
  for (auto [layout, type, name] :
       {std::make_tuple(getFrom(), getInput().getType(), "operand"),
        std::make_tuple(getTo(), getType(), "result")}) {
    if (layout.getMesh() != getMeshAttr())
      return emitOpError() << "layouts must be on the collective's mesh";
    llvm::Expected<ShardState> state = toState(mesh, layout.toTensorSharding());
    if (!state)
      return emitOpError() << llvm::toString(state.takeError());
    for (const AxisList &dim : state->dims)
      for (AxisIndex axis : dim)
        if (!axes.contains(mesh.axisName(axis)))
          return emitOpError() << "axis \"" << mesh.axisName(axis)
                               << "\" of a layout is not in the group";
    std::vector<int64_t> local = localShape(mesh, getGlobalShape(), *state);
    if (ArrayRef<int64_t>(local) != type.getShape())
      return emitOpError() << "the " << name << " type " << type
                           << " is not the local type of its layout";
  }
  return success();
}

LogicalResult CollectivePermuteOp::verifyGroupShapes(int64_t groupSize) {
  ArrayRef<int64_t> pairs = getSourceTargetPairs();
  llvm::SmallSet<int64_t, 8> sources, targets;
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    for (int64_t position : {pairs[i], pairs[i + 1]})
      if (position < 0 || position >= groupSize)
        return emitOpError()
               << "pair " << pairs[i] << " -> " << pairs[i + 1]
               << " names a device outside the group of " << groupSize;
    if (!sources.insert(pairs[i]).second)
      return emitOpError() << "device " << pairs[i] << " sends twice";
    if (!targets.insert(pairs[i + 1]).second)
      return emitOpError() << "device " << pairs[i + 1] << " receives twice";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// custom<Pairs>: `[0 -> 1, 1 -> 0]`, stored flattened.
//===----------------------------------------------------------------------===//

static ParseResult parsePairs(OpAsmParser &parser, DenseI64ArrayAttr &pairs) {
  SmallVector<int64_t> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        int64_t source = 0, target = 0;
        if (parser.parseInteger(source) || parser.parseArrow() ||
            parser.parseInteger(target))
          return failure();
        values.append({source, target});
        return success();
      }))
    return failure();
  pairs = parser.getBuilder().getDenseI64ArrayAttr(values);
  return success();
}

static void printPairs(OpAsmPrinter &printer, Operation *,
                       DenseI64ArrayAttr pairs) {
  ArrayRef<int64_t> values = pairs.asArrayRef();
  printer << '[';
  for (size_t i = 0; i + 1 < values.size(); i += 2)
    printer << (i ? ", " : "") << values[i] << " -> " << values[i + 1];
  printer << ']';
}

//===----------------------------------------------------------------------===//
// custom<Reduction>: `max`, a name of ReductionKind.
//===----------------------------------------------------------------------===//

static ParseResult parseReduction(OpAsmParser &parser, IntegerAttr &attr) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  std::string name;
  std::optional<ReductionKind> kind;
  if (succeeded(parser.parseOptionalKeywordOrString(&name)))
    kind = symbolizeReduction(name);
  if (!kind)
    return parser.emitError(loc, "expected string or keyword containing one "
                                 "of the following enum values for "
                                 "attribute 'reduction' [")
           << llvm::join(reductionNames(), ", ") << "]";
  attr = reductionAttr(parser.getContext(), *kind);
  return success();
}

static void printReduction(OpAsmPrinter &printer, Operation *,
                           IntegerAttr attr) {
  printer << stringifyReduction(static_cast<ReductionKind>(attr.getInt()));
}

//===----------------------------------------------------------------------===//
// custom<Shardings>: `[<@mesh, [{"data"}, {}]>, ...]`.
//===----------------------------------------------------------------------===//

static ParseResult parseShardings(OpAsmParser &parser, ArrayAttr &shardings) {
  SmallVector<Attribute> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        ShardingAttr sharding;
        if (parser.parseCustomAttributeWithFallback(sharding))
          return failure();
        values.push_back(sharding);
        return success();
      }))
    return failure();
  shardings = parser.getBuilder().getArrayAttr(values);
  return success();
}

static void printShardings(OpAsmPrinter &printer, Operation *,
                           ArrayAttr shardings) {
  printer << '[';
  llvm::interleaveComma(shardings, printer, [&](Attribute sharding) {
    printer.printStrippedAttrOrType(llvm::cast<ShardingAttr>(sharding));
  });
  printer << ']';
}

//===----------------------------------------------------------------------===//
// custom<ManualBody>: `(%a: tensor<...>, ...) { ... }`, the body's
// arguments with their local types, then the body.
//===----------------------------------------------------------------------===//

static ParseResult parseManualBody(OpAsmParser &parser, Region &body) {
  SmallVector<OpAsmParser::Argument> arguments;
  Location loc = parser.getEncodedSourceLoc(parser.getCurrentLocation());
  if (parser.parseArgumentList(arguments, AsmParser::Delimiter::Paren,
                               /*allowType=*/true) ||
      parser.parseRegion(body, arguments))
    return failure();
  ManualComputationOp::ensureTerminator(body, parser.getBuilder(), loc);
  return success();
}

static void printManualBody(OpAsmPrinter &printer, Operation *, Region &body) {
  printer << '(';
  llvm::interleaveComma(body.getArguments(), printer, [&](BlockArgument arg) {
    printer.printRegionArgument(arg);
  });
  printer << ") ";
  printer.printRegion(body, /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/true);
}

#define GET_OP_CLASSES
#include "ir/SpmdOps.cpp.inc"
