//===- ControlFlowKernels.cpp - Loops, branches, calls, returns -----------===//

#include "runtime/kernels/KernelInterface.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace spmd::runtime {

static std::vector<unsigned> slotsOf(ValueRange values, KernelContext &ctx) {
  std::vector<unsigned> slots;
  for (Value v : values)
    slots.push_back(ctx.slot(v));
  return slots;
}

/// Copies the loop's inits into its first iteration's slots; those the
/// loop takes (`taken`) are moved, so the body may update them in place.
static void startLoop(Frame &frame, llvm::ArrayRef<unsigned> slots,
                      llvm::ArrayRef<unsigned> inits,
                      const std::vector<bool> &taken) {
  for (auto [slot, init, take] : llvm::zip_equal(slots, inits, taken))
    frame.slots[slot] = take ? std::move(frame.slots[init]) : frame.slots[init];
}

static std::vector<bool> takenInits(Operation *op, ValueRange inits,
                                    KernelContext &ctx) {
  std::vector<bool> taken;
  for (Value init : inits)
    taken.push_back(ctx.mayTake(op, init));
  return taken;
}

/// Moves what the last region yielded into `slots`: a loop's carried
/// values then have no other holder, so the body may update them in place.
static void takeYielded(Frame &frame, llvm::ArrayRef<unsigned> slots) {
  for (auto [slot, value] : llvm::zip_equal(slots, frame.yielded))
    frame.slots[slot] = std::move(value);
  frame.yielded.clear();
}

/// Returns pass their operands to whoever runs the region: the caller of a
/// function, or the op owning a region.
llvm::Expected<Step> buildReturnKernel(Operation *op, KernelContext &ctx) {
  std::vector<unsigned> operands = slotsOf(op->getOperands(), ctx);
  bool isReturn = llvm::isa<FunctionOpInterface>(op->getParentOp());
  return Step([=](Frame &frame, DeviceContext &) {
    std::vector<RValue> &out = isReturn ? frame.results : frame.yielded;
    out.clear();
    for (unsigned slot : operands)
      out.push_back(frame.slots[slot]);
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildCondition(Operation *op, KernelContext &ctx) {
  auto condition = llvm::cast<scf::ConditionOp>(op);
  unsigned flag = ctx.slot(condition.getCondition());
  std::vector<unsigned> args = slotsOf(condition.getArgs(), ctx);
  return Step([=](Frame &frame, DeviceContext &) {
    frame.condition = frame.slots[flag].i != 0;
    frame.yielded.clear();
    for (unsigned slot : args)
      frame.yielded.push_back(frame.slots[slot]);
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildFor(Operation *op, KernelContext &ctx) {
  auto loop = llvm::cast<scf::ForOp>(op);
  unsigned lower = ctx.slot(loop.getLowerBound());
  unsigned upper = ctx.slot(loop.getUpperBound());
  unsigned step = ctx.slot(loop.getStep());
  std::vector<unsigned> inits = slotsOf(loop.getInitArgs(), ctx);
  std::vector<bool> taken = takenInits(op, loop.getInitArgs(), ctx);
  unsigned induction = ctx.slot(loop.getInductionVar());
  std::vector<unsigned> carried = slotsOf(loop.getRegionIterArgs(), ctx);
  std::vector<unsigned> results = slotsOf(loop.getResults(), ctx);
  llvm::Expected<Steps> body = ctx.compileBlock(*loop.getBody());
  if (!body)
    return body.takeError();
  auto steps = std::make_shared<Steps>(std::move(*body));
  return Step([=](Frame &frame, DeviceContext &context) -> llvm::Error {
    startLoop(frame, carried, inits, taken);
    int64_t lo = frame.slots[lower].i, hi = frame.slots[upper].i,
            st = frame.slots[step].i;
    if (st <= 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "scf.for with a non-positive step");
    for (int64_t i = lo; i < hi; i += st) {
      frame.slots[induction] = RValue::ofInt(i);
      if (llvm::Error err = runSteps(*steps, frame, context))
        return err;
      takeYielded(frame, carried);
    }
    for (auto [slot, value] : llvm::zip_equal(results, carried))
      frame.slots[slot] = std::move(frame.slots[value]);
    return llvm::Error::success();
  });
}

/// Ops that run one of their regions (scf.if, scf.index_switch,
/// scf.execute_region): `choose` gives the region to run from the frame;
/// its scf.yield gives the results. An empty region yields nothing.
static llvm::Expected<Step>
buildBranch(Operation *op, KernelContext &ctx,
            std::function<unsigned(const Frame &)> choose) {
  std::vector<unsigned> results = slotsOf(op->getResults(), ctx);
  auto regions = std::make_shared<std::vector<Steps>>();
  for (Region &region : op->getRegions()) {
    if (region.empty()) {
      regions->emplace_back();
      continue;
    }
    if (!region.hasOneBlock())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "'" + op->getName().getStringRef() +
              "' with several blocks in a region is not supported");
    llvm::Expected<Steps> steps = ctx.compileBlock(region.front());
    if (!steps)
      return steps.takeError();
    regions->push_back(std::move(*steps));
  }
  return Step([=](Frame &frame, DeviceContext &context) -> llvm::Error {
    if (llvm::Error err = runSteps((*regions)[choose(frame)], frame, context))
      return err;
    takeYielded(frame, results);
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildIf(Operation *op, KernelContext &ctx) {
  unsigned condition = ctx.slot(llvm::cast<scf::IfOp>(op).getCondition());
  return buildBranch(op, ctx, [=](const Frame &frame) {
    return frame.slots[condition].i ? 0u : 1u;
  });
}

static llvm::Expected<Step> buildIndexSwitch(Operation *op,
                                             KernelContext &ctx) {
  auto branch = llvm::cast<scf::IndexSwitchOp>(op);
  unsigned argument = ctx.slot(branch.getArg());
  std::vector<int64_t> cases(branch.getCases().begin(),
                             branch.getCases().end());
  // Region 0 is the default; case k runs region k + 1.
  return buildBranch(op, ctx, [=](const Frame &frame) {
    auto it = llvm::find(cases, frame.slots[argument].i);
    return it == cases.end() ? 0u : unsigned(it - cases.begin()) + 1;
  });
}

llvm::Expected<Step> buildRegionKernel(Operation *op, KernelContext &ctx) {
  return buildBranch(op, ctx, [](const Frame &) { return 0u; });
}

static llvm::Expected<Step> buildWhile(Operation *op, KernelContext &ctx) {
  auto loop = llvm::cast<scf::WhileOp>(op);
  std::vector<unsigned> inits = slotsOf(loop.getInits(), ctx);
  std::vector<bool> taken = takenInits(op, loop.getInits(), ctx);
  std::vector<unsigned> before = slotsOf(loop.getBeforeArguments(), ctx);
  std::vector<unsigned> after = slotsOf(loop.getAfterArguments(), ctx);
  std::vector<unsigned> results = slotsOf(loop.getResults(), ctx);
  llvm::Expected<Steps> cond = ctx.compileBlock(loop.getBefore().front());
  if (!cond)
    return cond.takeError();
  llvm::Expected<Steps> body = ctx.compileBlock(loop.getAfter().front());
  if (!body)
    return body.takeError();
  auto steps = std::make_shared<std::pair<Steps, Steps>>(std::move(*cond),
                                                         std::move(*body));
  return Step([=](Frame &frame, DeviceContext &context) -> llvm::Error {
    startLoop(frame, before, inits, taken);
    while (true) {
      if (llvm::Error err = runSteps(steps->first, frame, context))
        return err;
      if (!frame.condition) {
        takeYielded(frame, results);
        return llvm::Error::success();
      }
      takeYielded(frame, after);
      if (llvm::Error err = runSteps(steps->second, frame, context))
        return err;
      takeYielded(frame, before);
    }
  });
}

llvm::Expected<Step> buildCallKernel(Operation *op, KernelContext &ctx) {
  auto call = llvm::cast<CallOpInterface>(op);
  auto symbol = llvm::dyn_cast<SymbolRefAttr>(call.getCallableForCallee());
  if (!symbol)
    return opError(op, "indirect calls are not supported");
  std::string callee = symbol.getLeafReference().str();
  std::vector<unsigned> operands = slotsOf(call.getArgOperands(), ctx);
  std::vector<unsigned> results = slotsOf(op->getResults(), ctx);
  const Executable *exec = &ctx.exec();
  return Step([=](Frame &frame, DeviceContext &context) -> llvm::Error {
    std::vector<RValue> args;
    for (unsigned slot : operands)
      args.push_back(frame.slots[slot]);
    llvm::Expected<std::vector<RValue>> out =
        exec->call(callee, std::move(args), context);
    if (!out)
      return out.takeError();
    for (auto [slot, value] : llvm::zip_equal(results, *out))
      frame.slots[slot] = value;
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildAssert(Operation *op, KernelContext &ctx) {
  auto check = llvm::cast<cf::AssertOp>(op);
  unsigned condition = ctx.slot(check.getArg());
  std::string message = check.getMsg().str();
  return Step([=](Frame &frame, DeviceContext &) -> llvm::Error {
    if (frame.slots[condition].i)
      return llvm::Error::success();
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "assertion failed: " + message);
  });
}

void registerControlFlowKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, scf::SCFDialect *) {
    attachKernel<buildCondition, scf::ConditionOp>(context);
    attachKernel<buildFor, scf::ForOp>(context);
    attachKernel<buildIf, scf::IfOp>(context);
    attachKernel<buildIndexSwitch, scf::IndexSwitchOp>(context);
    attachKernel<buildRegionKernel, scf::ExecuteRegionOp>(context);
    attachKernel<buildWhile, scf::WhileOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, cf::ControlFlowDialect *) {
    attachKernel<buildAssert, cf::AssertOp>(context);
  });
}

} // namespace spmd::runtime
