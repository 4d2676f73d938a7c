//===- ReshardSimulator.h - Reshard plans on simulated devices --*- C++ -*-===//
//
// Executes ReshardSteps on per-device buffers with the semantics of the
// spmd collectives (padding included), so tests can check that a plan
// delivers exactly the elements the target sharding assigns each device.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_TESTS_UNIT_RESHARDSIMULATOR_H
#define SPMD_TESTS_UNIT_RESHARDSIMULATOR_H

#include "partitioner/ReshardPlanner.h"

#include "llvm/Support/MathExtras.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>

namespace spmd::testing {

/// A 2-D buffer (row-major).
struct Buffer {
  std::vector<int64_t> shape;
  std::vector<double> data;
  double &at(int64_t i, int64_t j) { return data[i * shape[1] + j]; }
  double at(int64_t i, int64_t j) const { return data[i * shape[1] + j]; }
};

class ReshardSimulator {
public:
  static constexpr double kPad = 1e300; // stands for unspecified padding

  ReshardSimulator(const DeviceMesh &mesh, std::vector<int64_t> shape)
      : mesh(mesh), shape(std::move(shape)) {}

  double global(int64_t i, int64_t j) const { return 1 + i * shape[1] + j; }

  /// Each device's shard of the global tensor in `state`; a partial state
  /// splits every element into summands (sum) across the partial group.
  void load(const ShardState &state) {
    current = state;
    for (int64_t device = 0; device < mesh.numDevices(); ++device) {
      Buffer b = shard(state, device);
      int64_t q = mesh.indexInGroup(device, state.partial);
      int64_t n = mesh.groupSize(state.partial);
      for (double &v : b.data)
        if (v != kPad && n > 1)
          v = q == 0 ? v - (n - 1) * 0.25 : 0.25;
      buffers[device] = std::move(b);
    }
  }

  /// The exact shard `device` must hold in `state` (padding as kPad).
  Buffer shard(const ShardState &state, int64_t device) const {
    std::vector<int64_t> local = localShape(mesh, shape, state);
    Buffer b{local, std::vector<double>(local[0] * local[1], kPad)};
    int64_t off0 = mesh.indexInGroup(device, state.dims[0]) * local[0];
    int64_t off1 = mesh.indexInGroup(device, state.dims[1]) * local[1];
    for (int64_t i = 0; i < local[0]; ++i)
      for (int64_t j = 0; j < local[1]; ++j)
        if (off0 + i < shape[0] && off1 + j < shape[1])
          b.at(i, j) = global(off0 + i, off1 + j);
    return b;
  }

  void apply(const ReshardStep &step) {
    for (const auto &group : mesh.groups(step.axes))
      applyToGroup(step, group);
    current = step.after;
  }

  std::map<int64_t, Buffer> buffers;

private:
  static Buffer concat(const std::vector<Buffer> &parts, int64_t dim) {
    Buffer out{parts[0].shape, {}};
    out.shape[dim] *= parts.size();
    out.data.assign(out.shape[0] * out.shape[1], kPad);
    for (size_t p = 0; p < parts.size(); ++p)
      for (int64_t i = 0; i < parts[p].shape[0]; ++i)
        for (int64_t j = 0; j < parts[p].shape[1]; ++j)
          out.at(dim == 0 ? p * parts[p].shape[0] + i : i,
                 dim == 1 ? p * parts[p].shape[1] + j : j) = parts[p].at(i, j);
    return out;
  }
  static Buffer piece(const Buffer &b, int64_t dim, int64_t k, int64_t size) {
    Buffer out{b.shape, {}};
    out.shape[dim] = size;
    out.data.assign(out.shape[0] * out.shape[1], kPad);
    for (int64_t i = 0; i < out.shape[0]; ++i)
      for (int64_t j = 0; j < out.shape[1]; ++j) {
        int64_t si = dim == 0 ? k * size + i : i,
                sj = dim == 1 ? k * size + j : j;
        if (si < b.shape[0] && sj < b.shape[1])
          out.at(i, j) = b.at(si, sj);
      }
    return out;
  }
  static Buffer truncate(const Buffer &b, int64_t dim, int64_t size) {
    return size ? piece(b, dim, 0, size) : b;
  }

  void applyToGroup(const ReshardStep &step,
                    const llvm::SmallVector<int64_t> &group) {
    int64_t n = group.size();
    std::vector<Buffer> in;
    for (int64_t device : group)
      in.push_back(buffers[device]);
    switch (step.kind) {
    case CollectiveKind::AllGather: {
      Buffer all = truncate(concat(in, step.dim), step.dim, step.truncate);
      for (int64_t device : group)
        buffers[device] = all;
      break;
    }
    case CollectiveKind::AllSlice:
      for (int64_t k = 0; k < n; ++k)
        buffers[group[k]] = piece(in[k], step.dim, k,
                                  llvm::divideCeil(in[k].shape[step.dim], n));
      break;
    case CollectiveKind::AllToAll:
      for (int64_t k = 0; k < n; ++k) {
        std::vector<Buffer> received;
        for (int64_t s = 0; s < n; ++s)
          received.push_back(
              piece(in[s], step.dim, k, in[s].shape[step.dim] / n));
        buffers[group[k]] = truncate(concat(received, step.concatDim),
                                     step.concatDim, step.truncate);
      }
      break;
    case CollectiveKind::AllReduce:
    case CollectiveKind::ReduceScatter: {
      Buffer sum = in[0];
      for (int64_t k = 1; k < n; ++k)
        for (size_t e = 0; e < sum.data.size(); ++e)
          sum.data[e] = (sum.data[e] == kPad || in[k].data[e] == kPad)
                            ? kPad
                            : sum.data[e] + in[k].data[e];
      for (int64_t k = 0; k < n; ++k)
        buffers[group[k]] =
            step.kind == CollectiveKind::AllReduce
                ? sum
                : piece(sum, step.dim, k,
                        llvm::divideCeil(sum.shape[step.dim], n));
      break;
    }
    case CollectiveKind::Redistribute:
      // Each element a device's new block covers comes from the device of
      // the group whose old block holds it.
      for (int64_t target : group) {
        Buffer out = shard(step.after, target);
        std::vector<int64_t> local = localShape(mesh, shape, step.after);
        int64_t t0 = mesh.indexInGroup(target, step.after.dims[0]) * local[0];
        int64_t t1 = mesh.indexInGroup(target, step.after.dims[1]) * local[1];
        std::fill(out.data.begin(), out.data.end(), kPad);
        for (auto [k, source] : llvm::enumerate(group)) {
          std::vector<int64_t> held = localShape(mesh, shape, current);
          int64_t s0 = mesh.indexInGroup(source, current.dims[0]) * held[0];
          int64_t s1 = mesh.indexInGroup(source, current.dims[1]) * held[1];
          for (int64_t i = 0; i < local[0]; ++i)
            for (int64_t j = 0; j < local[1]; ++j) {
              int64_t gi = t0 + i, gj = t1 + j;
              if (gi < shape[0] && gj < shape[1] && gi >= s0 &&
                  gi < s0 + held[0] && gj >= s1 && gj < s1 + held[1])
                out.at(i, j) = in[k].at(gi - s0, gj - s1);
            }
        }
        buffers[target] = std::move(out);
      }
      break;
    case CollectiveKind::CollectivePermute:
      for (int64_t k = 0; k < n; ++k) {
        Buffer zero = in[k];
        std::fill(zero.data.begin(), zero.data.end(), 0.0);
        buffers[group[k]] = zero;
      }
      for (auto [source, target] : permutationPairs(mesh, step))
        buffers[group[target]] = in[source];
      break;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
      // Rooted collectives are the user's; a reshard plan never holds one.
      ADD_FAILURE() << "a reshard plan holds a rooted collective";
      break;
    }
  }

  const DeviceMesh &mesh;
  std::vector<int64_t> shape;
  ShardState current; // the layout the buffers are in
};

} // namespace spmd::testing

#endif // SPMD_TESTS_UNIT_RESHARDSIMULATOR_H
