//===- NormalizationKernels.cpp - spmd.layer_norm -------------------------===//
//
// oneDNN's layer normalization: it reads each row once, keeps it in cache
// for the mean and the variance, and writes it once (the linalg ops it
// replaces make five passes over the tensor). Its instructions are held to
// the CPU path's (Dnnl.h). Rows of tensors of 2^17 elements or more are
// split over the device's threads, and each part runs on its calling
// thread alone: oneDNN's OpenMP runtime is held to one thread there, so
// oneDNN adds no threads to the device pool.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Dnnl.h"
#include "runtime/kernels/KernelInterface.h"
#include "runtime/kernels/Parallel.h"

#include "ir/SpmdOps.h"

#include <mutex>

using namespace mlir;

namespace spmd::runtime {

/// Normalises `rows` rows of `length` floats from `x` into `y`. Returns
/// oneDNN's message when it refuses.
static std::optional<std::string>
layerNormRows(const float *x, const float *scale, const float *shift, float *y,
              int64_t rows, int64_t length, float epsilon) {
  using namespace dnnl;
  return onThisThreadAlone([&] {
    memory::desc rowsDesc({rows, length}, memory::data_type::f32,
                          memory::format_tag::ab);
    memory::desc columnDesc({length}, memory::data_type::f32,
                            memory::format_tag::a);
    normalization_flags flags = normalization_flags::none;
    if (scale)
      flags |= normalization_flags::use_scale;
    if (shift)
      flags |= normalization_flags::use_shift;
    const engine &cpu = dnnlEngine();
    // Made again per call: oneDNN's primitive cache returns the same one.
    layer_normalization_forward primitive(
        layer_normalization_forward::primitive_desc(
            layer_normalization_forward::desc(prop_kind::forward_inference,
                                              rowsDesc, epsilon, flags),
            cpu));
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(rowsDesc, cpu, const_cast<float *>(x))},
        {DNNL_ARG_DST, memory(rowsDesc, cpu, y)}};
    if (scale)
      args.emplace(DNNL_ARG_SCALE,
                   memory(columnDesc, cpu, const_cast<float *>(scale)));
    if (shift)
      args.emplace(DNNL_ARG_SHIFT,
                   memory(columnDesc, cpu, const_cast<float *>(shift)));
    runOnThisThread(primitive, args);
  });
}

static llvm::Expected<Step> buildLayerNorm(Operation *op, KernelContext &ctx) {
  auto norm = llvm::cast<mlir::spmd::LayerNormOp>(op);
  if (!norm.getInput().getType().hasStaticShape())
    return opError(op, "needs a statically shaped tensor");
  auto slotOf = [&](Value v) {
    return v ? std::optional(ctx.slot(v)) : std::nullopt;
  };
  unsigned input = ctx.slot(norm.getInput()), result = ctx.slot(norm);
  std::optional<unsigned> scale = slotOf(norm.getScale()),
                          shift = slotOf(norm.getShift());
  float epsilon = norm.getEpsilon().convertToFloat();
  return Step([=](Frame &frame, DeviceContext &device) -> llvm::Error {
    const HostBuffer &x = *frame.slots[input].tensor;
    auto data = [&](std::optional<unsigned> slot) -> const float * {
      return slot ? frame.slots[*slot].tensor->as<float>() : nullptr;
    };
    auto out = std::make_shared<HostBuffer>(
        x.type(), std::vector<int64_t>(x.shape()), Init::None);
    int64_t length = x.shape().back();
    int64_t rows = length ? x.numElements() / length : 0;
    std::mutex failureMutex;
    std::optional<std::string> failure;
    if (rows > 0)
      parallelFor(device.threads.atMost(x.numElements() / (1 << 16)), rows,
                  [&](int64_t first, int64_t last) {
                    std::optional<std::string> refused = layerNormRows(
                        x.as<float>() + first * length, data(scale),
                        data(shift), out->as<float>() + first * length,
                        last - first, length, epsilon);
                    std::lock_guard<std::mutex> lock(failureMutex);
                    if (refused && !failure)
                      failure = refused;
                  });
    if (failure)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "oneDNN refused a layer norm of " + std::to_string(rows) +
              " rows of " + std::to_string(length) + ": " + *failure);
    frame.slots[result] = RValue::ofTensor(std::move(out));
    return llvm::Error::success();
  });
}

void registerNormalizationKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, mlir::spmd::SpmdDialect *) {
    attachKernel<buildLayerNorm, mlir::spmd::LayerNormOp>(context);
  });
}

} // namespace spmd::runtime
