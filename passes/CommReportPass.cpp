//===- CommReportPass.cpp - spmd-comm-report ------------------------------===//

#include "ir/Namespaces.h"
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

llvm::json::Value mlir::spmd::CommReport::toJson() const {
  llvm::json::Array entries;
  for (const CollectiveTraffic &c : collectives) {
    llvm::json::Object entry{{"op", stringifyCollectiveKind(c.kind)},
                             {"axes", llvm::json::Array(c.axes)},
                             {"group_size", c.groupSize},
                             {"bytes", c.bytes},
                             {"comm_bytes", c.commBytes}};
    if (c.minBytes)
      entry["min_bytes"] = *c.minBytes;
    entries.push_back(std::move(entry));
  }
  return llvm::json::Object{{"collectives", std::move(entries)},
                            {"total_comm_bytes", totalCommBytes},
                            {"min_comm_bytes", minCommBytes}};
}

FailureOr<CommReport> mlir::spmd::buildCommReport(ModuleOp module) {
  SymbolTableCollection tables;
  CommReport report;
  int64_t &total = report.totalCommBytes, &minTotal = report.minCommBytes;
  WalkResult walk = module.walk([&](CollectiveOpInterface op) {
    auto mesh = tables.lookupNearestSymbolFrom<MeshOp>(op, op.getMeshAttr());
    if (!mesh) {
      op->emitError("collective on an unknown mesh");
      return WalkResult::interrupt();
    }
    DeviceMesh value = mesh.getMesh().toMesh();
    int64_t groupSize = 1;
    std::vector<std::string> axes;
    for (auto axis : op.getAxesAttr().getAsRange<StringAttr>()) {
      groupSize *= value.axisSize(*value.axisIndex(axis.getValue()));
      axes.push_back(axis.getValue().str());
    }
    CollectiveKind kind = op.getCollectiveKind();
    std::optional<int64_t> in = tensorBytes(op->getOperand(0).getType());
    std::optional<int64_t> out = tensorBytes(op->getResult(0).getType());
    if (!in || !out)
      return tooManyBytes(op, in ? "the result" : "the operand");
    double bytes;
    if (auto redistribute = llvm::dyn_cast<RedistributeOp>(op.getOperation())) {
      // What the devices receive, on average: the pieces are point to point.
      llvm::Expected<ShardState> from =
          toState(value, redistribute.getFrom().toTensorSharding());
      llvm::Expected<ShardState> to =
          toState(value, redistribute.getTo().toTensorSharding());
      assert(from && to && "verified layouts");
      bytes = minReceiveBytes(
          value, redistribute.getGlobalShape(),
          elementBytes(redistribute.getType().getElementType()), *from, *to);
    } else {
      bytes = commBytes(kind, groupSize, *in, *out);
    }
    std::optional<int64_t> comm = byteCount(bytes);
    if (!comm)
      return tooManyBytes(op, "the volume it moves");
    std::optional<int64_t> sum = llvm::checkedAdd(total, *comm);
    if (!sum)
      return tooManyBytes(op, "the total volume with this collective");
    total = *sum;
    CollectiveTraffic entry{kind, std::move(axes), groupSize, *in, *comm,
                            std::nullopt};
    // Collectives of reshards carry their lower bound; others (halos,
    // reductions the program asks for, collectives the user wrote) count
    // at their own volume.
    int64_t least = *comm;
    if (auto bytes =
            op->getAttrOfType<IntegerAttr>(SpmdDialect::kMinBytesAttrName)) {
      least = bytes.getInt();
      entry.minBytes = least;
    }
    std::optional<int64_t> minSum = llvm::checkedAdd(minTotal, least);
    if (!minSum)
      return tooManyBytes(op, "the total lower bound with this collective");
    minTotal = *minSum;
    report.collectives.push_back(std::move(entry));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return report;
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
    FailureOr<CommReport> report = buildCommReport(getOperation());
    if (failed(report))
      return signalPassFailure();
    if (failed(writeReport(getOperation(), report->toJson(), output,
                           "communication report")))
      signalPassFailure();
  }
};
} // namespace
