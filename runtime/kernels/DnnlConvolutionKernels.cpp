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
// An spmd.fusion of a convolution (--spmd-fuse-convolutions) runs as one
// call: the zero pad that makes its image as the convolution's padding,
// and its elementwise reader as post-ops where they compute what the
// arith ops do (adds, subtractions, products and quotients by constants or
// by tensors), followed by at most one maximum or minimum with a constant,
// which oneDNN's post-ops compute otherwise for NaN: that one this kernel
// applies to each part's output while it is in cache. Other fusions run op
// by op.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdOps.h"
#include "ir/WorkingBytes.h"
#include "runtime/exec/TensorOps.h"
#include "runtime/kernels/BodyPatterns.h"
#include "runtime/kernels/CpuPath.h"
#include "runtime/kernels/Dnnl.h"
#include "runtime/kernels/ImageWindow.h"
#include "runtime/kernels/KernelInterface.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/StructuredKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/Debug.h"

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>

#define DEBUG_TYPE "spmd-kernels"

using namespace mlir;
using dnnl::memory;

namespace spmd::runtime {

/// A filter that is not a constant is reordered on each call only for
/// images of at least this many output pixels: below, the reorder costs
/// more than oneDNN saves (measured on ResNet-50's 7x7 and 14x14 layers).
constexpr int64_t kMinPixelsToReorder = 128;

namespace {
/// A convolution of N images, F output channels (depthwise: C), in oneDNN's
/// terms. The window's h and w are those of the padded image the op reads;
/// the source image lacks the padding.
struct ConvProblem : ImageWindow {
  int64_t f;
  bool depthwise;
  int64_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;

  int64_t sourceRows() const { return h - padTop - padBottom; }
  int64_t sourceColumns() const { return w - padLeft - padRight; }
  /// Whether the window is one pixel read with strides, with no padding.
  bool isStridedPixel() const {
    return !depthwise && kh == 1 && kw == 1 && (sh > 1 || sw > 1) &&
           padTop == 0 && padBottom == 0 && padLeft == 0 && padRight == 0;
  }
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
};

/// The source rows output rows [first, first + count) of one image read,
/// and the padding rows around them. The whole image keeps the pad's rows,
/// so that its shapes are the op's.
struct SourceRows {
  int64_t first, count, padTop, padBottom;
};

static SourceRows sourceRowsOf(const ConvProblem &p, int64_t first,
                               int64_t count) {
  int64_t begin = first * p.sh,
          end = count == p.oh
                    ? p.h
                    : (first + count - 1) * p.sh + (p.kh - 1) * p.dh + 1;
  int64_t sourceBegin =
              std::clamp<int64_t>(begin - p.padTop, 0, p.sourceRows()),
          sourceEnd = std::clamp<int64_t>(end - p.padTop, 0, p.sourceRows());
  return {sourceBegin, sourceEnd - sourceBegin,
          sourceBegin - (begin - p.padTop), (end - p.padTop) - sourceEnd};
}

/// One post-op of the elementwise reader: the running value combined with
/// a constant or with the element of another input (`input` of them).
struct PostOp {
  dnnl::algorithm algorithm;
  float constant = 0;
  std::optional<unsigned> input;
};

/// A maximum or minimum with a constant ending the reader: `value` op
/// `constant`, or the reverse, as arith computes it (ScalarOps.def).
struct Tail {
  bool isMaximum;
  bool valueFirst;
  float constant;
};

/// What the reader computes from the convolution's value.
struct Epilogue {
  std::vector<PostOp> postOps;
  std::optional<Tail> tail;
};

/// oneDNN's convolution of some images or rows.
struct ConvolutionPart {
  dnnl::convolution_forward::primitive_desc desc;
  dnnl::convolution_forward primitive;
  SourceRows rows;
  /// Whether the part reads a copy of the pixels a strided 1x1 window
  /// reads (DnnlConvolution::unitStride), of `copiedBytes`.
  bool copiesPixels = false;
  int64_t copiedBytes = 0;
  int64_t scratchBytes() const { return desc.scratchpad_desc().get_size(); }
};

/// Whether oneDNN's implementation chosen for `desc` is one to avoid: its
/// reference loop; with post-ops, oneDNN 2.6's SSE4.1 depthwise kernel (it
/// reads their operands with aligned loads at each pixel's channel tail,
/// and crashed on 5 channels); with a post-op reading a tensor, its
/// GEMM-based convolution (it read that tensor at the first pixel's offset
/// for every pixel).
static bool isAvoided(const dnnl::convolution_forward::primitive_desc &desc,
                      bool hasPostOps, bool readsTensor) {
  llvm::StringRef impl = desc.impl_info_str();
  return impl.starts_with("ref") ||
         (hasPostOps && impl.starts_with("jit_dw:sse41")) ||
         (readsTensor && impl.contains("gemm"));
}

/// A convolution's kernel state, shared by the devices that run it.
struct DnnlConvolution {
  ConvProblem problem;
  bool accumulate;
  /// A pad taken in with a filter that is not a constant: the call runs
  /// only when every weight is finite (else the ops one by one).
  bool needsFiniteFilter = false;
  Epilogue epilogue;
  /// The filter's blocked layout, and the filter in it when it is a constant.
  memory::desc packedFilter;
  std::shared_ptr<const HostBuffer> constantFilter;
  /// For a strided 1x1 window, the convolution with unit strides over the
  /// pixels it reads, copied out: for parts where oneDNN has 1x1 code only
  /// for that (oneDNN 2.6 on AVX2, for rows of an image: its general code
  /// ran at 40-65% of its 1x1 code's speed).
  std::optional<ConvProblem> unitStride;
  /// What the op's working bytes allow per call.
  int64_t workingBytes;
  /// "file:line:col: error: 'op': " of the op.
  std::string errorPrefix;

  int64_t packedFilterBytes() const {
    return constantFilter ? 0 : int64_t(packedFilter.get_size());
  }
  bool isAvoided(const dnnl::convolution_forward::primitive_desc &desc) const {
    return runtime::isAvoided(
        desc, accumulate || !epilogue.postOps.empty(),
        llvm::any_of(epilogue.postOps,
                     [](const PostOp &op) { return op.input.has_value(); }));
  }

  /// The descriptor of `p`'s `images` images from the first, or of one
  /// image's `rows` output rows from `first`, reading `filter`.
  dnnl::convolution_forward::primitive_desc
  describe(const ConvProblem &p, int64_t images, int64_t first, int64_t rows,
           const memory::desc &filter) const {
    using namespace dnnl;
    SourceRows source = sourceRowsOf(p, first, rows);
    memory::desc src({images, p.c, source.count, p.sourceColumns()},
                     memory::data_type::f32, memory::format_tag::nhwc);
    memory::desc dst({images, p.f, rows, p.ow}, memory::data_type::f32,
                     memory::format_tag::nhwc);
    memory::desc scalar({1, 1, 1, 1}, memory::data_type::f32,
                        memory::format_tag::nhwc);
    post_ops ops;
    if (accumulate)
      ops.append_sum(1.0f);
    for (const PostOp &op : epilogue.postOps)
      ops.append_binary(op.algorithm, op.input ? dst : scalar);
    primitive_attr attr;
    attr.set_scratchpad_mode(scratchpad_mode::user);
    attr.set_post_ops(ops);
    return convolution_forward::primitive_desc(
        convolution_forward::desc(
            prop_kind::forward_inference, algorithm::convolution_direct, src,
            filter, dst, {p.sh, p.sw}, {p.dh - 1, p.dw - 1},
            {source.padTop, p.padLeft}, {source.padBottom, p.padRight}),
        attr, dnnlEngine());
  }

  /// The primitive of `images` images, or of one image's `rows` rows from
  /// `first`, with the filter layout of the whole, made on first use
  /// (inside onThisThreadAlone, so that its scratchpad is one thread's).
  /// Null when oneDNN has only code to avoid for it (isAvoided), or none.
  const ConvolutionPart *part(int64_t images, int64_t first,
                              int64_t rows) const {
    std::lock_guard<std::mutex> lock(partsMutex);
    auto [it, inserted] = parts.try_emplace({images, first, rows});
    if (inserted) {
      try {
        auto desc = describe(problem, images, first, rows, packedFilter);
        // The copy, where it gets 1x1 code the strides do not (or code
        // not to avoid at all).
        auto isOneByOne = [](const auto &d) {
          return llvm::StringRef(d.impl_info_str()).contains("1x1");
        };
        bool copies = false;
        if (unitStride && (isAvoided(desc) || !isOneByOne(desc))) {
          auto copied =
              describe(*unitStride, images, first, rows, packedFilter);
          copies =
              !isAvoided(copied) && (isAvoided(desc) || isOneByOne(copied));
          if (copies)
            desc = copied;
        }
        LLVM_DEBUG(llvm::dbgs()
                   << "oneDNN convolution of " << images << " images, rows "
                   << first << " to " << first + rows
                   << (copies ? " (pixels copied)" : "") << ": "
                   << desc.impl_info_str() << "\n");
        if (!isAvoided(desc))
          it->second = ConvolutionPart{
              desc, dnnl::convolution_forward(desc),
              sourceRowsOf(copies ? *unitStride : problem, first, rows), copies,
              copies ? images * rows * problem.ow * problem.c * 4 : 0};
      } catch (const dnnl::error &) {
      }
    }
    return it->second ? &*it->second : nullptr;
  }

private:
  mutable std::mutex partsMutex;
  mutable std::map<std::tuple<int64_t, int64_t, int64_t>,
                   std::optional<ConvolutionPart>>
      parts;
};

/// The tensors a convolution's step reads and writes, as frame slots.
struct ConvSlots {
  unsigned image, filter, init, result;
  std::vector<unsigned> postOpInputs;
};
} // namespace

/// `x` op `y` as the evaluator computes arith's op (ScalarOps.def).
template <typename OpTy> static float scalarBinary(float x, float y) {
#define SCALAR_FLOAT_BINARY(Name, Op, Expr)                                    \
  if constexpr (std::is_same_v<OpTy, Op>)                                      \
    return Expr;
#include "runtime/kernels/ScalarOps.def"
  llvm_unreachable("not a float binary op of ScalarOps.def");
}

template <typename OpTy>
static void applyTail(float *values, int64_t n, float constant,
                      bool valueFirst) {
  if (valueFirst)
    for (int64_t i = 0; i < n; ++i)
      values[i] = scalarBinary<OpTy>(values[i], constant);
  else
    for (int64_t i = 0; i < n; ++i)
      values[i] = scalarBinary<OpTy>(constant, values[i]);
}

static void applyTail(const Tail &tail, float *values, int64_t n) {
  onCpuPath([&] {
    if (tail.isMaximum)
      applyTail<arith::MaximumFOp>(values, n, tail.constant, tail.valueFirst);
    else
      applyTail<arith::MinimumFOp>(values, n, tail.constant, tail.valueFirst);
  });
}

/// The pixels a strided 1x1 window of `p` reads in `images` images from
/// `first`, output rows [firstRow, firstRow + rows), in that order.
static HostBuffer copyStridedPixels(const ConvProblem &p, const float *in,
                                    int64_t firstImage, int64_t images,
                                    int64_t firstRow, int64_t rows) {
  HostBuffer pixels(ElementType::F32, {images * rows * p.ow * p.c}, Init::None);
  float *to = pixels.as<float>();
  for (int64_t i = firstImage; i < firstImage + images; ++i)
    for (int64_t r = firstRow; r < firstRow + rows; ++r)
      for (int64_t x = 0; x < p.ow; ++x, to += p.c)
        std::memcpy(to, in + ((i * p.h + r * p.sh) * p.w + x * p.sw) * p.c,
                    p.c * sizeof(float));
  return pixels;
}

/// Runs `conv` on the frame's tensors into `out`.
static llvm::Error run(const DnnlConvolution &conv, const ConvSlots &slots,
                       const Frame &frame, HostBuffer &out,
                       KernelThreads threads) {
  const ConvProblem &p = conv.problem;
  const HostBuffer &image = *frame.slots[slots.image].tensor;
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
    const HostBuffer &filter = *frame.slots[slots.filter].tensor;
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
  // parallelFor gives part t the units [units t / parts, units (t+1) / parts)
  // (or all of them, nested in another kernel's part).
  auto partOf = [&](int64_t first, int64_t last) {
    return byRows ? conv.part(1, first, last - first)
                  : conv.part(last - first, 0, p.oh);
  };
  // Fewer parts while oneDNN has no code for one, or their scratchpads would
  // pass the working bytes (one part is the whole, which the build checked).
  for (; !failure && threads.count > 1;
       threads = threads.atMost(threads.count - 1)) {
    int64_t parts = threads.count;
    bool fits = true;
    failure = onThisThreadAlone([&] {
      int64_t working = 0; // scratchpads and copied pixels
      for (int64_t t = 0; t < parts && fits; ++t) {
        const ConvolutionPart *part =
            partOf(units * t / parts, units * (t + 1) / parts);
        fits = part != nullptr;
        working += part ? part->scratchBytes() + part->copiedBytes : 0;
      }
      fits = fits && conv.packedFilterBytes() + working <= conv.workingBytes;
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
      const ConvolutionPart *found = partOf(first, last);
      if (!found) // a split other than the one checked above
        throw std::runtime_error("no oneDNN code for rows or images " +
                                 std::to_string(first) + " to " +
                                 std::to_string(last));
      const ConvolutionPart &part = *found;
      HostBuffer scratch(ElementType::I8, {part.scratchBytes()}, Init::None);
      int64_t rowElements = p.sourceColumns() * p.c;
      const float *source =
          image.as<float>() + (byRows ? part.rows.first * rowElements
                                      : first * p.sourceRows() * rowElements);
      std::optional<HostBuffer> pixels;
      if (part.copiesPixels) {
        pixels = byRows ? copyStridedPixels(p, image.as<float>(), 0, 1, first,
                                            last - first)
                        : copyStridedPixels(p, image.as<float>(), first,
                                            last - first, 0, p.oh);
        source = pixels->as<float>();
      }
      int64_t outOffset = first * (byRows ? 1 : p.oh) * p.ow * p.f;
      int64_t outElements = (last - first) * (byRows ? 1 : p.oh) * p.ow * p.f;
      const dnnl::convolution_forward::primitive_desc &desc = part.desc;
      const dnnl::engine &cpu = dnnlEngine();
      std::unordered_map<int, memory> args = {
          {DNNL_ARG_SRC,
           memory(desc.src_desc(), cpu, const_cast<float *>(source))},
          {DNNL_ARG_WEIGHTS,
           memory(desc.weights_desc(), cpu, const_cast<float *>(weights))},
          {DNNL_ARG_DST,
           memory(desc.dst_desc(), cpu, out.as<float>() + outOffset)},
          {DNNL_ARG_SCRATCHPAD,
           memory(desc.scratchpad_desc(), cpu, scratch.data())}};
      // The sum, when there is one, is post-op 0.
      int index = conv.accumulate ? 1 : 0;
      memory::desc scalar({1, 1, 1, 1}, memory::data_type::f32,
                          memory::format_tag::nhwc);
      for (const PostOp &op : conv.epilogue.postOps) {
        float *operand =
            op.input
                ? const_cast<float *>(frame.slots[slots.postOpInputs[*op.input]]
                                          .tensor->as<float>()) +
                      outOffset
                : const_cast<float *>(&op.constant);
        args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(index++) | DNNL_ARG_SRC_1,
                     memory(op.input ? desc.dst_desc() : scalar, cpu, operand));
      }
      runOnThisThread(part.primitive, args);
      if (conv.epilogue.tail)
        applyTail(*conv.epilogue.tail, out.as<float>() + outOffset,
                  outElements);
    });
    std::lock_guard<std::mutex> lock(failureMutex);
    if (refusal && !failure)
      failure = refusal;
  });
  return failure ? refused() : llvm::Error::success();
}

/// The convolution `op`, reading the image `pad` pads (if any).
static std::optional<ConvProblem> problemOf(Operation *op, tensor::PadOp pad) {
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
  if (pad) {
    // The fusion pass took pads of rows and columns only.
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    p.padTop = low[1], p.padLeft = low[2];
    p.padBottom = high[1], p.padRight = high[2];
    if (p.sourceRows() <= 0 || p.sourceColumns() <= 0)
      return std::nullopt;
  }
  return p;
}

/// The f32 scalar `v` holds when a constant defines it.
static std::optional<float> constantScalar(Value v) {
  FloatAttr value;
  if (!v.getType().isF32() || !matchPattern(v, m_Constant(&value)))
    return std::nullopt;
  return value.getValue().convertToFloat();
}

/// The post-ops computing `reader`'s result from the convolution's value,
/// its input `convInput`; `tensors` receives the other inputs they read.
static std::optional<Epilogue> epilogueOf(linalg::GenericOp reader,
                                          unsigned convInput,
                                          SmallVector<Value> &tensors) {
  Block &body = *reader.getBlock();
  if (!body.getArgument(reader.getNumDpsInputs()).use_empty())
    return std::nullopt; // it reads its init
  Epilogue epilogue;
  Value value = body.getArgument(convInput);
  size_t chained = 0;
  while (true) {
    if (!value.hasOneUse())
      return std::nullopt;
    Operation *op = *value.getUsers().begin();
    if (llvm::isa<linalg::YieldOp>(op))
      break;
    if (op->getNumOperands() != 2 || epilogue.tail ||
        !op->getResult(0).getType().isF32())
      return std::nullopt;
    bool valueFirst = op->getOperand(0) == value;
    Value other = op->getOperand(valueFirst ? 1 : 0);
    std::optional<float> constant = constantScalar(other);
    auto argument = llvm::dyn_cast<BlockArgument>(other);
    if (llvm::isa<arith::MaximumFOp, arith::MinimumFOp>(op)) {
      if (!constant)
        return std::nullopt;
      epilogue.tail =
          Tail{llvm::isa<arith::MaximumFOp>(op), valueFirst, *constant};
    } else {
      PostOp postOp;
      if (llvm::isa<arith::AddFOp>(op))
        postOp.algorithm = dnnl::algorithm::binary_add;
      else if (llvm::isa<arith::MulFOp>(op))
        postOp.algorithm = dnnl::algorithm::binary_mul;
      else if (llvm::isa<arith::SubFOp>(op) && valueFirst)
        postOp.algorithm = dnnl::algorithm::binary_sub;
      else if (llvm::isa<arith::DivFOp>(op) && valueFirst)
        postOp.algorithm = dnnl::algorithm::binary_div;
      else
        return std::nullopt;
      if (constant) {
        postOp.constant = *constant;
      } else if (argument && argument.getOwner() == &body &&
                 argument.getArgNumber() < reader.getNumDpsInputs() &&
                 argument.getArgNumber() != convInput) {
        postOp.input = tensors.size();
        tensors.push_back(reader.getDpsInputs()[argument.getArgNumber()]);
      } else {
        return std::nullopt;
      }
      epilogue.postOps.push_back(postOp);
    }
    value = op->getResult(0);
    ++chained;
  }
  // Nothing else in the body but constants.
  size_t constants = llvm::count_if(
      body, [](Operation &op) { return llvm::isa<arith::ConstantOp>(op); });
  if (chained + constants + 1 != body.getOperations().size())
    return std::nullopt;
  return epilogue;
}

/// The kernel state of convolution `op` (reading the image `pad` pads, its
/// result read by `epilogue`), when oneDNN takes it.
static std::shared_ptr<DnnlConvolution>
prepare(Operation *op, tensor::PadOp pad, Epilogue epilogue) {
  std::optional<ConvProblem> problem = problemOf(op, pad);
  if (!problem)
    return nullptr;
  auto conv = std::make_shared<DnnlConvolution>();
  conv->problem = *problem;
  if (problem->isStridedPixel()) {
    ConvProblem unit = *problem;
    unit.h = unit.oh, unit.w = unit.ow;
    unit.sh = unit.sw = unit.dh = unit.dw = 1;
    conv->unitStride = unit;
  }
  conv->accumulate = !isZeroInit(op->getOperands().back());
  conv->epilogue = std::move(epilogue);
  conv->workingBytes = mlir::spmd::workingBytes(op);
  conv->errorPrefix = llvm::toString(opError(op, ""));
  std::optional<Attribute> constant = constantValueOf(op->getOperand(1));
  if (!constant && problem->n * problem->pixels() < kMinPixelsToReorder)
    return nullptr;
  // oneDNN skips the taps that fall on padding, where the pad's zeros
  // times a NaN or infinite weight give NaN, and where adding their +0.0
  // makes an init's -0.0 +0.0: a pad is taken in only with no init, and a
  // filter of finite weights (a constant's checked below, others on each
  // call).
  if (pad && conv->accumulate)
    return nullptr;
  conv->needsFiniteFilter = pad && !constant;
  // The whole problem, with the filter layout oneDNN prefers for it; its
  // own code (isAvoided), and within the working bytes.
  std::optional<std::string> failure = onThisThreadAlone([&] {
    memory::desc any(problem->userFilter().dims(), memory::data_type::f32,
                     memory::format_tag::any);
    auto desc = conv->describe(*problem, problem->n, 0, problem->oh, any);
    if (conv->isAvoided(desc))
      throw std::runtime_error(std::string("only code to avoid: ") +
                               desc.impl_info_str());
    conv->packedFilter = desc.weights_desc();
    const ConvolutionPart *whole = conv->part(problem->n, 0, problem->oh);
    if (!whole)
      throw std::runtime_error("no code for the filter's layout");
    int64_t reorderBytes = constant ? 0 : conv->packedFilter.get_size();
    if (reorderBytes + whole->scratchBytes() + whole->copiedBytes >
        conv->workingBytes)
      throw std::runtime_error("it needs more working bytes than priced");
    if (!constant)
      return;
    // Reordered from a copy of the constant made here, once.
    llvm::Expected<TensorRef> value =
        constantTensor(op->getOperand(1).getDefiningOp(), *constant);
    if (!value) {
      std::string message = llvm::toString(value.takeError());
      throw std::runtime_error(message);
    }
    const float *weights = (*value)->as<float>();
    if (pad && !std::all_of(weights, weights + (*value)->numElements(),
                            [](float x) { return std::isfinite(x); }))
      throw std::runtime_error("a weight that is not finite, and a pad");
    conv->constantFilter =
        reordered(problem->userFilter(), (*value)->data(), conv->packedFilter);
  });
  if (failure) {
    LLVM_DEBUG(llvm::dbgs()
               << "oneDNN declines " << *op << ": " << *failure << "\n");
    return nullptr;
  }
  return conv;
}

/// Whether every f32 of `t` is finite (exponent bits not all ones: integer
/// compares, which vectorise).
static bool allFinite(const HostBuffer &t) {
  const uint32_t *bits = reinterpret_cast<const uint32_t *>(t.data());
  int64_t n = t.numElements();
  uint32_t special = 0;
  onCpuPath([&] {
    for (int64_t i = 0; i < n; ++i)
      special |= uint32_t((bits[i] & 0x7f800000u) == 0x7f800000u);
  });
  return special == 0;
}

/// The step running `conv`: `op`'s image (or the source `pad` pads), filter
/// and init, and `tensors` for its post-ops, into `result`; or `byOps` (the
/// fusion's ops one by one) for a filter the call cannot take.
static Step stepOf(std::shared_ptr<DnnlConvolution> conv, Operation *op,
                   tensor::PadOp pad, ArrayRef<Value> tensors, Value result,
                   KernelContext &ctx, Step byOps = nullptr) {
  ConvSlots slots;
  slots.image = ctx.slot(pad ? pad.getSource() : op->getOperand(0));
  slots.filter = ctx.slot(op->getOperand(1));
  slots.init = ctx.slot(op->getOperand(2));
  slots.result = ctx.slot(result);
  for (Value tensor : tensors)
    slots.postOpInputs.push_back(ctx.slot(tensor));
  auto type = llvm::cast<RankedTensorType>(result.getType());
  std::vector<int64_t> shape(type.getShape());
  assert((!conv->needsFiniteFilter || byOps) && "no step for other filters");
  return [conv, slots, shape, byOps](Frame &frame,
                                     DeviceContext &device) -> llvm::Error {
    if (conv->needsFiniteFilter &&
        !allFinite(*frame.slots[slots.filter].tensor))
      return byOps(frame, device);
    // Without accumulation the init is not read (nor, in a fusion, made).
    auto out =
        std::make_shared<HostBuffer>(ElementType::F32, shape, Init::None);
    if (conv->accumulate) {
      const HostBuffer &start = *frame.slots[slots.init].tensor;
      std::memcpy(out->data(), start.data(), start.sizeInBytes());
    }
    if (llvm::Error err = run(*conv, slots, frame, *out, device.threads))
      return err;
    frame.slots[slots.result] = RValue::ofTensor(std::move(out));
    return llvm::Error::success();
  };
}

std::optional<KernelBuilder> dnnlConvolutionKernel(Operation *op) {
  std::shared_ptr<DnnlConvolution> conv = prepare(op, nullptr, Epilogue());
  if (!conv)
    return std::nullopt;
  return [conv](Operation *op, KernelContext &ctx) -> llvm::Expected<Step> {
    return stepOf(conv, op, nullptr, {}, op->getResult(0), ctx);
  };
}

/// A fusion of a convolution, its pad and its elementwise reader
/// (--spmd-fuse-convolutions) as one oneDNN call, or its ops one by one.
static llvm::Expected<Step> buildFusion(Operation *op, KernelContext &ctx) {
  auto fusion = llvm::cast<mlir::spmd::FusionOp>(op);
  Block &body = fusion.getBody().front();
  tensor::PadOp pad;
  Operation *conv = nullptr;
  linalg::GenericOp reader;
  linalg::FillOp fill;
  for (Operation &inner : body.without_terminator()) {
    if (auto f = llvm::dyn_cast<linalg::FillOp>(inner); f && !conv && !fill)
      fill = f;
    else if (auto p = llvm::dyn_cast<tensor::PadOp>(inner); p && !conv && !pad)
      pad = p;
    else if (!conv && llvm::isa<linalg::Conv2DNhwcHwcfOp,
                                linalg::DepthwiseConv2DNhwcHwcOp>(inner))
      conv = &inner;
    else if (auto g = llvm::dyn_cast<linalg::GenericOp>(inner);
             g && conv && !reader)
      reader = g;
    else
      return buildRegionKernel(op, ctx);
  }
  Value last =
      reader ? reader->getResult(0) : (conv ? conv->getResult(0) : Value());
  // A fill inside is the zero init the kernel does without.
  if (!conv || (pad && conv->getOperand(0) != pad.getResult()) ||
      (fill &&
       (conv->getOperand(2) != fill.result() || !isZeroInit(fill.result()))) ||
      fusion->getNumResults() != 1 ||
      body.getTerminator()->getOperand(0) != last)
    return buildRegionKernel(op, ctx);
  Epilogue epilogue;
  SmallVector<Value> tensors;
  if (reader) {
    std::optional<Epilogue> read;
    for (auto [i, input] : llvm::enumerate(reader.getDpsInputs()))
      if (input == conv->getResult(0))
        read = epilogueOf(reader, i, tensors);
    if (!read)
      return buildRegionKernel(op, ctx);
    epilogue = std::move(*read);
  }
  std::shared_ptr<DnnlConvolution> kernel =
      prepare(conv, pad, std::move(epilogue));
  if (!kernel)
    return buildRegionKernel(op, ctx);
  Step byOps;
  if (kernel->needsFiniteFilter) {
    llvm::Expected<Step> ops = buildRegionKernel(op, ctx);
    if (!ops)
      return ops.takeError();
    byOps = std::move(*ops);
  }
  return stepOf(std::move(kernel), conv, pad, tensors, fusion->getResult(0),
                ctx, std::move(byOps));
}

void registerConvolutionKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, mlir::spmd::SpmdDialect *) {
    attachKernel<buildFusion, mlir::spmd::FusionOp>(context);
  });
}

} // namespace spmd::runtime
