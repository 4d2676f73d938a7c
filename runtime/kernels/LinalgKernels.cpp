//===- LinalgKernels.cpp - Structured ops ---------------------------------===//
//
// One evaluator runs every linalg structured op from its indexing maps and
// body: the body is a ScalarProgram, and the iteration space is walked with
// one parallel loop in blocks of kBlock lanes (so lanes write distinct output
// elements and reductions stay sequential), the others one point at a time.
// Operand element offsets are affine in the loop indices, so each operand
// needs only a base offset and one stride per loop. Ops with a specialised
// kernel (contractions, convolutions, data movement, reductions, windows)
// never come here: the model of every structured op tries those first
// (StructuredKernels.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/CpuPath.h"
#include "runtime/kernels/KernelInterface.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/ScalarProgram.h"
#include "runtime/kernels/StructuredKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include "llvm/ADT/SmallBitVector.h"

#include <cstring>
#include <numeric>

using namespace mlir;

namespace spmd::runtime {

namespace {
/// How the evaluator reads or writes one operand.
struct Access {
  unsigned slot;
  bool isTensor;
  int64_t base = 0;          // element offset at loop indices 0
  std::vector<int64_t> coef; // element stride per loop
  ElementType type = ElementType::F32;
  std::vector<int64_t> shape;
};

struct StructuredKernel {
  std::vector<int64_t> ranges;
  std::vector<Access> operands; // inputs, then inits
  unsigned numInputs;
  std::vector<unsigned> results;
  /// Per output: whether its init's values matter (the body reads them, or
  /// some element is not written).
  std::vector<bool> readsInit;
  std::vector<bool> initDies; // the init's last use: written in place
  ScalarProgram program;
  std::vector<std::pair<unsigned, unsigned>> outerRegisters; // (register, slot)
  std::vector<unsigned> tableSlots; // tensors the body reads with extract
  std::vector<std::pair<unsigned, int64_t>> indexRegisters;  // (register, loop)
  int blockLoop;                                             // -1: none
  /// What is the same on every lane of a block (operands and indices that
  /// the block loop does not move, and what only they compute): it runs on
  /// lane 0, then is spread to the lanes that need it.
  ScalarProgram::Uniformity uniform;
  std::vector<bool> uniformRegisters;
};
} // namespace

/// Coefficients of an affine expression that is linear in the loops.
static std::optional<std::pair<int64_t, std::vector<int64_t>>>
linearForm(AffineExpr expr, unsigned numLoops) {
  bool linear = true;
  expr.walk([&](AffineExpr e) {
    if (e.getKind() == AffineExprKind::Mod ||
        e.getKind() == AffineExprKind::FloorDiv ||
        e.getKind() == AffineExprKind::CeilDiv)
      linear = false;
    if (auto bin = llvm::dyn_cast<AffineBinaryOpExpr>(e))
      if (e.getKind() == AffineExprKind::Mul &&
          !llvm::isa<AffineConstantExpr>(bin.getRHS()) &&
          !llvm::isa<AffineConstantExpr>(bin.getLHS()))
        linear = false;
  });
  if (!linear)
    return std::nullopt;
  auto evaluate = [&](std::vector<int64_t> point) {
    SmallVector<AffineExpr> dims;
    for (int64_t v : point)
      dims.push_back(getAffineConstantExpr(v, expr.getContext()));
    return llvm::cast<AffineConstantExpr>(
               expr.replaceDims(dims).replaceSymbols({}))
        .getValue();
  };
  std::vector<int64_t> zero(numLoops, 0);
  int64_t base = evaluate(zero);
  std::vector<int64_t> coef(numLoops);
  for (unsigned j = 0; j < numLoops; ++j) {
    std::vector<int64_t> unit = zero;
    unit[j] = 1;
    coef[j] = evaluate(unit) - base;
  }
  return std::make_pair(base, coef);
}

/// Runs the iteration space with the block loop restricted to
/// [begin, end): ranges of it write distinct output elements, so threads
/// may run disjoint ranges at once.
static void runBlockRange(const StructuredKernel &kernel, const Frame &frame,
                          llvm::ArrayRef<const HostBuffer *> tensors,
                          llvm::ArrayRef<TensorRef> outputs, int64_t begin,
                          int64_t end) {
  thread_local std::vector<Register> regs;
  kernel.program.prepare(regs);
  llvm::SmallVector<const HostBuffer *, 2> tables;
  for (unsigned slot : kernel.tableSlots)
    tables.push_back(frame.slots[slot].tensor.get());
  for (auto [reg, slot] : kernel.outerRegisters) {
    const RValue &v = frame.slots[slot];
    regs[reg].fill(0, kBlock, v.f, v.i);
  }
  size_t numLoops = kernel.ranges.size();
  int b = kernel.blockLoop;
  int64_t blockSize = b >= 0 ? kBlock : 1;
  std::vector<int64_t> idx(numLoops, 0);
  bool split = kernel.uniform.any;
  auto lanesOf = [&](unsigned reg, int64_t lanes) {
    return split && kernel.uniformRegisters[reg] ? 1 : lanes;
  };
  while (true) {
    for (int64_t t0 = begin; t0 < end; t0 += blockSize) {
      int64_t lanes = std::min(blockSize, end - t0);
      if (b >= 0)
        idx[b] = t0;
      for (size_t o = 0; o < kernel.operands.size(); ++o) {
        const Access &a = kernel.operands[o];
        if (o >= kernel.numInputs && !kernel.readsInit[o - kernel.numInputs])
          continue;
        int64_t count = lanesOf(o, lanes);
        if (!a.isTensor) {
          const RValue &v = frame.slots[a.slot];
          regs[o].fill(0, count, v.f, v.i);
          continue;
        }
        int64_t offset = a.base;
        for (size_t j = 0; j < numLoops; ++j)
          offset += a.coef[j] * idx[j];
        loadLanes(regs[o], *tensors[o], offset, b >= 0 ? a.coef[b] : 0, count,
                  /*mayView=*/o < kernel.numInputs);
      }
      for (auto [reg, loop] : kernel.indexRegisters)
        for (int64_t k = 0; k < lanesOf(reg, lanes); ++k)
          regs[reg].i[k] = idx[loop] + (int(loop) == b ? k : 0);
      if (split) {
        // What is uniform depends only on the other loops' indices: the
        // same for every block of this point, so computed and spread over
        // all lanes once, at its first block.
        if (t0 == begin) {
          kernel.program.run(regs, 1, tables, kernel.uniform.instructions,
                             true);
          for (unsigned reg : kernel.uniform.spread)
            regs[reg].spread(kBlock);
        }
        kernel.program.run(regs, lanes, tables, kernel.uniform.instructions,
                           false);
      } else {
        kernel.program.run(regs, lanes, tables);
      }
      for (size_t o = kernel.numInputs; o < kernel.operands.size(); ++o) {
        const Access &a = kernel.operands[o];
        int64_t offset = a.base;
        for (size_t j = 0; j < numLoops; ++j)
          offset += a.coef[j] * idx[j];
        storeLanes(regs[kernel.program.results()[o - kernel.numInputs]],
                   *outputs[o - kernel.numInputs], offset,
                   b >= 0 ? a.coef[b] : 0, lanes);
      }
    }
    // Next point of the other loops (odometer, last loop fastest).
    int j = int(numLoops) - 1;
    for (; j >= 0; --j) {
      if (j == b)
        continue;
      if (++idx[j] < kernel.ranges[j])
        break;
      idx[j] = 0;
    }
    if (j < 0)
      break;
  }
}

static llvm::Error runStructured(const StructuredKernel &kernel, Frame &frame,
                                 const DeviceContext &context) {
  // Outputs start as the inits: themselves where they die here, else
  // copies (or fresh buffers, where the body never reads them).
  std::vector<TensorRef> outputs;
  for (size_t o = kernel.numInputs; o < kernel.operands.size(); ++o)
    outputs.push_back(takeForWriting(frame.slots[kernel.operands[o].slot],
                                     kernel.initDies[o - kernel.numInputs],
                                     kernel.readsInit[o - kernel.numInputs]));
  std::vector<const HostBuffer *> tensors;
  for (size_t o = 0; o < kernel.operands.size(); ++o)
    tensors.push_back(
        o < kernel.numInputs
            ? (kernel.operands[o].isTensor
                   ? frame.slots[kernel.operands[o].slot].tensor.get()
                   : nullptr)
            : outputs[o - kernel.numInputs].get());
  int64_t points = 1;
  for (int64_t r : kernel.ranges)
    points *= r;
  if (points > 0) {
    int b = kernel.blockLoop;
    int64_t blockRange = b >= 0 ? kernel.ranges[b] : 1;
    // Threads take whole blocks of the block loop; small kernels stay on
    // one thread, where starting others would cost more than they save.
    constexpr int64_t kPointsPerThread = 1 << 16;
    int64_t blocks = llvm::divideCeil(blockRange, kBlock);
    KernelThreads threads = context.threads.atMost(
        b >= 0 ? std::min(blocks, points / kPointsPerThread) : 1);
    parallelFor(threads, blocks, [&](int64_t first, int64_t last) {
      onCpuPath([&] {
        runBlockRange(kernel, frame, tensors, outputs, first * kBlock,
                      std::min(last * kBlock, blockRange));
      });
      streamFence(); // streamed stores visible before the join
    });
  }
  for (auto [slot, out] : llvm::zip_equal(kernel.results, outputs))
    frame.slots[slot] = RValue::ofTensor(out);
  return llvm::Error::success();
}

/// Merges each loop into the next inner one where every operand walks the
/// two as one (its stride over the outer is the inner's stride times the
/// inner's range) and both are of one kind: the same points in the same
/// order, in fewer, longer blocks (an NHWC tensor with 64 channels is one
/// loop, not blocks of 64). Loops a body reads with linalg.index stay.
/// Returns the merged loop of each original loop; `iterators` follows.
static std::vector<int64_t>
collapseLoops(StructuredKernel &kernel,
              SmallVector<utils::IteratorType> &iterators,
              linalg::LinalgOp op) {
  size_t numLoops = kernel.ranges.size();
  llvm::SmallBitVector indexed(numLoops), joined(numLoops);
  op.getBlock()->walk(
      [&](linalg::IndexOp index) { indexed.set(index.getDim()); });
  std::vector<int64_t> target(numLoops); // the original loop each joins
  std::iota(target.begin(), target.end(), 0);
  // Walk outward; `inner` is the loop the next outer one may join.
  for (int64_t j = int64_t(numLoops) - 2, inner = j + 1; j >= 0; --j) {
    bool joins = !indexed.test(j) && !indexed.test(inner) &&
                 iterators[j] == iterators[inner];
    for (const Access &a : kernel.operands)
      joins &= a.coef[j] == a.coef[inner] * kernel.ranges[inner];
    if (!joins) {
      inner = j;
      continue;
    }
    kernel.ranges[inner] *= kernel.ranges[j];
    joined.set(j);
    target[j] = inner;
  }
  // Keep the loops that joined no other, renumbered.
  std::vector<int64_t> number(numLoops), ranges;
  SmallVector<utils::IteratorType> kept;
  for (size_t j = 0; j < numLoops; ++j)
    if (!joined.test(j)) {
      number[j] = int64_t(ranges.size());
      ranges.push_back(kernel.ranges[j]);
      kept.push_back(iterators[j]);
    }
  for (Access &a : kernel.operands) {
    std::vector<int64_t> coef;
    for (size_t j = 0; j < numLoops; ++j)
      if (!joined.test(j))
        coef.push_back(a.coef[j]);
    a.coef = std::move(coef);
  }
  std::vector<int64_t> loopOf(numLoops);
  for (size_t j = 0; j < numLoops; ++j)
    loopOf[j] = number[target[j]];
  kernel.ranges = std::move(ranges);
  iterators = std::move(kept);
  return loopOf;
}

static llvm::Expected<Step> buildStructured(Operation *op,
                                            KernelContext &context) {
  auto linalgOp = llvm::cast<linalg::LinalgOp>(op);
  auto kernel = std::make_shared<StructuredKernel>();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  kernel->ranges.assign(ranges.begin(), ranges.end());
  if (llvm::any_of(kernel->ranges, ShapedType::isDynamic))
    return opError(op, "dynamic loop ranges are not supported");
  unsigned numLoops = kernel->ranges.size();
  kernel->numInputs = linalgOp.getNumDpsInputs();
  for (OpOperand &operand : op->getOpOperands()) {
    Access access;
    access.slot = context.slot(operand.get());
    auto type = llvm::dyn_cast<RankedTensorType>(operand.get().getType());
    access.isTensor = bool(type);
    access.coef.assign(numLoops, 0);
    if (type) {
      llvm::Expected<ElementType> dtype = elementTypeOf(type.getElementType());
      if (!dtype)
        return opError(op, llvm::toString(dtype.takeError()));
      access.type = *dtype;
      access.shape.assign(type.getShape().begin(), type.getShape().end());
      std::vector<int64_t> strides(access.shape.size(), 1);
      for (int64_t d = int64_t(strides.size()) - 2; d >= 0; --d)
        strides[d] = strides[d + 1] * access.shape[d + 1];
      AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
      for (auto [r, expr] : llvm::enumerate(map.getResults())) {
        auto form = linearForm(expr, numLoops);
        if (!form)
          return opError(op, "indexing maps must be linear in the loops");
        access.base += strides[r] * form->first;
        for (unsigned j = 0; j < numLoops; ++j)
          access.coef[j] += strides[r] * form->second[j];
      }
    }
    kernel->operands.push_back(std::move(access));
  }
  for (Value result : op->getResults())
    kernel->results.push_back(context.slot(result));
  auto iterators = linalgOp.getIteratorTypesArray();
  std::vector<int64_t> loopOf = collapseLoops(*kernel, iterators, linalgOp);

  // Registers: block arguments, then values from outside, then indices.
  Block *body = linalgOp.getBlock();
  unsigned next = body->getNumArguments();
  llvm::DenseMap<Value, unsigned> outer, tables;
  llvm::DenseMap<int64_t, unsigned> indices;
  body->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (operand.getParentBlock() != body &&
          llvm::isa<TensorType>(operand.getType())) {
        if (!tables.count(operand)) {
          tables[operand] = kernel->tableSlots.size();
          kernel->tableSlots.push_back(context.slot(operand));
        }
      } else if (operand.getParentBlock() != body && !outer.count(operand)) {
        outer[operand] = next;
        kernel->outerRegisters.push_back({next++, context.slot(operand)});
      }
    if (auto index = llvm::dyn_cast<linalg::IndexOp>(inner))
      if (!indices.count(index.getDim())) {
        indices[index.getDim()] = next;
        kernel->indexRegisters.push_back({next++, loopOf[index.getDim()]});
      }
  });
  llvm::Expected<ScalarProgram> program = ScalarProgram::compile(
      *body,
      [&](Value v) -> std::optional<unsigned> {
        auto it = outer.find(v);
        return it == outer.end() ? std::nullopt
                                 : std::optional<unsigned>(it->second);
      },
      [&](int64_t dim) { return indices.lookup(dim); }, next,
      [&](Value v) -> std::optional<unsigned> {
        auto it = tables.find(v);
        return it == tables.end() ? std::nullopt
                                  : std::optional<unsigned>(it->second);
      });
  if (!program)
    return program.takeError();
  kernel->program = std::move(*program);

  // The block loop: the innermost parallel loop that moves every output.
  kernel->blockLoop = -1;
  bool allParallel = llvm::all_of(iterators, [](utils::IteratorType t) {
    return t == utils::IteratorType::parallel;
  });
  for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
    kernel->initDies.push_back(context.mayTake(op, init.get()));
    kernel->readsInit.push_back(
        !allParallel ||
        !linalgOp.getMatchingIndexingMap(&init).isPermutation() ||
        !linalgOp.getMatchingBlockArgument(&init).use_empty());
  }
  for (int j = int(kernel->ranges.size()) - 1; j >= 0; --j) {
    if (iterators[j] != utils::IteratorType::parallel)
      continue;
    bool movesOutputs = true;
    for (size_t o = kernel->numInputs; o < kernel->operands.size(); ++o)
      movesOutputs &= kernel->operands[o].coef[j] != 0;
    if (movesOutputs) {
      kernel->blockLoop = j;
      break;
    }
  }
  if (int b = kernel->blockLoop; b >= 0) {
    // Operands the block loop does not move (a row's statistic, a scalar),
    // values from outside and indices of the other loops: one per block.
    std::vector<bool> &uniform = kernel->uniformRegisters;
    uniform.assign(kernel->program.numRegisters(), false);
    for (auto [o, access] : llvm::enumerate(kernel->operands))
      uniform[o] = !access.isTensor || access.coef[b] == 0;
    for (auto [reg, slot] : kernel->outerRegisters)
      uniform[reg] = true;
    for (auto [reg, loop] : kernel->indexRegisters)
      uniform[reg] = loop != b;
    kernel->uniform = kernel->program.uniformity(uniform);
  }
  return Step([kernel](Frame &frame, DeviceContext &context) {
    return runStructured(*kernel, frame, context);
  });
}

namespace {
/// Every structured op: the first specialised kernel that recognises it,
/// else the evaluator.
template <typename OpTy>
struct StructuredKernelModel
    : KernelOpInterface::ExternalModel<StructuredKernelModel<OpTy>, OpTy> {
  llvm::Expected<Step> buildKernel(Operation *op,
                                   KernelContext &context) const {
    for (auto specialised :
         {dnnlMatmulKernel, contractionKernel, dnnlConvolutionKernel,
          convolutionKernel, layoutKernel, reductionKernel, windowKernel})
      if (std::optional<KernelBuilder> builder = specialised(op))
        return (*builder)(op, context);
    return buildStructured(op, context);
  }
};
} // namespace

template <typename... OpTys> static void attachStructured(MLIRContext *context) {
  (OpTys::template attachInterface<StructuredKernelModel<OpTys>>(*context),
   ...);
}

void registerLinalgKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachStructured<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(context);
  });
}

} // namespace spmd::runtime
