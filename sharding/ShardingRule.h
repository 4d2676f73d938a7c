//===- ShardingRule.h - Factor-based sharding rules -------------*- C++ -*-===//
//
// How the dimensions of an op's tensors relate (Shardy's OpShardingRule).
// An op's iteration space is a list of factors; every tensor dimension is
// made of zero or more factors, major to minor (several for a reshaped
// dimension). Sharding a factor over mesh axes shards every dimension made
// of it the same way, which is what propagation exploits.
//
//   matmul C[i,k] += A[i,j] * B[j,k]:   ([i, j], [j, k]) -> ([i, k])
//   factors i, k parallel; j reduction
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SHARDING_SHARDINGRULE_H
#define SPMD_SHARDING_SHARDINGRULE_H

#include "mesh/DeviceMesh.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace spmd {

enum class FactorKind {
  /// Appears in every tensor that has it; sharding needs no communication.
  Parallel,
  /// Summed over: sharding it leaves the results partial.
  Reduction,
  /// Must not be sharded (the op needs every element along it).
  NeedReplication,
  /// Sharding it needs data from neighbours (halo exchange, shifts):
  /// convolution windows, slices, pads, concatenation.
  Permutation,
};
llvm::StringRef stringifyFactorKind(FactorKind kind);

/// One tensor dimension: the factors it is made of, major to minor. A
/// dimension of size 1 broadcast along a factor has none.
using DimFactors = llvm::SmallVector<unsigned, 2>;
/// One tensor: a DimFactors per dimension. Scalars have no dimensions.
using TensorFactors = llvm::SmallVector<DimFactors, 4>;

class ShardingRule {
public:
  unsigned addFactor(int64_t size, FactorKind kind);
  /// Appends a tensor (operands first, then results).
  void addTensor(TensorFactors dims) { tensors.push_back(std::move(dims)); }

  /// Every tensor has `shape` and dimension d of each is factor d:
  /// elementwise ops, copies, ties between values.
  static ShardingRule identity(llvm::ArrayRef<int64_t> shape,
                               unsigned numTensors);
  /// The rule of a reshape from `source` to `result`: the finest common
  /// factorisation of both shapes. Dimensions that cannot be matched (sizes
  /// that do not divide, as in 6x10 -> 4x15) become need-replication
  /// factors. Returns {source, result} tensors.
  static ShardingRule reshape(llvm::ArrayRef<int64_t> source,
                              llvm::ArrayRef<int64_t> result);

  unsigned numFactors() const { return factorSizes.size(); }

  bool operator==(const ShardingRule &o) const {
    return factorSizes == o.factorSizes && factorKinds == o.factorKinds &&
           tensors == o.tensors;
  }
  /// Equal for equal rules.
  unsigned hash() const;
  unsigned numTensors() const { return tensors.size(); }

  /// `([i, j], [j, k]) -> ([i, k]) {i=8, j=16, k=4} reduction={j}` with
  /// `numOperands` tensors left of the arrow. Factors are named i, j, k, ...
  std::string str(unsigned numOperands) const;
  /// Factor `f`'s name in str(): i, j, k, ..., z, i1, j1, ...
  static std::string factorName(unsigned f);

  llvm::SmallVector<int64_t, 6> factorSizes;
  llvm::SmallVector<FactorKind, 6> factorKinds;
  llvm::SmallVector<TensorFactors, 3> tensors;
};

/// Splits a dimension's axes among the factors it is made of, major to
/// minor, appending to `factorAxes[f]`. A dimension of one factor gives it
/// every axis (uneven shards are fine). In a compound dimension a factor
/// takes axes while their product divides its size, and the next factor
/// only starts once the previous one is fully sharded; axes past that
/// point are not projected.
void projectDim(llvm::ArrayRef<AxisIndex> axes,
                llvm::ArrayRef<unsigned> factors,
                llvm::ArrayRef<int64_t> factorSizes, const DeviceMesh &mesh,
                llvm::SmallVectorImpl<AxisList> &factorAxes);

/// The inverse of projectDim: the axes of a dimension made of `factors`.
AxisList composeDim(llvm::ArrayRef<unsigned> factors,
                    llvm::ArrayRef<AxisList> factorAxes,
                    llvm::ArrayRef<int64_t> factorSizes, const DeviceMesh &mesh);

} // namespace spmd

#endif // SPMD_SHARDING_SHARDINGRULE_H
