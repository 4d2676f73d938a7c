//===- CustomKernelModel.cpp - How the executor runs sum_squares ----------===//

#include "CustomDialect.h"

#include "runtime/kernels/KernelInterface.h"

using namespace mlir;
using namespace spmd::runtime;

namespace {
struct SumSquaresKernel
    : KernelOpInterface::ExternalModel<SumSquaresKernel,
                                       custom::SumSquaresOp> {
  llvm::Expected<Step> buildKernel(Operation *op,
                                   KernelContext &context) const {
    auto sum = llvm::cast<custom::SumSquaresOp>(op);
    unsigned input = context.slot(sum.getInput());
    unsigned result = context.slot(sum.getResult());
    std::vector<int64_t> shape(sum.getResult().getType().getShape());
    int64_t length = sum.getInput().getType().getShape().back();
    return Step([=](Frame &frame, DeviceContext &) -> llvm::Error {
      const float *x = frame.slots[input].tensor->as<float>();
      auto out = std::make_shared<HostBuffer>(ElementType::F32, shape);
      float *n = out->as<float>();
      for (int64_t row = 0; row < out->numElements(); ++row) {
        double total = 0;
        for (int64_t j = 0; j < length; ++j)
          total += double(x[row * length + j]) * x[row * length + j];
        n[row] = float(total);
      }
      frame.slots[result] = RValue::ofTensor(std::move(out));
      return llvm::Error::success();
    });
  }
};
} // namespace

void custom::registerKernelModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, CustomDialect *) {
    SumSquaresOp::attachInterface<SumSquaresKernel>(*context);
  });
}
