//===- ErrorScales.cpp - Rounding-error scales beside a program's floats --===//
//
// Rewrites a program in place so that every float value gets a companion
// value, its error scale (rules in ErrorScales.h). Ops are visited in
// order; an op without regions gets its companions computed right after
// it, an op with regions (linalg, scf, calls) is rebuilt with the
// companions as extra operands, block arguments, yields and results, each
// list followed by the companions of its float entries in order.
//
//===----------------------------------------------------------------------===//

#include "passes/ErrorScales.h"

#include "ir/ModuleCalls.h"
#include "ir/Namespaces.h"
#include "ir/SpmdOps.h"
#include "passes/RepeatedMatrix.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

namespace {

bool isFloatLike(Type type) {
  return llvm::isa<FloatType>(getElementTypeOrSelf(type));
}

/// Elementwise arithmetic on scalars or tensors of one type.
struct Arithmetic {
  OpBuilder &b;
  Location loc;
  Type type;

  Value constant(double v) {
    Attribute scalar = b.getFloatAttr(getElementTypeOrSelf(type), v);
    if (auto shaped = llvm::dyn_cast<ShapedType>(type))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(shaped, llvm::ArrayRef(scalar)));
    return arith::ConstantOp::create(b, loc, llvm::cast<TypedAttr>(scalar));
  }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value max(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value compare(arith::CmpFPredicate predicate, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, predicate, x, y);
  }
  /// sqrt(r^2 + sum (d_i m_i)^2): a result's own rounding and its
  /// operands' errors (scales m_i times derivatives d_i, null for 1), taken
  /// as independent.
  Value scale(Value r, llvm::ArrayRef<std::pair<Value, Value>> terms) {
    Value sum = mul(r, r);
    for (auto [d, m] : terms) {
      Value term = m;
      if (d) {
        // An exact operand (m = 0) passes no error on, even through an
        // unbounded factor; an unbounded one (m = inf) keeps it unbounded.
        term = mul(d, m);
        term = select(compare(arith::CmpFPredicate::OEQ, m, constant(0)),
                      constant(0),
                      select(compare(arith::CmpFPredicate::UNO, term, term),
                             constant(INFINITY), term));
      }
      sum = add(sum, mul(term, term));
    }
    return math::SqrtOp::create(b, loc, sum);
  }
};

/// Bounds a value lies in whatever rounding did to its operands, from the
/// op computing it (tanh in [-1, 1], exp and x * x at least 0, sums and
/// differences of bounded values, constants); unbounded where unknown.
struct Range {
  double lo = -INFINITY, hi = INFINITY;
};

static Range rangeOf(Value v, unsigned depth = 0) {
  Operation *op = v.getDefiningOp();
  if (!op || depth > 8)
    return {};
  auto of = [&](unsigned i) { return rangeOf(op->getOperand(i), depth + 1); };
  return llvm::TypeSwitch<Operation *, Range>(op)
      .Case<arith::ConstantOp>([](arith::ConstantOp constant) -> Range {
        Attribute value = constant.getValue();
        if (auto splat = llvm::dyn_cast<SplatElementsAttr>(value))
          value = splat.getSplatValue<Attribute>();
        auto scalar = llvm::dyn_cast<FloatAttr>(value);
        if (!scalar)
          return {};
        double c = scalar.getValueAsDouble();
        return {c, c};
      })
      .Case<math::TanhOp, math::ErfOp, math::SinOp, math::CosOp>([](auto) {
        return Range{-1, 1};
      })
      .Case<math::AtanOp, math::AsinOp>([](auto) {
        return Range{-M_PI_2, M_PI_2};
      })
      .Case<math::AcosOp>([](auto) {
        return Range{0, M_PI};
      })
      .Case<math::Atan2Op>([](auto) {
        return Range{-M_PI, M_PI};
      })
      .Case<math::ErfcOp>([](auto) {
        return Range{0, 2};
      })
      .Case<math::CoshOp>([](auto) {
        return Range{1, INFINITY};
      })
      .Case<math::ExpOp, math::Exp2Op, math::SqrtOp, math::RsqrtOp,
            math::AbsFOp>([](auto) {
        return Range{0, INFINITY};
      })
      .Case<math::ExpM1Op>([](auto) {
        return Range{-1, INFINITY};
      })
      .Case<arith::MulFOp>([&](arith::MulFOp mul) {
        return mul.getLhs() == mul.getRhs() ? Range{0, INFINITY} : Range{};
      })
      .Case<arith::AddFOp>([&](auto) {
        return Range{of(0).lo + of(1).lo, of(0).hi + of(1).hi};
      })
      .Case<arith::SubFOp>([&](auto) {
        return Range{of(0).lo - of(1).hi, of(0).hi - of(1).lo};
      })
      .Case<arith::NegFOp>([&](auto) {
        return Range{-of(0).hi, -of(0).lo};
      })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](auto) {
        return Range{std::max(of(0).lo, of(1).lo),
                     std::max(of(0).hi, of(1).hi)};
      })
      .Case<arith::MinimumFOp, arith::MinNumFOp>([&](auto) {
        return Range{std::min(of(0).lo, of(1).lo),
                     std::min(of(0).hi, of(1).hi)};
      })
      .Default([](Operation *) { return Range{}; });
}

class ErrorScales {
public:
  explicit ErrorScales(double halfWidth) : halfWidth(halfWidth) {}
  LogicalResult function(func::FuncOp function);

private:
  /// The distance d = halfWidth * m a rounding error of scale `m` can move
  /// its value (the check's slack at that scale).
  Value uncertainty(Arithmetic &x, Value m) {
    return x.mul(x.constant(halfWidth), m);
  }
  /// How far f = `op` (one operand, one result) moves per unit of d as its
  /// operand a, of scale `m`, moves over the interval it can reach (see
  /// reach): max |f(end) - f(a)| / d, f monotone; its derivative
  /// `derivative` where f is undefined at an end (a log past 0) or d = 0.
  Value slope(Arithmetic &x, Operation *op, Value derivative, Value m);
  /// The interval [lo, hi] a value `a` of scale `m` can reach: a +- d
  /// within the range its op computes (a tanh stays in [-1, 1]), and its
  /// nearest value to 0 (0 where it holds 0).
  struct Interval {
    Value lo, hi, nearestZero;
  };
  Interval reach(Arithmetic &x, Value a, Value m);
  /// `scale` of `r`, at most the width of r's range over halfWidth, plus
  /// |r| (a tanh is never more than 2 off, however uncertain its operand).
  Value bounded(Value r, Value scale);
  /// The largest |a| over that interval where a's op bounds it on both
  /// sides (a tanh), else |a|: products of two errors, each growing with
  /// the other, would compound through each layer.
  Value farthest(Arithmetic &x, Value a, Value m) {
    Range bounds = rangeOf(a);
    if (halfWidth == 0 || !std::isfinite(bounds.lo) ||
        !std::isfinite(bounds.hi))
      return x.abs(a);
    Interval interval = reach(x, a, m);
    return x.max(x.abs(interval.lo), x.abs(interval.hi));
  }

  /// The scale of max(a, b), or of min(a, b) unless `max`: the result is
  /// one of its operands, and carries its error. Where their order is
  /// certain (further apart than both can move) the winner's scale, else
  /// the larger scale (the order can flip). A huge or infinite init that
  /// loses gives its scale to nothing; so does a NaN one where NaN loses
  /// (`ignoresNaN`: maxnumf, minnumf, whose identity it is).
  Value winnersScale(Arithmetic &x, bool max, bool ignoresNaN, Value a, Value b,
                     Value ma, Value mb) {
    Value reach = x.add(uncertainty(x, ma), uncertainty(x, mb));
    Value certain =
        x.compare(arith::CmpFPredicate::OGT, x.abs(x.sub(a, b)), reach);
    Value aWins = x.compare(
        max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, a, b);
    Value scale = x.select(certain, x.select(aWins, ma, mb), x.max(ma, mb));
    if (!ignoresNaN)
      return scale;
    auto isNaN = [&](Value v) {
      return x.compare(arith::CmpFPredicate::UNO, v, v);
    };
    return x.select(isNaN(a), mb, x.select(isNaN(b), ma, scale));
  }

  LogicalResult block(Block &block);
  LogicalResult op(Operation *op);
  /// The scale of an arith or math op's result; null if it has no rule.
  Value elementwise(Operation *op);
  LogicalResult structured(linalg::LinalgOp op);
  LogicalResult withRegions(Operation *op);
  LogicalResult layout(Operation *op);

  /// `values` followed by the scales of the float ones; failure if one has
  /// none.
  FailureOr<SmallVector<Value>> withScales(ValueRange values);
  /// Adds a companion argument to `block` for each float argument.
  void addScaleArguments(Block &block);
  /// `op`'s results taken over by `replacement`'s first ones, whose float
  /// ones have their scales in the results after them.
  void replace(Operation *op, Operation *replacement);

  DenseMap<Value, Value> scales;
  mlir::spmd::RepeatedMatrices repeatedMatrices;
  double halfWidth;
};

} // namespace

FailureOr<SmallVector<Value>> ErrorScales::withScales(ValueRange values) {
  SmallVector<Value> result(values.begin(), values.end());
  for (Value v : values) {
    if (!isFloatLike(v.getType()))
      continue;
    Value scale = scales.lookup(v);
    if (!scale)
      return failure();
    result.push_back(scale);
  }
  return result;
}

void ErrorScales::addScaleArguments(Block &block) {
  unsigned count = block.getNumArguments();
  for (unsigned i = 0; i < count; ++i) {
    BlockArgument arg = block.getArgument(i);
    if (isFloatLike(arg.getType()))
      scales[arg] = block.addArgument(arg.getType(), arg.getLoc());
  }
}

void ErrorScales::replace(Operation *op, Operation *replacement) {
  unsigned next = op->getNumResults();
  for (OpResult result : op->getResults()) {
    Value now = replacement->getResult(result.getResultNumber());
    result.replaceAllUsesWith(now);
    if (isFloatLike(result.getType()))
      scales[now] = replacement->getResult(next++);
  }
  op->erase();
}

LogicalResult ErrorScales::block(Block &block) {
  for (Operation &o : llvm::make_early_inc_range(block.without_terminator()))
    if (failed(op(&o)))
      return failure();
  if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
    return failure();
  Operation *terminator = &block.back();
  FailureOr<SmallVector<Value>> operands =
      withScales(terminator->getOperands());
  if (failed(operands))
    return failure();
  terminator->setOperands(*operands);
  return success();
}

ErrorScales::Interval ErrorScales::reach(Arithmetic &x, Value a, Value m) {
  Value d = uncertainty(x, m);
  Interval interval{x.sub(a, d), x.add(a, d), {}};
  Range bounds = rangeOf(a);
  if (std::isfinite(bounds.lo))
    interval.lo = x.max(interval.lo, x.constant(bounds.lo));
  if (std::isfinite(bounds.hi))
    interval.hi = arith::MinimumFOp::create(x.b, x.loc, interval.hi,
                                            x.constant(bounds.hi));
  // lo if positive, -hi if negative, else 0.
  interval.nearestZero = x.max(
      x.max(interval.lo, x.sub(x.constant(0), interval.hi)), x.constant(0));
  return interval;
}

Value ErrorScales::slope(Arithmetic &x, Operation *op, Value derivative,
                         Value m) {
  Value steepest = x.abs(derivative);
  if (halfWidth == 0)
    return steepest;
  Value a = op->getOperand(0), r = op->getResult(0);
  Interval interval = reach(x, a, m);
  auto moved = [&](Value to) {
    IRMapping mapping;
    mapping.map(a, to);
    return x.abs(x.sub(x.b.clone(*op, mapping)->getResult(0), r));
  };
  Value secant =
      x.div(x.max(moved(interval.lo), moved(interval.hi)), uncertainty(x, m));
  // NaN or infinite where f is undefined at an end or d = 0: f'(a).
  Value undefined =
      x.compare(arith::CmpFPredicate::UEQ, x.abs(secant), x.constant(INFINITY));
  return x.select(undefined, steepest, secant);
}

Value ErrorScales::elementwise(Operation *op) {
  if (op->getNumResults() != 1)
    return {};
  Value r = op->getResult(0);
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  Arithmetic x{builder, op->getLoc(), r.getType()};
  // Results not computed from floats: the magnitude of the value itself,
  // but for constant infinities, which are exact (a max's -inf init).
  if (llvm::isa<arith::SIToFPOp, arith::UIToFPOp>(op))
    return x.abs(r);
  if (llvm::isa<arith::ConstantOp, ml_program::GlobalLoadConstOp>(op))
    return x.select(
        x.compare(arith::CmpFPredicate::OEQ, x.abs(r), x.constant(INFINITY)),
        x.constant(0), x.abs(r));
  SmallVector<Value> m;
  for (Value operand : op->getOperands()) {
    if (!isFloatLike(operand.getType()))
      continue;
    m.push_back(scales.lookup(operand));
    if (!m.back())
      return {};
  }
  auto a = [&](unsigned i) { return op->getOperand(i); };
  // The scale of r = f(a), f'(a) = `derivative`.
  auto chain = [&](Value derivative, Value m) {
    return x.scale(r, {{slope(x, op, derivative, m), m}});
  };
  // The scale of r = f(a) by f'(a) = `derivative` at the value alone.
  auto atValue = [&](Value derivative) {
    return x.scale(r, {{derivative, m[0]}});
  };
  // An exponential's secant over an interval unbounded above grows
  // exponentially with the interval, compounding through each layer: its
  // derivative there.
  auto exponential = [&](Value derivative, Value m) {
    if (std::isfinite(rangeOf(a(0)).hi))
      return chain(derivative, m);
    return x.scale(r, {{derivative, m}});
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<arith::AddFOp, arith::SubFOp>([&](auto) {
        return x.scale(r, {{{}, m[0]}, {{}, m[1]}});
      })
      // Each operand's error times the farthest the other can reach.
      .Case<arith::MulFOp, math::FmaOp>([&](auto) {
        SmallVector<std::pair<Value, Value>> terms = {
            {farthest(x, a(1), m[1]), m[0]}, {farthest(x, a(0), m[0]), m[1]}};
        if (m.size() == 3)
          terms.push_back({{}, m[2]});
        return x.scale(r, terms);
      })
      .Case<arith::DivFOp>([&](auto) {
        // 1 / b and a / b^2 at the end of b's interval nearest to 0:
        // unbounded where the interval holds 0.
        Value nearest = reach(x, a(1), m[1]).nearestZero;
        return x.scale(
            r, {{x.div(x.constant(1), nearest), m[0]},
                {x.div(farthest(x, a(0), m[0]), x.mul(x.abs(a(1)), nearest)),
                 m[1]}});
      })
      .Case<arith::NegFOp, math::AbsFOp, math::CopySignOp, arith::ExtFOp,
            arith::TruncFOp>([&](auto) { return m[0]; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
            arith::MinNumFOp>([&](auto minMax) {
        using Op = decltype(minMax);
        constexpr bool isMax = std::is_same_v<Op, arith::MaximumFOp> ||
                               std::is_same_v<Op, arith::MaxNumFOp>;
        constexpr bool ignoresNaN = std::is_same_v<Op, arith::MaxNumFOp> ||
                                    std::is_same_v<Op, arith::MinNumFOp>;
        return winnersScale(x, isMax, ignoresNaN, a(0), a(1), m[0], m[1]);
      })
      .Case<arith::SelectOp>([&](arith::SelectOp select) -> Value {
        return arith::SelectOp::create(builder, op->getLoc(),
                                       select.getCondition(), m[0], m[1]);
      })
      .Case<math::TanhOp>([&](auto) {
        return chain(x.add(x.constant(1), x.mul(x.constant(-1), x.mul(r, r))),
                     m[0]);
      })
      .Case<math::ExpOp>([&](auto) { return exponential(r, m[0]); })
      .Case<math::Exp2Op>(
          [&](auto) { return exponential(x.mul(r, x.constant(M_LN2)), m[0]); })
      .Case<math::ExpM1Op>(
          [&](auto) { return exponential(x.add(r, x.constant(1)), m[0]); })
      .Case<math::LogOp>(
          [&](auto) { return chain(x.div(x.constant(1), a(0)), m[0]); })
      .Case<math::Log2Op>(
          [&](auto) { return chain(x.div(x.constant(1 / M_LN2), a(0)), m[0]); })
      .Case<math::Log10Op>([&](auto) {
        return chain(x.div(x.constant(1 / M_LN10), a(0)), m[0]);
      })
      .Case<math::Log1pOp>([&](auto) {
        return chain(x.div(x.constant(1), x.add(a(0), x.constant(1))), m[0]);
      })
      .Case<math::SqrtOp>(
          [&](auto) { return chain(x.div(x.constant(0.5), r), m[0]); })
      .Case<math::RsqrtOp>([&](auto) {
        return chain(x.div(x.mul(x.constant(0.5), r), a(0)), m[0]);
      })
      .Case<math::ErfOp>([&](auto) {
        Value square = x.mul(a(0), a(0));
        Value gauss = math::ExpOp::create(builder, op->getLoc(),
                                          x.mul(x.constant(-1), square));
        return chain(x.mul(x.constant(M_2_SQRTPI), gauss), m[0]);
      })
      // Not monotone, or with poles: the secants to the interval's ends
      // can miss the steepest point between them.
      .Case<math::SinOp>([&](auto) {
        return atValue(math::CosOp::create(builder, op->getLoc(), a(0)));
      })
      .Case<math::CosOp>([&](auto) {
        return atValue(math::SinOp::create(builder, op->getLoc(), a(0)));
      })
      .Case<math::AtanOp>([&](auto) {
        return chain(
            x.div(x.constant(1), x.add(x.constant(1), x.mul(a(0), a(0)))),
            m[0]);
      })
      .Case<math::TanOp>(
          [&](auto) { return atValue(x.add(x.constant(1), x.mul(r, r))); })
      .Case<math::SinhOp>([&](auto) {
        return atValue(math::CoshOp::create(builder, op->getLoc(), a(0)));
      })
      .Case<math::CoshOp>([&](auto) {
        return atValue(math::SinhOp::create(builder, op->getLoc(), a(0)));
      })
      // d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
      .Case<math::Atan2Op>([&](auto) {
        Value norm = x.add(x.mul(a(0), a(0)), x.mul(a(1), a(1)));
        return x.scale(r,
                       {{x.div(a(1), norm), m[0]}, {x.div(a(0), norm), m[1]}});
      })
      .Case<math::AsinOp, math::AcosOp>([&](auto) {
        Value root = math::SqrtOp::create(
            builder, op->getLoc(), x.sub(x.constant(1), x.mul(a(0), a(0))));
        return chain(x.div(x.constant(1), root), m[0]);
      })
      .Case<math::AsinhOp>([&](auto) {
        Value root = math::SqrtOp::create(
            builder, op->getLoc(), x.add(x.mul(a(0), a(0)), x.constant(1)));
        return chain(x.div(x.constant(1), root), m[0]);
      })
      .Case<math::AcoshOp>([&](auto) {
        Value root = math::SqrtOp::create(
            builder, op->getLoc(), x.sub(x.mul(a(0), a(0)), x.constant(1)));
        return chain(x.div(x.constant(1), root), m[0]);
      })
      .Case<math::AtanhOp>([&](auto) {
        return chain(
            x.div(x.constant(1), x.sub(x.constant(1), x.mul(a(0), a(0)))),
            m[0]);
      })
      .Case<math::CbrtOp>([&](auto) {
        return chain(x.div(x.constant(1.0 / 3), x.mul(r, r)), m[0]);
      })
      .Case<math::ErfcOp>([&](auto) {
        Value gauss = math::ExpOp::create(
            builder, op->getLoc(), x.mul(x.constant(-1), x.mul(a(0), a(0))));
        return chain(x.mul(x.constant(M_2_SQRTPI), gauss), m[0]);
      })
      .Case<math::PowFOp>([&](auto) {
        // d/da = b r / a, d/db = r log|a|.
        Value byBase = x.div(x.mul(a(1), r), a(0));
        Value byExponent =
            x.mul(r, math::LogOp::create(builder, op->getLoc(), x.abs(a(0))));
        return x.scale(r, {{byBase, m[0]}, {byExponent, m[1]}});
      })
      .Default([](Operation *) { return Value(); });
}

LogicalResult ErrorScales::layout(Operation *op) {
  IRMapping mapping;
  for (Value operand : op->getOperands()) {
    if (!isFloatLike(operand.getType()))
      continue;
    Value scale = scales.lookup(operand);
    if (!scale)
      return failure();
    mapping.map(operand, scale);
  }
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  Operation *copy = builder.clone(*op, mapping);
  // A pad's padding value is yielded by its region (mostly from outside).
  if (auto pad = llvm::dyn_cast<tensor::PadOp>(copy)) {
    Operation *yield = pad.getRegion().front().getTerminator();
    Value scale = scales.lookup(yield->getOperand(0));
    if (!scale)
      return failure();
    yield->setOperand(0, scale);
  }
  for (OpResult result : op->getResults())
    if (isFloatLike(result.getType()))
      scales[result] = copy->getResult(result.getResultNumber());
  return success();
}

LogicalResult ErrorScales::structured(linalg::LinalgOp linalgOp) {
  Operation *op = linalgOp;
  Block *body = linalgOp.getBlock();
  SmallVector<OpOperand *> inputs = linalgOp.getDpsInputOperands();
  int64_t numInits = linalgOp.getNumDpsInits();
  if (!body || body->getNumArguments() != inputs.size() + numInits)
    return failure();
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  SmallVector<Value> ins, outs;
  SmallVector<AffineMap> inMaps, outMaps;
  SmallVector<Type> resultTypes(op->getResultTypes());
  for (OpOperand &operand : op->getOpOperands()) {
    bool isInit = linalgOp.isDpsInit(&operand);
    (isInit ? outs : ins).push_back(operand.get());
    (isInit ? outMaps : inMaps).push_back(maps[operand.getOperandNumber()]);
  }
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isFloatLike(operand.get().getType()))
      continue;
    Value scale = scales.lookup(operand.get());
    if (!scale)
      return failure();
    bool isInit = linalgOp.isDpsInit(&operand);
    if (!isInit)
      scale = repeatedMatrices.scaleFor(linalgOp, operand, scale);
    (isInit ? outs : ins).push_back(scale);
    (isInit ? outMaps : inMaps).push_back(maps[operand.getOperandNumber()]);
    if (isInit && linalgOp.hasPureTensorSemantics())
      resultTypes.push_back(scale.getType());
  }
  if (!linalgOp.hasPureTensorSemantics())
    return failure();
  OpBuilder builder(op);
  llvm::append_range(inMaps, outMaps);
  auto generic =
      linalg::GenericOp::create(builder, op->getLoc(), resultTypes, ins, outs,
                                inMaps, linalgOp.getIteratorTypesArray());
  generic.getRegion().takeBody(op->getRegion(0));
  // Companions of the inputs' elements go after the inputs, those of the
  // outputs' after the outputs.
  Block &block = generic.getRegion().front();
  unsigned numInputs = inputs.size(), added = 0;
  for (unsigned i = 0; i < numInputs; ++i) {
    BlockArgument arg = block.getArgument(i);
    if (isFloatLike(ins[i].getType()))
      scales[arg] = block.insertArgument(numInputs + added++, arg.getType(),
                                         arg.getLoc());
  }
  for (unsigned i = numInputs + added; i < numInputs + added + numInits; ++i) {
    BlockArgument arg = block.getArgument(i);
    if (isFloatLike(outs[i - numInputs - added].getType()))
      scales[arg] = block.addArgument(arg.getType(), arg.getLoc());
  }
  if (failed(this->block(block)))
    return failure();
  replace(op, generic);
  return success();
}

LogicalResult ErrorScales::withRegions(Operation *op) {
  FailureOr<SmallVector<Value>> operands = withScales(op->getOperands());
  if (failed(operands))
    return failure();
  SmallVector<Type> types(op->getResultTypes());
  for (Type type : op->getResultTypes())
    if (isFloatLike(type))
      types.push_back(type);
  OperationState state(op->getLoc(), op->getName(), *operands, types,
                       op->getAttrs());
  // A call's argument and result attributes would no longer line up.
  state.attributes.erase("arg_attrs");
  state.attributes.erase("res_attrs");
  for (unsigned i = 0; i < op->getNumRegions(); ++i)
    state.addRegion();
  OpBuilder builder(op);
  Operation *rebuilt = builder.create(state);
  for (auto [from, to] : llvm::zip(op->getRegions(), rebuilt->getRegions())) {
    to.takeBody(from);
    for (Block &block : to) {
      addScaleArguments(block);
      if (failed(this->block(block)))
        return failure();
    }
  }
  replace(op, rebuilt);
  return success();
}

LogicalResult ErrorScales::op(Operation *op) {
  // Pass-through and shape-only ops.
  if (auto constraint = llvm::dyn_cast<mlir::spmd::ShardingConstraintOp>(op)) {
    scales[constraint.getResult()] = scales.lookup(constraint.getInput());
    return success(bool(scales[constraint.getResult()]));
  }
  if (auto empty = llvm::dyn_cast<tensor::EmptyOp>(op)) {
    scales[empty] = empty; // its elements are never read
    return success();
  }
  if (auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op))
    return structured(linalgOp);
  if (llvm::isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::IndexSwitchOp,
                scf::ExecuteRegionOp, func::CallOp>(op))
    return withRegions(op);
  if (llvm::isa<tensor::ExtractSliceOp, tensor::InsertSliceOp,
                tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                tensor::ReshapeOp, tensor::CastOp, tensor::ConcatOp,
                tensor::ExtractOp, tensor::InsertOp, tensor::SplatOp,
                tensor::FromElementsOp, tensor::GatherOp, tensor::PadOp>(op)) {
    if (llvm::none_of(op->getResultTypes(), isFloatLike))
      return success();
    return layout(op);
  }
  if (op->getNumRegions() != 0)
    return failure();
  if (llvm::none_of(op->getResultTypes(), isFloatLike))
    return success();
  Value scale = elementwise(op);
  if (!scale)
    return op->emitError("the error scales have no rule for '")
           << op->getName() << "'";
  scales[op->getResult(0)] = bounded(op->getResult(0), scale);
  return success();
}

Value ErrorScales::bounded(Value r, Value scale) {
  Range bounds = rangeOf(r);
  if (halfWidth == 0 || !std::isfinite(bounds.lo) || !std::isfinite(bounds.hi))
    return scale;
  // After both r and scale (which an op passing its operand's on precedes).
  OpBuilder builder(scale.getContext());
  Operation *last = r.getDefiningOp(), *scaleOp = scale.getDefiningOp();
  if (scaleOp && scaleOp->getBlock() == last->getBlock() &&
      last->isBeforeInBlock(scaleOp))
    last = scaleOp;
  builder.setInsertionPointAfter(last);
  Arithmetic x{builder, r.getLoc(), r.getType()};
  // The range is the exact value's: r's own rounding can leave it.
  Value widest =
      x.add(x.constant((bounds.hi - bounds.lo) / halfWidth), x.abs(r));
  return arith::MinimumFOp::create(builder, r.getLoc(), scale, widest);
}

LogicalResult ErrorScales::function(func::FuncOp function) {
  if (function.isExternal() || !function.getBody().hasOneBlock())
    return failure();
  Block &entry = function.getBody().front();
  unsigned numArgs = function.getNumArguments();
  SmallVector<unsigned> argIndices, resultIndices;
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<DictionaryAttr> argAttrs, resultAttrs;
  SmallVector<Location> argLocs;
  for (BlockArgument arg : entry.getArguments())
    if (isFloatLike(arg.getType())) {
      argIndices.push_back(numArgs);
      argTypes.push_back(arg.getType());
      argAttrs.push_back(DictionaryAttr());
      argLocs.push_back(arg.getLoc());
    }
  for (Type type : function.getResultTypes())
    if (isFloatLike(type)) {
      resultIndices.push_back(function.getNumResults());
      resultTypes.push_back(type);
      resultAttrs.push_back(DictionaryAttr());
    }
  if (failed(
          function.insertArguments(argIndices, argTypes, argAttrs, argLocs)) ||
      failed(function.insertResults(resultIndices, resultTypes, resultAttrs)))
    return failure();
  unsigned next = numArgs;
  for (unsigned i = 0; i < numArgs; ++i)
    if (isFloatLike(entry.getArgument(i).getType()))
      scales[entry.getArgument(i)] = entry.getArgument(next++);
  return block(entry);
}

/// Softmaxes as the generics they stand for, which have rules.
static LogicalResult decomposeSoftmaxes(ModuleOp module) {
  SmallVector<linalg::SoftmaxOp> softmaxes;
  module.walk([&](linalg::SoftmaxOp op) { softmaxes.push_back(op); });
  for (linalg::SoftmaxOp softmax : softmaxes) {
    OpBuilder builder(softmax);
    FailureOr<SmallVector<Value>> parts = softmax.decomposeOperation(builder);
    if (failed(parts))
      return failure();
    softmax->replaceAllUsesWith(*parts);
    softmax->erase();
  }
  return success();
}

namespace mlir::spmd {
/// Erases the functions of `module` that `entry` does not reach through
/// calls.
static void keepReached(ModuleOp module, StringRef entry) {
  llvm::StringSet<> reached = reachedFrom(callsOf(module), {entry});
  for (auto function :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reached.contains(function.getSymName()))
      function.erase();
}

LogicalResult addErrorScales(ModuleOp module, double halfWidth,
                             StringRef entry) {
  // The scales are computed by ops a program need not hold.
  module.getContext()
      ->loadDialect<arith::ArithDialect, linalg::LinalgDialect,
                    math::MathDialect, scf::SCFDialect,
                    tensor::TensorDialect>();
  if (!entry.empty())
    keepReached(module, entry);
  if (failed(decomposeSoftmaxes(module)))
    return failure();
  for (auto function :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (failed(ErrorScales(halfWidth).function(function)))
      return failure();
  ScopedDiagnosticHandler quiet(module.getContext(),
                                [](Diagnostic &) { return success(); });
  return verify(module);
}
} // namespace mlir::spmd
