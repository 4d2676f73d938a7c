//===- RepeatedMatrix.cpp - Errors a matrix passes on again and again -----===//
//
// The factor sigma_max(W) * sqrt(K) / ||W||_F is computed by the program
// itself, next to W: sigma_max^2 by power iteration on W^T W from a fixed
// start that no W is likely to be orthogonal to.
//
//===----------------------------------------------------------------------===//

#include "passes/RepeatedMatrix.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <algorithm>

using namespace mlir;

namespace {

/// Power iteration steps: 24 (sigma_max of a random 256x256 matrix within
/// a few percent), fewer where that would apply W more than 2^25 times in
/// all (at least 4).
int64_t powerIterations(RankedTensorType matrix) {
  int64_t elements = std::max<int64_t>(matrix.getNumElements(), 1);
  return std::clamp<int64_t>((int64_t(1) << 24) / elements, 4, 24);
}

/// Ops on W (statically shaped, rank `rank`) and on tensors over some of
/// its dims, built at one point.
struct MatrixOps {
  OpBuilder &b;
  Location loc;
  RankedTensorType type;

  unsigned rank() const { return type.getRank(); }
  static unsigned rankOf(Value t) {
    return llvm::cast<RankedTensorType>(t.getType()).getRank();
  }
  Type element() const { return type.getElementType(); }
  Value constant(double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(element(), v));
  }
  /// The map from W's dims to `dims` of them.
  AffineMap onto(ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> results;
    for (unsigned d : dims)
      results.push_back(b.getAffineDimExpr(d));
    return AffineMap::get(rank(), 0, results, b.getContext());
  }
  /// A tensor over `dims` of W, holding `value`.
  Value filled(ArrayRef<unsigned> dims, double value) {
    SmallVector<int64_t> shape;
    for (unsigned d : dims)
      shape.push_back(type.getDimSize(d));
    Value empty = tensor::EmptyOp::create(b, loc, shape, element());
    return linalg::FillOp::create(b, loc, constant(value), empty).result();
  }
  /// sum over W's other dims of W * `vector` (over W's dims `from`), a
  /// tensor over W's dims `to`.
  Value contract(Value matrix, Value vector, ArrayRef<unsigned> from,
                 ArrayRef<unsigned> to) {
    SmallVector<utils::IteratorType> iterators(rank(),
                                               utils::IteratorType::reduction);
    for (unsigned d : to)
      iterators[d] = utils::IteratorType::parallel;
    Value init = filled(to, 0);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{matrix, vector}, init,
               {b.getMultiDimIdentityMap(rank()), onto(from), onto(to)},
               iterators,
               [](OpBuilder &b, Location loc, ValueRange args) {
                 Value product =
                     arith::MulFOp::create(b, loc, args[0], args[1]);
                 linalg::YieldOp::create(b, loc,
                                         ValueRange{arith::AddFOp::create(
                                             b, loc, args[2], product)});
               })
        .getResult(0);
  }
  /// sum of t^2 over the elements of `t`, a rank-0 tensor.
  Value sumOfSquares(Value t) {
    unsigned n = rankOf(t);
    Value init = filled({}, 0);
    return linalg::GenericOp::create(
               b, loc, init.getType(), t, init,
               {b.getMultiDimIdentityMap(n),
                AffineMap::get(n, 0, {}, b.getContext())},
               SmallVector<utils::IteratorType>(n,
                                                utils::IteratorType::reduction),
               [](OpBuilder &b, Location loc, ValueRange args) {
                 Value square = arith::MulFOp::create(b, loc, args[0], args[0]);
                 linalg::YieldOp::create(b, loc,
                                         ValueRange{arith::AddFOp::create(
                                             b, loc, args[1], square)});
               })
        .getResult(0);
  }
  /// `f` of the elements of `t` and of the rank-0 tensors `scalars`, a
  /// tensor like `t`.
  Value map(Value t, ValueRange scalars,
            function_ref<Value(OpBuilder &, Location, ValueRange)> f) {
    unsigned n = rankOf(t);
    SmallVector<Value> inputs = {t};
    llvm::append_range(inputs, scalars);
    SmallVector<AffineMap> maps(1, b.getMultiDimIdentityMap(n));
    maps.append(scalars.size(), AffineMap::get(n, 0, {}, b.getContext()));
    maps.push_back(b.getMultiDimIdentityMap(n));
    Value init = tensor::EmptyOp::create(
        b, loc, llvm::cast<RankedTensorType>(t.getType()).getShape(),
        element());
    return linalg::GenericOp::create(
               b, loc, init.getType(), inputs, init, maps,
               SmallVector<utils::IteratorType>(n,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &b, Location loc, ValueRange args) {
                 linalg::YieldOp::create(b, loc, f(b, loc, args.drop_back()));
               })
        .getResult(0);
  }
  /// A start vector over W's dims `dims`: 1.5 + sin of a mix of the
  /// element's indices, in [0.5, 2.5].
  Value start(ArrayRef<unsigned> dims) {
    Value init = filled(dims, 0);
    unsigned n = dims.size();
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{}, init,
               {b.getMultiDimIdentityMap(n)},
               SmallVector<utils::IteratorType>(n,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &b, Location loc, ValueRange) {
                 Value mix = arith::ConstantIndexOp::create(b, loc, 1);
                 for (unsigned d = 0; d < n; ++d) {
                   Value index = linalg::IndexOp::create(b, loc, d);
                   Value weight =
                       arith::ConstantIndexOp::create(b, loc, 7919 * (d + 1));
                   mix = arith::AddIOp::create(
                       b, loc, mix,
                       arith::MulIOp::create(b, loc, index, weight));
                 }
                 Value integer =
                     arith::IndexCastOp::create(b, loc, b.getI64Type(), mix);
                 Value x = arith::SIToFPOp::create(b, loc, element(), integer);
                 Value sine = math::SinOp::create(b, loc, x);
                 linalg::YieldOp::create(
                     b, loc,
                     ValueRange{arith::AddFOp::create(
                         b, loc, sine,
                         arith::ConstantOp::create(
                             b, loc, b.getFloatAttr(element(), 1.5)))});
               })
        .getResult(0);
  }
};

/// Whether `op` sums products of its two inputs (of floats).
bool isContraction(linalg::LinalgOp op) {
  return op.getBlock() &&
         linalg::detail::isContractionBody(
             *op.getBlock(), [](Operation *first, Operation *second) {
               return llvm::isa<arith::MulFOp>(first) &&
                      llvm::isa<arith::AddFOp>(second);
             });
}

/// Whether `value` is computed inside `loop` (an argument of its body
/// included).
bool definedIn(Value value, Operation *loop) {
  return loop->isAncestor(value.getParentRegion()->getParentOp());
}

/// Whether `op` applies `matrix` to errors it met before: `op` is in a
/// loop that computes `value` and not `matrix`, or another op applying
/// `matrix` computes something `value` is computed from (an unrolled
/// recurrence).
bool appliedAgain(Operation *op, Value value, Value matrix) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (llvm::isa<LoopLikeOpInterface>(parent) && definedIn(value, parent) &&
        !definedIn(matrix, parent))
      return true;
  SmallVector<Operation *> others;
  for (Operation *user : matrix.getUsers())
    if (user != op && llvm::isa<linalg::LinalgOp>(user))
      others.push_back(user);
  if (others.empty())
    return false;
  // Back from `value` through the ops computing it (and what they hold).
  SmallVector<Value> pending = {value};
  DenseSet<Operation *> seen;
  while (!pending.empty()) {
    Operation *producer = pending.pop_back_val().getDefiningOp();
    if (!producer || !seen.insert(producer).second)
      continue;
    if (llvm::any_of(others, [&](Operation *other) {
          return producer->isAncestor(other);
        }))
      return true;
    llvm::append_range(pending, producer->getOperands());
  }
  return false;
}

/// sigma_max(W) * sqrt(K) / ||W||_F, at least 1, as a rank-0 tensor, for
/// W = `matrix` summed over its dims flagged in `contracted`; built at
/// `b`'s insertion point.
Value factorOf(OpBuilder &b, Location loc, Value matrix,
               ArrayRef<bool> contracted) {
  MatrixOps x{b, loc, llvm::cast<RankedTensorType>(matrix.getType())};
  SmallVector<unsigned> kept, summed;
  int64_t k = 1;
  for (unsigned d = 0; d < x.rank(); ++d) {
    (contracted[d] ? summed : kept).push_back(d);
    if (contracted[d])
      k *= x.type.getDimSize(d);
  }
  auto sqrtOf = [](OpBuilder &b, Location loc, ValueRange args) {
    return math::SqrtOp::create(b, loc, args[0]).getResult();
  };
  auto quotient = [](OpBuilder &b, Location loc, ValueRange args) {
    return arith::DivFOp::create(b, loc, args[0], args[1]).getResult();
  };
  Value v = x.start(kept);
  v = x.map(v, x.map(x.sumOfSquares(v), {}, sqrtOf), quotient);
  // Each step: v' = W^T W v, ||v'|| (sigma_max^2 once v has converged),
  // v = v' / ||v'||.
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, powerIterations(x.type));
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lower, upper, step, ValueRange{v, x.filled({}, 0)},
      [&](OpBuilder &inner, Location loc, Value, ValueRange carried) {
        MatrixOps y{inner, loc, x.type};
        Value next = y.contract(
            matrix, y.contract(matrix, carried[0], kept, summed), summed, kept);
        Value norm = y.map(y.sumOfSquares(next), {}, sqrtOf);
        next = y.map(next, norm, quotient);
        scf::YieldOp::create(inner, loc, ValueRange{next, norm});
      });
  Value squaredNorm = loop.getResult(1);
  Value frobenius = x.sumOfSquares(matrix);
  double scale = double(k);
  return x.map(
      squaredNorm, frobenius,
      [scale](OpBuilder &b, Location loc, ValueRange args) {
        Type type = args[0].getType();
        Value ratio = arith::DivFOp::create(
            b, loc,
            arith::MulFOp::create(
                b, loc, args[0],
                arith::ConstantOp::create(b, loc, b.getFloatAttr(type, scale))),
            args[1]);
        // NaN where W is 0 (no error passes on): the maxnum gives 1.
        return arith::MaxNumFOp::create(
                   b, loc, math::SqrtOp::create(b, loc, ratio),
                   arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1)))
            .getResult();
      });
}

} // namespace

namespace mlir::spmd {

Value RepeatedMatrices::scaleFor(linalg::LinalgOp op, OpOperand &operand,
                                 Value scale) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.isDpsInput(&operand) || !isContraction(op))
    return scale;
  OpOperand &matrix = op->getOpOperand(1 - operand.getOperandNumber());
  auto type = llvm::dyn_cast<RankedTensorType>(matrix.get().getType());
  auto scaleType = llvm::dyn_cast<RankedTensorType>(scale.getType());
  if (!type || !type.hasStaticShape() || !scaleType || type.getRank() > 64)
    return scale;
  if (!appliedAgain(op, operand.get(), matrix.get()))
    return scale;
  // The matrix's dims summed with the operand's.
  AffineMap operandMap = op.getMatchingIndexingMap(&operand);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<bool> contracted;
  uint64_t bits = 0;
  for (AffineExpr result : op.getMatchingIndexingMap(&matrix).getResults()) {
    auto dim = llvm::dyn_cast<AffineDimExpr>(result);
    if (!dim)
      return scale;
    contracted.push_back(iterators[dim.getPosition()] ==
                             utils::IteratorType::reduction &&
                         operandMap.isFunctionOfDim(dim.getPosition()));
    bits |= uint64_t(contracted.back()) << (contracted.size() - 1);
  }
  if (llvm::none_of(contracted, [](bool c) { return c; }))
    return scale;
  Value &factor = factors[{matrix.get(), bits}];
  if (!factor) {
    // Right after the matrix: the factor serves each of its uses.
    OpBuilder builder(op.getContext());
    builder.setInsertionPointAfterValue(matrix.get());
    factor = factorOf(builder, op.getLoc(), matrix.get(), contracted);
  }
  OpBuilder builder(op);
  MatrixOps x{builder, op.getLoc(), scaleType};
  return x.map(scale, factor, [](OpBuilder &b, Location loc, ValueRange args) {
    return arith::MulFOp::create(b, loc, args[0], args[1]).getResult();
  });
}

} // namespace mlir::spmd
