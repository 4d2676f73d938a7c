//===- Executable.h - Programs compiled to steps ----------------*- C++ -*-===//
//
// A module compiled once into flat lists of steps, one per op: a kernel
// (a closure holding everything it precomputed: shapes, strides, compiled
// bodies) and the frame slots it reads and writes. Running never walks the
// IR. Each device runs the same executable with its own frame and context.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_EXECUTABLE_H
#define SPMD_RUNTIME_EXECUTABLE_H

#include "mesh/DeviceMesh.h"
#include "runtime/comm/Communicator.h"
#include "runtime/exec/HostBuffer.h"
#include "runtime/kernels/Parallel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <unordered_map>

namespace spmd::runtime {

/// A value while running: a tensor, or a scalar (integers and index as
/// int64, floats as double).
struct RValue {
  TensorRef tensor;
  bool isFloat = false;
  int64_t i = 0;
  double f = 0;

  static RValue ofTensor(TensorRef t) { return {std::move(t)}; }
  static RValue ofInt(int64_t v) { return {nullptr, false, v, 0}; }
  static RValue ofFloat(double v) { return {nullptr, true, 0, v}; }
};

struct Frame {
  std::vector<RValue> slots;
  std::vector<RValue> results; // func.return
  std::vector<RValue> yielded; // scf.yield / scf.condition of the last region
  bool condition = false;      // scf.condition
};

/// What a device knows about itself while running.
struct DeviceContext {
  int64_t device = 0;
  /// Threads a kernel may use (--threads-per-device).
  KernelThreads threads;
  Communicator *communicator = nullptr;
  /// How often each collective ran on this device (keys its meetings).
  std::unordered_map<const void *, int64_t> invocations;
};

using Step = std::function<llvm::Error(Frame &, DeviceContext &)>;
using Steps = std::vector<Step>;

class Executable;

/// Compilation state of one function, handed to kernel builders.
class KernelContext {
public:
  KernelContext(Executable &executable) : executable(executable) {}
  /// The frame slot of `value`.
  unsigned slot(mlir::Value value);
  unsigned numSlots() const { return slots.size(); }
  llvm::Expected<Steps> compileBlock(mlir::Block &block);
  Executable &exec() { return executable; }
  /// Whether `op`, the op being built, may write into `value`'s buffer
  /// (takeForWriting): it is the value's last use in its block and reads
  /// it once (not also as another operand or from a nested region).
  bool mayTake(mlir::Operation *op, mlir::Value value) const;

private:
  Executable &executable;
  llvm::DenseMap<mlir::Value, unsigned> slots;
  llvm::SmallVector<mlir::Value> dyingHere;
};

/// A buffer of `value`'s type and shape that the caller may write: the
/// tensor itself when `mayTake` (KernelContext::mayTake) and no other
/// value holds it, else a copy of it, or a fresh buffer if the caller
/// does not read its contents. Taking it updates in place what would be
/// copied whole (a slice inserted into a loop's accumulator).
TensorRef takeForWriting(RValue &value, bool mayTake,
                         bool readsContents = true);

using KernelBuilder =
    std::function<llvm::Expected<Step>(mlir::Operation *, KernelContext &)>;

class Executable {
public:
  /// Compiles `entry` and the functions it calls, or with no entry every
  /// function, of `module` (which must outlive nothing: the executable
  /// keeps no IR). A function the entry never calls may hold ops no
  /// kernel runs.
  static llvm::Expected<std::unique_ptr<Executable>>
  compile(mlir::ModuleOp module, llvm::StringRef entry = {});

  /// Runs `function` with `args` on the device of `context`.
  llvm::Expected<std::vector<RValue>> run(llvm::StringRef function,
                                          std::vector<RValue> args,
                                          DeviceContext &context) const;

  /// The mesh named `symbol`.
  const DeviceMesh *mesh(llvm::StringRef symbol) const;
  bool hasFunction(llvm::StringRef name) const { return functions.count(name); }
  /// Runs a function from inside another (func.call): same context.
  llvm::Expected<std::vector<RValue>> call(llvm::StringRef function,
                                           std::vector<RValue> args,
                                           DeviceContext &context) const {
    return run(function, std::move(args), context);
  }

private:
  struct Function {
    unsigned numSlots = 0;
    std::vector<unsigned> args;
    Steps body;
  };
  llvm::StringMap<Function> functions;
  llvm::StringMap<DeviceMesh> meshes;
};

/// Runs `steps` on `frame`, stopping at the first error.
llvm::Error runSteps(const Steps &steps, Frame &frame, DeviceContext &context);

/// The element type of an MLIR type, or an error naming it.
llvm::Expected<ElementType> elementTypeOf(mlir::Type type);
/// An error located at `op`: `file:line:col: error: 'op.name': message`.
llvm::Error opError(mlir::Operation *op, const llvm::Twine &message);
/// opError's text, for a kernel to build when compiled and report when run.
std::string opErrorText(mlir::Operation *op, const llvm::Twine &message);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_EXECUTABLE_H
