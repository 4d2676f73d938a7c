//===- SpmdAttrs.cpp - Mesh and sharding attributes -----------------------===//
//
// Textual forms (see SpmdAttrs.td) and verification. The invariants live in
// the mesh and sharding libraries; the verifiers here only report them.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdDialect.h"

#include "ir/Namespaces.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::spmd;

#define GET_ATTRDEF_CLASSES
#include "ir/SpmdAttrs.cpp.inc"

void SpmdDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ir/SpmdAttrs.cpp.inc"
      >();
}

IntegerAttr mlir::spmd::reductionAttr(MLIRContext *context,
                                      ReductionKind kind) {
  return IntegerAttr::get(IntegerType::get(context, 32),
                          static_cast<int32_t>(kind));
}

bool mlir::spmd::isCollectiveReductionAttr(Attribute attr) {
  auto integer = llvm::dyn_cast<IntegerAttr>(attr);
  if (!integer || !integer.getType().isSignlessInteger(32))
    return false;
  int64_t value = integer.getInt();
  return value >= 0 && value <= static_cast<int64_t>(ReductionKind::Prod);
}

static std::vector<std::string> toStrings(ArrayRef<StringAttr> attrs) {
  std::vector<std::string> strings;
  for (StringAttr attr : attrs)
    strings.push_back(attr.str());
  return strings;
}

static SmallVector<StringAttr> toAttrs(MLIRContext *context,
                                       ArrayRef<std::string> strings) {
  SmallVector<StringAttr> attrs;
  for (const std::string &s : strings)
    attrs.push_back(StringAttr::get(context, s));
  return attrs;
}

/// `{"a", "b"}`, and with `allowOpen` also `{"a", ?}` / `{?}`.
static ParseResult parseAxisList(AsmParser &parser,
                                 SmallVectorImpl<StringAttr> &axes,
                                 bool *isOpen = nullptr) {
  if (parser.parseLBrace())
    return failure();
  if (succeeded(parser.parseOptionalRBrace()))
    return success();
  do {
    if (isOpen && succeeded(parser.parseOptionalQuestion())) {
      *isOpen = true;
      break;
    }
    std::string name;
    if (parser.parseString(&name))
      return failure();
    axes.push_back(parser.getBuilder().getStringAttr(name));
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRBrace();
}

static void printAxisList(AsmPrinter &printer, ArrayRef<StringAttr> axes,
                          bool isOpen = false) {
  printer << '{';
  llvm::interleaveComma(axes, printer,
                        [&](StringAttr axis) { printer.printString(axis); });
  if (isOpen)
    printer << (axes.empty() ? "?" : ", ?");
  printer << '}';
}

//===----------------------------------------------------------------------===//
// MeshAttr
//===----------------------------------------------------------------------===//

Attribute MeshAttr::parse(AsmParser &parser, Type) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  SmallVector<StringAttr> names;
  SmallVector<int64_t> shape, deviceIds;
  auto parseAxis = [&]() -> ParseResult {
    std::string name;
    int64_t size;
    if (parser.parseString(&name) || parser.parseEqual() ||
        parser.parseInteger(size))
      return failure();
    names.push_back(parser.getBuilder().getStringAttr(name));
    shape.push_back(size);
    return success();
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseAxis))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("device_ids") || parser.parseEqual() ||
        parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
          return parser.parseInteger(deviceIds.emplace_back());
        }))
      return {};
  }
  if (parser.parseGreater())
    return {};
  // Iota ids are the default; drop them so equal meshes are equal attributes.
  if (static_cast<int64_t>(deviceIds.size()) == product(shape) &&
      llvm::all_of(llvm::enumerate(deviceIds), [](auto it) {
        return it.value() == static_cast<int64_t>(it.index());
      }))
    deviceIds.clear();
  return parser.getChecked<MeshAttr>(loc, parser.getContext(), names, shape,
                                     deviceIds);
}

void MeshAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(llvm::zip_equal(getAxisNames(), getShape()), printer,
                        [&](auto axis) {
                          printer.printString(std::get<0>(axis));
                          printer << '=' << std::get<1>(axis);
                        });
  printer << ']';
  if (!getDeviceIds().empty()) {
    printer << ", device_ids=[";
    llvm::interleaveComma(getDeviceIds(), printer);
    printer << ']';
  }
  printer << '>';
}

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<StringAttr> axisNames,
                               ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> deviceIds) {
  if (llvm::Error err =
          DeviceMesh::verify(toStrings(axisNames), shape, deviceIds))
    return emitError() << "invalid mesh: " << llvm::toString(std::move(err));
  return success();
}

DeviceMesh MeshAttr::toMesh() const {
  return llvm::cantFail(DeviceMesh::create(
      toStrings(getAxisNames()), std::vector<int64_t>(getShape()),
      std::vector<int64_t>(getDeviceIds())));
}

MeshAttr MeshAttr::get(MLIRContext *context, const DeviceMesh &mesh) {
  std::vector<int64_t> ids;
  if (!mesh.hasIotaDeviceIds())
    ids = mesh.deviceIds();
  return get(context, toAttrs(context, mesh.axisNames()), mesh.shape(), ids);
}

//===----------------------------------------------------------------------===//
// DimShardingAttr
//===----------------------------------------------------------------------===//

/// `{"a", ?}p2`
static DimShardingAttr parseDimSharding(AsmParser &parser) {
  SmallVector<StringAttr> axes;
  bool isOpen = false;
  if (parseAxisList(parser, axes, &isOpen))
    return {};
  std::optional<int64_t> priority;
  StringRef keyword;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalKeyword(&keyword))) {
    int64_t value;
    bool isPriority = keyword.consume_front("p") && !keyword.empty() &&
                      llvm::all_of(keyword, llvm::isDigit);
    if (isPriority && keyword.getAsInteger(10, value)) {
      parser.emitError(loc, "priority 'p")
          << keyword << "' is too large (at most p"
          << std::numeric_limits<int64_t>::max() << ")";
      return {};
    }
    if (!isPriority) {
      parser.emitError(loc, "expected a priority 'p<N>' after the axes");
      return {};
    }
    priority = value;
  }
  return DimShardingAttr::get(parser.getContext(), axes, isOpen, priority);
}

static void printDimSharding(AsmPrinter &printer, DimShardingAttr dim) {
  printAxisList(printer, dim.getAxes(), dim.getIsOpen());
  if (dim.getPriority())
    printer << 'p' << *dim.getPriority();
}

Attribute DimShardingAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  DimShardingAttr dim = parseDimSharding(parser);
  if (!dim || parser.parseGreater())
    return {};
  return dim;
}

void DimShardingAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printDimSharding(printer, *this);
  printer << '>';
}

//===----------------------------------------------------------------------===//
// ShardingAttr
//===----------------------------------------------------------------------===//

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  FlatSymbolRefAttr mesh;
  SmallVector<DimShardingAttr> dims;
  SmallVector<StringAttr> replicated, partial;
  ReductionKind kind = ReductionKind::Sum;
  if (parser.parseLess() || parser.parseAttribute(mesh) ||
      parser.parseComma() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        dims.push_back(parseDimSharding(parser));
        return success(bool(dims.back()));
      }))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    llvm::SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return {};
    if (keyword == "replicated") {
      if (!replicated.empty()) {
        parser.emitError(loc, "'replicated' given twice");
        return {};
      }
      if (parser.parseEqual() || parseAxisList(parser, replicated))
        return {};
    } else if (keyword == "partial") {
      if (!partial.empty()) {
        parser.emitError(loc, "'partial' given twice");
        return {};
      }
      if (succeeded(parser.parseOptionalLess())) {
        StringRef name;
        llvm::SMLoc kindLoc = parser.getCurrentLocation();
        if (parser.parseKeyword(&name) || parser.parseGreater())
          return {};
        std::optional<ReductionKind> parsed = symbolizeReduction(name);
        if (!parsed) {
          SmallVector<StringRef> names = reductionNames();
          // A pending product is no partial value (TensorSharding::verify).
          llvm::erase(names, stringifyReduction(ReductionKind::Prod));
          parser.emitError(kindLoc, "unknown reduction '")
              << name << "' (expected "
              << llvm::join(ArrayRef(names).drop_back(), ", ") << " or "
              << names.back() << ")";
          return {};
        }
        kind = *parsed;
      }
      if (parser.parseEqual() || parseAxisList(parser, partial))
        return {};
    } else {
      parser.emitError(loc, "expected 'replicated' or 'partial', got '")
          << keyword << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ShardingAttr>(loc, parser.getContext(), mesh, dims,
                                         replicated, partial, kind);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printAttributeWithoutType(getMesh());
  printer << ", [";
  llvm::interleaveComma(getDims(), printer, [&](DimShardingAttr dim) {
    printDimSharding(printer, dim);
  });
  printer << ']';
  if (!getReplicated().empty()) {
    printer << ", replicated=";
    printAxisList(printer, getReplicated());
  }
  if (!getPartial().empty()) {
    printer << ", partial";
    if (getPartialKind() != ReductionKind::Sum)
      printer << '<' << stringifyReduction(getPartialKind()) << '>';
    printer << '=';
    printAxisList(printer, getPartial());
  }
  printer << '>';
}

static TensorSharding makeTensorSharding(FlatSymbolRefAttr mesh,
                                         ArrayRef<DimShardingAttr> dims,
                                         ArrayRef<StringAttr> replicated,
                                         ArrayRef<StringAttr> partial,
                                         ReductionKind kind) {
  std::vector<DimSharding> libDims;
  for (DimShardingAttr dim : dims)
    libDims.push_back(
        {toStrings(dim.getAxes()), dim.getIsOpen(), dim.getPriority()});
  return TensorSharding(mesh.getValue().str(), std::move(libDims),
                        toStrings(replicated), toStrings(partial), kind);
}

LogicalResult ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   FlatSymbolRefAttr mesh,
                                   ArrayRef<DimShardingAttr> dims,
                                   ArrayRef<StringAttr> replicated,
                                   ArrayRef<StringAttr> partial,
                                   ReductionKind kind) {
  if (!mesh)
    return emitError() << "sharding needs a mesh symbol";
  TensorSharding sharding =
      makeTensorSharding(mesh, dims, replicated, partial, kind);
  if (llvm::Error err = sharding.verify())
    return emitError() << "invalid sharding " << sharding.str() << ": "
                       << llvm::toString(std::move(err));
  return success();
}

TensorSharding ShardingAttr::toTensorSharding() const {
  return makeTensorSharding(getMesh(), getDims(), getReplicated(), getPartial(),
                            getPartialKind());
}

ShardingAttr ShardingAttr::get(MLIRContext *context,
                               const TensorSharding &sharding) {
  SmallVector<DimShardingAttr> dims;
  for (const DimSharding &dim : sharding.dims)
    dims.push_back(DimShardingAttr::get(context, toAttrs(context, dim.axes),
                                        dim.open, dim.priority));
  return get(context, FlatSymbolRefAttr::get(context, sharding.meshName), dims,
             toAttrs(context, sharding.replicated),
             toAttrs(context, sharding.partial), sharding.partialKind);
}

//===----------------------------------------------------------------------===//
// ShardingPerValueAttr
//===----------------------------------------------------------------------===//

Attribute ShardingPerValueAttr::parse(AsmParser &parser, Type) {
  SmallVector<ShardingAttr> shardings;
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&] {
            auto sharding = llvm::dyn_cast_or_null<ShardingAttr>(
                ShardingAttr::parse(parser, Type()));
            shardings.push_back(sharding);
            return success(bool(sharding));
          }) ||
      parser.parseGreater())
    return {};
  return ShardingPerValueAttr::get(parser.getContext(), shardings);
}

void ShardingPerValueAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getShardings(), printer,
                        [&](ShardingAttr s) { s.print(printer); });
  printer << "]>";
}
