//===- TensorSharding.h - Shardings as plain values -------------*- C++ -*-===//
//
// How one tensor is laid out over a mesh, independent of MLIR so the math
// can be unit tested: per dimension the mesh axes it is split over (major
// to minor), whether propagation may add axes (open) and its priority;
// axes explicitly replicated; axes over which the value is an unreduced
// partial result.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SHARDING_TENSORSHARDING_H
#define SPMD_SHARDING_TENSORSHARDING_H

#include "mesh/DeviceMesh.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <variant>

namespace spmd {

/// How elements are combined: by a reduction body, a collective, or as a
/// partial value pending over mesh axes. On floats, Max and Min follow
/// arith.maximumf/minimumf (a NaN operand wins) and MaxNum and MinNum
/// arith.maxnumf/minnumf (NaN operands are ignored); on integers both are
/// the signed maximum and minimum, and sums wrap. The values are the IR's
/// storage of a collective's reduction: append, never renumber. Prod is a
/// collective's only (explicit collectives, torch.distributed's PRODUCT):
/// no partial value is a pending product.
enum class ReductionKind { Sum, Max, Min, MaxNum, MinNum, Prod };
/// "sum", "max", "min", "maxnum", "minnum", "prod": the IR's and the
/// reports' spelling.
llvm::StringRef stringifyReduction(ReductionKind kind);
std::optional<ReductionKind> symbolizeReduction(llvm::StringRef name);
/// The names of the kinds, in enum order. Partial values and collectives
/// carry every kind: a split maxnumf reduction stays maxnum, since a
/// device whose block is all NaN must not win the collective.
llvm::SmallVector<llvm::StringRef> reductionNames();

/// The collectives of the spmd dialect, one per op (whose mnemonic is the
/// kind's name): the steps of a reshard plan, the communication report's
/// entries and what the runtime's communicators run.
enum class CollectiveKind {
  AllGather,
  AllSlice,
  AllToAll,
  AllReduce,
  ReduceScatter,
  CollectivePermute,
  Redistribute,
  Broadcast, // from one group position (only in code the user writes)
  Reduce,    // to one group position (only in code the user writes)
};
/// "all_gather", "all_slice", ...: the op mnemonics.
llvm::StringRef stringifyCollectiveKind(CollectiveKind kind);
std::optional<CollectiveKind> symbolizeCollectiveKind(llvm::StringRef name);

struct DimSharding {
  std::vector<std::string> axes;   // major to minor
  bool open = false;               // propagation may append axes
  std::optional<int64_t> priority; // lower is propagated first

  bool operator==(const DimSharding &o) const {
    return axes == o.axes && open == o.open && priority == o.priority;
  }
};

/// One entry of a partition spec, as in `mark_sharding(t, mesh, spec)`:
/// none, an axis name, an axis index, or a tuple of those.
class DimSpec {
public:
  using Axis = std::variant<std::string, int64_t>;
  DimSpec() = default;       // none
  DimSpec(std::nullopt_t) {} // none
  DimSpec(const char *name) : axes{std::string(name)} {}
  DimSpec(std::string name) : axes{std::move(name)} {}
  DimSpec(int index) : axes{int64_t(index)} {}
  DimSpec(int64_t index) : axes{index} {}
  DimSpec(std::initializer_list<Axis> tuple) : axes(tuple) {}

  std::vector<Axis> axes; // empty: not sharded
};
using DimSpecs = std::vector<DimSpec>;

class TensorSharding {
public:
  TensorSharding() = default;
  TensorSharding(std::string meshName, std::vector<DimSharding> dims,
                 std::vector<std::string> replicated = {},
                 std::vector<std::string> partial = {},
                 ReductionKind partialKind = ReductionKind::Sum)
      : meshName(std::move(meshName)), dims(std::move(dims)),
        replicated(std::move(replicated)), partial(std::move(partial)),
        partialKind(partialKind) {}

  /// Fully replicated sharding of a rank-`rank` tensor (all dims closed).
  static TensorSharding replicatedOf(std::string meshName, unsigned rank);

  /// From a partition spec; one entry per dimension (missing trailing
  /// entries are none). Fails on unknown axes, bad indices, too many
  /// entries, or an axis used twice.
  static llvm::Expected<TensorSharding>
  fromPartitionSpec(const DeviceMesh &mesh, std::string meshName,
                    const DimSpecs &spec, unsigned rank);

  /// Checks the sharding alone: an axis appears at most once overall,
  /// priorities are non-negative, and the pending reduction is one that
  /// collectives carry.
  llvm::Error verify() const;
  /// Checks the sharding against a mesh and a tensor rank.
  llvm::Error verify(const DeviceMesh &mesh, unsigned rank) const;

  unsigned rank() const { return dims.size(); }
  bool isFullyReplicated() const;
  bool isPartial() const { return !partial.empty(); }

  bool operator==(const TensorSharding &o) const {
    return meshName == o.meshName && dims == o.dims &&
           replicated == o.replicated && partial == o.partial &&
           (partial.empty() || partialKind == o.partialKind);
  }
  bool operator!=(const TensorSharding &o) const { return !(*this == o); }

  /// `<@mesh, [{"data"}, {?}], replicated={"x"}, partial={"y"}>`.
  std::string str() const;

  std::string meshName;
  std::vector<DimSharding> dims;
  std::vector<std::string> replicated;
  std::vector<std::string> partial;
  ReductionKind partialKind = ReductionKind::Sum;
};

} // namespace spmd

#endif // SPMD_SHARDING_TENSORSHARDING_H
