//===- DnnlConvolutionKernels.cpp - Convolutions through oneDNN -----------===//
//
// f32 2-D convolutions (NHWC/HWCF) and depthwise convolutions (NHWC/HWC)
// through oneDNN's direct convolutions, which read the image and write the
// result where they lie and read the filter in a blocked layout of their
// own. A constant filter is put in that layout once, when the program is
// compiled, and kept with it as constants are; any other filter is put
// there on each call, in a working buffer (ir/WorkingBytes.h prices it with
// oneDNN's scratchpad), when the image has the pixels to pay for it. The
// images, or one image's output rows, are split over the device's threads,
// each part run on its thread alone (Dnnl.h). What this kernel declines
// falls through to the im2col and window kernels.
//
//===----------------------------------------------------------------------===//

#include "ir/WorkingBytes.h"
#include "runtime/kernels/BodyPatterns.h"
#include "runtime/kernels/DestinationStep.h"
#include "runtime/kernels/Dnnl.h"
#include "runtime/kernels/ImageWindow.h"
#include "runtime/kernels/KernelInterface.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/StructuredKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/Debug.h"

#include <map>
#include <mutex>

#define DEBUG_TYPE "spmd-kernels"

using namespace mlir;
using dnnl::memory;

namespace spmd::runtime {

/// Below this many multiply-adds per thread, more threads cost more than
/// they save.
constexpr int64_t kMacsPerThread = 1 << 20;
/// A filter that is not a constant is reordered on each call only for
/// images of at least this many output pixels: below, the reorder costs
/// more than oneDNN saves (measured on ResNet-50's 7x7 and 14x14 layers).
constexpr int64_t kMinPixelsToReorder = 128;

namespace {
/// A convolution of N images, F output channels (depthwise: C), in oneDNN's
/// terms.
struct ConvProblem : ImageWindow {
  int64_t f;
  bool depthwise;

  int64_t macs() const {
    return n * pixels() * f * kh * kw * (depthwise ? 1 : c);
  }

  /// The filter as the op holds it: HWCF (hwio), or HWC for depthwise
  /// (C groups of one input and one output channel: hwigo).
  memory::desc userFilter() const {
    if (depthwise)
      return memory::desc({c, 1, 1, kh, kw}, memory::data_type::f32,
                          memory::format_tag::hwigo);
    return memory::desc({f, c, kh, kw}, memory::data_type::f32,
                        memory::format_tag::hwio);
  }

  /// `images` images from the first, or (one image) `rows` output rows: the
  /// input rows they read, and their NHWC descriptors.
  int64_t inputRows(int64_t rows) const {
    return rows == oh ? h : (rows - 1) * sh + (kh - 1) * dh + 1;
  }

  dnnl::convolution_forward::primitive_desc describe(int64_t images,
                                                     int64_t rows,
                                                     const memory::desc &filter,
                                                     bool accumulate) const {
    using namespace dnnl;
    memory::desc src({images, c, inputRows(rows), w}, memory::data_type::f32,
                     memory::format_tag::nhwc);
    memory::desc dst({images, f, rows, ow}, memory::data_type::f32,
                     memory::format_tag::nhwc);
    primitive_attr attr;
    attr.set_scratchpad_mode(scratchpad_mode::user);
    if (accumulate) {
      post_ops sum;
      sum.append_sum(1.0f);
      attr.set_post_ops(sum);
    }
    return convolution_forward::primitive_desc(
        convolution_forward::desc(
            prop_kind::forward_inference, algorithm::convolution_direct, src,
            filter, dst, {sh, sw}, {dh - 1, dw - 1}, {0, 0}, {0, 0}),
        attr, dnnlEngine());
  }
};

/// oneDNN's convolution of some images or rows.
struct Part {
  dnnl::convolution_forward::primitive_desc desc;
  dnnl::convolution_forward primitive;
  int64_t scratchBytes() const { return desc.scratchpad_desc().get_size(); }
};

static bool isReferenceLoop(const dnnl::primitive_desc_base &desc) {
  return llvm::StringRef(desc.impl_info_str()).starts_with("ref");
}

/// A convolution op's kernel state, shared by the devices that run it.
struct DnnlConvolution {
  ConvProblem problem;
  bool accumulate;
  /// The filter's blocked layout, and the filter in it when it is a constant.
  memory::desc packedFilter;
  std::shared_ptr<const HostBuffer> constantFilter;
  /// What the op's working bytes allow per call.
  int64_t workingBytes;
  /// "file:line:col: error: 'op': " of the op.
  std::string errorPrefix;

  int64_t packedFilterBytes() const {
    return constantFilter ? 0 : int64_t(packedFilter.get_size());
  }

  /// The primitive of `images` images of `rows` output rows each, with the
  /// filter layout of the whole, made on first use (inside
  /// onThisThreadAlone, so that its scratchpad is one thread's). Null when
  /// oneDNN has only its reference loop for it, or nothing.
  const Part *part(int64_t images, int64_t rows) const {
    std::lock_guard<std::mutex> lock(partsMutex);
    auto [it, inserted] = parts.try_emplace({images, rows});
    if (inserted) {
      try {
        auto desc = problem.describe(images, rows, packedFilter, accumulate);
        LLVM_DEBUG(llvm::dbgs()
                   << "oneDNN convolution of " << images << " images of "
                   << rows << " rows: " << desc.impl_info_str() << "\n");
        if (!isReferenceLoop(desc))
          it->second = Part{desc, dnnl::convolution_forward(desc)};
      } catch (const dnnl::error &) {
      }
    }
    return it->second ? &*it->second : nullptr;
  }

private:
  mutable std::mutex partsMutex;
  mutable std::map<std::pair<int64_t, int64_t>, std::optional<Part>> parts;
};
} // namespace

/// The value of `v` when a constant or a constant global's load defines it.
static std::optional<Attribute> constantValue(Value v) {
  Attribute value;
  if (matchPattern(v, m_Constant(&value)))
    return value;
  if (auto load = v.getDefiningOp<ml_program::GlobalLoadConstOp>())
    if (auto global =
            SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(
                load, load.getGlobalAttr());
        global && global.getValue())
      return *global.getValue();
  return std::nullopt;
}

static std::optional<ConvProblem> problemOf(Operation *op) {
  auto shape = [&](unsigned i) {
    return llvm::cast<RankedTensorType>(op->getOperand(i).getType()).getShape();
  };
  std::optional<ImageWindow> window;
  ConvProblem p;
  if (auto conv = llvm::dyn_cast<linalg::Conv2DNhwcHwcfOp>(op)) {
    window = imageWindowOf(conv, true, shape(1)[0], shape(1)[1]); // HWCF
    p.f = shape(1)[3];
    p.depthwise = false;
  } else if (auto conv = llvm::dyn_cast<linalg::DepthwiseConv2DNhwcHwcOp>(op)) {
    window = imageWindowOf(conv, true, shape(1)[0], shape(1)[1]); // HWC
    if (window)
      p.f = window->c;
    p.depthwise = true;
  }
  if (!window || window->n * window->pixels() == 0 || window->c == 0 ||
      p.f == 0)
    return std::nullopt;
  static_cast<ImageWindow &>(p) = *window;
  return p;
}

/// Runs `conv` on `image` (and `filter` unless constant) into `out`.
static llvm::Error run(const DnnlConvolution &conv, const HostBuffer &image,
                       const HostBuffer &filter, HostBuffer &out,
                       KernelThreads threads) {
  const ConvProblem &p = conv.problem;
  // Whole images per part, or one image's rows.
  bool byRows = p.n == 1;
  int64_t units = byRows ? p.oh : p.n;
  threads = threads.atMost(p.macs() / kMacsPerThread).atMost(units);
  const float *weights;
  std::optional<HostBuffer> packed;
  std::optional<std::string> failure;
  if (conv.constantFilter) {
    weights = conv.constantFilter->as<float>();
  } else {
    packed.emplace(ElementType::F32,
                   std::vector<int64_t>{conv.packedFilterBytes() / 4},
                   Init::None);
    weights = packed->as<float>();
    failure = onThisThreadAlone([&] {
      const dnnl::engine &cpu = dnnlEngine();
      memory from(p.userFilter(), cpu, const_cast<float *>(filter.as<float>()));
      memory to(conv.packedFilter, cpu, packed->data());
      runOnThisThread(dnnl::reorder(from, to),
                      {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
    });
  }
  // The parts' primitives, of the two sizes parallelFor makes: fewer parts
  // while oneDNN has none for one, or their scratchpads would pass the
  // working bytes (one part is the whole, which the build checked).
  auto partOf = [&](int64_t count) {
    return byRows ? conv.part(1, count) : conv.part(count, p.oh);
  };
  for (; !failure && threads.count > 1;
       threads = threads.atMost(threads.count - 1)) {
    int64_t parts = threads.count;
    bool fits = false;
    failure = onThisThreadAlone([&] {
      const Part *small = partOf(units / parts),
                 *large = partOf((units + parts - 1) / parts);
      fits =
          small && large &&
          conv.packedFilterBytes() + parts * std::max(small->scratchBytes(),
                                                      large->scratchBytes()) <=
              conv.workingBytes;
    });
    if (fits)
      break;
  }
  auto refused = [&] {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        conv.errorPrefix + "oneDNN refused the convolution: " + *failure);
  };
  if (failure)
    return refused();
  std::mutex failureMutex;
  parallelFor(threads, units, [&](int64_t first, int64_t last) {
    std::optional<std::string> refusal = onThisThreadAlone([&] {
      const Part &part = *partOf(last - first);
      HostBuffer scratch(ElementType::I8, {part.scratchBytes()}, Init::None);
      int64_t inOffset =
          byRows ? first * p.sh * p.w * p.c : first * p.h * p.w * p.c;
      int64_t outOffset = first * (byRows ? 1 : p.oh) * p.ow * p.f;
      const dnnl::convolution_forward::primitive_desc &desc = part.desc;
      const dnnl::engine &cpu = dnnlEngine();
      runOnThisThread(
          part.primitive,
          {{DNNL_ARG_SRC,
            memory(desc.src_desc(), cpu,
                   const_cast<float *>(image.as<float>()) + inOffset)},
           {DNNL_ARG_WEIGHTS,
            memory(desc.weights_desc(), cpu, const_cast<float *>(weights))},
           {DNNL_ARG_DST,
            memory(desc.dst_desc(), cpu, out.as<float>() + outOffset)},
           {DNNL_ARG_SCRATCHPAD,
            memory(desc.scratchpad_desc(), cpu, scratch.data())}});
    });
    std::lock_guard<std::mutex> lock(failureMutex);
    if (refusal && !failure)
      failure = refusal;
  });
  return failure ? refused() : llvm::Error::success();
}

std::optional<KernelBuilder> dnnlConvolutionKernel(Operation *op) {
  if (!llvm::isa<linalg::Conv2DNhwcHwcfOp, linalg::DepthwiseConv2DNhwcHwcOp>(
          op) ||
      !llvm::all_of(op->getOperandTypes(), [](Type t) {
        auto tensor = llvm::dyn_cast<RankedTensorType>(t);
        return tensor && tensor.hasStaticShape() &&
               tensor.getElementType().isF32();
      }))
    return std::nullopt;
  if (llvm::cast<linalg::LinalgOp>(op).getNumDpsInputs() != 2 ||
      !isMulAddBody(*llvm::cast<linalg::LinalgOp>(op).getBlock()))
    return std::nullopt;
  std::optional<ConvProblem> problem = problemOf(op);
  if (!problem)
    return std::nullopt;
  auto conv = std::make_shared<DnnlConvolution>();
  conv->problem = *problem;
  conv->accumulate = !isZeroInit(op->getOperands().back());
  conv->workingBytes = mlir::spmd::workingBytes(op);
  conv->errorPrefix = llvm::toString(opError(op, ""));
  std::optional<Attribute> constant = constantValue(op->getOperand(1));
  if (!constant && problem->n * problem->pixels() < kMinPixelsToReorder)
    return std::nullopt;
  // The whole problem, with the filter layout oneDNN prefers for it; its
  // own code (not a reference loop), and within the working bytes.
  std::optional<std::string> failure = onThisThreadAlone([&] {
    memory::desc any(problem->userFilter().dims(), memory::data_type::f32,
                     memory::format_tag::any);
    auto desc =
        problem->describe(problem->n, problem->oh, any, conv->accumulate);
    if (isReferenceLoop(desc))
      throw std::runtime_error(std::string("only its reference loop, ") +
                               desc.impl_info_str());
    conv->packedFilter = desc.weights_desc();
    if (!constant)
      return;
    // Reordered from a copy of the constant made here, once.
    llvm::Expected<TensorRef> value =
        constantTensor(op->getOperand(1).getDefiningOp(), *constant);
    if (!value) {
      std::string message = llvm::toString(value.takeError());
      throw std::runtime_error(message);
    }
    auto packed = std::make_shared<HostBuffer>(
        ElementType::F32,
        std::vector<int64_t>{int64_t(conv->packedFilter.get_size() / 4)},
        Init::None);
    const dnnl::engine &cpu = dnnlEngine();
    memory from(problem->userFilter(), cpu, (*value)->data());
    memory to(conv->packedFilter, cpu, packed->data());
    runOnThisThread(dnnl::reorder(from, to),
                    {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
    conv->constantFilter = std::move(packed);
  });
  if (!failure)
    failure = onThisThreadAlone([&] {
      const Part *whole = conv->part(problem->n, problem->oh);
      if (!whole)
        throw std::runtime_error("no code for the filter's layout");
      if (conv->packedFilterBytes() + whole->scratchBytes() >
          conv->workingBytes)
        throw std::runtime_error("it needs more working bytes than priced");
    });
  if (failure) {
    LLVM_DEBUG(llvm::dbgs()
               << "oneDNN declines " << *op << ": " << *failure << "\n");
    return std::nullopt;
  }
  return destinationKernel(
      conv->accumulate ? Output::CopyOfInit : Output::Uninitialized,
      [conv](llvm::ArrayRef<const HostBuffer *> in, HostBuffer &out,
             const DeviceContext &ctx) {
        return run(*conv, *in[0], *in[1], out, ctx.threads);
      });
}

} // namespace spmd::runtime
