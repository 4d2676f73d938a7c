//===- ScalarProgram.h - Scalar op sequences run over blocks ----*- C++ -*-===//
//
// The body of a linalg op (or one elementwise arith/math op) compiled once
// into a list of instructions over registers. Each register holds a block of
// up to kBlock lanes, so one pass over the instructions computes kBlock
// elements: the IR is never walked at run time and the inner loops are
// plain array loops the compiler vectorises. f32 values compute in f32
// lanes, so each op rounds as f32 arithmetic does and a vector holds twice
// the lanes; other floats compute in double, integers in int64 wrapped to
// their width.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_SCALARPROGRAM_H
#define SPMD_RUNTIME_SCALARPROGRAM_H

#include "runtime/exec/HostBuffer.h"
#include "runtime/kernels/Streaming.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <algorithm>

namespace spmd::runtime {

constexpr int64_t kBlock = 256;

/// The float format of a float register: f32 lanes compute in f32; the
/// others compute in double, rounded to their format where a value is
/// converted to it (bf16 rounds differently from f16).
enum class FloatFormat : uint8_t { F16, BF16, F32, Double };

/// What a register's lanes stand for: f32 values in f32 lanes, other floats
/// computed in double and rounded to `format` when converted, or integers
/// computed in int64 and wrapped to `width` bits.
struct ElementKind {
  bool isFloat = true;
  FloatFormat format = FloatFormat::Double; // floats
  unsigned width = 64;                      // integers: bit width

  /// The kind of an MLIR scalar type.
  static ElementKind of(mlir::Type type);
  /// Whether the lanes are f32 (Register::s) rather than double (f).
  bool isF32() const { return isFloat && format == FloatFormat::F32; }
};

/// A register: a block of f32 values, of other floats or of integers.
/// Its f32 lanes are its own, or a read-only view of contiguous f32 tensor
/// elements: an operand read in place is not copied, and a copy's stores
/// would queue behind the previous block's streamed output.
struct Register : ElementKind {
  alignas(64) double f[kBlock];
  alignas(64) int64_t i[kBlock];

  /// The f32 lanes, to read.
  const float *s() const { return view ? view : ownF32; }
  /// The f32 lanes, to write: the register's own (not a view).
  float *s() {
    assert(!view && "a register viewing a tensor is written");
    return ownF32;
  }
  /// Reads `lanes` contiguous f32 values at `p` in place until the register
  /// is next filled or loaded.
  void viewF32(const float *p) { view = p; }
  /// Ends a view: the register's own lanes are written next.
  void own() { view = nullptr; }

  /// Lanes [begin, end) hold the float `v` (of the register's format) or
  /// the integer `n`, as the register's kind says.
  void fill(int64_t begin, int64_t end, double v, int64_t n) {
    assert((begin == 0 || !view) && "a partial fill keeps the other lanes");
    own();
    if (isF32())
      std::fill(ownF32 + begin, ownF32 + end, float(v));
    else if (isFloat)
      std::fill(f + begin, f + end, v);
    else
      std::fill(i + begin, i + end, n);
  }
  /// Lanes 1..lanes-1 take lane 0's value.
  void spread(int64_t lanes) { fill(0, lanes, lane(0), i[0]); }
  /// Lane `k` of a float register, as a double.
  double lane(int64_t k) const { return isF32() ? double(s()[k]) : f[k]; }

private:
  alignas(64) float ownF32[kBlock];
  const float *view = nullptr;
};

/// Reads `lanes` elements of `t` from `offset`, `stride` apart, into `reg`;
/// contiguous f32 ones in place where `mayView` (`t` is not written while
/// the register is read: an output's init is copied, since another output
/// of the block may be stored over it first).
inline void loadLanes(Register &reg, const HostBuffer &t, int64_t offset,
                      int64_t stride, int64_t lanes, bool mayView) {
  reg.own();
  if (stride == 0 && lanes > 1) { // one element on every lane: a fill
    if (reg.isF32() && t.type() == ElementType::F32)
      std::fill(reg.s(), reg.s() + lanes, t.as<float>()[offset]);
    else if (reg.isFloat)
      reg.fill(0, lanes, t.getFloat(offset), 0);
    else
      reg.fill(0, lanes, 0, t.getInt(offset));
    return;
  }
  if (reg.isF32() && t.type() == ElementType::F32) {
    const float *p = t.as<float>() + offset;
    if (stride == 1 && mayView)
      return reg.viewF32(p);
    float *s = reg.s();
    if (stride == 1) // a loop, not memmove: vectorised for the CPU path
      for (int64_t k = 0; k < lanes; ++k)
        s[k] = p[k];
    else
      for (int64_t k = 0; k < lanes; ++k)
        s[k] = p[k * stride];
  } else if (reg.isF32()) {
    float *s = reg.s();
    for (int64_t k = 0; k < lanes; ++k)
      s[k] = float(t.getFloat(offset + k * stride));
  } else if (reg.isFloat) {
    for (int64_t k = 0; k < lanes; ++k)
      reg.f[k] = t.getFloat(offset + k * stride);
  } else {
    for (int64_t k = 0; k < lanes; ++k)
      reg.i[k] = t.getInt(offset + k * stride);
  }
}

/// Writes `lanes` lanes of `reg` into `t` from `offset`, `stride` apart;
/// into a large f32 output with streaming stores (then the caller ends
/// with streamFence()).
inline void storeLanes(const Register &reg, HostBuffer &t, int64_t offset,
                       int64_t stride, int64_t lanes) {
  if (reg.isF32() && t.type() == ElementType::F32) {
    float *p = t.as<float>() + offset;
    const float *s = reg.s();
    if (stride != 1) {
      for (int64_t k = 0; k < lanes; ++k)
        p[k * stride] = s[k];
      return;
    }
#if defined(__SSE2__)
    if (t.sizeInBytes() >= kStreamingBytes &&
        reinterpret_cast<uintptr_t>(p) % 16 == 0 && lanes % 4 == 0) {
      for (int64_t k = 0; k < lanes; k += 4)
        _mm_stream_ps(p + k, _mm_loadu_ps(s + k));
      return;
    }
#endif
    for (int64_t k = 0; k < lanes; ++k)
      p[k] = s[k];
  } else if (reg.isFloat) {
    for (int64_t k = 0; k < lanes; ++k)
      t.setFloat(offset + k * stride, reg.lane(k));
  } else {
    for (int64_t k = 0; k < lanes; ++k)
      t.setInt(offset + k * stride, reg.i[k]);
  }
}

enum class Opcode : uint8_t;

struct Instruction {
  Opcode op;
  unsigned dst, a = 0, b = 0, c = 0;
  int64_t attr = 0; // a comparison's predicate; an Extract's first index
};

class ScalarProgram {
public:
  /// Compiles the ops of `body` (up to its terminator). Block arguments are
  /// registers 0..n-1. `outer(value)` gives the register index of a value
  /// defined outside the body (filled by the caller before running);
  /// `index(d)` that of `linalg.index d`.
  /// `tensor.extract` reads tensors defined outside the body (embedding
  /// tables): `table(value)` gives their position in the `tables` that
  /// `run` receives.
  static llvm::Expected<ScalarProgram>
  compile(mlir::Block &body,
          llvm::function_ref<std::optional<unsigned>(mlir::Value)> outer,
          llvm::function_ref<unsigned(int64_t)> index, unsigned numRegisters,
          llvm::function_ref<std::optional<unsigned>(mlir::Value)> table = {});

  /// A program of one elementwise op whose operands are registers
  /// 0..n-1; the result is register n.
  static llvm::Expected<ScalarProgram> compileOp(mlir::Operation *op);

  unsigned numRegisters() const { return registerKinds.size(); }
  /// The registers the terminator yields.
  llvm::ArrayRef<unsigned> results() const { return yields; }
  /// Sets register kinds (float or int, width) in `regs`.
  void prepare(std::vector<Register> &regs) const;
  /// Runs the instructions over `lanes` lanes; with `part`, only those
  /// whose entry in it is `inPart`. Reads of a table clamp each position
  /// into its bounds (out-of-bounds reads are undefined; padded iterations
  /// of partitioned programs make them).
  void run(std::vector<Register> &regs, int64_t lanes,
           llvm::ArrayRef<const HostBuffer *> tables = {},
           llvm::ArrayRef<bool> part = {}, bool inPart = true) const;

  /// The instructions computing one value for every lane when the registers
  /// marked in `uniform` (indexed by register) hold one: those reading only
  /// such registers or constants. Running them on one lane, as a layer
  /// norm's per-row scale or a broadcast bias's transform, saves the work
  /// of the other lanes.
  struct Uniformity {
    /// Per instruction: whether it is uniform.
    llvm::SmallVector<bool, 0> instructions;
    /// Uniform registers, not constants, whose lane 0 must be copied to the
    /// others before the rest runs: read by the rest, or yielded.
    std::vector<unsigned> spread;
    bool any = false;
  };
  Uniformity uniformity(std::vector<bool> uniform) const;

private:
  friend class ScalarProgramBuilder;

  /// `run` compiled for the CPU path that `run` picks.
  void execute(std::vector<Register> &regs, int64_t lanes,
               llvm::ArrayRef<const HostBuffer *> tables,
               llvm::ArrayRef<bool> part, bool inPart) const;
  /// Evaluates the table read `in` over `lanes` lanes.
  void readTable(const Instruction &in, std::vector<Register> &regs,
                 int64_t lanes,
                 llvm::ArrayRef<const HostBuffer *> tables) const;
  /// The registers instruction `in` reads.
  llvm::SmallVector<unsigned, 3> reads(const Instruction &in) const;

  std::vector<Instruction> code;
  std::vector<ElementKind> registerKinds;
  std::vector<std::pair<unsigned, double>> floatConstants;
  std::vector<std::pair<unsigned, int64_t>> intConstants;
  std::vector<unsigned> yields;
  /// Index registers of table reads (an Extract's `attr` is its first).
  std::vector<unsigned> extractIndices;
};

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_SCALARPROGRAM_H
