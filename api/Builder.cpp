//===- Builder.cpp - A small tensor builder emitting linalg on tensors ----===//
//
// Each call appends ops to the entry before its return: named linalg ops
// where one exists (matmul, batch_matmul, transpose, broadcast, reduce,
// softmax), linalg.generic with arith/math bodies for elementwise math,
// tensor ops for slices, concatenation and reshapes. Shapes are checked as
// ops are added; the first error is kept (status()) and returned by
// compile() and run().
//
//===----------------------------------------------------------------------===//

#include "TensorBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "fmt/format.h"

#include <numeric>
#include <type_traits>

namespace spmd {
using detail::BodyFn;
using detail::ProgramState;
using detail::TensorBuilder;
using detail::typeText;
using mlir::OpBuilder;
using mlir::RankedTensorType;

mlir::Type detail::elementType(runtime::ElementType type,
                               mlir::MLIRContext *context) {
  mlir::Builder b(context);
  switch (type) {
  case runtime::ElementType::F32:
    return b.getF32Type();
  case runtime::ElementType::F64:
    return b.getF64Type();
  case runtime::ElementType::F16:
    return b.getF16Type();
  case runtime::ElementType::BF16:
    return b.getBF16Type();
  case runtime::ElementType::I1:
    return b.getI1Type();
  case runtime::ElementType::I8:
    return b.getI8Type();
  case runtime::ElementType::I16:
    return b.getI16Type();
  case runtime::ElementType::I32:
    return b.getI32Type();
  case runtime::ElementType::I64:
    return b.getI64Type();
  case runtime::ElementType::Index:
    return b.getIndexType();
  }
  return b.getF32Type();
}

Program Program::build(const std::string &name) {
  auto state = std::make_unique<ProgramState>();
  OpBuilder b(state->context.get());
  mlir::Location loc = mlir::UnknownLoc::get(state->context.get());
  state->module = mlir::ModuleOp::create(loc);
  b.setInsertionPointToEnd(state->module->getBody());
  auto f = mlir::func::FuncOp::create(b, loc, name, b.getFunctionType({}, {}));
  b.setInsertionPointToEnd(f.addEntryBlock());
  mlir::func::ReturnOp::create(b, loc);
  state->entry = name;
  if (name.empty())
    state->builderStatus =
        absl::InvalidArgumentError("a program needs a function name");
  return Program(std::move(state));
}

absl::Status Program::status() const {
  auto lock = detail::lockProgram(state_);
  return state_ ? state_->builderStatus : detail::movedFrom();
}

Value Program::parameter(std::vector<int64_t> shape, DType dtype) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return {};
  TensorBuilder tb(*state_);
  if (state_->manualScope)
    return tb.error("parameter inside a shard_map body: give the value to "
                    "the shard_map as an input");
  for (int64_t d : shape)
    if (d <= 0)
      return tb.error(
          fmt::format("parameter of shape [{}]", fmt::join(shape, ", ")));
  mlir::Type element = detail::elementType(detail::toRuntime(dtype), state_->context.get());
  mlir::func::FuncOp f = state_->entryFunction();
  unsigned index = f.getNumArguments();
  if (mlir::failed(f.insertArgument(index, RankedTensorType::get(shape, element),
                                    {}, tb.loc)))
    return tb.error("cannot add a parameter");
  return tb.wrap(f.getArgument(index));
}

Value Program::constant(const HostTensor &value) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return {};
  TensorBuilder tb(*state_);
  if (!value.status().ok())
    return tb.error(std::string(value.status().message()));
  const runtime::HostBuffer &host = detail::TensorStorage::of(value);
  mlir::Type element = detail::elementType(host.type(), state_->context.get());
  auto type = RankedTensorType::get(host.shape(), element);
  mlir::DenseElementsAttr attr;
  if (host.type() == runtime::ElementType::I1) {
    llvm::SmallVector<bool> bits;
    for (int64_t i = 0; i < host.numElements(); ++i)
      bits.push_back(host.getInt(i) != 0);
    attr = mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(bits));
  } else {
    llvm::ArrayRef<char> raw(reinterpret_cast<const char *>(host.data()),
                             host.sizeInBytes());
    attr = mlir::DenseElementsAttr::getFromRawBuffer(type, raw);
  }
  return tb.wrap(mlir::arith::ConstantOp::create(tb.b, tb.loc, attr));
}

/// A contraction: matmul [m, k] x [k, n] or batch_matmul [b, m, k] x [b, k, n].
static Value contraction(ProgramState *state, const Value &a, const Value &b,
                         bool batched) {
  if (!state)
    return {};
  TensorBuilder tb(*state);
  mlir::Value x = tb.get(a), y = tb.get(b);
  if (!x || !y)
    return {};
  RankedTensorType tx = TensorBuilder::type(x), ty = TensorBuilder::type(y);
  int64_t rank = batched ? 3 : 2;
  const char *name = batched ? "batch_matmul" : "matmul";
  if (tx.getRank() != rank || ty.getRank() != rank ||
      tx.getShape().back() != ty.getDimSize(rank - 2) ||
      (batched && tx.getDimSize(0) != ty.getDimSize(0)) ||
      tx.getElementType() != ty.getElementType())
    return tb.error(fmt::format("{} of {} and {}", name,
                                typeText(tx), typeText(ty)));
  llvm::SmallVector<int64_t> shape(tx.getShape().drop_back());
  shape.push_back(ty.getShape().back());
  mlir::Value init = tb.filled(shape, tx.getElementType(), 0);
  mlir::Operation *op =
      batched ? mlir::linalg::BatchMatmulOp::create(
                    tb.b, tb.loc, mlir::ValueRange{x, y}, mlir::ValueRange{init})
                    .getOperation()
              : mlir::linalg::MatmulOp::create(tb.b, tb.loc,
                                               mlir::ValueRange{x, y},
                                               mlir::ValueRange{init})
                    .getOperation();
  return tb.wrap(op->getResult(0));
}

Value Program::matmul(const Value &a, const Value &b) {
  auto lock = detail::lockProgram(state_);
  return contraction(state_.get(), a, b, false);
}
Value Program::batch_matmul(const Value &a, const Value &b) {
  auto lock = detail::lockProgram(state_);
  return contraction(state_.get(), a, b, true);
}

/// Elementwise FloatOp (floats) or IntOp (integers) of two tensors of one
/// type.
template <typename FloatOp, typename IntOp>
static Value binary(ProgramState *state, const Value &a, const Value &b,
                    const char *name) {
  if (!state)
    return {};
  TensorBuilder tb(*state);
  mlir::Value x = tb.get(a), y = tb.get(b);
  if (!x || !y)
    return {};
  if (x.getType() != y.getType())
    return tb.error(fmt::format("{} of {} and {}", name, typeText(x.getType()),
                                typeText(y.getType())));
  RankedTensorType t = TensorBuilder::type(x);
  bool isFloat = llvm::isa<mlir::FloatType>(t.getElementType());
  return tb.wrap(tb.elementwise(
      {x, y}, t.getShape(), t.getElementType(),
      [&](OpBuilder &nb, mlir::Location l, mlir::ValueRange args) -> mlir::Value {
        if (isFloat)
          return FloatOp::create(nb, l, args[0], args[1]);
        return IntOp::create(nb, l, args[0], args[1]);
      }));
}

Value Program::add(const Value &a, const Value &b) {
  auto lock = detail::lockProgram(state_);
  return binary<mlir::arith::AddFOp, mlir::arith::AddIOp>(state_.get(), a, b, "add");
}
Value Program::sub(const Value &a, const Value &b) {
  auto lock = detail::lockProgram(state_);
  return binary<mlir::arith::SubFOp, mlir::arith::SubIOp>(state_.get(), a, b, "sub");
}
Value Program::mul(const Value &a, const Value &b) {
  auto lock = detail::lockProgram(state_);
  return binary<mlir::arith::MulFOp, mlir::arith::MulIOp>(state_.get(), a, b, "mul");
}
Value Program::div(const Value &a, const Value &b) {
  auto lock = detail::lockProgram(state_);
  return binary<mlir::arith::DivFOp, mlir::arith::DivSIOp>(state_.get(), a, b,
                                                          "div");
}
Value Program::max(const Value &a, const Value &b) {
  auto lock = detail::lockProgram(state_);
  return binary<mlir::arith::MaximumFOp, mlir::arith::MaxSIOp>(state_.get(), a, b,
                                                               "max");
}

/// `build(tb, x, type)` on the tensor `v` of the program `state`; nothing
/// (the builder's error recorded) if the program is gone or `v` is not
/// one of its tensors.
template <typename Build>
static Value onTensor(ProgramState *state, const Value &v, Build build) {
  if (!state)
    return {};
  TensorBuilder tb(*state);
  mlir::Value x = tb.get(v);
  if (!x)
    return {};
  return build(tb, x, TensorBuilder::type(x));
}

/// Elementwise `fn` of a float tensor.
static Value unary(ProgramState *state, const Value &v, const char *name,
                   BodyFn fn) {
  return onTensor(
      state, v,
      [&](TensorBuilder &tb, mlir::Value x, RankedTensorType t) -> Value {
        if (!llvm::isa<mlir::FloatType>(t.getElementType()))
          return tb.error(
              fmt::format("{} of {}: floats only", name, typeText(t)));
        return tb.wrap(
            tb.elementwise({x}, t.getShape(), t.getElementType(), fn));
      });
}

Value Program::exp(const Value &x) {
  auto lock = detail::lockProgram(state_);
  return unary(state_.get(), x, "exp", [](OpBuilder &nb, mlir::Location l,
                                mlir::ValueRange a) -> mlir::Value {
    return mlir::math::ExpOp::create(nb, l, a[0]);
  });
}
Value Program::tanh(const Value &x) {
  auto lock = detail::lockProgram(state_);
  return unary(state_.get(), x, "tanh", [](OpBuilder &nb, mlir::Location l,
                                 mlir::ValueRange a) -> mlir::Value {
    return mlir::math::TanhOp::create(nb, l, a[0]);
  });
}
Value Program::relu(const Value &x) {
  auto lock = detail::lockProgram(state_);
  return unary(state_.get(), x, "relu", [&](OpBuilder &nb, mlir::Location l,
                                  mlir::ValueRange a) -> mlir::Value {
    mlir::Value zero = mlir::arith::ConstantOp::create(
        nb, l, nb.getFloatAttr(a[0].getType(), 0.0));
    return mlir::arith::MaximumFOp::create(nb, l, a[0], zero);
  });
}
Value Program::gelu(const Value &x) {
  auto lock = detail::lockProgram(state_);
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as GPT-2 computes it.
  return unary(state_.get(), x, "gelu", [&](OpBuilder &nb, mlir::Location l,
                                  mlir::ValueRange a) -> mlir::Value {
    mlir::Type t = a[0].getType();
    auto c = [&](double v) -> mlir::Value {
      return mlir::arith::ConstantOp::create(nb, l, nb.getFloatAttr(t, v));
    };
    mlir::Value x3 = mlir::arith::MulFOp::create(
        nb, l, a[0], mlir::arith::MulFOp::create(nb, l, a[0], a[0]));
    mlir::Value inner = mlir::arith::MulFOp::create(
        nb, l, c(0.7978845608028654),
        mlir::arith::AddFOp::create(
            nb, l, a[0], mlir::arith::MulFOp::create(nb, l, c(0.044715), x3)));
    mlir::Value one = mlir::arith::AddFOp::create(
        nb, l, c(1.0), mlir::math::TanhOp::create(nb, l, inner));
    return mlir::arith::MulFOp::create(
        nb, l, mlir::arith::MulFOp::create(nb, l, c(0.5), a[0]), one);
  });
}

/// `v` reduced over `dims` by FloatOp (floats) or IntOp (integers, unless
/// null), from `init`.
template <typename FloatOp, typename IntOp = void>
static Value reduction(ProgramState *state, const Value &v,
                       std::vector<int64_t> dims, double init,
                       const char *name) {
  return onTensor(
      state, v,
      [&](TensorBuilder &tb, mlir::Value x, RankedTensorType t) -> Value {
        auto sorted = tb.checkDims(dims, t.getRank(), name);
        if (!sorted)
          return {};
        bool isFloat = llvm::isa<mlir::FloatType>(t.getElementType());
        if constexpr (std::is_void_v<IntOp>)
          if (!isFloat)
            return tb.error(fmt::format("{}: floats only", name));
        return tb.wrap(tb.reduce(x, *sorted, init,
                                 [&](OpBuilder &nb, mlir::Location l,
                                     mlir::ValueRange a) -> mlir::Value {
                                   if constexpr (!std::is_void_v<IntOp>)
                                     if (!isFloat)
                                       return IntOp::create(nb, l, a[0], a[1]);
                                   return FloatOp::create(nb, l, a[0], a[1]);
                                 }));
      });
}

Value Program::reduce_sum(const Value &v, std::vector<int64_t> dims) {
  auto lock = detail::lockProgram(state_);
  return reduction<mlir::arith::AddFOp, mlir::arith::AddIOp>(
      state_.get(), v, std::move(dims), 0, "reduce_sum");
}

Value Program::reduce_max(const Value &v, std::vector<int64_t> dims) {
  auto lock = detail::lockProgram(state_);
  return reduction<mlir::arith::MaximumFOp>(state_.get(), v, std::move(dims),
                                            -INFINITY, "reduce_max");
}

/// `x` times the constant `factor`, elementwise.
static mlir::Value scaled(TensorBuilder &tb, mlir::Value x, double factor) {
  RankedTensorType t = TensorBuilder::type(x);
  return tb.elementwise(
      {x}, t.getShape(), t.getElementType(),
      [&](OpBuilder &nb, mlir::Location l, mlir::ValueRange a) -> mlir::Value {
        mlir::Value c = mlir::arith::ConstantOp::create(
            nb, l, nb.getFloatAttr(a[0].getType(), factor));
        return mlir::arith::MulFOp::create(nb, l, a[0], c);
      });
}

Value Program::mean(const Value &x, std::vector<int64_t> dims) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return {};
  Value sum = reduce_sum(x, dims);
  if (!sum.valid())
    return {};
  TensorBuilder tb(*state_);
  mlir::Value in = tb.get(x);
  if (!llvm::isa<mlir::FloatType>(TensorBuilder::type(in).getElementType()))
    return tb.error("mean: floats only");
  double count = 1;
  for (int64_t d : dims)
    count *= double(TensorBuilder::type(in).getDimSize(d));
  return tb.wrap(scaled(tb, tb.get(sum), 1.0 / count));
}

Value Program::transpose(const Value &v, std::vector<int64_t> permutation) {
  auto lock = detail::lockProgram(state_);
  return onTensor(
      state_.get(), v,
      [&](TensorBuilder &tb, mlir::Value x, RankedTensorType t) -> Value {
        auto sorted = tb.checkDims(permutation, t.getRank(), "transpose");
        if (!sorted)
          return {};
        if (int64_t(permutation.size()) != t.getRank())
          return tb.error(
              fmt::format("transpose: permutation [{}] of a rank-{} "
                          "tensor",
                          fmt::join(permutation, ", "), t.getRank()));
        llvm::SmallVector<int64_t> shape;
        for (int64_t p : permutation)
          shape.push_back(t.getDimSize(p));
        auto op = mlir::linalg::TransposeOp::create(
            tb.b, tb.loc, x, tb.empty(shape, t.getElementType()), permutation);
        return tb.wrap(op.getResult()[0]);
      });
}

/// Groups of consecutive dimensions of `from` whose products are the
/// dimensions of `to` (a collapse), if there are such.
static std::optional<llvm::SmallVector<mlir::ReassociationIndices>>
grouping(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to) {
  llvm::SmallVector<mlir::ReassociationIndices> groups;
  size_t i = 0;
  for (size_t g = 0; g < to.size(); ++g) {
    mlir::ReassociationIndices group;
    int64_t product = 1;
    do {
      if (i == from.size())
        return std::nullopt;
      product *= from[i];
      group.push_back(i++);
    } while (product < to[g]);
    if (product != to[g])
      return std::nullopt;
    // Trailing ones join the last group.
    while (g + 1 == to.size() && i < from.size() && from[i] == 1)
      group.push_back(i++);
    groups.push_back(std::move(group));
  }
  if (i != from.size() || groups.empty())
    return std::nullopt;
  return groups;
}

Value Program::reshape(const Value &v, std::vector<int64_t> shape) {
  auto lock = detail::lockProgram(state_);
  return onTensor(
      state_.get(), v,
      [&](TensorBuilder &tb, mlir::Value x, RankedTensorType t) -> Value {
        int64_t count = std::accumulate(shape.begin(), shape.end(), int64_t(1),
                                        std::multiplies<>());
        if (count != t.getNumElements() ||
            llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
          return tb.error(fmt::format("reshape of {} to [{}]", typeText(t),
                                      fmt::join(shape, ", ")));
        auto target = RankedTensorType::get(shape, t.getElementType());
        // To and from one element of rank 0: no groups.
        if (shape.empty())
          return tb.wrap(mlir::tensor::CollapseShapeOp::create(
              tb.b, tb.loc, target, x,
              llvm::ArrayRef<mlir::ReassociationIndices>{}));
        if (t.getRank() == 0)
          return tb.wrap(mlir::tensor::ExpandShapeOp::create(
              tb.b, tb.loc, target, x,
              llvm::ArrayRef<mlir::ReassociationIndices>{}));
        if (auto groups = grouping(t.getShape(), shape))
          return tb.wrap(mlir::tensor::CollapseShapeOp::create(
              tb.b, tb.loc, target, x, *groups));
        if (auto groups = grouping(shape, t.getShape()))
          return tb.wrap(mlir::tensor::ExpandShapeOp::create(
              tb.b, tb.loc, target, x, *groups));
        // Neither a collapse nor an expansion: through one dimension.
        auto flat = RankedTensorType::get({count}, t.getElementType());
        mlir::ReassociationIndices all(t.getRank()), out(shape.size());
        std::iota(all.begin(), all.end(), 0);
        std::iota(out.begin(), out.end(), 0);
        mlir::Value line = mlir::tensor::CollapseShapeOp::create(
            tb.b, tb.loc, flat, x,
            llvm::ArrayRef<mlir::ReassociationIndices>{all});
        return tb.wrap(mlir::tensor::ExpandShapeOp::create(
            tb.b, tb.loc, target, line,
            llvm::ArrayRef<mlir::ReassociationIndices>{out}));
      });
}

Value Program::broadcast(const Value &v, std::vector<int64_t> shape,
                         std::vector<int64_t> dims) {
  auto lock = detail::lockProgram(state_);
  return onTensor(
      state_.get(), v,
      [&](TensorBuilder &tb, mlir::Value x, RankedTensorType t) -> Value {
        if (llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
          return tb.error(
              fmt::format("broadcast to [{}]", fmt::join(shape, ", ")));
        auto sorted = tb.checkDims(dims, shape.size(), "broadcast");
        if (!sorted)
          return {};
        bool fits =
            int64_t(dims.size()) == t.getRank() && llvm::equal(dims, *sorted);
        for (size_t i = 0; fits && i < dims.size(); ++i)
          fits = shape[dims[i]] == t.getDimSize(i);
        if (!fits)
          return tb.error(fmt::format(
              "broadcast of {} to [{}] at dimensions [{}]: dimensions must be "
              "increasing, one per input dimension, of equal sizes",
              typeText(t), fmt::join(shape, ", "), fmt::join(dims, ", ")));
        llvm::SmallVector<int64_t> added;
        for (int64_t d = 0; d < int64_t(shape.size()); ++d)
          if (!llvm::is_contained(dims, d))
            added.push_back(d);
        auto op = mlir::linalg::BroadcastOp::create(
            tb.b, tb.loc, x, tb.empty(shape, t.getElementType()), added);
        return tb.wrap(op.getResult()[0]);
      });
}

Value Program::softmax(const Value &v, int64_t dim) {
  auto lock = detail::lockProgram(state_);
  return onTensor(
      state_.get(), v,
      [&](TensorBuilder &tb, mlir::Value x, RankedTensorType t) -> Value {
        if (dim < 0 || dim >= t.getRank() ||
            !llvm::isa<mlir::FloatType>(t.getElementType()))
          return tb.error(
              fmt::format("softmax over dimension {} of {}", dim, typeText(t)));
        auto op = mlir::linalg::SoftmaxOp::create(
            tb.b, tb.loc, t, x, tb.empty(t.getShape(), t.getElementType()),
            dim);
        return tb.wrap(op.getResult()[0]);
      });
}

Value Program::layer_norm(const Value &v, int64_t dim, double epsilon) {
  auto lock = detail::lockProgram(state_);
  return onTensor(
      state_.get(), v,
      [&](TensorBuilder &tb, mlir::Value x, RankedTensorType t) -> Value {
        if (dim < 0 || dim >= t.getRank() ||
            !llvm::isa<mlir::FloatType>(t.getElementType()))
          return tb.error(fmt::format("layer_norm over dimension {} of {}", dim,
                                      typeText(t)));
        mlir::Type element = t.getElementType();
        // The loops other than `dim`, as the reduced tensors index them.
        llvm::SmallVector<unsigned> all, others;
        for (unsigned d = 0; d < t.getRank(); ++d) {
          all.push_back(d);
          if (d != dim)
            others.push_back(d);
        }
        double n = double(t.getDimSize(dim));
        auto sum = [&](OpBuilder &nb, mlir::Location l,
                       mlir::ValueRange a) -> mlir::Value {
          return mlir::arith::AddFOp::create(nb, l, a[0], a[1]);
        };
        mlir::Value mean = scaled(tb, tb.reduce(x, {dim}, 0, sum), 1.0 / n);
        mlir::Value centered = tb.elementwise(
            {x, mean}, t.getShape(), element,
            [](OpBuilder &nb, mlir::Location l,
               mlir::ValueRange a) -> mlir::Value {
              return mlir::arith::SubFOp::create(nb, l, a[0], a[1]);
            },
            {all, others});
        mlir::Value squared = tb.elementwise(
            {centered}, t.getShape(), element,
            [](OpBuilder &nb, mlir::Location l,
               mlir::ValueRange a) -> mlir::Value {
              return mlir::arith::MulFOp::create(nb, l, a[0], a[0]);
            });
        mlir::Value variance =
            scaled(tb, tb.reduce(squared, {dim}, 0, sum), 1.0 / n);
        return tb.wrap(tb.elementwise(
            {centered, variance}, t.getShape(), element,
            [&](OpBuilder &nb, mlir::Location l,
                mlir::ValueRange a) -> mlir::Value {
              mlir::Value eps = mlir::arith::ConstantOp::create(
                  nb, l, nb.getFloatAttr(a[1].getType(), epsilon));
              mlir::Value scale = mlir::math::RsqrtOp::create(
                  nb, l, mlir::arith::AddFOp::create(nb, l, a[1], eps));
              return mlir::arith::MulFOp::create(nb, l, a[0], scale);
            },
            {all, others}));
      });
}

Value Program::slice(const Value &v, std::vector<int64_t> offsets,
                     std::vector<int64_t> sizes) {
  auto lock = detail::lockProgram(state_);
  return onTensor(
      state_.get(), v,
      [&](TensorBuilder &tb, mlir::Value x, RankedTensorType t) -> Value {
        bool fits = int64_t(offsets.size()) == t.getRank() &&
                    int64_t(sizes.size()) == t.getRank();
        for (int64_t d = 0; fits && d < t.getRank(); ++d)
          fits = offsets[d] >= 0 && sizes[d] > 0 &&
                 offsets[d] + sizes[d] <= t.getDimSize(d);
        if (!fits)
          return tb.error(fmt::format("slice of {} at [{}] of sizes [{}]",
                                      typeText(t), fmt::join(offsets, ", "),
                                      fmt::join(sizes, ", ")));
        llvm::SmallVector<int64_t> strides(t.getRank(), 1);
        auto folded = [&](llvm::ArrayRef<int64_t> values) {
          return mlir::getAsIndexOpFoldResult(tb.b.getContext(), values);
        };
        return tb.wrap(mlir::tensor::ExtractSliceOp::create(
            tb.b, tb.loc, x, folded(offsets), folded(sizes), folded(strides)));
      });
}

Value Program::concat(const std::vector<Value> &values, int64_t dim) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return {};
  TensorBuilder tb(*state_);
  llvm::SmallVector<mlir::Value> inputs;
  for (const Value &v : values) {
    mlir::Value x = tb.get(v);
    if (!x)
      return {};
    inputs.push_back(x);
  }
  if (inputs.empty())
    return tb.error("concat of no tensors");
  RankedTensorType first = TensorBuilder::type(inputs.front());
  bool fits = dim >= 0 && dim < first.getRank();
  for (mlir::Value x : inputs) {
    RankedTensorType t = TensorBuilder::type(x);
    fits = fits && t.getRank() == first.getRank() &&
           t.getElementType() == first.getElementType();
    for (int64_t d = 0; fits && d < t.getRank(); ++d)
      fits = d == dim || t.getDimSize(d) == first.getDimSize(d);
  }
  if (!fits)
    return tb.error(fmt::format("concat along dimension {} of tensors that "
                                "differ elsewhere",
                                dim));
  return tb.wrap(mlir::tensor::ConcatOp::create(tb.b, tb.loc, dim, inputs));
}

absl::Status Program::output(const std::vector<Value> &values) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  TensorBuilder tb(*state_);
  if (state_->manualScope)
    return absl::InvalidArgumentError(
        "output inside a shard_map body: return the value from the body");
  mlir::func::FuncOp f = state_->entryFunction();
  mlir::Operation *ret = f.getBody().front().getTerminator();
  for (const Value &v : values) {
    absl::StatusOr<mlir::Value> value = state_->resolve(v);
    if (!value.ok())
      return value.status();
    if (value->getParentRegion() != &f.getBody())
      return absl::InvalidArgumentError(
          "a value made in a shard_map body is local to it (use the "
          "shard_map's results)");
    unsigned index = f.getNumResults();
    if (mlir::failed(f.insertResult(index, value->getType(), {})))
      return absl::InternalError("cannot add a result");
    ret->insertOperands(ret->getNumOperands(), *value);
  }
  return absl::OkStatus();
}

} // namespace spmd
