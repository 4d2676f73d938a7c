//===- ScalarProgram.cpp - Scalar op sequences run over blocks ------------===//

#include "runtime/kernels/ScalarProgram.h"
#include "ir/Locations.h"
#include "runtime/exec/TensorOps.h"
#include "runtime/kernels/CpuPath.h"
#include "runtime/kernels/gemm/GemmKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace spmd::runtime {

enum class Opcode : uint8_t {
#define SCALAR_OP(Name, Op) Name,
#include "runtime/kernels/ScalarOps.def"
  Extract, // a = table, b = number of indices, attr = first index register
};

ElementKind ElementKind::of(Type type) {
  ElementKind kind;
  if (auto floatType = llvm::dyn_cast<FloatType>(type)) {
    unsigned width = floatType.getWidth();
    kind.format = type.isBF16() ? FloatFormat::BF16
                  : width == 16 ? FloatFormat::F16
                  : width == 32 ? FloatFormat::F32
                                : FloatFormat::Double;
    return kind;
  }
  kind.isFloat = false;
  kind.width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  return kind;
}

/// The value of an integer register lane of `width` bits read unsigned.
static uint64_t unsignedOf(int64_t v, unsigned width) {
  return width >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << width) - 1);
}

/// The bits of `v` truncated to an unsigned integer: values up to 2^64
/// convert (an i64's bits beyond int64's range); others saturate as
/// toIntSaturating does.
static int64_t toUnsignedBits(double v) {
  if (v >= 9223372036854775808.0 && v < 18446744073709551616.0)
    return int64_t(uint64_t(v));
  return toIntSaturating(v);
}

/// Rounds `v` to the precision of `format`.
static double roundTo(double v, FloatFormat format) {
  switch (format) {
  case FloatFormat::F32:
    return double(float(v));
  case FloatFormat::F16:
    return double(halfToFloat(floatToHalf(float(v))));
  case FloatFormat::BF16:
    return double(bfloat16ToFloat(floatToBFloat16(float(v))));
  case FloatFormat::Double:
    return v;
  }
  return v;
}

/// The instruction attribute of an op: its predicate for comparisons.
static int64_t attrOf(Operation *) { return 0; }
static int64_t attrOf(arith::CmpFOp cmp) { return int64_t(cmp.getPredicate()); }
static int64_t attrOf(arith::CmpIOp cmp) { return int64_t(cmp.getPredicate()); }

/// The opcode of `op` and its attribute, when ScalarOps.def lists it.
static std::optional<std::pair<Opcode, int64_t>> decode(Operation &op) {
  using Decoded = std::optional<std::pair<Opcode, int64_t>>;
  return llvm::TypeSwitch<Operation *, Decoded>(&op)
#define SCALAR_OP(Name, Op)                                                    \
  .Case([](Op typed) { return std::pair(Opcode::Name, attrOf(typed)); })
#include "runtime/kernels/ScalarOps.def"
      .Default([](Operation *) { return std::nullopt; });
}

/// Compiles a body into a ScalarProgram: the register of each value it
/// has met, and how to reach values from outside the body.
class ScalarProgramBuilder {
public:
  using Lookup = llvm::function_ref<std::optional<unsigned>(Value)>;

  ScalarProgramBuilder(ScalarProgram &p, Lookup outer,
                       llvm::function_ref<unsigned(int64_t)> index,
                       Lookup table)
      : p(p), outer(outer), index(index), table(table) {}

  void bindArguments(Block &body);
  /// Compiles the ops of `block` up to its terminator; `depth` counts the
  /// calls inlined to reach it.
  llvm::Error compileBlock(Block &block, unsigned depth);
  llvm::Error compileYields(Block &body);

private:
  static llvm::Error fail(Operation *op, const Twine &why);
  std::optional<unsigned> registerFor(Value v);
  unsigned newRegister(Value result);
  llvm::Error compileOne(Operation &op, unsigned depth);
  llvm::Error compileCall(func::CallOp call, unsigned depth);
  llvm::Error compileConstant(arith::ConstantOp constant);
  llvm::Error compileExtract(tensor::ExtractOp extract);
  llvm::Error compileScalarOp(Operation &op);

  ScalarProgram &p;
  Lookup outer;
  llvm::function_ref<unsigned(int64_t)> index;
  Lookup table;
  llvm::DenseMap<Value, unsigned> regOf;
};

llvm::Error ScalarProgramBuilder::fail(Operation *op, const Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 mlir::spmd::fileLineColPrefix(op->getLoc()) +
                                     "error: " + why);
}

void ScalarProgramBuilder::bindArguments(Block &body) {
  for (BlockArgument arg : body.getArguments()) {
    regOf[arg] = arg.getArgNumber();
    p.registerKinds[arg.getArgNumber()] = ElementKind::of(arg.getType());
  }
}

std::optional<unsigned> ScalarProgramBuilder::registerFor(Value v) {
  auto it = regOf.find(v);
  if (it != regOf.end())
    return it->second;
  if (std::optional<unsigned> r = outer(v)) {
    p.registerKinds[*r] = ElementKind::of(v.getType());
    regOf[v] = *r;
    return r;
  }
  return std::nullopt;
}

unsigned ScalarProgramBuilder::newRegister(Value result) {
  unsigned r = p.registerKinds.size();
  p.registerKinds.push_back(ElementKind::of(result.getType()));
  regOf[result] = r;
  return r;
}

llvm::Error ScalarProgramBuilder::compileBlock(Block &block, unsigned depth) {
  for (Operation &op : block.without_terminator())
    if (llvm::Error err = compileOne(op, depth))
      return err;
  return llvm::Error::success();
}

llvm::Error ScalarProgramBuilder::compileOne(Operation &op, unsigned depth) {
  if (auto call = llvm::dyn_cast<func::CallOp>(op))
    return compileCall(call, depth);
  if (auto constant = llvm::dyn_cast<arith::ConstantOp>(op))
    return compileConstant(constant);
  if (auto extract = llvm::dyn_cast<tensor::ExtractOp>(op))
    return compileExtract(extract);
  if (auto idx = llvm::dyn_cast<linalg::IndexOp>(op)) {
    unsigned r = index(idx.getDim());
    p.registerKinds[r] = ElementKind::of(idx.getType());
    regOf[idx.getResult()] = r;
    return llvm::Error::success();
  }
  return compileScalarOp(op);
}

// Calls of scalar functions are compiled in place (an LSTM cell's sigmoid):
// the callee's arguments are the call's operand registers.
llvm::Error ScalarProgramBuilder::compileCall(func::CallOp call,
                                              unsigned depth) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee || callee.isExternal() || !callee.getBody().hasOneBlock())
    return fail(call, "calls a function without a single-block body");
  if (depth >= 64)
    return fail(call, "calls nest more than 64 deep (recursion?)");
  Block &entry = callee.getBody().front();
  for (auto [arg, operand] :
       llvm::zip_equal(entry.getArguments(), call.getOperands())) {
    std::optional<unsigned> r = registerFor(operand);
    if (!r)
      return fail(call, "uses a value the kernel cannot read");
    regOf[arg] = *r;
  }
  if (llvm::Error err = compileBlock(entry, depth + 1))
    return err;
  for (auto [result, returned] : llvm::zip_equal(
           call.getResults(), entry.getTerminator()->getOperands())) {
    std::optional<unsigned> r = registerFor(returned);
    if (!r)
      return fail(call, "returns a value the kernel cannot read");
    regOf[result] = *r;
  }
  return llvm::Error::success();
}

llvm::Error ScalarProgramBuilder::compileConstant(arith::ConstantOp constant) {
  unsigned r = newRegister(constant.getResult());
  if (auto f = llvm::dyn_cast<FloatAttr>(constant.getValue()))
    p.floatConstants.push_back({r, f.getValueAsDouble()});
  else if (auto i = llvm::dyn_cast<IntegerAttr>(constant.getValue()))
    p.intConstants.push_back({r, constant.getType().isInteger(1)
                                     ? int64_t(i.getValue().getBoolValue())
                                     : i.getValue().getSExtValue()});
  else
    return fail(constant, "unsupported constant in a kernel body");
  return llvm::Error::success();
}

llvm::Error ScalarProgramBuilder::compileExtract(tensor::ExtractOp extract) {
  std::optional<unsigned> t = table ? table(extract.getTensor()) : std::nullopt;
  if (!t)
    return fail(extract, "reads a tensor the kernel cannot read");
  Instruction inst{Opcode::Extract, 0, *t,
                   unsigned(extract.getIndices().size())};
  inst.attr = p.extractIndices.size();
  for (Value i : extract.getIndices()) {
    std::optional<unsigned> r = registerFor(i);
    if (!r)
      return fail(extract, "uses a value the kernel cannot read");
    p.extractIndices.push_back(*r);
  }
  inst.dst = newRegister(extract.getResult());
  p.code.push_back(inst);
  return llvm::Error::success();
}

llvm::Error ScalarProgramBuilder::compileScalarOp(Operation &op) {
  SmallVector<unsigned> operands;
  for (Value operand : op.getOperands()) {
    std::optional<unsigned> r = registerFor(operand);
    if (!r)
      return fail(&op, "uses a value the kernel cannot read");
    operands.push_back(*r);
  }
  std::optional<std::pair<Opcode, int64_t>> decoded =
      op.getNumResults() == 1 ? decode(op) : std::nullopt;
  if (!decoded)
    return fail(&op, "'" + op.getName().getStringRef() +
                         "' is not an op the elementwise kernels run "
                         "(docs/cli.md lists those they do)");
  // Operands an op lacks name its first: every instruction then reads a, b
  // and c (reads()).
  Instruction inst{decoded->first, newRegister(op.getResult(0))};
  inst.a = operands.empty() ? 0 : operands[0];
  inst.b = operands.size() > 1 ? operands[1] : inst.a;
  inst.c = operands.size() > 2 ? operands[2] : inst.a;
  inst.attr = decoded->second;
  p.code.push_back(inst);
  return llvm::Error::success();
}

llvm::Error ScalarProgramBuilder::compileYields(Block &body) {
  for (Value yielded : body.getTerminator()->getOperands()) {
    std::optional<unsigned> r = registerFor(yielded);
    if (!r)
      return fail(body.getTerminator(),
                  "yields a value the kernel cannot read");
    p.yields.push_back(*r);
  }
  return llvm::Error::success();
}

llvm::Expected<ScalarProgram> ScalarProgram::compile(
    Block &body, llvm::function_ref<std::optional<unsigned>(Value)> outer,
    llvm::function_ref<unsigned(int64_t)> index, unsigned numRegisters,
    llvm::function_ref<std::optional<unsigned>(Value)> table) {
  ScalarProgram p;
  p.registerKinds.assign(numRegisters, ElementKind());
  ScalarProgramBuilder builder(p, outer, index, table);
  builder.bindArguments(body);
  if (llvm::Error err = builder.compileBlock(body, 0))
    return std::move(err);
  if (llvm::Error err = builder.compileYields(body))
    return std::move(err);
  return p;
}

llvm::Expected<ScalarProgram> ScalarProgram::compileOp(Operation *op) {
  // Wrap the op in a block whose arguments are its operands' elements.
  Block block;
  SmallVector<Value> args;
  for (Value operand : op->getOperands()) {
    Type type = getElementTypeOrSelf(operand.getType());
    args.push_back(block.addArgument(type, op->getLoc()));
  }
  // The terminator is a linalg.yield, whose dialect the module may not use.
  op->getContext()->loadDialect<linalg::LinalgDialect>();
  OpBuilder b(op->getContext());
  b.setInsertionPointToStart(&block);
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(args);
  state.addAttributes(op->getAttrs());
  state.addTypes(getElementTypeOrSelf(op->getResult(0).getType()));
  Operation *scalar = b.create(state);
  Operation *yield =
      linalg::YieldOp::create(b, op->getLoc(), scalar->getResult(0));
  llvm::Expected<ScalarProgram> program = compile(
      block, [](Value) { return std::nullopt; }, [](int64_t) { return 0u; },
      block.getNumArguments());
  yield->erase();
  scalar->erase();
  return program;
}

void ScalarProgram::prepare(std::vector<Register> &regs) const {
  if (regs.size() < registerKinds.size())
    regs.resize(registerKinds.size());
  for (auto [r, kind] : llvm::enumerate(registerKinds)) {
    static_cast<ElementKind &>(regs[r]) = kind;
    regs[r].own(); // a view from the last program that ran here has ended
  }
  for (auto [r, v] : floatConstants)
    regs[r].fill(0, kBlock, v, 0);
  for (auto [r, v] : intConstants)
    regs[r].fill(0, kBlock, 0, v);
}

/// out[k] = x[k] <p> y[k]. Each predicate is its own loop of plain C++
/// comparisons (false on NaN except !=), which the compiler vectorises.
template <typename T>
static void compareFloats(arith::CmpFPredicate p, const T *x, const T *y,
                          int64_t *out, int64_t n) {
  using P = arith::CmpFPredicate;
  auto each = [&](auto predicate) {
    for (int64_t k = 0; k < n; ++k)
      out[k] = predicate(double(x[k]), double(y[k]));
  };
  switch (p) {
  case P::AlwaysFalse:
    return each([](double, double) { return false; });
  case P::OEQ:
    return each([](double a, double b) { return a == b; });
  case P::OGT:
    return each([](double a, double b) { return a > b; });
  case P::OGE:
    return each([](double a, double b) { return a >= b; });
  case P::OLT:
    return each([](double a, double b) { return a < b; });
  case P::OLE:
    return each([](double a, double b) { return a <= b; });
  case P::ONE:
    return each([](double a, double b) { return a < b || a > b; });
  case P::ORD:
    return each([](double a, double b) { return a == a && b == b; });
  case P::UEQ:
    return each([](double a, double b) { return !(a < b || a > b); });
  case P::UGT:
    return each([](double a, double b) { return !(a <= b); });
  case P::UGE:
    return each([](double a, double b) { return !(a < b); });
  case P::ULT:
    return each([](double a, double b) { return !(a >= b); });
  case P::ULE:
    return each([](double a, double b) { return !(a > b); });
  case P::UNE:
    return each([](double a, double b) { return a != b; });
  case P::UNO:
    return each([](double a, double b) { return a != a || b != b; });
  case P::AlwaysTrue:
    return each([](double, double) { return true; });
  }
}

static bool compareInt(arith::CmpIPredicate p, int64_t x, int64_t y,
                       unsigned width) {
  using P = arith::CmpIPredicate;
  uint64_t ux = unsignedOf(x, width), uy = unsignedOf(y, width);
  x = readSigned(x, width);
  y = readSigned(y, width);
  switch (p) {
  case P::eq:
    return x == y;
  case P::ne:
    return x != y;
  case P::slt:
    return x < y;
  case P::sle:
    return x <= y;
  case P::sgt:
    return x > y;
  case P::sge:
    return x >= y;
  case P::ult:
    return ux < uy;
  case P::ule:
    return ux <= uy;
  case P::ugt:
    return ux > uy;
  case P::uge:
    return ux >= uy;
  }
  return false;
}

void ScalarProgram::run(std::vector<Register> &regs, int64_t n,
                        llvm::ArrayRef<const HostBuffer *> tables,
                        llvm::ArrayRef<bool> part, bool inPart) const {
  onCpuPath([&] { execute(regs, n, tables, part, inPart); });
}

llvm::SmallVector<unsigned, 3>
ScalarProgram::reads(const Instruction &in) const {
  if (in.op != Opcode::Extract)
    return {in.a, in.b, in.c};
  // a is a table, b the number of indices, attr where their registers are.
  llvm::ArrayRef<unsigned> indices(extractIndices);
  indices = indices.slice(in.attr, in.b);
  return {indices.begin(), indices.end()};
}

ScalarProgram::Uniformity
ScalarProgram::uniformity(std::vector<bool> uniform) const {
  uniform.resize(registerKinds.size(), false);
  std::vector<bool> constant(registerKinds.size(), false);
  for (auto [r, v] : floatConstants)
    constant[r] = uniform[r] = true;
  for (auto [r, v] : intConstants)
    constant[r] = uniform[r] = true;
  Uniformity result;
  for (const Instruction &in : code) {
    bool same = llvm::all_of(reads(in), [&](unsigned r) { return uniform[r]; });
    result.instructions.push_back(same);
    uniform[in.dst] = same;
    result.any |= same;
  }
  std::vector<bool> spread(registerKinds.size(), false);
  auto needWhole = [&](unsigned r) {
    if (uniform[r] && !constant[r] && !spread[r]) {
      spread[r] = true;
      result.spread.push_back(r);
    }
  };
  for (auto [in, same] : llvm::zip_equal(code, result.instructions))
    if (!same)
      for (unsigned r : reads(in))
        needWhole(r);
  for (unsigned r : yields)
    needWhole(r);
  return result;
}

namespace {
/// One instruction's registers over `n` lanes.
struct Lanes {
  Register &d;
  const Register &a, &b, &c;
  int64_t n;
  int64_t attr;
};
} // namespace

static void evaluateCmpF(const Lanes &l) {
  auto p = arith::CmpFPredicate(l.attr);
  if (l.a.isF32())
    compareFloats(p, l.a.s(), l.b.s(), l.d.i, l.n);
  else
    compareFloats(p, l.a.f, l.b.f, l.d.i, l.n);
}

static void evaluateCmpI(const Lanes &l) {
  for (int64_t k = 0; k < l.n; ++k)
    l.d.i[k] =
        compareInt(arith::CmpIPredicate(l.attr), l.a.i[k], l.b.i[k], l.a.width);
}

// Both values are read before choosing: a blend, not a branch.
static void evaluateSelect(const Lanes &l) {
  auto each = [&](auto *d, const auto *x, const auto *y) {
    for (int64_t k = 0; k < l.n; ++k) {
      auto u = x[k], v = y[k];
      d[k] = l.a.i[k] ? u : v;
    }
  };
  if (l.d.isF32())
    each(l.d.s(), l.b.s(), l.c.s());
  else if (l.d.isFloat)
    each(l.d.f, l.b.f, l.c.f);
  else
    each(l.d.i, l.b.i, l.c.i);
}

// One rounding, as math.fma asks (f32 lanes too: a product rounded to f32
// before the sum is another value).
static void evaluateFma(const Lanes &l) {
  assert(l.a.isF32() == l.d.isF32() && l.b.isF32() == l.d.isF32() &&
         l.c.isF32() == l.d.isF32() && "math.fma has one type");
  auto each = [&](auto *d, const auto *x, const auto *y, const auto *z) {
    for (int64_t k = 0; k < l.n; ++k)
      d[k] = std::fma(x[k], y[k], z[k]);
  };
  l.d.isF32() ? each(l.d.s(), l.a.s(), l.b.s(), l.c.s())
              : each(l.d.f, l.a.f, l.b.f, l.c.f);
}

// Float lanes are read and written where their kind keeps them (f32 in s,
// others in f): each helper runs `f` over the lanes in the arrays of the
// registers' kinds, so f32 ops compute in f32.

template <typename F> static void floatUnary(const Lanes &l, F f) {
  auto each = [&](auto *d, const auto *x) {
    for (int64_t k = 0; k < l.n; ++k)
      d[k] = f(x[k]);
  };
  if (l.d.isF32())
    l.a.isF32() ? each(l.d.s(), l.a.s()) : each(l.d.s(), l.a.f);
  else
    l.a.isF32() ? each(l.d.f, l.a.s()) : each(l.d.f, l.a.f);
}

template <typename F> static void floatBinary(const Lanes &l, F f) {
  assert(l.a.isF32() == l.b.isF32() && l.a.isF32() == l.d.isF32() &&
         "binary float ops have one type");
  auto each = [&](auto *d, const auto *x, const auto *y) {
    for (int64_t k = 0; k < l.n; ++k)
      d[k] = f(x[k], y[k]);
  };
  l.d.isF32() ? each(l.d.s(), l.a.s(), l.b.s()) : each(l.d.f, l.a.f, l.b.f);
}

template <typename F> static void floatToInt(const Lanes &l, F f) {
  auto each = [&](const auto *x) {
    for (int64_t k = 0; k < l.n; ++k)
      l.d.i[k] = wrapToWidth(f(x[k]), l.d.width);
  };
  l.a.isF32() ? each(l.a.s()) : each(l.a.f);
}

template <typename F> static void intToFloat(const Lanes &l, F f) {
  auto each = [&](auto *d) {
    for (int64_t k = 0; k < l.n; ++k)
      d[k] = f(l.a.i[k]);
  };
  l.d.isF32() ? each(l.d.s()) : each(l.d.f);
}

/// Evaluates `op` (any but Extract) over the lanes of `l`: one plain loop
/// per op, which the compiler vectorises.
static void evaluate(Opcode op, const Lanes &l) {
  const Register &a = l.a, &b = l.b;
  int64_t *di = l.d.i;
  unsigned w = l.d.width;
  FloatFormat format = l.d.format;
  int64_t n = l.n;
  switch (op) {
#define SCALAR_INT_UNARY(Name, Op, Expr)                                       \
  case Opcode::Name:                                                           \
    for (int64_t k = 0; k < n; ++k) {                                          \
      auto x = a.i[k];                                                         \
      di[k] = wrapToWidth((Expr), w);                                          \
    }                                                                          \
    return;
#define SCALAR_INT_BINARY(Name, Op, Expr)                                      \
  case Opcode::Name:                                                           \
    for (int64_t k = 0; k < n; ++k) {                                          \
      auto x = a.i[k];                                                         \
      auto y = b.i[k];                                                         \
      di[k] = wrapToWidth((Expr), w);                                          \
    }                                                                          \
    return;
#define SCALAR_FLOAT_UNARY(Name, Op, Expr)                                     \
  case Opcode::Name:                                                           \
    return floatUnary(l, [&](auto x) { return (Expr); });
#define SCALAR_FLOAT_MATH(Name, Op, Expr, Method)                              \
  case Opcode::Name:                                                           \
    if (l.d.isF32() && a.isF32())                                              \
      return gemmKernels().mathF32[size_t(MathFunction::Name)](a.s(), l.d.s(), \
                                                               n);             \
    return floatUnary(l, [&](auto x) { return (Expr); });
#define SCALAR_FLOAT_BINARY(Name, Op, Expr)                                    \
  case Opcode::Name:                                                           \
    return floatBinary(l, [&](auto x, auto y) { return (Expr); });
#define SCALAR_FLOAT_TO_INT(Name, Op, Expr)                                    \
  case Opcode::Name:                                                           \
    return floatToInt(l, [&](auto x) { return (Expr); });
#define SCALAR_INT_TO_FLOAT(Name, Op, Expr)                                    \
  case Opcode::Name:                                                           \
    return intToFloat(l, [&](auto x) { return (Expr); });
#define SCALAR_CUSTOM(Name, Op)                                                \
  case Opcode::Name:                                                           \
    return evaluate##Name(l);
#include "runtime/kernels/ScalarOps.def"
  case Opcode::Extract:
    break;
  }
  llvm_unreachable("table reads are evaluated by readTable");
}

/// Evaluates an Extract: each lane reads its table at the positions its
/// index registers hold, clamped into the table.
void ScalarProgram::readTable(const Instruction &in,
                              std::vector<Register> &regs, int64_t n,
                              llvm::ArrayRef<const HostBuffer *> tables) const {
  Register &d = regs[in.dst];
  const HostBuffer &t = *tables[in.a];
  llvm::ArrayRef<int64_t> shape = t.shape();
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (unsigned j = 0; j < in.b; ++j) {
      int64_t position = regs[extractIndices[in.attr + j]].i[k];
      offset =
          offset * shape[j] + std::clamp<int64_t>(position, 0, shape[j] - 1);
    }
    if (d.isF32())
      d.s()[k] = float(t.getFloat(offset));
    else if (d.isFloat)
      d.f[k] = t.getFloat(offset);
    else
      d.i[k] = t.getInt(offset);
  }
}

void ScalarProgram::execute(std::vector<Register> &regs, int64_t n,
                            llvm::ArrayRef<const HostBuffer *> tables,
                            llvm::ArrayRef<bool> part, bool inPart) const {
  for (auto [i, in] : llvm::enumerate(code)) {
    if (!part.empty() && part[i] != inPart)
      continue;
    if (in.op == Opcode::Extract) {
      readTable(in, regs, n, tables);
      continue;
    }
    evaluate(in.op,
             {regs[in.dst], regs[in.a], regs[in.b], regs[in.c], n, in.attr});
  }
}

} // namespace spmd::runtime
