//===- ScalarProgram.cpp - Scalar op sequences run over blocks ------------===//

#include "runtime/ScalarProgram.h"
#include "ir/Locations.h"
#include "runtime/CpuPath.h"

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
  // float
  AddF,
  SubF,
  MulF,
  DivF,
  RemF,
  NegF,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  AbsF,
  Exp,
  Exp2,
  Log,
  Log2,
  Log1p,
  Tanh,
  Sqrt,
  Rsqrt,
  Pow,
  Erf,
  Sin,
  Cos,
  Floor,
  Ceil,
  RoundF,
  TruncF,
  CmpF,
  FPToSI,
  FPToUI,
  // int
  AddI,
  SubI,
  MulI,
  DivSI,
  DivUI,
  RemSI,
  RemUI,
  AndI,
  OrI,
  XOrI,
  ShLI,
  ShRSI,
  ShRUI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  CmpI,
  Ext,
  TruncI,
  SIToFP,
  UIToFP,
  AbsI,
  // either
  Select,
  Copy,
  Extract, // a = table, b = number of indices, attr = first index register
};

/// The width code of bf16 registers: it rounds differently from f16.
constexpr unsigned kBF16Width = 17;

std::pair<bool, unsigned> ScalarProgram::kindOf(Type type) {
  if (type.isBF16())
    return {true, kBF16Width};
  if (llvm::isa<FloatType>(type))
    return {true, type.getIntOrFloatBitWidth()};
  if (type.isIndex())
    return {false, 64};
  return {false, type.getIntOrFloatBitWidth()};
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

/// Rounds `v` to the precision of a float of `width` bits (16 means f16;
/// bf16 is kBF16Width).
static double roundTo(double v, int64_t width) {
  if (width == 32)
    return double(float(v));
  if (width == 16)
    return double(halfToFloat(floatToHalf(float(v))));
  if (width == kBF16Width)
    return double(bfloat16ToFloat(floatToBFloat16(float(v))));
  return v;
}

llvm::Expected<ScalarProgram> ScalarProgram::compile(
    Block &body, llvm::function_ref<std::optional<unsigned>(Value)> outer,
    llvm::function_ref<unsigned(int64_t)> index, unsigned numRegisters,
    llvm::function_ref<std::optional<unsigned>(Value)> table) {
  ScalarProgram p;
  p.registerKinds.assign(numRegisters, {true, 64});
  llvm::DenseMap<Value, unsigned> regOf;
  for (BlockArgument arg : body.getArguments()) {
    regOf[arg] = arg.getArgNumber();
    p.registerKinds[arg.getArgNumber()] = kindOf(arg.getType());
  }
  auto fail = [&](Operation *op, const Twine &why) {
    std::string location;
    llvm::raw_string_ostream os(location);
    mlir::spmd::printFileLineCol(os, op->getLoc());
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   location + ": error: " + why);
  };
  auto regFor = [&](Value v) -> std::optional<unsigned> {
    auto it = regOf.find(v);
    if (it != regOf.end())
      return it->second;
    if (std::optional<unsigned> r = outer(v)) {
      p.registerKinds[*r] = kindOf(v.getType());
      regOf[v] = *r;
      return r;
    }
    return std::nullopt;
  };
  auto newRegister = [&](Value result) {
    unsigned r = p.registerKinds.size();
    p.registerKinds.push_back(kindOf(result.getType()));
    regOf[result] = r;
    return r;
  };

  // Calls of scalar functions are compiled in place (an LSTM cell's
  // sigmoid): the callee's arguments are the call's operand registers.
  std::function<llvm::Error(Block &, unsigned)> compileOps =
      [&](Block &block, unsigned depth) -> llvm::Error {
    for (Operation &op : block.without_terminator()) {
      if (auto call = llvm::dyn_cast<func::CallOp>(op)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (!callee || callee.isExternal() ||
            !callee.getBody().hasOneBlock())
          return fail(&op, "calls a function without a single-block body");
        if (depth >= 64)
          return fail(&op, "calls nest more than 64 deep (recursion?)");
        Block &entry = callee.getBody().front();
        for (auto [arg, operand] :
             llvm::zip_equal(entry.getArguments(), call.getOperands())) {
          std::optional<unsigned> r = regFor(operand);
          if (!r)
            return fail(&op, "uses a value the kernel cannot read");
          regOf[arg] = *r;
        }
        if (llvm::Error err = compileOps(entry, depth + 1))
          return err;
        for (auto [result, returned] :
             llvm::zip_equal(call.getResults(),
                             entry.getTerminator()->getOperands())) {
          std::optional<unsigned> r = regFor(returned);
          if (!r)
            return fail(&op, "returns a value the kernel cannot read");
          regOf[result] = *r;
        }
        continue;
      }
      if (auto constant = llvm::dyn_cast<arith::ConstantOp>(op)) {
        unsigned r = newRegister(constant.getResult());
        if (auto f = llvm::dyn_cast<FloatAttr>(constant.getValue()))
          p.floatConstants.push_back({r, f.getValueAsDouble()});
        else if (auto i = llvm::dyn_cast<IntegerAttr>(constant.getValue()))
          p.intConstants.push_back({r, constant.getType().isInteger(1)
                                           ? int64_t(i.getValue().getBoolValue())
                                           : i.getValue().getSExtValue()});
        else
          return fail(&op, "unsupported constant in a kernel body");
        continue;
      }
      if (auto idx = llvm::dyn_cast<linalg::IndexOp>(op)) {
        unsigned r = index(idx.getDim());
        p.registerKinds[r] = {false, 64};
        regOf[idx.getResult()] = r;
        continue;
      }
      if (auto extract = llvm::dyn_cast<tensor::ExtractOp>(op)) {
        std::optional<unsigned> t =
            table ? table(extract.getTensor()) : std::nullopt;
        if (!t)
          return fail(&op, "reads a tensor the kernel cannot read");
        Instruction inst{Opcode::Extract, 0, *t,
                         unsigned(extract.getIndices().size())};
        inst.attr = p.extractIndices.size();
        for (Value i : extract.getIndices()) {
          std::optional<unsigned> r = regFor(i);
          if (!r)
            return fail(&op, "uses a value the kernel cannot read");
          p.extractIndices.push_back(*r);
        }
        inst.dst = newRegister(extract.getResult());
        p.code.push_back(inst);
        continue;
      }
      SmallVector<unsigned> operands;
      for (Value operand : op.getOperands()) {
        std::optional<unsigned> r = regFor(operand);
        if (!r)
          return fail(&op, "uses a value the kernel cannot read");
        operands.push_back(*r);
      }
      if (op.getNumResults() != 1)
        return fail(&op, "'" + op.getName().getStringRef() +
                             "' is not supported in kernel bodies");
      std::optional<Opcode> code =
          llvm::TypeSwitch<Operation *, std::optional<Opcode>>(&op)
              .Case([](arith::AddFOp) { return Opcode::AddF; })
              .Case([](arith::SubFOp) { return Opcode::SubF; })
              .Case([](arith::MulFOp) { return Opcode::MulF; })
              .Case([](arith::DivFOp) { return Opcode::DivF; })
              .Case([](arith::RemFOp) { return Opcode::RemF; })
              .Case([](arith::NegFOp) { return Opcode::NegF; })
              .Case([](arith::MaximumFOp) { return Opcode::MaximumF; })
              .Case([](arith::MinimumFOp) { return Opcode::MinimumF; })
              .Case([](arith::MaxNumFOp) { return Opcode::MaxNumF; })
              .Case([](arith::MinNumFOp) { return Opcode::MinNumF; })
              .Case([](math::AbsFOp) { return Opcode::AbsF; })
              .Case([](math::ExpOp) { return Opcode::Exp; })
              .Case([](math::Exp2Op) { return Opcode::Exp2; })
              .Case([](math::LogOp) { return Opcode::Log; })
              .Case([](math::Log2Op) { return Opcode::Log2; })
              .Case([](math::Log1pOp) { return Opcode::Log1p; })
              .Case([](math::TanhOp) { return Opcode::Tanh; })
              .Case([](math::SqrtOp) { return Opcode::Sqrt; })
              .Case([](math::RsqrtOp) { return Opcode::Rsqrt; })
              .Case([](math::PowFOp) { return Opcode::Pow; })
              .Case([](math::ErfOp) { return Opcode::Erf; })
              .Case([](math::SinOp) { return Opcode::Sin; })
              .Case([](math::CosOp) { return Opcode::Cos; })
              .Case([](math::FloorOp) { return Opcode::Floor; })
              .Case([](math::CeilOp) { return Opcode::Ceil; })
              .Case([](math::RoundOp) { return Opcode::RoundF; })
              .Case([](arith::TruncFOp) { return Opcode::TruncF; })
              .Case([](arith::ExtFOp) { return Opcode::Copy; })
              .Case([](arith::CmpFOp) { return Opcode::CmpF; })
              .Case([](arith::FPToSIOp) { return Opcode::FPToSI; })
              .Case([](arith::FPToUIOp) { return Opcode::FPToUI; })
              .Case([](arith::AddIOp) { return Opcode::AddI; })
              .Case([](arith::SubIOp) { return Opcode::SubI; })
              .Case([](arith::MulIOp) { return Opcode::MulI; })
              .Case([](arith::DivSIOp) { return Opcode::DivSI; })
              .Case([](arith::DivUIOp) { return Opcode::DivUI; })
              .Case([](arith::RemSIOp) { return Opcode::RemSI; })
              .Case([](arith::RemUIOp) { return Opcode::RemUI; })
              .Case([](arith::AndIOp) { return Opcode::AndI; })
              .Case([](arith::OrIOp) { return Opcode::OrI; })
              .Case([](arith::XOrIOp) { return Opcode::XOrI; })
              .Case([](arith::ShLIOp) { return Opcode::ShLI; })
              .Case([](arith::ShRSIOp) { return Opcode::ShRSI; })
              .Case([](arith::ShRUIOp) { return Opcode::ShRUI; })
              .Case([](arith::MaxSIOp) { return Opcode::MaxSI; })
              .Case([](arith::MinSIOp) { return Opcode::MinSI; })
              .Case([](arith::MaxUIOp) { return Opcode::MaxUI; })
              .Case([](arith::MinUIOp) { return Opcode::MinUI; })
              .Case([](arith::CmpIOp) { return Opcode::CmpI; })
              .Case([](arith::ExtSIOp) { return Opcode::Ext; })
              .Case([](arith::ExtUIOp) { return Opcode::Ext; })
              .Case([](arith::TruncIOp) { return Opcode::TruncI; })
              .Case([](arith::IndexCastOp) { return Opcode::Ext; })
              .Case([](arith::IndexCastUIOp) { return Opcode::Ext; })
              .Case([](arith::SIToFPOp) { return Opcode::SIToFP; })
              .Case([](arith::UIToFPOp) { return Opcode::UIToFP; })
              .Case([](math::AbsIOp) { return Opcode::AbsI; })
              .Case([](arith::SelectOp) { return Opcode::Select; })
              .Default([](Operation *) { return std::nullopt; });
      if (!code)
        return fail(&op, "'" + op.getName().getStringRef() +
                             "' is not supported in kernel bodies");
      // Operands an op lacks name its first: every instruction then reads
      // a, b and c (reads()).
      Instruction inst{*code, newRegister(op.getResult(0))};
      inst.a = operands.empty() ? 0 : operands[0];
      inst.b = operands.size() > 1 ? operands[1] : inst.a;
      inst.c = operands.size() > 2 ? operands[2] : inst.a;
      if (auto cmp = llvm::dyn_cast<arith::CmpFOp>(op))
        inst.attr = int64_t(cmp.getPredicate());
      else if (auto cmp = llvm::dyn_cast<arith::CmpIOp>(op))
        inst.attr = int64_t(cmp.getPredicate());
      else if (llvm::isa<arith::TruncFOp>(op))
        inst.attr = kindOf(op.getResult(0).getType()).second;
      else if (llvm::isa<arith::ExtUIOp, arith::IndexCastUIOp, arith::UIToFPOp,
                         arith::FPToUIOp>(op))
        inst.attr = 1; // unsigned source
      if (llvm::isa<arith::ExtUIOp, arith::IndexCastUIOp, arith::UIToFPOp>(op))
        inst.attr = p.registerKinds[inst.a].second; // source width, unsigned
      else if (llvm::isa<arith::ExtSIOp, arith::IndexCastOp, arith::SIToFPOp>(op))
        inst.attr = 0;
      p.code.push_back(inst);
      }
    return llvm::Error::success();
  };
  if (llvm::Error err = compileOps(body, 0))
    return std::move(err);
  for (Value yielded : body.getTerminator()->getOperands()) {
    std::optional<unsigned> r = regFor(yielded);
    if (!r)
      return fail(body.getTerminator(),
                  "yields a value the kernel cannot read");
    p.yields.push_back(*r);
  }
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
    regs[r].isFloat = kind.first;
    regs[r].width = kind.second;
  }
  for (auto [r, v] : floatConstants)
    std::fill(regs[r].f, regs[r].f + kBlock, v);
  for (auto [r, v] : intConstants)
    std::fill(regs[r].i, regs[r].i + kBlock, v);
}

/// out[k] = x[k] <p> y[k]. Each predicate is its own loop of plain C++
/// comparisons (false on NaN except !=), which the compiler vectorises.
static void compareFloats(arith::CmpFPredicate p, const double *x,
                          const double *y, int64_t *out, int64_t n) {
  using P = arith::CmpFPredicate;
  auto each = [&](auto predicate) {
    for (int64_t k = 0; k < n; ++k)
      out[k] = predicate(x[k], y[k]);
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
                        llvm::ArrayRef<const HostTensor *> tables,
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

void ScalarProgram::execute(std::vector<Register> &regs, int64_t n,
                            llvm::ArrayRef<const HostTensor *> tables,
                            llvm::ArrayRef<bool> part, bool inPart) const {
  for (auto [i, in] : llvm::enumerate(code)) {
    if (!part.empty() && part[i] != inPart)
      continue;
    Register &d = regs[in.dst];
    const Register &a = regs[in.a];
    const Register &b = regs[in.b];
    const Register &c = regs[in.c];
    double *df = d.f;
    int64_t *di = d.i;
    unsigned w = d.width;
#define FLOAT1(expr)                                                           \
  for (int64_t k = 0; k < n; ++k) {                                            \
    double x = a.f[k];                                                         \
    (void)x;                                                                   \
    df[k] = (expr);                                                            \
  }                                                                            \
  break;
#define FLOAT2(expr)                                                           \
  for (int64_t k = 0; k < n; ++k) {                                            \
    double x = a.f[k], y = b.f[k];                                             \
    df[k] = (expr);                                                            \
  }                                                                            \
  break;
#define INT2(expr)                                                             \
  for (int64_t k = 0; k < n; ++k) {                                            \
    int64_t x = a.i[k], y = b.i[k];                                            \
    di[k] = wrapToWidth((expr), w);                                            \
  }                                                                            \
  break;
    switch (in.op) {
    case Opcode::AddF:
      FLOAT2(x + y)
    case Opcode::SubF:
      FLOAT2(x - y)
    case Opcode::MulF:
      FLOAT2(x * y)
    case Opcode::DivF:
      FLOAT2(x / y)
    case Opcode::RemF:
      FLOAT2(std::fmod(x, y))
    case Opcode::NegF:
      FLOAT1(-x)
    case Opcode::MaximumF:
      FLOAT2(std::isnan(x) || std::isnan(y) ? NAN : (x > y ? x : y))
    case Opcode::MinimumF:
      FLOAT2(std::isnan(x) || std::isnan(y) ? NAN : (x < y ? x : y))
    case Opcode::MaxNumF:
      FLOAT2(std::fmax(x, y))
    case Opcode::MinNumF:
      FLOAT2(std::fmin(x, y))
    case Opcode::AbsF:
      FLOAT1(std::fabs(x))
    case Opcode::Exp:
      FLOAT1(std::exp(x))
    case Opcode::Exp2:
      FLOAT1(std::exp2(x))
    case Opcode::Log:
      FLOAT1(std::log(x))
    case Opcode::Log2:
      FLOAT1(std::log2(x))
    case Opcode::Log1p:
      FLOAT1(std::log1p(x))
    case Opcode::Tanh:
      FLOAT1(std::tanh(x))
    case Opcode::Sqrt:
      FLOAT1(std::sqrt(x))
    case Opcode::Rsqrt:
      FLOAT1(1.0 / std::sqrt(x))
    case Opcode::Pow:
      FLOAT2(std::pow(x, y))
    case Opcode::Erf:
      FLOAT1(std::erf(x))
    case Opcode::Sin:
      FLOAT1(std::sin(x))
    case Opcode::Cos:
      FLOAT1(std::cos(x))
    case Opcode::Floor:
      FLOAT1(std::floor(x))
    case Opcode::Ceil:
      FLOAT1(std::ceil(x))
    case Opcode::RoundF:
      FLOAT1(std::round(x))
    case Opcode::TruncF:
      FLOAT1(roundTo(x, in.attr))
    case Opcode::CmpF:
      compareFloats(arith::CmpFPredicate(in.attr), a.f, b.f, di, n);
      break;
    case Opcode::FPToSI:
      for (int64_t k = 0; k < n; ++k)
        di[k] = wrapToWidth(toIntSaturating(a.f[k]), w);
      break;
    case Opcode::FPToUI:
      for (int64_t k = 0; k < n; ++k)
        di[k] = wrapToWidth(toUnsignedBits(a.f[k]), w);
      break;
    case Opcode::AddI:
      INT2(int64_t(uint64_t(x) + uint64_t(y)))
    case Opcode::SubI:
      INT2(int64_t(uint64_t(x) - uint64_t(y)))
    case Opcode::MulI:
      INT2(int64_t(uint64_t(x) * uint64_t(y)))
    case Opcode::DivSI:
      // x / -1 is -x: the one quotient that overflows (INT64_MIN / -1
      // traps in C++), wrapped as the width's does. / 0 is undefined.
      INT2(y == 0 ? 0 : y == -1 ? int64_t(0 - uint64_t(x)) : x / y)
    case Opcode::DivUI:
      INT2(y == 0 ? 0 : int64_t(unsignedOf(x, w) / unsignedOf(y, w)))
    case Opcode::RemSI:
      INT2(y == 0 || y == -1 ? 0 : x % y)
    case Opcode::RemUI:
      INT2(y == 0 ? 0 : int64_t(unsignedOf(x, w) % unsignedOf(y, w)))
    case Opcode::AndI:
      INT2(x & y)
    case Opcode::OrI:
      INT2(x | y)
    case Opcode::XOrI:
      INT2(x ^ y)
    // Shift amounts are unsigned; shifting by the width or more gives poison,
    // here 0 (or the sign for shrsi).
    case Opcode::ShLI:
      INT2(unsignedOf(y, w) >= w ? 0 : int64_t(uint64_t(x) << y))
    case Opcode::ShRSI:
      INT2(x >> std::min<uint64_t>(unsignedOf(y, w), 63))
    case Opcode::ShRUI:
      INT2(unsignedOf(y, w) >= w ? 0 : int64_t(unsignedOf(x, w) >> y))
    case Opcode::MaxSI:
      INT2(std::max(readSigned(x, w), readSigned(y, w)))
    case Opcode::MinSI:
      INT2(std::min(readSigned(x, w), readSigned(y, w)))
    case Opcode::MaxUI:
      INT2(unsignedOf(x, w) > unsignedOf(y, w) ? x : y)
    case Opcode::MinUI:
      INT2(unsignedOf(x, w) < unsignedOf(y, w) ? x : y)
    case Opcode::CmpI:
      for (int64_t k = 0; k < n; ++k)
        di[k] =
            compareInt(arith::CmpIPredicate(in.attr), a.i[k], b.i[k], a.width);
      break;
    case Opcode::Ext:
      // attr: the source width when the source is read unsigned.
      for (int64_t k = 0; k < n; ++k)
        di[k] = wrapToWidth(in.attr ? int64_t(unsignedOf(a.i[k], in.attr))
                                    : readSigned(a.i[k], a.width),
                            w);
      break;
    case Opcode::TruncI:
      for (int64_t k = 0; k < n; ++k)
        di[k] = wrapToWidth(a.i[k], w);
      break;
    case Opcode::SIToFP:
      for (int64_t k = 0; k < n; ++k)
        df[k] = roundTo(double(readSigned(a.i[k], a.width)), w);
      break;
    case Opcode::UIToFP:
      for (int64_t k = 0; k < n; ++k)
        df[k] = roundTo(double(unsignedOf(a.i[k], in.attr)), w);
      break;
    case Opcode::AbsI:
      for (int64_t k = 0; k < n; ++k)
        di[k] =
            wrapToWidth(a.i[k] < 0 ? int64_t(0 - uint64_t(a.i[k])) : a.i[k], w);
      break;
    case Opcode::Select:
      // Both values are read before choosing: a blend, not a branch.
      if (d.isFloat)
        for (int64_t k = 0; k < n; ++k) {
          double x = b.f[k], y = c.f[k];
          df[k] = a.i[k] ? x : y;
        }
      else
        for (int64_t k = 0; k < n; ++k) {
          int64_t x = b.i[k], y = c.i[k];
          di[k] = a.i[k] ? x : y;
        }
      break;
    case Opcode::Copy:
      if (d.isFloat)
        std::copy(a.f, a.f + n, df);
      else
        std::copy(a.i, a.i + n, di);
      break;
    case Opcode::Extract: {
      const HostTensor &t = *tables[in.a];
      llvm::ArrayRef<int64_t> shape = t.shape();
      for (int64_t k = 0; k < n; ++k) {
        int64_t offset = 0;
        for (unsigned j = 0; j < in.b; ++j) {
          int64_t position = regs[extractIndices[in.attr + j]].i[k];
          offset = offset * shape[j] +
                   std::clamp<int64_t>(position, 0, shape[j] - 1);
        }
        if (d.isFloat)
          df[k] = t.getFloat(offset);
        else
          di[k] = t.getInt(offset);
      }
      break;
    }
    }
#undef FLOAT1
#undef FLOAT2
#undef INT2
  }
}

} // namespace spmd::runtime
