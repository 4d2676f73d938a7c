//===- ShardDialectImport.cpp - Upstream shard annotations to spmd --------===//
//
// shard.grid @g(shape = 2x4)         spmd.mesh @g = <["axis0"=2, "axis1"=4]>
// %s = shard.sharding @g split_axes = [[0], [1]]
// %y = shard.shard %x to %s          %x gets <@g, [{"axis0"}, {"axis1"}]>
//                                    (its op's sharding_per_value, or its
//                                    function argument attribute)
// %z = shard.shard %x to %s annotate_for_users
//                                    %z = spmd.sharding_constraint %x <...>
//
// Upstream shardings are complete, so every
// dimension is closed. Dynamic grid sizes (`?`) become 1, and split axes
// past the grid's rank (which upstream does not reject) become extra axes
// of size 1; both with a warning on the grid.
//
//===----------------------------------------------------------------------===//

#include "ir/Namespaces.h"
#include "ir/SpmdOps.h"
#include "passes/Import.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::spmd;

static std::string axisName(int64_t index) {
  return "axis" + std::to_string(index);
}

/// The spmd sharding of `sharding` for a tensor of `rank`.
static FailureOr<ShardingAttr> convert(shard::ShardingOp sharding,
                                       int64_t rank) {
  MLIRContext *context = sharding.getContext();
  if (!sharding.getStaticHaloSizes().empty() ||
      !sharding.getDynamicHaloSizes().empty() ||
      !sharding.getStaticShardedDimsOffsets().empty() ||
      !sharding.getDynamicShardedDimsOffsets().empty())
    return sharding.emitError()
           << "cannot import halo sizes or sharded dimension offsets: spmd "
              "shardings split dimensions evenly (ceil(d / n) per device)";
  auto axes = sharding.getSplitAxes().getAxes();
  // Upstream needs at least one (possibly empty) entry, even for scalars.
  for (auto dimAxes : axes.drop_front(std::min<size_t>(rank, axes.size())))
    if (!dimAxes.empty())
      return sharding.emitError()
             << "sharding splits " << axes.size() << " dimensions of a rank-"
             << rank << " tensor";
  std::vector<DimSharding> dims(rank);
  for (auto [d, dimAxes] : llvm::enumerate(axes.take_front(rank)))
    for (int16_t axis : dimAxes.asArrayRef())
      dims[d].axes.push_back(axisName(axis));
  return ShardingAttr::get(context,
                           TensorSharding(sharding.getGrid().str(), dims));
}

/// A sharding with every dimension open: nothing known yet.
static ShardingAttr openSharding(FlatSymbolRefAttr mesh, Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  std::vector<DimSharding> dims(tensor ? tensor.getRank() : 0);
  for (DimSharding &dim : dims)
    dim.open = true;
  return ShardingAttr::get(
      mesh.getContext(),
      TensorSharding(mesh.getValue().str(), std::move(dims)));
}

/// Records `sharding` as the sharding `value` is defined with. Returns false
/// where there is no place for it (a block argument inside a region).
static bool annotateDefinition(Value value, ShardingAttr sharding) {
  if (auto arg = llvm::dyn_cast<BlockArgument>(value)) {
    auto function = llvm::dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!function || arg.getOwner() != &function.getBody().front())
      return false;
    function.setArgAttr(arg.getArgNumber(), SpmdDialect::kShardingAttrName,
                        sharding);
    return true;
  }
  Operation *def = value.getDefiningOp();
  SmallVector<ShardingAttr> shardings;
  auto existing =
      def->getAttrOfType<ShardingPerValueAttr>(SpmdDialect::kShardingAttrName);
  for (OpResult result : def->getResults())
    shardings.push_back(
        result == value ? sharding
        : existing      ? existing.getShardings()[result.getResultNumber()]
                        : openSharding(sharding.getMesh(), result.getType()));
  def->setAttr(SpmdDialect::kShardingAttrName,
               ShardingPerValueAttr::get(def->getContext(), shardings));
  return true;
}

LogicalResult mlir::spmd::importShardDialect(ModuleOp module) {
  // No shard op can be in a module whose context never loaded the dialect:
  // a program without them costs no walk.
  if (!module.getContext()->getLoadedDialect<shard::ShardDialect>())
    return success();
  // Partitioned programs (collectives, process queries) are not imported:
  // their grids stay as they are.
  WalkResult partitioned = module.walk([&](Operation *op) {
    if (!llvm::isa_and_nonnull<shard::ShardDialect>(op->getDialect()) ||
        llvm::isa<shard::GridOp, shard::ShardingOp, shard::ShardOp>(op))
      return WalkResult::advance();
    op->emitError() << "cannot import '" << op->getName()
                    << "': only annotations (shard.grid, shard.sharding, "
                       "shard.shard) are imported, before partitioning";
    return WalkResult::interrupt();
  });
  if (partitioned.wasInterrupted())
    return failure();

  // How many axes each grid needs: its own, or more if shardings use more.
  llvm::StringMap<int64_t> axesUsed;
  module.walk([&](shard::ShardingOp op) {
    int64_t &used = axesUsed[op.getGrid()];
    for (auto dimAxes : op.getSplitAxes().getAxes())
      for (int16_t axis : dimAxes.asArrayRef())
        used = std::max<int64_t>(used, axis + 1);
  });
  for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>())) {
    ArrayRef<int64_t> gridShape = grid.getShape();
    int64_t rank =
        std::max<int64_t>(gridShape.size(), axesUsed.lookup(grid.getSymName()));
    std::vector<std::string> names;
    std::vector<int64_t> shape;
    for (int64_t i = 0; i < rank; ++i) {
      names.push_back(axisName(i));
      int64_t size = i < static_cast<int64_t>(gridShape.size())
                         ? gridShape[i]
                         : ShapedType::kDynamic;
      shape.push_back(ShapedType::isDynamic(size) ? 1 : size);
    }
    if (llvm::any_of(gridShape, ShapedType::isDynamic))
      grid.emitWarning() << "dynamic grid sizes are imported as 1";
    if (rank > static_cast<int64_t>(gridShape.size()))
      grid.emitWarning() << "shardings use " << rank << " axes of this "
                         << gridShape.size()
                         << "-axis grid; the extra axes are imported with "
                            "size 1";
    llvm::Expected<DeviceMesh> mesh = DeviceMesh::create(names, shape);
    if (!mesh)
      return grid.emitError() << llvm::toString(mesh.takeError());
    OpBuilder builder(grid);
    MeshOp::create(builder, grid.getLoc(), grid.getSymName(),
                   MeshAttr::get(grid.getContext(), *mesh));
    grid.erase();
  }

  // A result annotation (`shard.shard %v to %s`) gives %v itself its
  // sharding: on its defining op's results, or on a function argument. An
  // annotation for users, or a second annotation of one value, becomes a
  // constraint the users see.
  SmallVector<shard::ShardOp> shards;
  module.walk([&](shard::ShardOp op) { shards.push_back(op); });
  llvm::DenseSet<Value> annotated;
  for (shard::ShardOp op : shards) {
    auto sharding = op.getSharding().getDefiningOp<shard::ShardingOp>();
    if (!sharding)
      return op.emitError() << "cannot import: its sharding is not defined "
                               "by a shard.sharding op";
    FailureOr<ShardingAttr> converted =
        convert(sharding, op.getResult().getType().getRank());
    if (failed(converted))
      return failure();
    Value source = op.getSrc();
    if (!op.getAnnotateForUsers() && annotated.insert(source).second &&
        annotateDefinition(source, *converted)) {
      op.getResult().replaceAllUsesWith(source);
      op.erase();
      continue;
    }
    OpBuilder builder(op);
    auto constraint =
        ShardingConstraintOp::create(builder, op.getLoc(), source, *converted);
    op.getResult().replaceAllUsesWith(constraint.getResult());
    op.erase();
  }
  SmallVector<shard::ShardingOp> shardings;
  module.walk([&](shard::ShardingOp op) { shardings.push_back(op); });
  for (shard::ShardingOp op : shardings) {
    if (!op->use_empty())
      return op.emitError() << "cannot import: its sharding value is used "
                               "by something other than shard.shard";
    op.erase();
  }

  return success();
}
