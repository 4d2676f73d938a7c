//===- AutoShardStrategies.h - An op's costed strategies --------*- C++ -*-===//
//
// The nodes and edges of auto-sharding's model (AutoShardModel.h) from an
// op's factor rule: a strategy assigns each mesh axis to at most one of
// the op's factors, which fixes the layout of every operand and result.
// Its cost is the op's local compute; its results stay pending reductions
// over the axes of sharded reduction factors, so what resolving them costs
// (an all_reduce, or a reduce_scatter where the consumer splits the value)
// is an edge's cost, planned like every other reshard. MLIR-free.
//
// Time model: a collective over some axes takes its ring bytes (commBytes)
// times the slowest of those axes' seconds per byte; an axis of the DCN
// part of a HybridMesh costs `dcn-cost` times an ICI axis. Compute takes
// the local multiply-adds times seconds per flop.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PARTITIONER_AUTOSHARDSTRATEGIES_H
#define SPMD_PARTITIONER_AUTOSHARDSTRATEGIES_H

#include "partitioner/ReshardPlanner.h"
#include "sharding/ShardingRule.h"

namespace spmd {

struct AxisCosts {
  /// Seconds per byte one device sends over each mesh axis.
  std::vector<double> secondsPerByte;
  double secondsPerFlop = 1e-11;

  /// Every axis alike, DCN axes (`dcnAxes[a]`) `dcnFactor` times slower.
  static AxisCosts uniform(const DeviceMesh &mesh, double secondsPerByte,
                           llvm::ArrayRef<bool> dcnAxes = {},
                           double dcnFactor = 1);
  double seconds(llvm::ArrayRef<AxisIndex> axes, double bytes) const;
};

struct OpStrategy {
  /// The axes of each factor.
  std::vector<AxisList> factorAxes;
  /// The layout of each tensor of the rule (operands, then results;
  /// results pending over the sharded reduction factors' axes).
  std::vector<ShardState> tensors;
  double computeSeconds = 0;
  /// Bytes per device of the results.
  double resultBytes = 0;
};

/// How enumerateStrategies searches.
struct StrategySearch {
  /// At most this many strategies when the mesh has too many choices to
  /// try each (more than kEnumeratedChoices); 1 for the replicated one only.
  size_t limit = 64;
  /// Whether reduction factors may be split (not for ops whose split
  /// reduction has no combiner).
  bool splitReductions = true;
};
constexpr double kEnumeratedChoices = 4096;

/// The strategies of an op with `rule` over `mesh` whose tensors have
/// `shapes` (the rule's order), the first being the replicated one. Only
/// parallel and reduction factors are sharded, by axes whose product
/// divides the factor's size, and only where every dimension's layout
/// maps back to the same factor axes (compound dimensions). `flopsPerPoint`
/// is the op's work per point of its iteration space (2 for a
/// multiply-add).
///
/// Where there are at most kEnumeratedChoices choices ((factors + 1)^axes),
/// every one is tried and every valid strategy returned. Beyond, a beam
/// over the axes keeps the partial assignments that may split the op over
/// the most devices, and returns the replicated strategy and at most
/// `search.limit - 1` others of the least local compute it found: the
/// work is polynomial in the axes, whatever the mesh.
std::vector<OpStrategy>
enumerateStrategies(const DeviceMesh &mesh, const ShardingRule &rule,
                    llvm::ArrayRef<std::vector<int64_t>> shapes,
                    unsigned numOperands, int64_t elementBytes,
                    double flopsPerPoint, const AxisCosts &costs,
                    const StrategySearch &search = {});

/// Seconds to reshard a value of `shape` from `from` to `to`: the cheapest
/// plan's collectives, each at the speed of its slowest axis. On meshes of
/// more than kPlannedAxes axes, without a search: an all_reduce of what
/// the target does not keep pending, then the bytes the devices lack
/// (minReceiveBytes) at the slowest axis either layout names. `quick`
/// (once a time limit has passed) counts there a device's whole new block
/// instead of what it lacks, which takes no search over devices.
constexpr unsigned kPlannedAxes = 2;
double reshardSeconds(ReshardPlanCache &cache, const DeviceMesh &mesh,
                      llvm::ArrayRef<int64_t> shape, int64_t elementBytes,
                      const ShardState &from, const ShardState &to,
                      const AxisCosts &costs, bool quick = false);

} // namespace spmd

#endif // SPMD_PARTITIONER_AUTOSHARDSTRATEGIES_H
