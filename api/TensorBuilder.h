//===- TensorBuilder.h - Appending ops to a program being built -*- C++ -*-===//
//
// The builder calls of Program (Builder.cpp, ShardMap.cpp) append ops to
// the entry before its return, or to the end of the shard_map body being
// built; the first error is kept in the program's state.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_API_TENSORBUILDER_H
#define SPMD_API_TENSORBUILDER_H

#include "Internal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "fmt/format.h"

namespace spmd::detail {
using mlir::OpBuilder;
using mlir::RankedTensorType;

using BodyFn = llvm::function_ref<mlir::Value(OpBuilder &, mlir::Location,
                                              mlir::ValueRange)>;

/// Appends ops to `state`'s entry (or to the shard_map body being built),
/// recording the first error.
class TensorBuilder {
public:
  explicit TensorBuilder(ProgramState &state)
      : state(state), b(state.context.get()),
        loc(mlir::UnknownLoc::get(state.context.get())) {
    if (state.manualScope)
      b.setInsertionPointToEnd(state.manualScope->body);
    else
      b.setInsertionPoint(
          state.entryFunction().getBody().front().getTerminator());
  }

  /// The block new ops go to.
  mlir::Block *scope() const {
    return state.manualScope ? state.manualScope->body
                             : &state.entryFunction().getBody().front();
  }

  /// The IR value of `v`, or null after recording why not.
  mlir::Value get(const Value &v) {
    absl::StatusOr<mlir::Value> value = state.resolve(v);
    if (!value.ok()) {
      error(std::string(value.status().message()));
      return {};
    }
    if (!llvm::isa<RankedTensorType>(value->getType())) {
      error("the builder works on tensors");
      return {};
    }
    // A shard_map body is isolated from the code around it.
    if (value->getParentBlock() != scope()) {
      error(state.manualScope
                ? "a shard_map body uses only its arguments and the values "
                  "made in it"
                : "a value made in a shard_map body is local to it (use the "
                  "shard_map's results)");
      return {};
    }
    return *value;
  }
  Value error(const std::string &message) {
    if (state.builderStatus.ok())
      state.builderStatus = absl::InvalidArgumentError(message);
    return {};
  }
  Value wrap(mlir::Value v) { return state.handle(v); }
  bool failed() const { return !state.builderStatus.ok(); }

  static RankedTensorType type(mlir::Value v) {
    return llvm::cast<RankedTensorType>(v.getType());
  }
  mlir::Value empty(llvm::ArrayRef<int64_t> shape, mlir::Type element) {
    return mlir::tensor::EmptyOp::create(b, loc, shape, element);
  }
  mlir::Value scalar(mlir::Type element, double value) {
    if (llvm::isa<mlir::FloatType>(element))
      return mlir::arith::ConstantOp::create(b, loc,
                                             b.getFloatAttr(element, value));
    return mlir::arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(element, int64_t(value)));
  }
  mlir::Value filled(llvm::ArrayRef<int64_t> shape, mlir::Type element,
                     double value) {
    return mlir::linalg::FillOp::create(b, loc, scalar(element, value),
                                        empty(shape, element))
        .getResult(0);
  }

  /// An elementwise generic over `inputs` of `shape`; input i reads the
  /// loops `dims[i]` when `dims` is given, else all of them.
  mlir::Value
  elementwise(mlir::ValueRange inputs, llvm::ArrayRef<int64_t> shape,
              mlir::Type element, BodyFn body,
              llvm::ArrayRef<llvm::SmallVector<unsigned>> dims = {}) {
    unsigned rank = shape.size();
    llvm::SmallVector<mlir::AffineMap> maps;
    for (unsigned i = 0; i < inputs.size(); ++i) {
      if (dims.empty()) {
        maps.push_back(b.getMultiDimIdentityMap(rank));
        continue;
      }
      llvm::SmallVector<mlir::AffineExpr> exprs;
      for (unsigned d : dims[i])
        exprs.push_back(b.getAffineDimExpr(d));
      maps.push_back(mlir::AffineMap::get(rank, 0, exprs, b.getContext()));
    }
    maps.push_back(b.getMultiDimIdentityMap(rank));
    llvm::SmallVector<mlir::utils::IteratorType> iterators(
        rank, mlir::utils::IteratorType::parallel);
    auto generic = mlir::linalg::GenericOp::create(
        b, loc, RankedTensorType::get(shape, element), inputs,
        mlir::ValueRange{empty(shape, element)}, maps, iterators,
        [&](OpBuilder &nb, mlir::Location nl, mlir::ValueRange args) {
          mlir::Value out = body(nb, nl, args.drop_back());
          mlir::linalg::YieldOp::create(nb, nl, out);
        });
    return generic.getResult(0);
  }

  /// `x` reduced over `dims` by `combine`, starting from `init`.
  mlir::Value reduce(mlir::Value x, llvm::ArrayRef<int64_t> dims, double init,
                     BodyFn combine) {
    RankedTensorType t = type(x);
    llvm::SmallVector<int64_t> kept;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (!llvm::is_contained(dims, d))
        kept.push_back(t.getDimSize(d));
    mlir::Value acc = filled(kept, t.getElementType(), init);
    auto op = mlir::linalg::ReduceOp::create(
        b, loc, mlir::ValueRange{x}, mlir::ValueRange{acc}, dims,
        [&](OpBuilder &nb, mlir::Location nl, mlir::ValueRange args) {
          mlir::linalg::YieldOp::create(nb, nl, combine(nb, nl, args));
        });
    return op.getResult(0);
  }

  /// Checks dims are distinct and in range of `rank`, sorted.
  std::optional<llvm::SmallVector<int64_t>>
  checkDims(std::vector<int64_t> dims, int64_t rank, const char *what) {
    llvm::SmallVector<int64_t> sorted(dims.begin(), dims.end());
    llvm::sort(sorted);
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] < 0 || sorted[i] >= rank ||
          (i && sorted[i] == sorted[i - 1])) {
        error(fmt::format("{}: dimensions [{}] of a rank-{} tensor", what,
                          fmt::join(dims, ", "), rank));
        return std::nullopt;
      }
    return sorted;
  }

  ProgramState &state;
  OpBuilder b;
  mlir::Location loc;
};

/// `type` as MLIR prints it.
inline std::string typeText(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

} // namespace spmd::detail

#endif // SPMD_API_TENSORBUILDER_H
