//===- ReshardPlanner.h - Cheapest collectives to a sharding ----*- C++ -*-===//
//
// Plans a reshard of one tensor between two shardings of the same mesh as a
// shortest path over intermediate shardings: each step is one collective
// (all_gather, all_slice, all_to_all, all_reduce, reduce_scatter,
// collective_permute), weighted by the bytes each device moves (the ring
// volumes of the communication report). A single redistribute (every device
// sends each other the part of its block the other needs) is the
// alternative to a plan of several collectives, or to a collective_permute,
// when no value is partial; it wins when it moves less, which bounds every
// reshard between shards of one size by one all-to-all over the axes that
// move. MLIR-free, so it is unit tested by simulating the data movement.
//
// Shards of uneven dimensions are ceil(d / n) long, padded at the end. A
// step that regroups shards along a dimension is exact only where the
// shards line up (ceil(d / m) == k * ceil(d / (m * k))); gathering a
// dimension completely is always exact (the padding is then at the end
// and is cut off, see ReshardStep::truncate).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PARTITIONER_RESHARDPLANNER_H
#define SPMD_PARTITIONER_RESHARDPLANNER_H

#include "sharding/ShardState.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"

#include <optional>

namespace spmd {

/// Bytes one device sends and receives in a ring implementation of a
/// collective over `groupSize` devices (the communication report's
/// `comm_bytes`): all_reduce 2(n-1)/n*in, all_gather (n-1)/n*out,
/// reduce_scatter and all_to_all (n-1)/n*in, collective_permute in,
/// all_slice 0. (redistribute: see minReceiveBytes.) In floating point, as
/// every byte count of the planner: tensors may hold more than 2^63 bytes.
double commBytes(CollectiveKind kind, int64_t groupSize, double inBytes,
                 double outBytes);

/// `bytes` rounded to a count, or nothing when the count is beyond int64
/// (2^63 - 1): reports and attributes hold int64 counts.
std::optional<int64_t> byteCount(double bytes);

struct ReshardStep {
  CollectiveKind kind;
  /// The axes spanning the collective's groups, major to minor.
  llvm::SmallVector<AxisIndex, 2> axes;
  /// all_gather / all_slice / reduce_scatter: the dimension; all_to_all:
  /// the dimension split and sent (`dim`) and the one received and
  /// concatenated (`concatDim`).
  int64_t dim = -1;
  int64_t concatDim = -1;
  ReductionKind reduction = ReductionKind::Sum;
  /// collective_permute: the dimension's axes before (`axes` after); the
  /// positions within the group are permutationPairs' (not kept here: a
  /// group may span every device, and the search makes many steps).
  llvm::SmallVector<AxisIndex, 2> permutedFrom;
  /// After an all_gather (or all_to_all) that completes dimension `dim`
  /// (or `concatDim`): keep only the first `truncate` elements (> 0).
  int64_t truncate = 0;
  /// The layout after this step and the local shape it has.
  ShardState after;
  std::vector<int64_t> localShape;
  double cost = 0;
};

/// The (source, target) positions within the group of a collective_permute
/// `step`: a device sends its shard to the device whose new index is the
/// shard's old index.
llvm::SmallVector<std::pair<int64_t, int64_t>>
permutationPairs(const DeviceMesh &mesh, const ReshardStep &step);

struct ReshardPlan {
  std::vector<ReshardStep> steps;
  double cost = 0;
  /// The search ran out of its budget: this is the plan that gathers
  /// everything the target does not split, then slices (exact, not the
  /// cheapest).
  bool fallback = false;
};

/// What a device must receive at least to go from `from` to `to`: the
/// bytes of its target block it does not already hold (all of them where
/// the value is pending a reduction the target does not keep), averaged
/// over the devices. Computed over the positions of the axes either layout
/// names, at most kMinBytesPositions of them (evenly spaced beyond).
double minReceiveBytes(const DeviceMesh &mesh,
                       llvm::ArrayRef<int64_t> globalShape,
                       int64_t elementBytes, const ShardState &from,
                       const ShardState &to);
constexpr int64_t kMinBytesPositions = 4096;

/// A redistribute costs what its devices receive (minReceiveBytes) plus
/// this, so that a conventional collective moving as much is preferred.
constexpr double kRedistributeExtra = 1;

/// How many layouts the search expands before it falls back; layouts grow
/// factorially with the mesh axes a reshard involves.
constexpr size_t kReshardSearchBudget = 4000;

/// The cheapest plan from `from` to `to` (an empty plan when they have the
/// same layout). Fails only when no plan exists, which does not happen for
/// valid shardings of one mesh (gathering everything, reducing, and
/// slicing always works).
llvm::Expected<ReshardPlan>
planReshard(const DeviceMesh &mesh, llvm::ArrayRef<int64_t> globalShape,
            int64_t elementBytes, const ShardState &from, const ShardState &to);

/// planReshard with memory: programs reshard the same shapes between the
/// same layouts over and over (every layer of a model).
class ReshardPlanCache {
public:
  /// The plan, or null when none exists.
  const ReshardPlan *plan(const DeviceMesh &mesh,
                          llvm::ArrayRef<int64_t> globalShape,
                          int64_t elementBytes, const ShardState &from,
                          const ShardState &to);
  /// minReceiveBytes, with memory.
  double minBytes(const DeviceMesh &mesh, llvm::ArrayRef<int64_t> globalShape,
                  int64_t elementBytes, const ShardState &from,
                  const ShardState &to);

private:
  void encode(const DeviceMesh &mesh, llvm::ArrayRef<int64_t> globalShape,
              int64_t elementBytes, const ShardState &from,
              const ShardState &to);

  /// Mesh, global shape, element bytes, and each layout with its pending
  /// reduction kind, flattened to integers (looked up for every candidate
  /// split of every op: it must be cheap to build).
  using Key = std::vector<int64_t>;
  // Node-based: callers hold plans while asking for others.
  absl::node_hash_map<Key, std::optional<ReshardPlan>> plans;
  absl::flat_hash_map<Key, double> bounds;
  Key scratch;
};

} // namespace spmd

#endif // SPMD_PARTITIONER_RESHARDPLANNER_H
