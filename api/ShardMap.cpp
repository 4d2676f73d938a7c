//===- ShardMap.cpp - Manual regions from the tensor builder --------------===//
//
// Program::shard_map builds a spmd.manual_computation: the body's block is
// filled by the caller's function through the usual builder calls (the
// program's ManualScope points them at it), then the op is made around it
// and checked by its verifier. The collectives of a body are spmd ops on
// the region's manual axes.
//
//===----------------------------------------------------------------------===//

#include "TensorBuilder.h"

#include "ir/SpmdOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

namespace spmd {
using detail::ProgramState;
using detail::TensorBuilder;
using detail::typeText;
using mlir::OpBuilder;
using mlir::RankedTensorType;

/// The verifier's first error on `op` and the ops inside it (with the
/// checks that look up the mesh once `op` is in the module), or empty when
/// it holds.
static std::string verifierError(mlir::Operation *op) {
  std::string message;
  mlir::ScopedDiagnosticHandler handler(op->getContext(),
                                        [&](mlir::Diagnostic &diag) {
                                          if (message.empty())
                                            message = diag.str();
                                          return mlir::success();
                                        });
  mlir::SymbolTableCollection tables;
  if (mlir::failed(mlir::verify(op)))
    return message.empty() ? "the op does not verify" : message;
  if (!op->getParentOfType<mlir::ModuleOp>())
    return "";
  mlir::WalkResult walk = op->walk([&](mlir::SymbolUserOpInterface user) {
    return mlir::failed(user.verifySymbolUses(tables))
               ? mlir::WalkResult::interrupt()
               : mlir::WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return message.empty() ? "the op does not verify" : message;
  return "";
}

/// Per dimension of `sharding`, the devices of the manual axes that lead
/// it: a body tensor's dimension times that is the global one.
static llvm::SmallVector<int64_t>
manualDevices(const TensorSharding &sharding, const DeviceMesh &mesh,
              const std::vector<std::string> &manual) {
  llvm::SmallVector<int64_t> devices;
  for (const DimSharding &dim : sharding.dims) {
    int64_t &n = devices.emplace_back(1);
    for (const std::string &axis : dim.axes) {
      if (!llvm::is_contained(manual, axis))
        break;
      n *= mesh.axisSize(*mesh.axisIndex(axis));
    }
  }
  return devices;
}

std::vector<Value> Program::shard_map(
    const std::function<std::vector<Value>(const std::vector<Value> &)> &body,
    const std::vector<Value> &inputs, const Mesh &mesh,
    const std::vector<PartitionSpec> &in_specs,
    const std::vector<PartitionSpec> &out_specs,
    const std::vector<std::string> &manual_axes) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return {};
  TensorBuilder tb(*state_);
  if (state_->manualScope) {
    tb.error("shard_map inside a shard_map body is not supported");
    return {};
  }
  if (inputs.size() != in_specs.size()) {
    tb.error(fmt::format("shard_map of {} inputs with {} in_specs",
                         inputs.size(), in_specs.size()));
    return {};
  }
  absl::StatusOr<std::string> symbol = state_->meshFor(mesh);
  if (!symbol.ok()) {
    tb.error(std::string(symbol.status().message()));
    return {};
  }
  DeviceMesh deviceMesh = *detail::deviceMesh(mesh);
  mlir::MLIRContext *context = state_->context.get();
  auto shardingOf = [&](const PartitionSpec &spec,
                        int64_t rank) -> std::optional<TensorSharding> {
    absl::StatusOr<TensorSharding> sharding =
        detail::shardingOf(deviceMesh, *symbol, spec, rank);
    if (!sharding.ok()) {
      tb.error(std::string(sharding.status().message()));
      return std::nullopt;
    }
    return *sharding;
  };

  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<mlir::Attribute> inShardings;
  auto block = std::make_unique<mlir::Block>();
  for (auto [input, spec] : llvm::zip(inputs, in_specs)) {
    mlir::Value x = tb.get(input);
    if (!x)
      return {};
    RankedTensorType type = TensorBuilder::type(x);
    std::optional<TensorSharding> sharding = shardingOf(spec, type.getRank());
    if (!sharding)
      return {};
    operands.push_back(x);
    inShardings.push_back(mlir::spmd::ShardingAttr::get(context, *sharding));
    // A dimension they do not divide is left for the verifier to name.
    llvm::SmallVector<int64_t> local(type.getShape());
    for (auto [size, n] :
         llvm::zip(local, manualDevices(*sharding, deviceMesh, manual_axes)))
      size = size % n == 0 ? size / n : size;
    block->addArgument(RankedTensorType::get(local, type.getElementType()),
                       tb.loc);
  }

  // The body, built by the caller into the block.
  std::vector<Value> locals;
  for (mlir::BlockArgument arg : block->getArguments())
    locals.push_back(tb.wrap(arg));
  state_->manualScope =
      ProgramState::ManualScope{block.get(), *symbol, manual_axes};
  std::vector<Value> yielded;
  // A body that fails leaves its block with the program: values the
  // caller holds stay valid (and are refused outside it).
  auto discard = [&] {
    state_->discardedBodies.push_back(std::move(block));
    return std::vector<Value>();
  };
  try {
    yielded = body(locals);
  } catch (...) {
    state_->manualScope.reset();
    discard();
    throw;
  }
  state_->manualScope.reset();
  if (tb.failed())
    return discard();
  if (yielded.size() != out_specs.size()) {
    tb.error(fmt::format("the shard_map body returned {} values for {} "
                         "out_specs",
                         yielded.size(), out_specs.size()));
    return discard();
  }

  llvm::SmallVector<mlir::Value> results;
  llvm::SmallVector<mlir::Type> resultTypes;
  llvm::SmallVector<mlir::Attribute> outShardings;
  for (auto [value, spec] : llvm::zip(yielded, out_specs)) {
    absl::StatusOr<mlir::Value> local = state_->resolve(value);
    if (!local.ok() || local->getParentBlock() != block.get()) {
      tb.error("a shard_map body returns values it made or its arguments");
      return discard();
    }
    RankedTensorType type = TensorBuilder::type(*local);
    std::optional<TensorSharding> sharding = shardingOf(spec, type.getRank());
    if (!sharding)
      return discard();
    llvm::SmallVector<int64_t> shape(type.getShape());
    for (auto [size, n] :
         llvm::zip(shape, manualDevices(*sharding, deviceMesh, manual_axes)))
      size *= n;
    results.push_back(*local);
    resultTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
    outShardings.push_back(mlir::spmd::ShardingAttr::get(context, *sharding));
  }

  OpBuilder &b = tb.b;
  llvm::SmallVector<llvm::StringRef> manual(manual_axes.begin(),
                                            manual_axes.end());
  auto region = mlir::spmd::ManualComputationOp::create(
      b, tb.loc, resultTypes, operands, b.getArrayAttr(inShardings),
      b.getArrayAttr(outShardings), b.getStrArrayAttr(manual));
  mlir::Block *owned = block.release();
  region.getBody().push_back(owned);
  OpBuilder end = OpBuilder::atBlockEnd(owned);
  mlir::spmd::YieldOp::create(end, tb.loc, results);
  // Left in place when it does not verify: the error stays with the
  // program, and values the caller holds stay valid.
  if (std::string error = verifierError(region); !error.empty()) {
    tb.error("shard_map: " + error);
    return {};
  }
  std::vector<Value> out;
  for (mlir::Value result : region.getResults())
    out.push_back(tb.wrap(result));
  return out;
}

namespace {
/// A collective of the shard_map body being built: its operand, checked,
/// and what the op needs of the region.
struct BodyCollective {
  TensorBuilder &tb;
  mlir::Value x;
  mlir::FlatSymbolRefAttr mesh;
  mlir::ArrayAttr axes;
  /// The number of devices in the group.
  int64_t groupSize = 1;

  /// The op made by `make` at the body's end, checked by its verifier.
  template <class Make> Value build(Make make) {
    mlir::Operation *op = make();
    if (std::string error = verifierError(op); !error.empty()) {
      op->erase();
      return tb.error(error);
    }
    return tb.wrap(op->getResult(0));
  }

  /// `t` with dimension `dim` resized by `size`, or null after recording
  /// that `t` has no dimension `dim` for `what`.
  RankedTensorType resized(RankedTensorType t, int64_t dim, const char *what,
                           llvm::function_ref<int64_t(int64_t)> size) {
    if (dim < 0 || dim >= t.getRank()) {
      tb.error(
          fmt::format("{} along dimension {} of {}", what, dim, typeText(t)));
      return nullptr;
    }
    llvm::SmallVector<int64_t> shape(t.getShape());
    shape[dim] = size(shape[dim]);
    return RankedTensorType::get(shape, t.getElementType());
  }
};
} // namespace

/// The collective `what` on `axes` of the body being built from `v`, or
/// nullopt after recording the error.
static std::optional<BodyCollective>
bodyCollective(TensorBuilder &tb, ProgramState &state, const Value &v,
               const std::vector<std::string> &axes, const char *what) {
  if (!state.manualScope) {
    tb.error(fmt::format("{} is a collective of a shard_map body", what));
    return std::nullopt;
  }
  mlir::Value x = tb.get(v);
  if (!x)
    return std::nullopt;
  BodyCollective collective{
      tb,
      x,
      mlir::FlatSymbolRefAttr::get(tb.b.getContext(), state.manualScope->mesh),
      {}};
  llvm::SmallVector<llvm::StringRef> names;
  auto meshOp = mlir::SymbolTable::lookupNearestSymbolFrom<mlir::spmd::MeshOp>(
      state.module->getOperation(), collective.mesh);
  DeviceMesh mesh = meshOp.getMesh().toMesh();
  for (const std::string &axis : axes) {
    if (!llvm::is_contained(state.manualScope->axes, axis)) {
      tb.error(fmt::format("{} over \"{}\", which is not a manual axis of the "
                           "shard_map",
                           what, axis));
      return std::nullopt;
    }
    names.push_back(axis);
    collective.groupSize *= mesh.axisSize(*mesh.axisIndex(axis));
  }
  collective.axes = tb.b.getStrArrayAttr(names);
  return collective;
}

/// The collective `what` of the body being built, from `v`: `make` checks
/// the rest and builds it (BodyCollective::build).
template <class Make>
static Value bodyCollectiveOp(ProgramState *state, const Value &v,
                              const std::vector<std::string> &axes,
                              const char *what, Make make) {
  if (!state)
    return {};
  TensorBuilder tb(*state);
  std::optional<BodyCollective> c = bodyCollective(tb, *state, v, axes, what);
  if (!c)
    return {};
  return make(tb, *c, TensorBuilder::type(c->x));
}

static mlir::IntegerAttr reductionAttr(mlir::MLIRContext *context,
                                       dist::ReduceOp op, mlir::Type element) {
  return mlir::spmd::reductionAttr(
      context, detail::reductionKindOf(op, element.isInteger(1)));
}

Value Program::all_reduce(const Value &v, const std::vector<std::string> &axes,
                          dist::ReduceOp op) {
  auto lock = detail::lockProgram(state_);
  return bodyCollectiveOp(
      state_.get(), v, axes, "all_reduce",
      [&](TensorBuilder &tb, BodyCollective &c, RankedTensorType t) -> Value {
        return c.build([&] {
          return mlir::spmd::AllReduceOp::create(
              tb.b, tb.loc, t, c.x, c.mesh, c.axes,
              reductionAttr(tb.b.getContext(), op, t.getElementType()));
        });
      });
}

Value Program::all_gather(const Value &v, const std::vector<std::string> &axes,
                          int64_t dim) {
  auto lock = detail::lockProgram(state_);
  return bodyCollectiveOp(
      state_.get(), v, axes, "all_gather",
      [&](TensorBuilder &tb, BodyCollective &c, RankedTensorType t) -> Value {
        RankedTensorType result =
            c.resized(t, dim, "all_gather",
                      [&](int64_t size) { return size * c.groupSize; });
        if (!result)
          return Value();
        return c.build([&] {
          return mlir::spmd::AllGatherOp::create(tb.b, tb.loc, result, c.x,
                                                 c.mesh, c.axes,
                                                 tb.b.getI64IntegerAttr(dim));
        });
      });
}

Value Program::reduce_scatter(const Value &v,
                              const std::vector<std::string> &axes, int64_t dim,
                              dist::ReduceOp op) {
  auto lock = detail::lockProgram(state_);
  return bodyCollectiveOp(
      state_.get(), v, axes, "reduce_scatter",
      [&](TensorBuilder &tb, BodyCollective &c, RankedTensorType t) -> Value {
        RankedTensorType result =
            c.resized(t, dim, "reduce_scatter", [&](int64_t size) {
              return llvm::divideCeil(size, c.groupSize);
            });
        if (!result)
          return Value();
        return c.build([&] {
          return mlir::spmd::ReduceScatterOp::create(
              tb.b, tb.loc, result, c.x, c.mesh, c.axes,
              tb.b.getI64IntegerAttr(dim),
              reductionAttr(tb.b.getContext(), op, t.getElementType()));
        });
      });
}

Value Program::all_to_all(const Value &v, const std::vector<std::string> &axes,
                          int64_t split_dim, int64_t concat_dim) {
  auto lock = detail::lockProgram(state_);
  return bodyCollectiveOp(
      state_.get(), v, axes, "all_to_all",
      [&](TensorBuilder &tb, BodyCollective &c, RankedTensorType t) -> Value {
        if (split_dim < 0 || split_dim >= t.getRank() || concat_dim < 0 ||
            concat_dim >= t.getRank() || t.getDimSize(split_dim) % c.groupSize)
          return tb.error(fmt::format("all_to_all of {} split along {} over {} "
                                      "devices, concatenated along "
                                      "{}",
                                      typeText(t), split_dim, c.groupSize,
                                      concat_dim));
        llvm::SmallVector<int64_t> shape(t.getShape());
        shape[split_dim] /= c.groupSize;
        shape[concat_dim] *= c.groupSize;
        return c.build([&] {
          return mlir::spmd::AllToAllOp::create(
              tb.b, tb.loc, RankedTensorType::get(shape, t.getElementType()),
              c.x, c.mesh, c.axes, tb.b.getI64IntegerAttr(split_dim),
              tb.b.getI64IntegerAttr(concat_dim));
        });
      });
}

Value Program::ppermute(const Value &v, const std::vector<std::string> &axes,
                        const std::vector<std::pair<int64_t, int64_t>> &pairs) {
  auto lock = detail::lockProgram(state_);
  return bodyCollectiveOp(
      state_.get(), v, axes, "ppermute",
      [&](TensorBuilder &tb, BodyCollective &c, RankedTensorType t) -> Value {
        llvm::SmallVector<int64_t> flat;
        for (auto [source, target] : pairs)
          flat.append({source, target});
        return c.build([&] {
          return mlir::spmd::CollectivePermuteOp::create(
              tb.b, tb.loc, c.x.getType(), c.x, c.mesh, c.axes,
              tb.b.getDenseI64ArrayAttr(flat));
        });
      });
}

} // namespace spmd
