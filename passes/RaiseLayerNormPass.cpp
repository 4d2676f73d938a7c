//===- RaiseLayerNormPass.cpp - spmd-raise-layer-norm ---------------------===//
//
// Importers write a layer norm as five or more linalg ops (a row sum, the
// centred values, their squares, another row sum, the scaling), each a
// pass over the tensor. This pass reads the arithmetic those ops compute
// for one element, as a tree seen through elementwise generics and row
// sums, and when the tree is a layer norm of some tensor `x` it computes
// the value with one spmd.layer_norm. Matching the arithmetic, not the
// ops, accepts every way the ops may be split or fused.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <deque>

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDRAISELAYERNORM
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

namespace {
/// Which part of an element (rows..., column) of the normalised tensor a
/// value is indexed by: all of it, its row, or its column.
enum class Space { Element, Row, Column };

/// The arithmetic computing one element, as a tree.
struct Expr {
  enum Kind { Leaf, Constant, Add, Sub, Mul, Div, Rsqrt, Sqrt, RowSum };
  Kind kind;
  Space space = Space::Element; // where a Leaf's tensor is read
  double constant = 0;          // Constant
  SmallVector<const Expr *, 2> operands;
  // The tensor holding this value at each element, if any: a Leaf's, or an
  // elementwise generic's result.
  Value tensor;
};

/// Two trees computing the same thing the same way (where they are
/// computed, in which op, does not matter).
static bool sameExpr(const Expr *a, const Expr *b) {
  if (a->kind != b->kind ||
      (a->kind == Expr::Leaf &&
       (a->tensor != b->tensor || a->space != b->space)) ||
      a->constant != b->constant || a->operands.size() != b->operands.size())
    return false;
  for (auto [x, y] : llvm::zip(a->operands, b->operands))
    if (!sameExpr(x, y))
      return false;
  return true;
}

/// Builds the tree of one element of a tensor of shape `rows x length`.
class ExprBuilder {
public:
  explicit ExprBuilder(RankedTensorType type) : type(type) {}

  /// The tree of result `number` of the elementwise generic `op`.
  FailureOr<const Expr *> ofResult(linalg::GenericOp op, unsigned number) {
    if (!isElementwiseOverAll(op))
      return failure();
    return bodyValue(op, yielded(op, number), Space::Element);
  }

private:
  /// Work bounded on large graphs: a layer norm's tree has about 30 nodes.
  static constexpr size_t kMaxNodes = 256;

  RankedTensorType type;
  std::deque<Expr> nodes;

  FailureOr<const Expr *> make(Expr expr) {
    if (nodes.size() >= kMaxNodes)
      return failure();
    nodes.push_back(std::move(expr));
    return &nodes.back();
  }

  int64_t rank() const { return type.getRank(); }

  static Value yielded(linalg::GenericOp op, unsigned number) {
    return op.getBody()->getTerminator()->getOperand(number);
  }

  /// The shapes of a value indexed by a row: the row dimensions, with or
  /// without a trailing 1 (torch's keepdim).
  bool isRowShaped(Type type) const {
    auto tensor = llvm::dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.getElementType().isF32())
      return false;
    ArrayRef<int64_t> rows = this->type.getShape().drop_back();
    ArrayRef<int64_t> shape = tensor.getShape();
    return shape == rows || (shape.size() == rows.size() + 1 &&
                             shape.drop_back() == rows && shape.back() == 1);
  }

  /// Which part of the loops (rows..., column) an operand's map reads.
  std::optional<Space> spaceOf(AffineMap map) const {
    if (map.isIdentity())
      return Space::Element;
    SmallVector<AffineExpr> results(map.getResults());
    auto isDim = [](AffineExpr e, int64_t d) {
      auto dim = llvm::dyn_cast<AffineDimExpr>(e);
      return dim && dim.getPosition() == d;
    };
    auto isZero = [](AffineExpr e) {
      auto c = llvm::dyn_cast<AffineConstantExpr>(e);
      return c && c.getValue() == 0;
    };
    // (rows...) or (rows..., 0)
    if (!results.empty() && isZero(results.back()) &&
        int64_t(results.size()) == rank())
      results.pop_back();
    if (int64_t(results.size()) == rank() - 1 &&
        llvm::all_of(llvm::enumerate(results),
                     [&](auto r) { return isDim(r.value(), r.index()); }))
      return Space::Row;
    // (column) or (0..., column)
    results.assign(map.getResults().begin(), map.getResults().end());
    if (!results.empty() && isDim(results.back(), rank() - 1) &&
        llvm::all_of(ArrayRef(results).drop_back(), isZero))
      return Space::Column;
    return std::nullopt;
  }

  /// Elementwise over the whole tensor, computing one result per element.
  bool isElementwiseOverAll(linalg::GenericOp op) const {
    return op.getNumLoops() == op.getNumParallelLoops() &&
           op.getNumLoops() == rank() &&
           llvm::all_of(op.getDpsInits(),
                        [&](Value init) { return init.getType() == type; }) &&
           llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
             return op.getMatchingIndexingMap(&init).isIdentity();
           });
  }

  /// Elementwise over a row-shaped tensor.
  bool isElementwiseOverRows(linalg::GenericOp op) const {
    return op.getNumLoops() == op.getNumParallelLoops() &&
           llvm::all_of(op->getOperandTypes(),
                        [&](Type t) { return isRowShaped(t); }) &&
           llvm::all_of(op.getIndexingMapsArray(),
                        [](AffineMap map) { return map.isIdentity(); });
  }

  /// Sums along the column into a row-shaped tensor that starts at zero.
  bool isRowSum(linalg::GenericOp op) {
    if (op.getStaticLoopRanges() != type.getShape() ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1 ||
        op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
      return false;
    OpOperand *init = op.getDpsInitOperand(0);
    if (!isRowShaped(init->get().getType()) ||
        spaceOf(op.getMatchingIndexingMap(init)) != Space::Row)
      return false;
    auto fill = init->get().getDefiningOp<linalg::FillOp>();
    Attribute zero;
    if (fill)
      matchPattern(fill.value(), m_Constant(&zero));
    else
      matchPattern(init->get(), m_Constant(&zero));
    if (auto splat = llvm::dyn_cast_if_present<SplatElementsAttr>(zero))
      zero = splat.getSplatValue<Attribute>();
    auto value = llvm::dyn_cast_if_present<FloatAttr>(zero);
    return value && value.getValue().isZero();
  }

  /// The tree of `v`, a tensor read at `space`.
  FailureOr<const Expr *> tensorValue(Value v, Space space) {
    auto result = llvm::dyn_cast<OpResult>(v);
    auto op = result ? llvm::dyn_cast<linalg::GenericOp>(result.getOwner())
                     : linalg::GenericOp();
    if (op && space == Space::Element && isElementwiseOverAll(op)) {
      FailureOr<const Expr *> e =
          bodyValue(op, yielded(op, result.getResultNumber()), Space::Element);
      if (succeeded(e) && (*e)->kind != Expr::Leaf) // a leaf keeps its own
        const_cast<Expr *>(*e)->tensor = v;
      return e;
    }
    if (op && space == Space::Row && isElementwiseOverRows(op))
      return bodyValue(op, yielded(op, result.getResultNumber()), Space::Row);
    if (op && space == Space::Row && isRowSum(op)) {
      Value sum = yielded(op, 0);
      auto add = sum.getDefiningOp<arith::AddFOp>();
      BlockArgument accumulator =
          op.getBody()->getArgument(op.getNumDpsInputs());
      if (!add || add->getBlock() != op.getBody())
        return failure();
      Value term = add.getLhs() == accumulator ? add.getRhs() : add.getLhs();
      if ((add.getLhs() == accumulator) == (add.getRhs() == accumulator))
        return failure();
      FailureOr<const Expr *> summed = bodyValue(op, term, Space::Element);
      if (failed(summed))
        return failure();
      return make({Expr::RowSum, Space::Row, 0, {*summed}});
    }
    auto tensor = llvm::dyn_cast<RankedTensorType>(v.getType());
    if (!tensor || !tensor.getElementType().isF32() ||
        (space == Space::Element && tensor != type) ||
        (space == Space::Row && !isRowShaped(tensor)) ||
        (space == Space::Column &&
         (!tensor.hasStaticShape() ||
          tensor.getNumElements() != type.getShape().back())))
      return failure();
    return make({Expr::Leaf, space, 0, {}, v});
  }

  /// The tree of `v`, a scalar in the body of `op`, whose loops are read
  /// at `space` (Element: rows and column; Row: rows only).
  FailureOr<const Expr *> bodyValue(linalg::GenericOp op, Value v,
                                    Space space) {
    if (!v.getType().isF32())
      return failure();
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != op.getBody() ||
          arg.getArgNumber() >= op.getNumDpsInputs())
        return failure(); // an init read: not elementwise arithmetic
      OpOperand *operand = op.getDpsInputOperand(arg.getArgNumber());
      std::optional<Space> read =
          space == Space::Row ? std::optional(Space::Row)
                              : spaceOf(op.getMatchingIndexingMap(operand));
      if (!read)
        return failure();
      return tensorValue(operand->get(), *read);
    }
    FloatAttr constant;
    if (matchPattern(v, m_Constant(&constant)))
      return make(
          {Expr::Constant, space, constant.getValue().convertToDouble(), {}});
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != op.getBody())
      return failure(); // a scalar from outside that is not a constant
    std::optional<Expr::Kind> kind =
        llvm::TypeSwitch<Operation *, std::optional<Expr::Kind>>(def)
            .Case([](arith::AddFOp) { return Expr::Add; })
            .Case([](arith::SubFOp) { return Expr::Sub; })
            .Case([](arith::MulFOp) { return Expr::Mul; })
            .Case([](arith::DivFOp) { return Expr::Div; })
            .Case([](math::RsqrtOp) { return Expr::Rsqrt; })
            .Case([](math::SqrtOp) { return Expr::Sqrt; })
            .Default([](Operation *) { return std::nullopt; });
    if (!kind)
      return failure();
    Expr expr{*kind, space, 0, {}};
    for (Value operand : def->getOperands()) {
      FailureOr<const Expr *> e = bodyValue(op, operand, space);
      if (failed(e))
        return failure();
      expr.operands.push_back(*e);
    }
    return make(std::move(expr));
  }
};

/// A layer norm found in a tree.
struct LayerNorm {
  Value input, scale, shift;
  float epsilon;
};

/// Matches the tree of one element against the ways a layer norm of a
/// tensor with rows of `length` elements is written.
class LayerNormMatcher {
public:
  LayerNormMatcher(RankedTensorType type)
      : type(type), length(type.getShape().back()) {}

  std::optional<LayerNorm> match(const Expr *e) {
    LayerNorm found{};
    // ... + shift, ... * scale
    if (const Expr *rest = withColumn(e, Expr::Add, found.shift))
      e = rest;
    if (const Expr *rest = withColumn(e, Expr::Mul, found.scale))
      e = rest;
    if (!normalized(e, found))
      return std::nullopt;
    return found;
  }

private:
  RankedTensorType type;
  int64_t length;

  static bool isConstant(const Expr *e, double value) {
    return e->kind == Expr::Constant && e->constant == value;
  }

  /// `other op column` or `column op other`: sets `column`, returns other.
  static const Expr *withColumn(const Expr *e, Expr::Kind op, Value &column) {
    if (e->kind != op)
      return nullptr;
    for (int i = 0; i < 2; ++i) {
      const Expr *c = e->operands[i];
      if (c->kind == Expr::Leaf && c->space == Space::Column) {
        column = c->tensor;
        return e->operands[1 - i];
      }
    }
    return nullptr;
  }

  /// centred * rstd, rstd * centred, centred / std.
  bool normalized(const Expr *e, LayerNorm &found) {
    if (e->kind == Expr::Div)
      return centred(e->operands[0], found.input) &&
             standardDeviation(e->operands[1], e->operands[0], found);
    if (e->kind != Expr::Mul)
      return false;
    for (int i = 0; i < 2; ++i)
      if (centred(e->operands[i], found.input) &&
          reciprocalDeviation(e->operands[1 - i], e->operands[i], found))
        return true;
    return false;
  }

  /// x - mean(x), for a tensor x.
  bool centred(const Expr *e, Value &input) {
    if (e->kind != Expr::Sub)
      return false;
    const Expr *x = e->operands[0];
    if (x->space != Space::Element || !x->tensor || x->tensor.getType() != type)
      return false;
    const Expr *summed = meanOf(e->operands[1]);
    if (!summed || !sameExpr(summed, x))
      return false;
    input = x->tensor;
    return true;
  }

  /// For sum(t) / n, sum(t) * (1/n) or (1/n) * sum(t): the tree of t.
  const Expr *meanOf(const Expr *e) const {
    auto sumOf = [](const Expr *s) {
      return s->kind == Expr::RowSum ? s->operands[0] : nullptr;
    };
    if (e->kind == Expr::Div && isConstant(e->operands[1], double(length)))
      return sumOf(e->operands[0]);
    if (e->kind != Expr::Mul)
      return nullptr;
    // 1/n as f32 division rounds it, or as double then rounded to f32.
    auto isReciprocal = [&](const Expr *c) {
      return isConstant(c, double(1.0f / float(length))) ||
             isConstant(c, double(float(1.0 / double(length))));
    };
    for (int i = 0; i < 2; ++i)
      if (isReciprocal(e->operands[i]))
        return sumOf(e->operands[1 - i]);
    return nullptr;
  }

  /// rsqrt(var + eps) or 1 / sqrt(var + eps), var of `centredValue`.
  bool reciprocalDeviation(const Expr *e, const Expr *centredValue,
                           LayerNorm &found) {
    if (e->kind == Expr::Rsqrt)
      return varianceWithEpsilon(e->operands[0], centredValue, found);
    return e->kind == Expr::Div && isConstant(e->operands[0], 1.0) &&
           standardDeviation(e->operands[1], centredValue, found);
  }

  /// sqrt(var + eps).
  bool standardDeviation(const Expr *e, const Expr *centredValue,
                         LayerNorm &found) {
    return e->kind == Expr::Sqrt &&
           varianceWithEpsilon(e->operands[0], centredValue, found);
  }

  /// mean(c * c) + eps or eps + mean(c * c), c the centred value.
  bool varianceWithEpsilon(const Expr *e, const Expr *centredValue,
                           LayerNorm &found) {
    if (e->kind != Expr::Add)
      return false;
    for (int i = 0; i < 2; ++i) {
      const Expr *eps = e->operands[i];
      const Expr *square = meanOf(e->operands[1 - i]);
      if (eps->kind == Expr::Constant && eps->constant >= 0 &&
          std::isfinite(eps->constant) && square && square->kind == Expr::Mul &&
          sameExpr(square->operands[0], centredValue) &&
          sameExpr(square->operands[1], centredValue)) {
        found.epsilon = float(eps->constant);
        return true;
      }
    }
    return false;
  }
};
} // namespace

/// Replaces result `number` of `op` by a layer norm when it computes one.
static bool raise(linalg::GenericOp op, unsigned number) {
  auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(number).getType());
  if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
      !type.getElementType().isF32())
    return false;
  ExprBuilder builder(type); // owns the tree
  FailureOr<const Expr *> tree = builder.ofResult(op, number);
  if (failed(tree))
    return false;
  std::optional<LayerNorm> found = LayerNormMatcher(type).match(*tree);
  if (!found)
    return false;
  OpBuilder b(op);
  auto raised = mlir::spmd::LayerNormOp::create(
      b, op.getLoc(), type, found->input, found->scale, found->shift,
      b.getF32FloatAttr(found->epsilon));
  op->getResult(number).replaceAllUsesWith(raised.getResult());
  return true;
}

namespace {
struct RaiseLayerNormPass
    : mlir::spmd::impl::SpmdRaiseLayerNormBase<RaiseLayerNormPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    llvm::SetVector<Operation *> changed; // functions, or the module
    for (linalg::GenericOp op : generics)
      for (unsigned i = 0; i < op->getNumResults(); ++i)
        if (!op->getResult(i).use_empty() && raise(op, i))
          changed.insert(
              op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>());
    // The ops the layer norms replaced, and what only they fed (a loop
    // computing their statistics), now unused: upstream's dead code
    // elimination, which takes any other unused op of those functions too.
    IRRewriter rewriter(&getContext());
    for (Operation *isolated : changed)
      (void)runRegionDCE(rewriter, isolated->getRegions());
  }
};
} // namespace
