//===- GspmdImport.cpp - mhlo.sharding strings to spmd --------------------===//

#include "ir/Namespaces.h"
#include "ir/SpmdOps.h"
#include "passes/Import.h"
#include "sharding/GspmdSharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::spmd;

static constexpr StringLiteral kGspmdAttrName = "mhlo.sharding";

namespace {
/// One `mhlo.sharding` on an argument or result.
struct Annotation {
  func::FuncOp function;
  bool isResult;
  unsigned index;
  GspmdSharding sharding;
  unsigned rank;
};
} // namespace

/// A symbol name starting with `base` that the module does not use yet.
static std::string freshName(SymbolTable &symbols, StringRef base) {
  std::string name = base.str();
  for (int i = 1; symbols.lookup(name); ++i)
    name = (base + "_" + Twine(i)).str();
  return name;
}

LogicalResult mlir::spmd::importGspmdShardings(ModuleOp module) {
  std::vector<Annotation> annotations;
  for (auto function : module.getOps<func::FuncOp>()) {
    auto collect = [&](DictionaryAttr attrs, bool isResult, unsigned index,
                       Type type) -> LogicalResult {
      auto text = attrs ? attrs.getAs<StringAttr>(kGspmdAttrName) : nullptr;
      if (!text)
        return success();
      llvm::Expected<GspmdSharding> parsed =
          GspmdSharding::parse(text.getValue());
      if (!parsed)
        return function.emitError()
               << (isResult ? "result #" : "argument #") << index << ": "
               << llvm::toString(parsed.takeError());
      auto tensor = llvm::dyn_cast<RankedTensorType>(type);
      annotations.push_back(
          {function, isResult, index, *parsed,
           tensor ? static_cast<unsigned>(tensor.getRank()) : 0u});
      return success();
    };
    for (unsigned i = 0; i < function.getNumArguments(); ++i)
      if (failed(collect(function.getArgAttrDict(i), false, i,
                         function.getArgumentTypes()[i])))
        return failure();
    for (unsigned i = 0; i < function.getNumResults(); ++i)
      if (failed(collect(function.getResultAttrDict(i), true, i,
                         function.getResultTypes()[i])))
        return failure();
  }
  if (annotations.empty())
    return success();

  MLIRContext *context = module.getContext();
  SymbolTable symbols(module);
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  auto addMesh = [&](const DeviceMesh &mesh) {
    std::string name = freshName(symbols, "mesh");
    auto op = MeshOp::create(builder, module.getLoc(), name,
                             MeshAttr::get(context, mesh));
    symbols.insert(op);
    return name;
  };
  auto annotate = [&](Annotation &a, const TensorSharding &s) {
    ShardingAttr attr = ShardingAttr::get(context, s);
    if (a.isResult) {
      a.function.removeResultAttr(a.index, kGspmdAttrName);
      a.function.setResultAttr(a.index, SpmdDialect::kShardingAttrName, attr);
    } else {
      a.function.removeArgAttr(a.index, kGspmdAttrName);
      a.function.setArgAttr(a.index, SpmdDialect::kShardingAttrName, attr);
    }
  };

  // One mesh for all when the device orders allow it.
  std::vector<GspmdSharding> all;
  std::vector<unsigned> ranks;
  for (const Annotation &a : annotations) {
    all.push_back(a.sharding);
    ranks.push_back(a.rank);
  }
  std::string commonName = freshName(symbols, "mesh");
  llvm::Expected<std::pair<DeviceMesh, std::vector<TensorSharding>>> common =
      GspmdSharding::toSpmdCommon(all, ranks, commonName);
  if (common) {
    addMesh(common->first);
    for (auto [a, s] : llvm::zip_equal(annotations, common->second))
      annotate(a, s);
    return success();
  }
  llvm::consumeError(common.takeError());

  // Otherwise a mesh per distinct device layout of the tiled shardings;
  // replicated and maximal ones hold whole tensors, on the first of those
  // meshes (a mesh of their own would keep them from meeting the others).
  std::vector<std::pair<DeviceMesh, std::string>> meshes;
  std::stable_partition(annotations.begin(), annotations.end(),
                        [](const Annotation &a) {
                          return a.sharding.kind == GspmdSharding::Kind::Tiled;
                        });
  for (Annotation &a : annotations) {
    llvm::Expected<std::pair<DeviceMesh, TensorSharding>> own =
        a.sharding.toSpmd(a.rank, "");
    if (!own)
      return a.function.emitError()
             << (a.isResult ? "result #" : "argument #") << a.index << ": "
             << llvm::toString(own.takeError());
    auto found = llvm::find_if(
        meshes, [&](const auto &m) { return m.first == own->first; });
    if (a.sharding.kind != GspmdSharding::Kind::Tiled && !meshes.empty())
      found = meshes.begin();
    std::string name =
        found != meshes.end() ? found->second : addMesh(own->first);
    if (found == meshes.end())
      meshes.emplace_back(own->first, name);
    own->second.meshName = name;
    annotate(a, own->second);
  }
  return success();
}
