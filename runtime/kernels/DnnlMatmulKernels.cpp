//===- DnnlMatmulKernels.cpp - Constant-weight GEMMs through oneDNN -------===//
//
// A contraction whose B is a constant (weights, as inference programs hold
// them) runs as oneDNN's matmul with B reordered once, when the program is
// compiled, into the blocked layout its brgemm code reads. On AVX-512 that
// code measured faster than our packed kernel at every shape tried (one
// thread, Zen 4): 1.07x at 256x1024x1024, 1.13-1.18x at 64x1024x4096, 5x
// for one row, where it reads B as it lies instead of packing it. Where
// oneDNN has no brgemm code (oneDNN 2.6 on AVX2: a jit GEMM slower than
// OpenBLAS there), and below 2^20 multiply-adds (ir/WorkingBytes.cpp), the
// contraction keeps the path's GEMM (EigenKernels.cpp).
//
//===----------------------------------------------------------------------===//

#include "ir/WorkingBytes.h"
#include "runtime/exec/HostBuffer.h"
#include "runtime/kernels/BodyPatterns.h"
#include "runtime/kernels/Contraction.h"
#include "runtime/kernels/Dnnl.h"
#include "runtime/kernels/KernelInterface.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/StructuredKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include "llvm/Support/Debug.h"

#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

#define DEBUG_TYPE "spmd-kernels"

using namespace mlir;
using dnnl::memory;

namespace spmd::runtime {

/// A matrix as oneDNN describes it: `rows` x `cols` where `m` lies.
static memory::desc describe(GemmOperand<const float> m, int64_t rows,
                             int64_t cols) {
  memory::dims strides =
      m.transposed ? memory::dims{1, m.ld} : memory::dims{m.ld, 1};
  return memory::desc({rows, cols}, memory::data_type::f32, strides);
}

namespace {
/// oneDNN's matmul of some rows.
struct MatmulPart {
  dnnl::matmul::primitive_desc desc;
  dnnl::matmul primitive;
};

/// A contraction's kernel state, shared by the devices that run it.
struct DnnlMatmul {
  /// Its sizes (m, k, n), and operand views for the path's GEMM.
  Contraction contraction;
  /// Where A and C lie in their tensors (C row-major).
  GemmOperand<const float> a;
  GemmOperand<const float> c;
  bool accumulate;
  /// What the op's working bytes allow per call, for the scratchpads of all
  /// its parts together (none for small products, which our GEMM runs
  /// faster).
  int64_t workingBytes;
  /// B in the layout oneDNN chose for the whole product.
  memory::desc packedWeights;
  std::shared_ptr<const HostBuffer> weights;
  /// "file:line:col: error: 'op': " of the op.
  std::string errorPrefix;

  /// The descriptor of `rows` rows of the product, reading B as `b`.
  dnnl::matmul::primitive_desc describeRows(int64_t rows,
                                            const memory::desc &b) const {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (accumulate) {
      dnnl::post_ops ops;
      ops.append_sum(1.0f);
      attr.set_post_ops(ops);
    }
    return dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(describe(a, rows, contraction.k), b,
                           describe(c, rows, contraction.n)),
        attr, dnnlEngine());
  }

  /// The primitive of `rows` rows, made on first use (inside
  /// onThisThreadAlone); null when oneDNN's code for it is not brgemm's or
  /// oneDNN fails to make it.
  const MatmulPart *part(int64_t rows) const {
    std::lock_guard<std::mutex> lock(partsMutex);
    auto [it, inserted] = parts.try_emplace(rows);
    if (inserted) {
      try {
        auto desc = describeRows(rows, packedWeights);
        LLVM_DEBUG(llvm::dbgs() << "oneDNN matmul of " << rows
                                << " rows: " << desc.impl_info_str() << "\n");
        if (isBrgemm(desc))
          it->second = MatmulPart{desc, dnnl::matmul(desc)};
      } catch (const std::exception &) { // dnnl::error, bad_alloc
      }
    }
    return it->second ? &*it->second : nullptr;
  }

  static bool isBrgemm(const dnnl::matmul::primitive_desc &desc) {
    return llvm::StringRef(desc.impl_info_str()).starts_with("brg");
  }

  /// Whether the parts of `parts` threads (part t the rows [m t / parts,
  /// m (t+1) / parts), as parallelFor splits them) can all be made, their
  /// scratchpads within the working bytes together.
  bool fits(int64_t parts) const {
    int64_t m = contraction.m, scratch = 0;
    for (int64_t t = 0; t < parts; ++t) {
      const MatmulPart *made = part(m * (t + 1) / parts - m * t / parts);
      if (!made)
        return false;
      scratch += made->desc.scratchpad_desc().get_size();
    }
    return scratch <= workingBytes;
  }

private:
  mutable std::mutex partsMutex;
  mutable std::map<int64_t, std::optional<MatmulPart>> parts;
};
} // namespace

/// Runs `mm` on `a` into `out` (holding the init when accumulating).
static llvm::Error run(const DnnlMatmul &mm, const HostBuffer &a,
                       HostBuffer &out, KernelThreads threads) {
  const Contraction &c = mm.contraction;
  threads = threads.atMost(c.m * c.k * c.n / kMacsPerThread).atMost(c.m);
  // Fewer parts while one cannot be made or their scratchpads pass the
  // working bytes (one part is the whole, which the build checked).
  std::optional<std::string> failure;
  for (; threads.count > 1; threads = threads.atMost(threads.count - 1)) {
    bool fits = false;
    failure = onThisThreadAlone([&] { fits = mm.fits(threads.count); });
    if (failure || fits)
      break;
  }
  std::mutex failureMutex;
  if (!failure)
    parallelFor(threads, c.m, [&](int64_t first, int64_t last) {
      std::optional<std::string> refusal = onThisThreadAlone([&] {
        const MatmulPart *part = mm.part(last - first);
        if (!part)
          throw std::runtime_error("no oneDNN code for rows " +
                                   std::to_string(first) + " to " +
                                   std::to_string(last));
        const dnnl::matmul::primitive_desc &desc = part->desc;
        HostBuffer scratch(ElementType::I8,
                           {int64_t(desc.scratchpad_desc().get_size())},
                           Init::None);
        const float *rowsOfA =
            a.as<float>() + first * (mm.a.transposed ? 1 : mm.a.ld);
        float *rowsOfC = out.as<float>() + first * mm.c.ld;
        const dnnl::engine &cpu = dnnlEngine();
        runOnThisThread(part->primitive,
                        {{DNNL_ARG_SRC, memory(desc.src_desc(), cpu,
                                               const_cast<float *>(rowsOfA))},
                         {DNNL_ARG_WEIGHTS,
                          memory(desc.weights_desc(), cpu,
                                 const_cast<float *>(mm.weights->as<float>()))},
                         {DNNL_ARG_DST, memory(desc.dst_desc(), cpu, rowsOfC)},
                         {DNNL_ARG_SCRATCHPAD, memory(desc.scratchpad_desc(),
                                                      cpu, scratch.data())}});
      });
      std::lock_guard<std::mutex> lock(failureMutex);
      if (refusal && !failure)
        failure = refusal;
    });
  if (failure)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        mm.errorPrefix + "oneDNN refused the matmul: " + *failure);
  return llvm::Error::success();
}

/// The kernel state of contraction `op`, when it is one GEMM of f32 with a
/// constant B, and oneDNN has brgemm code for it.
static std::shared_ptr<DnnlMatmul> prepare(linalg::LinalgOp op) {
  int64_t workingBytes = mlir::spmd::matmulLibraryBytes(op);
  if (workingBytes == 0)
    return nullptr;
  std::optional<Contraction> c = contractionOf(op);
  if (!c || !c->isF32 || c->batch != 1)
    return nullptr;
  std::optional<Attribute> constant = constantValueOf(op->getOperand(1));
  if (!constant)
    return nullptr;
  auto mm = std::make_shared<DnnlMatmul>();
  mm->contraction = *c;
  // Views only: the data pointers are each call's.
  std::optional<GemmOperand<const float>> a =
      matrixOf<const float>(c->a, nullptr, c->m, c->k);
  std::optional<GemmOperand<const float>> b =
      matrixOf<const float>(c->b, nullptr, c->k, c->n);
  std::optional<GemmOperand<const float>> out =
      matrixOf<const float>(c->c, nullptr, c->m, c->n);
  if (!a || !b || !out || out->transposed)
    return nullptr;
  mm->a = *a, mm->c = *out;
  mm->accumulate = !isZeroInit(op->getOperands().back());
  mm->workingBytes = workingBytes;
  mm->errorPrefix = llvm::toString(opError(op, ""));
  std::optional<std::string> failure = onThisThreadAlone([&] {
    memory::desc any({c->k, c->n}, memory::data_type::f32,
                     memory::format_tag::any);
    auto whole = mm->describeRows(c->m, any);
    if (!DnnlMatmul::isBrgemm(whole))
      throw std::runtime_error(std::string("code not taken: ") +
                               whole.impl_info_str());
    mm->packedWeights = whole.weights_desc();
    // The whole as run: with B's layout fixed, within the working bytes.
    if (!mm->fits(1))
      throw std::runtime_error("no code for B's layout, or it needs more "
                               "working bytes than priced");
    // Reordered from a copy of the constant made here, once.
    llvm::Expected<TensorRef> value =
        constantTensor(op->getOperand(1).getDefiningOp(), *constant);
    if (!value)
      throw std::runtime_error(llvm::toString(value.takeError()));
    mm->weights = reordered(describe(*b, c->k, c->n), (*value)->data(),
                            mm->packedWeights);
  });
  if (failure) {
    LLVM_DEBUG(llvm::dbgs()
               << "oneDNN declines " << *op << ": " << *failure << "\n");
    return nullptr;
  }
  return mm;
}

std::optional<KernelBuilder> dnnlMatmulKernel(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumResults() != 1)
    return std::nullopt;
  std::shared_ptr<DnnlMatmul> mm = prepare(linalgOp);
  if (!mm)
    return std::nullopt;
  return [mm](Operation *op, KernelContext &ctx) -> llvm::Expected<Step> {
    unsigned a = ctx.slot(op->getOperand(0)), b = ctx.slot(op->getOperand(1)),
             init = ctx.slot(op->getOperand(2)),
             result = ctx.slot(op->getResult(0));
    return Step([mm, a, b, init, result](Frame &frame,
                                         DeviceContext &device) -> llvm::Error {
      const HostBuffer &start = *frame.slots[init].tensor;
      auto out = std::make_shared<HostBuffer>(
          ElementType::F32, std::vector<int64_t>(start.shape()), Init::None);
      if (mm->accumulate)
        std::memcpy(out->data(), start.data(), start.sizeInBytes());
      // Fewer rows than threads: the path's GEMM splits the columns (for
      // one row on two threads, faster than oneDNN's one thread).
      const Contraction &c = mm->contraction;
      if (c.m < device.threads.atMost(c.m * c.k * c.n / kMacsPerThread).count)
        contractF32(mm->contraction, *frame.slots[a].tensor,
                    *frame.slots[b].tensor, *out, mm->accumulate,
                    device.threads);
      else if (llvm::Error err =
                   run(*mm, *frame.slots[a].tensor, *out, device.threads))
        return err;
      frame.slots[result] = RValue::ofTensor(std::move(out));
      return llvm::Error::success();
    });
  };
}

} // namespace spmd::runtime
