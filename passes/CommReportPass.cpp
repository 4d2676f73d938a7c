//===- CommReportPass.cpp - spmd-comm-report ------------------------------===//

#include "partitioner/Partitioner.h"
#include "partitioner/ReshardPlanner.h"
#include "passes/PassOptionChecks.h"
#include "passes/Passes.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/JSON.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDCOMMREPORT
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

/// The bytes of a value of `type`, or nothing beyond int64.
static std::optional<int64_t> tensorBytes(Type type) {
  auto tensor = llvm::cast<RankedTensorType>(type);
  std::optional<int64_t> bytes = elementBytes(tensor.getElementType());
  for (int64_t size : tensor.getShape())
    if (bytes)
      bytes = llvm::checkedMul(*bytes, size);
  return bytes;
}

/// The error for a count of `what` beyond int64 at `op`: a report of
/// wrapped counts would be silently wrong.
static WalkResult tooManyBytes(Operation *op, StringRef what) {
  op->emitError() << what
                  << " exceeds 2^63 - 1 bytes: the communication report "
                     "cannot count it";
  return WalkResult::interrupt();
}

FailureOr<llvm::json::Value> mlir::spmd::buildCommReport(ModuleOp module) {
  SymbolTableCollection tables;
  llvm::json::Array collectives;
  int64_t total = 0, minTotal = 0;
  WalkResult walk = module.walk([&](CollectiveOpInterface op) {
    auto mesh = tables.lookupNearestSymbolFrom<MeshOp>(op, op.getMeshAttr());
    if (!mesh) {
      op->emitError("collective on an unknown mesh");
      return WalkResult::interrupt();
    }
    ::spmd::DeviceMesh value = mesh.getMesh().toMesh();
    int64_t groupSize = 1;
    llvm::json::Array axes;
    for (auto axis : op.getAxesAttr().getAsRange<StringAttr>()) {
      groupSize *= value.axisSize(*value.axisIndex(axis.getValue()));
      axes.push_back(axis.getValue());
    }
    ::spmd::CollectiveKind kind = op.getCollectiveKind();
    std::optional<int64_t> in = tensorBytes(op->getOperand(0).getType());
    std::optional<int64_t> out = tensorBytes(op->getResult(0).getType());
    if (!in || !out)
      return tooManyBytes(op, in ? "the result" : "the operand");
    double bytes;
    if (auto redistribute = llvm::dyn_cast<RedistributeOp>(op.getOperation())) {
      // What the devices receive, on average: the pieces are point to point.
      llvm::Expected<::spmd::ShardState> from =
          ::spmd::toState(value, redistribute.getFrom().toTensorSharding());
      llvm::Expected<::spmd::ShardState> to =
          ::spmd::toState(value, redistribute.getTo().toTensorSharding());
      assert(from && to && "verified layouts");
      bytes = ::spmd::minReceiveBytes(
          value, redistribute.getGlobalShape(),
          elementBytes(redistribute.getType().getElementType()), *from, *to);
    } else {
      bytes = ::spmd::commBytes(kind, groupSize, *in, *out);
    }
    std::optional<int64_t> comm = ::spmd::byteCount(bytes);
    if (!comm)
      return tooManyBytes(op, "the volume it moves");
    std::optional<int64_t> sum = llvm::checkedAdd(total, *comm);
    if (!sum)
      return tooManyBytes(op, "the total volume with this collective");
    total = *sum;
    llvm::json::Object entry{{"op", ::spmd::stringifyCollectiveKind(kind)},
                             {"axes", std::move(axes)},
                             {"group_size", groupSize},
                             {"bytes", *in},
                             {"comm_bytes", *comm}};
    // Collectives of reshards carry their lower bound; others (halos,
    // reductions the program asks for, collectives the user wrote) count
    // at their own volume.
    int64_t least = *comm;
    if (auto bytes =
            op->getAttrOfType<IntegerAttr>(SpmdDialect::kMinBytesAttrName)) {
      least = bytes.getInt();
      entry["min_bytes"] = least;
    }
    std::optional<int64_t> minSum = llvm::checkedAdd(minTotal, least);
    if (!minSum)
      return tooManyBytes(op, "the total lower bound with this collective");
    minTotal = *minSum;
    collectives.push_back(std::move(entry));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return llvm::json::Value(
      llvm::json::Object{{"collectives", std::move(collectives)},
                         {"total_comm_bytes", total},
                         {"min_comm_bytes", minTotal}});
}

namespace {
struct CommReportPass : mlir::spmd::impl::SpmdCommReportBase<CommReportPass> {
  using SpmdCommReportBase::SpmdCommReportBase;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    CheckedOption checks[] = {
        {"output", nonEmpty("a file name, or '-' for standard output")}};
    return parseCheckedOptions(
        "spmd-comm-report", options, checks, errorHandler, [&](auto handler) {
          return Pass::initializeOptions(options, handler);
        });
  }

  void runOnOperation() override {
    FailureOr<llvm::json::Value> report = buildCommReport(getOperation());
    if (failed(report))
      return signalPassFailure();
    if (failed(writeReport(getOperation(), *report, output,
                           "communication report")))
      signalPassFailure();
  }
};
} // namespace
