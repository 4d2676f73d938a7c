//===- DistributedTest.cpp - spawn and spmd::dist against the host --------===//
//
// Every collective and reduce op of spmd::dist, on every element type, over
// groups of every shape (every device, one member, non-contiguous members
// in another order), at 1, 2, 3, 4 and 8 devices, each result against one
// computed here; point-to-point around a ring; the xm calls; and each
// misuse ending within the timeout with an error naming the devices.
//
//===----------------------------------------------------------------------===//

#include "ApiTestSupport.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace spmd;
using spmd_test::DeviceFailures;

namespace {

/// The bits of `v`, a small integer, as an IEEE half.
uint16_t halfOf(double v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  double a = std::abs(v);
  int e = int(std::floor(std::log2(a)));
  uint16_t mantissa = uint16_t((a / std::ldexp(1.0, e) - 1) * 1024);
  return uint16_t(sign | ((e + 15) << 10) | mantissa);
}

/// A tensor of `dtype` whose element i is value(i) (small integers: exact
/// in every type).
HostTensor tensorOf(DType dtype, std::vector<int64_t> shape,
                    const std::function<double(int64_t)> &value) {
  HostTensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = value(i);
    char *at = static_cast<char *>(t.data());
    switch (dtype) {
    case DType::F32:
      reinterpret_cast<float *>(at)[i] = float(v);
      break;
    case DType::F64:
      reinterpret_cast<double *>(at)[i] = v;
      break;
    case DType::F16:
      reinterpret_cast<uint16_t *>(at)[i] = halfOf(v);
      break;
    case DType::BF16: {
      float f = float(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      reinterpret_cast<uint16_t *>(at)[i] = uint16_t(bits >> 16);
      break;
    }
    case DType::I1:
      reinterpret_cast<bool *>(at)[i] = v != 0;
      break;
    case DType::I8:
      reinterpret_cast<int8_t *>(at)[i] = int8_t(v);
      break;
    case DType::I16:
      reinterpret_cast<int16_t *>(at)[i] = int16_t(v);
      break;
    case DType::I32:
      reinterpret_cast<int32_t *>(at)[i] = int32_t(v);
      break;
    case DType::I64:
      reinterpret_cast<int64_t *>(at)[i] = int64_t(v);
      break;
    }
  }
  return t;
}

const std::vector<int64_t> kShape = {2, 3};

/// Distinct per device (data movement), in i8's range up to 16 devices:
/// at most 15 * 7 + 5 + 15.
double moved(int64_t rank, int64_t i, int64_t j = 0) {
  return double(rank * 7 + i + j);
}
/// In {-1, 0, 1} (reductions: exact sums and products in every type).
double small(int64_t rank, int64_t i, int64_t j = 0) {
  return double((rank + i + j) % 3) - 1;
}

/// `v`, a small integer, as a tensor of `dtype` holds it (booleans as 0 or
/// 1 by parity, i8 wrapped).
double asType(DType dtype, double v) {
  if (dtype == DType::I1)
    return double(int64_t(v) % 2);
  return dtype == DType::I8 ? double(int8_t(int64_t(v))) : v;
}

/// The reduction of `values` as spmd::dist computes it; booleans (any
/// nonzero is true) as torch: SUM and MAX are or, PRODUCT and MIN and.
double fold(dist::ReduceOp op, const std::vector<double> &values,
            bool boolean) {
  if (boolean) {
    bool any = false, all = true;
    for (double v : values) {
      any = any || v != 0;
      all = all && v != 0;
    }
    return op == dist::ReduceOp::SUM || op == dist::ReduceOp::MAX ? any : all;
  }
  double r = values.front();
  for (size_t k = 1; k < values.size(); ++k) {
    double v = values[k];
    switch (op) {
    case dist::ReduceOp::SUM:
      r += v;
      break;
    case dist::ReduceOp::PRODUCT:
      r *= v;
      break;
    case dist::ReduceOp::MAX:
      r = std::max(r, v);
      break;
    case dist::ReduceOp::MIN:
      r = std::min(r, v);
      break;
    }
  }
  return r;
}

void setDevices(int64_t n) {
  setenv("SPMD_NUM_DEVICES", std::to_string(n).c_str(), 1);
}

const char *nameOf(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

/// Every collective over `members` (group order) as device `rank` (a member).
void runCollectives(DeviceFailures &f, DType dtype, const dist::Group &g,
                    const std::vector<int64_t> &members, int64_t rank) {
  int64_t n = members.size();
  int64_t p = std::find(members.begin(), members.end(), rank) - members.begin();
  std::string where = std::string(nameOf(dtype)) + " group of " +
                      std::to_string(n) + " on device " + std::to_string(rank);
  bool boolean = dtype == DType::I1;
  // Booleans read back as 0 or 1.
  auto stored = [&](double v) { return boolean ? double(v != 0) : v; };
  auto mv = [&](int64_t r, int64_t j = 0) {
    return [=](int64_t i) {
      double v = moved(r, i, j);
      return asType(dtype, v);
    };
  };
  for (dist::ReduceOp op : {dist::ReduceOp::SUM, dist::ReduceOp::PRODUCT,
                            dist::ReduceOp::MAX, dist::ReduceOp::MIN}) {
    auto expected = [&](int64_t j) {
      return [&, j](int64_t i) {
        std::vector<double> values;
        for (int64_t m : members)
          values.push_back(small(m, i, j));
        return fold(op, values, boolean);
      };
    };
    std::string what = where + " op " + std::to_string(int(op));
    HostTensor t =
        tensorOf(dtype, kShape, [&](int64_t i) { return small(rank, i); });
    f.expectOk(dist::all_reduce(t, op, g), "all_reduce " + what);
    f.expectValues(t, expected(0), "all_reduce " + what);

    HostTensor r =
        tensorOf(dtype, kShape, [&](int64_t i) { return small(rank, i); });
    f.expectOk(dist::reduce(r, members.front(), op, g), "reduce " + what);
    if (rank == members.front())
      f.expectValues(r, expected(0), "reduce " + what);
    else
      f.expectValues(
          r, [&](int64_t i) { return stored(small(rank, i)); },
          "reduce (not dst) " + what);

    std::vector<HostTensor> in;
    for (int64_t j = 0; j < n; ++j)
      in.push_back(tensorOf(dtype, kShape,
                            [&](int64_t i) { return small(rank, i, j); }));
    HostTensor out(dtype, kShape);
    f.expectOk(dist::reduce_scatter(out, in, op, g), "reduce_scatter " + what);
    f.expectValues(out, expected(p), "reduce_scatter " + what);
  }

  HostTensor b = tensorOf(dtype, kShape, mv(rank));
  f.expectOk(dist::broadcast(b, members.back(), g), "broadcast " + where);
  f.expectValues(b, mv(members.back()), "broadcast " + where);

  std::vector<HostTensor> gathered;
  f.expectOk(dist::all_gather(gathered, tensorOf(dtype, kShape, mv(rank)), g),
             "all_gather " + where);
  f.expect(int64_t(gathered.size()) == n, "all_gather size " + where);
  for (int64_t j = 0; j < int64_t(gathered.size()); ++j)
    f.expectValues(gathered[j], mv(members[j]), "all_gather " + where);
  // Fresh tensors: writing one changes no other device's.
  if (!gathered.empty())
    std::memset(gathered.front().data(), 0, 1);

  std::vector<HostTensor> atRoot;
  bool isDst = rank == members.front();
  f.expectOk(dist::gather(tensorOf(dtype, kShape, mv(rank)),
                          isDst ? &atRoot : nullptr, members.front(), g),
             "gather " + where);
  if (isDst) {
    f.expect(int64_t(atRoot.size()) == n, "gather size " + where);
    for (int64_t j = 0; j < int64_t(atRoot.size()); ++j)
      f.expectValues(atRoot[j], mv(members[j]), "gather " + where);
  }

  std::vector<HostTensor> pieces;
  for (int64_t j = 0; j < n; ++j)
    pieces.push_back(tensorOf(dtype, kShape, mv(rank, j)));
  HostTensor s(dtype, kShape);
  bool isSrc = rank == members.front();
  f.expectOk(dist::scatter(s, isSrc ? &pieces : nullptr, members.front(), g),
             "scatter " + where);
  f.expectValues(s, mv(members.front(), p), "scatter " + where);

  std::vector<HostTensor> received;
  f.expectOk(dist::all_to_all(received, pieces, g), "all_to_all " + where);
  f.expect(int64_t(received.size()) == n, "all_to_all size " + where);
  for (int64_t j = 0; j < int64_t(received.size()); ++j)
    f.expectValues(received[j], mv(members[j], p), "all_to_all " + where);

  f.expectOk(dist::barrier(g), "barrier " + where);
}

struct Case {
  int64_t devices;
  DType dtype;
};

class DistCollectives : public ::testing::TestWithParam<Case> {};

TEST_P(DistCollectives, EqualTheHostsResult) {
  int64_t perProcess = GetParam().devices;
  DType dtype = GetParam().dtype;
  setDevices(perProcess);
  // Under mpirun every process runs its devices (ranks process-major).
  int64_t devices = perProcess * spmd::world_size();
  DeviceFailures f;
  absl::Status status = spawn([&](int64_t index) {
    int64_t rank = dist::get_rank();
    f.expect(rank == index, "get_rank is the index");
    f.expect(dist::get_world_size() == devices, "world size");
    std::vector<int64_t> world(devices);
    std::iota(world.begin(), world.end(), 0);
    runCollectives(f, dtype, dist::Group(), world, rank);
    // One member: the last device. Non-contiguous, in another order: the
    // even ranks, highest first.
    std::vector<int64_t> one = {devices - 1}, evens;
    for (int64_t r = devices - 1; r >= 0; --r)
      if (r % 2 == 0)
        evens.push_back(r);
    for (const std::vector<int64_t> &members : {one, evens}) {
      absl::StatusOr<dist::Group> g = dist::new_group(members);
      f.expectOk(g.status(), "new_group");
      if (g.ok() && std::count(members.begin(), members.end(), rank))
        runCollectives(f, dtype, *g, members, rank);
    }
    // Point to point around the ring, blocking and not.
    if (devices > 1) {
      int64_t next = (rank + 1) % devices,
              prev = (rank + devices - 1) % devices;
      auto mine = [&](int64_t r) {
        return [=](int64_t i) {
          double v = moved(r, i);
          return asType(dtype, v);
        };
      };
      f.expectOk(dist::send(tensorOf(dtype, kShape, mine(rank)), next), "send");
      HostTensor got(dtype, kShape);
      f.expectOk(dist::recv(got, prev), "recv");
      f.expectValues(got, mine(prev), "recv");
      HostTensor later(dtype, kShape);
      dist::Work r = dist::irecv(later, next);
      dist::Work s = dist::isend(tensorOf(dtype, kShape, mine(rank)), prev);
      f.expectOk(s.wait(), "isend");
      f.expectOk(r.wait(), "irecv");
      f.expect(r.is_completed(), "irecv completed");
      f.expectValues(later, mine(next), "irecv");
    }
  });
  EXPECT_TRUE(status.ok()) << status;
  f.report();
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (int64_t devices : {1, 2, 3, 4, 8})
    for (DType t : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I1,
                    DType::I8, DType::I16, DType::I32, DType::I64})
      all.push_back({devices, t});
  return all;
}

INSTANTIATE_TEST_SUITE_P(DevicesAndTypes, DistCollectives,
                         ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::to_string(info.param.devices) +
                                  "_devices_" + nameOf(info.param.dtype);
                         });

/// Point to point across the processes: every device sends to the device
/// two ranks on (the next process's, with 2 devices each) and receives from
/// two ranks back, blocking and not.
TEST(DistAcrossProcesses, PointToPointRing) {
  setDevices(2);
  DeviceFailures f;
  absl::Status status = spawn([&](int64_t rank) {
    int64_t world = dist::get_world_size();
    int64_t next = (rank + 2) % world, prev = (rank + world - 2) % world;
    if (next == rank)
      return;
    HostTensor got(DType::F32, kShape), later(DType::F32, kShape);
    dist::Work r = dist::irecv(later, prev);
    f.expectOk(dist::send(tensorOf(DType::F32, kShape,
                                   [&](int64_t i) { return moved(rank, i); }),
                          next),
               "send");
    f.expectOk(
        dist::isend(tensorOf(DType::F32, kShape,
                             [&](int64_t i) { return moved(rank, i, 1); }),
                    next)
            .wait(),
        "isend");
    f.expectOk(r.wait(), "irecv");
    f.expectOk(dist::recv(got, prev), "recv");
    f.expectValues(
        later, [&](int64_t i) { return moved(prev, i); }, "irecv");
    f.expectValues(
        got, [&](int64_t i) { return moved(prev, i, 1); }, "recv");
  });
  EXPECT_TRUE(status.ok()) << status;
  f.report();
}

/// A tensor's bytes travel after a head, as messages of their own: empty
/// tensors (no bytes), large ones (past MPI's eager limit) and groups
/// meeting at once (their parts must not interleave) arrive whole.
TEST(DistAcrossProcesses, EmptyAndLargeTensorsArriveWhole) {
  setDevices(2);
  DeviceFailures f;
  absl::Status status = spawn([&](int64_t rank) {
    int64_t world = dist::get_world_size();
    const int64_t large = 3 << 20; // 12 MiB of f32
    auto value = [](int64_t r, int64_t i) {
      return double((r * 7 + i) % 1000);
    };
    HostTensor big = tensorOf(DType::F32, {large},
                              [&](int64_t i) { return value(rank, i); });
    f.expectOk(dist::all_reduce(big), "all_reduce");
    f.expectValues(
        big,
        [&](int64_t i) {
          double sum = 0;
          for (int64_t r = 0; r < world; ++r)
            sum += value(r, i);
          return sum;
        },
        "all_reduce");
    std::vector<HostTensor> gathered;
    f.expectOk(dist::all_gather(gathered, HostTensor(DType::I8, {0, 3})),
               "all_gather");
    f.expect(gathered.size() == size_t(world) &&
                 std::all_of(gathered.begin(), gathered.end(),
                             [](const HostTensor &t) { return !t.numel(); }),
             "all_gather of empty tensors");
    // Even and odd ranks in groups of their own, both crossing processes
    // when there are several, meeting at once.
    std::vector<int64_t> evens, odds;
    for (int64_t r = 0; r < world; ++r)
      (r % 2 ? odds : evens).push_back(r);
    absl::StatusOr<dist::Group> even = dist::new_group(evens);
    absl::StatusOr<dist::Group> odd = dist::new_group(odds);
    f.expectOk(even.status(), "new_group");
    f.expectOk(odd.status(), "new_group");
    if (!even.ok() || !odd.ok())
      return;
    HostTensor mid = tensorOf(DType::F64, {large / 4},
                              [&](int64_t i) { return value(rank, i); });
    f.expectOk(dist::broadcast(mid, rank % 2, rank % 2 ? *odd : *even),
               "broadcast");
    f.expectValues(
        mid, [&](int64_t i) { return value(rank % 2, i); }, "broadcast");
    int64_t next = (rank + 2) % world, prev = (rank + world - 2) % world;
    if (next == rank)
      return;
    HostTensor none(DType::I32, {0}), got(DType::F32, {large});
    dist::Work r = dist::irecv(none, prev);
    f.expectOk(dist::send(HostTensor(DType::I32, {0}), next), "send");
    f.expectOk(dist::send(tensorOf(DType::F32, {large},
                                   [&](int64_t i) { return value(rank, i); }),
                          next),
               "send");
    f.expectOk(r.wait(), "irecv");
    f.expectOk(dist::recv(got, prev), "recv");
    f.expectValues(
        got, [&](int64_t i) { return value(prev, i); }, "recv");
  });
  EXPECT_TRUE(status.ok()) << status;
  f.report();
}

/// The last device calls another collective; under mpirun it is another
/// process's. Every device gets the error naming both calls.
TEST(DistAcrossProcesses, AMismatchNamesTheDevicesAndCalls) {
  setDevices(2);
  setenv("SPMD_MPI_TIMEOUT", "5", 1);
  DeviceFailures f;
  absl::Status status = spawn([&](int64_t rank) {
    int64_t last = dist::get_world_size() - 1;
    HostTensor t(DType::F32, {3});
    absl::Status s = rank == last ? dist::broadcast(t, 0) : dist::all_reduce(t);
    std::string message(s.message());
    f.expect(
        message.find("device " + std::to_string(last) +
                     " called broadcast(f32[3], src=0)") != std::string::npos &&
            message.find("called all_reduce(f32[3], SUM)") != std::string::npos,
        "device " + std::to_string(rank) + ": " + s.ToString());
  });
  unsetenv("SPMD_MPI_TIMEOUT");
  EXPECT_FALSE(status.ok());
  f.report();
}

/// The last process's devices (alone: the last device) never call the
/// barrier: the others fail within the timeout.
TEST(DistAcrossProcesses, ADeviceThatNeverComesFailsTheOthersInTime) {
  setDevices(2);
  setenv("SPMD_MPI_TIMEOUT", "2", 1);
  int64_t processes = spmd::world_size();
  DeviceFailures f;
  auto start = std::chrono::steady_clock::now();
  absl::Status status = spawn([&](int64_t rank) {
    int64_t world = dist::get_world_size();
    bool absent = processes > 1 ? rank >= world - 2 : rank == world - 1;
    if (absent) {
      std::this_thread::sleep_for(std::chrono::milliseconds(3000));
      return;
    }
    absl::Status s = dist::barrier();
    f.expect(!s.ok(), "device " + std::to_string(rank) + " passed");
  });
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  unsetenv("SPMD_MPI_TIMEOUT");
  EXPECT_FALSE(status.ok());
  EXPECT_LT(seconds, 8.0);
  f.report();
}

/// The last device returns at once; the others call an all_reduce it
/// never joins, those of the other processes a second later, and wait for
/// it until the timeout. So the last process ends its spawn a timeout and
/// more before the others. Every
/// process still returns an error, and the next spawn (a barrier of every
/// device) passes: no process gave up on the others' outcome, which it
/// would then take for the next one's. mpi/spawn-agreement-np2 runs it
/// with the processes' own timeout as short (SPMD_MPI_TIMEOUT=2).
TEST(DistAcrossProcesses, AProcessDoneEarlyWaitsForTheOthersOutcome) {
  setDevices(2);
  setenv("SPMD_MPI_TIMEOUT", "2", 1);
  absl::Status first = spawn([&](int64_t rank) {
    if (rank == dist::get_world_size() - 1)
      return;
    if (rank / addressable_device_count() != world_size() - 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    HostTensor t(DType::F32, kShape);
    (void)dist::all_reduce(t);
  });
  absl::Status next = spawn([&](int64_t) { (void)dist::barrier(); });
  // Under mpirun, processes passing different nprocs are refused at once
  // (they named different groups and met only in timeouts).
  if (world_size() > 1) {
    absl::Status differ =
        spawn([](int64_t) {},
              process_index() == 0 ? std::optional<int64_t>(1) : std::nullopt);
    EXPECT_EQ(differ.code(), absl::StatusCode::kInvalidArgument) << differ;
    EXPECT_NE(differ.message().find("different numbers of devices"),
              std::string::npos)
        << differ;
  }
  unsetenv("SPMD_MPI_TIMEOUT");
  EXPECT_FALSE(first.ok());
  EXPECT_TRUE(next.ok()) << next;
}

TEST(Xm, AllReduceScalesInGroupsAndRendezvousMeets) {
  setDevices(4);
  int64_t devices = 4 * spmd::world_size();
  // Groups {4b, 4b + 2} and {4b + 3, 4b + 1}: the mean within each.
  std::vector<std::vector<int64_t>> groups;
  for (int64_t b = 0; b < devices; b += 4) {
    groups.push_back({b, b + 2});
    groups.push_back({b + 3, b + 1});
  }
  DeviceFailures f;
  absl::Status status = spawn([&](int64_t rank) {
    std::vector<HostTensor> inputs = {
        tensorOf(DType::F32, kShape, [&](int64_t i) { return small(rank, i); }),
        tensorOf(DType::F64, {3}, [&](int64_t i) { return double(rank + i); })};
    f.expectOk(xm::all_reduce(dist::ReduceOp::SUM, inputs, 0.5, groups),
               "xm::all_reduce");
    int64_t other = rank ^ 2;
    f.expectValues(
        inputs[0],
        [&](int64_t i) { return (small(rank, i) + small(other, i)) * 0.5; },
        "xm::all_reduce f32");
    f.expectValues(
        inputs[1], [&](int64_t i) { return double(rank + other) / 2 + i; },
        "xm::all_reduce f64");
    absl::StatusOr<std::vector<std::string>> all =
        xm::rendezvous("ready", "device " + std::to_string(rank));
    f.expectOk(all.status(), "rendezvous");
    std::vector<std::string> payloads;
    for (int64_t r = 0; r < devices; ++r)
      payloads.push_back("device " + std::to_string(r));
    if (all.ok())
      f.expect(*all == payloads, "rendezvous payloads");
    absl::StatusOr<double> total =
        xm::mesh_reduce("loss", double(rank) + 0.25, [](std::vector<double> v) {
          return std::accumulate(v.begin(), v.end(), 0.0);
        });
    f.expect(total.ok() &&
                 *total == devices * (devices - 1) / 2.0 + 0.25 * devices,
             "mesh_reduce");
  });
  EXPECT_TRUE(status.ok()) << status;
  f.report();
}

//===----------------------------------------------------------------------===//
// Misuse: an error on every device it concerns, within the timeout.
//===----------------------------------------------------------------------===//

/// Runs `fn` on `devices` devices with a 2 s timeout; the statuses each
/// device recorded, and spawn's. Fails if it took longer than the timeout
/// and a margin.
struct Misuse {
  std::vector<absl::Status> seen;
  absl::Status spawned;
};

Misuse misuse(int64_t devices, const std::function<absl::Status(int64_t)> &fn) {
  setDevices(devices);
  setenv("SPMD_MPI_TIMEOUT", "2", 1);
  Misuse m;
  m.seen.resize(devices);
  auto start = std::chrono::steady_clock::now();
  m.spawned = spawn([&](int64_t rank) { m.seen[rank] = fn(rank); });
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LT(seconds, 8.0) << "a misuse waited past the timeout";
  unsetenv("SPMD_MPI_TIMEOUT");
  return m;
}

bool mentions(const absl::Status &s, const std::string &text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

TEST(DistMisuse, DifferentCollectivesNameTheDevicesAndCalls) {
  Misuse m = misuse(4, [](int64_t rank) {
    HostTensor t(DType::F32, {4});
    return rank == 1 ? dist::broadcast(t, 0) : dist::all_reduce(t);
  });
  for (const absl::Status &s : m.seen) {
    EXPECT_TRUE(mentions(s, "does not match")) << s;
    EXPECT_TRUE(mentions(s, "devices 0, 2, 3 called all_reduce(f32[4], SUM)"))
        << s;
    EXPECT_TRUE(mentions(s, "device 1 called broadcast(f32[4], src=0)")) << s;
  }
  EXPECT_FALSE(m.spawned.ok());
}

TEST(DistMisuse, DifferentShapesAndTypes) {
  Misuse m = misuse(2, [](int64_t rank) {
    HostTensor t(rank ? DType::F64 : DType::F32, {2, rank + 1});
    return dist::all_reduce(t, dist::ReduceOp::MAX);
  });
  for (const absl::Status &s : m.seen) {
    EXPECT_TRUE(mentions(s, "device 0 called all_reduce(f32[2, 1], MAX)")) << s;
    EXPECT_TRUE(mentions(s, "device 1 called all_reduce(f64[2, 2], MAX)")) << s;
  }
}

TEST(DistMisuse, DifferentGroupsEndWhenTheOthersReturn) {
  Misuse m = misuse(4, [](int64_t rank) {
    absl::StatusOr<dist::Group> pair = dist::new_group({0, 1});
    if (!pair.ok())
      return pair.status();
    HostTensor t(DType::F32, {4});
    // 0 and 1 reduce over their pair; 2 and 3 over every device.
    return rank < 2 ? dist::all_reduce(t, dist::ReduceOp::SUM, *pair)
                    : dist::all_reduce(t);
  });
  EXPECT_TRUE(m.seen[0].ok() && m.seen[1].ok());
  for (int64_t rank : {2, 3})
    EXPECT_TRUE(mentions(m.seen[rank], "returned without calling it"))
        << m.seen[rank];
}

TEST(DistMisuse, ARankOutsideTheGroup) {
  Misuse m = misuse(3, [](int64_t rank) {
    absl::StatusOr<dist::Group> pair = dist::new_group({0, 1});
    if (!pair.ok())
      return pair.status();
    HostTensor t(DType::F32, {4});
    return rank == 2 ? dist::all_reduce(t, dist::ReduceOp::SUM, *pair)
                     : absl::OkStatus();
  });
  EXPECT_TRUE(mentions(m.seen[2], "device 2 is not in group [0, 1]"))
      << m.seen[2];
}

TEST(DistMisuse, RootsAndPeersOutOfRange) {
  Misuse m = misuse(2, [](int64_t rank) {
    HostTensor t(DType::F32, {4});
    absl::Status b = dist::broadcast(t, 7);
    if (b.ok() || !mentions(b, "src 7 is not in group [0, 1]"))
      return absl::InternalError("broadcast: " + b.ToString());
    absl::Status s = dist::send(t, -1);
    if (s.ok() || !mentions(s, "dst -1 is out of range [0, 2)"))
      return absl::InternalError("send: " + s.ToString());
    absl::Status r = dist::recv(t, rank);
    if (r.ok() || !mentions(r, "src is the calling device"))
      return absl::InternalError("recv: " + r.ToString());
    std::vector<HostTensor> wrong(3, HostTensor(DType::F32, {4}));
    absl::Status a = dist::all_to_all(wrong, wrong);
    if (a.ok() || !mentions(a, "the input list has 3 tensors for 2 members"))
      return absl::InternalError("all_to_all: " + a.ToString());
    absl::StatusOr<dist::Group> g = dist::new_group({0, 0});
    if (g.ok() || !mentions(g.status(), "a rank is listed twice"))
      return absl::InternalError("new_group: " + g.status().ToString());
    return absl::OkStatus();
  });
  for (const absl::Status &s : m.seen)
    EXPECT_TRUE(s.ok()) << s;
}

TEST(DistMisuse, ARecvWithoutSendTimesOut) {
  Misuse m = misuse(2, [](int64_t rank) {
    HostTensor t(DType::F32, {4});
    if (rank == 0)
      return dist::recv(t, 1);
    // Device 1 stays, doing other work, past the timeout.
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    return absl::OkStatus();
  });
  EXPECT_TRUE(mentions(
      m.seen[0], "recv on device 0 from device 1: nothing came within 2.00 s"))
      << m.seen[0];
}

TEST(DistMisuse, ARecvFromADeviceThatReturned) {
  Misuse m = misuse(2, [](int64_t rank) {
    HostTensor t(DType::F32, {4});
    return rank == 0 ? dist::recv(t, 1) : absl::OkStatus();
  });
  EXPECT_TRUE(mentions(m.seen[0], "device 1 returned without sending it"))
      << m.seen[0];
}

TEST(DistMisuse, ADeviceThatThrowsOrReturnsEarly) {
  Misuse m = misuse(3, [](int64_t rank) -> absl::Status {
    if (rank == 1)
      throw std::runtime_error("boom");
    HostTensor t(DType::F32, {4});
    return dist::all_reduce(t);
  });
  for (int64_t rank : {0, 2})
    EXPECT_TRUE(
        mentions(m.seen[rank], "device 1 threw (boom) without calling it"))
        << m.seen[rank];
  EXPECT_TRUE(mentions(m.spawned, "device 1 threw (boom)")) << m.spawned;

  Misuse early = misuse(3, [](int64_t rank) {
    return rank == 2 ? absl::OkStatus() : dist::barrier();
  });
  for (int64_t rank : {0, 1})
    EXPECT_TRUE(
        mentions(early.seen[rank], "device 2 returned without calling it"))
        << early.seen[rank];
}

TEST(DistMisuse, ACollectiveNobodyElseCallsTimesOut) {
  Misuse m = misuse(2, [](int64_t rank) {
    if (rank == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2500));
      return absl::OkStatus();
    }
    return dist::barrier();
  });
  EXPECT_TRUE(mentions(m.seen[0], "device 1 did not call it within 2.00 s"))
      << m.seen[0];
}

TEST(Spawn, RefusesBadUse) {
  setDevices(4);
  EXPECT_EQ(spawn([](int64_t) {}, 3).code(),
            absl::StatusCode::kInvalidArgument);
  int64_t calls = 0;
  EXPECT_TRUE(spawn([&](int64_t index) { calls += 1 + index; }, 1).ok());
  EXPECT_EQ(calls, 1);
  absl::Status nested;
  EXPECT_TRUE(spawn([&](int64_t index) {
                if (index == 0)
                  nested = spawn([](int64_t) {});
              }).ok());
  EXPECT_EQ(nested.code(), absl::StatusCode::kFailedPrecondition);
  HostTensor t(DType::F32, {2});
  EXPECT_EQ(dist::all_reduce(t).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(dist::get_rank(), -1);
}

} // namespace

//===----------------------------------------------------------------------===//
// Found by adversarial runs: each a reproducer.
//===----------------------------------------------------------------------===//

namespace {

TEST(DistFound, OutputListsMayHoldTheInput) {
  Misuse m = misuse(4, [](int64_t rank) -> absl::Status {
    auto mine = [&](int64_t j) {
      return tensorOf(DType::F32, kShape,
                      [&](int64_t i) { return moved(rank, i, j); });
    };
    std::vector<HostTensor> v = {mine(0)};
    if (absl::Status s = dist::all_gather(v, v[0]); !s.ok())
      return s;
    for (int64_t j = 0; j < 4; ++j)
      if (v.size() != 4 || v[j].at(1) != moved(j, 1))
        return absl::InternalError("all_gather(v, v[0])");
    std::vector<HostTensor> w = {mine(0), mine(1), mine(2), mine(3)};
    if (absl::Status s = dist::all_to_all(w, w); !s.ok())
      return s;
    for (int64_t j = 0; j < 4; ++j)
      if (w[j].at(1) != moved(j, 1, rank))
        return absl::InternalError("all_to_all(w, w)");
    std::vector<HostTensor> g = {mine(0)};
    if (absl::Status s = dist::gather(g[0], &g, 0); !s.ok())
      return s;
    if (rank == 0 && (g.size() != 4 || g[3].at(1) != moved(3, 1)))
      return absl::InternalError("gather(g[0], &g, 0)");
    return absl::OkStatus();
  });
  for (const absl::Status &s : m.seen)
    EXPECT_TRUE(s.ok()) << s;
}

TEST(DistFound, ReceivesMatchInTheOrderTheyArePosted) {
  Misuse m = misuse(2, [](int64_t rank) -> absl::Status {
    auto one = [](double v) {
      return tensorOf(DType::F32, {1}, [=](int64_t) { return v; });
    };
    if (rank == 0) {
      for (double v : {1, 2, 3})
        if (absl::Status s = dist::send(one(v), 1); !s.ok())
          return s;
      return absl::OkStatus();
    }
    HostTensor a = one(0), b = one(0), c = one(0);
    dist::Work wa = dist::irecv(a, 0), wb = dist::irecv(b, 0);
    if (absl::Status s = dist::recv(c, 0); !s.ok())
      return s;
    if (absl::Status s = wb.wait(); !s.ok())
      return s;
    if (absl::Status s = wa.wait(); !s.ok())
      return s;
    if (a.at(0) != 1 || b.at(0) != 2 || c.at(0) != 3)
      return absl::InternalError("received " + std::to_string(a.at(0)) + ", " +
                                 std::to_string(b.at(0)) + ", " +
                                 std::to_string(c.at(0)));
    return absl::OkStatus();
  });
  for (const absl::Status &s : m.seen)
    EXPECT_TRUE(s.ok()) << s;
}

TEST(DistFound, PollingLetsTheOtherDevicesRunAndSeesASenderGone) {
  // Devices 0 and 1 poll in a loop for messages of devices 2 and 3 (on the
  // same workers as them, 2 cores); device 3 returns without sending.
  Misuse m = misuse(4, [](int64_t rank) -> absl::Status {
    HostTensor t(DType::F32, {1});
    if (rank == 2)
      return dist::send(t, 0);
    if (rank == 3)
      return absl::OkStatus();
    dist::Work w = dist::irecv(t, rank + 2);
    while (!w.is_completed()) {
    }
    return w.wait();
  });
  EXPECT_TRUE(m.seen[0].ok()) << m.seen[0];
  EXPECT_TRUE(mentions(m.seen[1], "device 3 returned without sending it"))
      << m.seen[1];
}

TEST(DistFound, ALateArrivalFailsAsTheOthersDid) {
  Misuse m = misuse(2, [](int64_t rank) {
    HostTensor t(DType::F32, {4});
    if (rank == 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    return dist::broadcast(t, 0);
  });
  for (const absl::Status &s : m.seen)
    EXPECT_TRUE(mentions(s, "device 1 did not call it within 2.00 s")) << s;
}

TEST(DistFound, AWorkBelongsToItsSpawn) {
  setDevices(2);
  std::optional<dist::Work> kept;
  ASSERT_TRUE(spawn([&](int64_t rank) {
                if (rank == 1) {
                  static HostTensor t(DType::F32, {1});
                  kept = dist::irecv(t, 0);
                }
              }).ok());
  absl::Status later;
  (void)spawn([&](int64_t rank) {
    if (rank == 1)
      later = kept->wait();
  });
  EXPECT_EQ(later.code(), absl::StatusCode::kFailedPrecondition) << later;
}

TEST(DistFound, InvalidTensorsAreErrorsOnEveryMember) {
  Misuse m = misuse(2, [](int64_t rank) {
    HostTensor t = rank == 0 ? HostTensor(DType::F32, {-1, 3})
                             : HostTensor(DType::F32, {0, 3});
    return dist::all_reduce(t);
  });
  for (const absl::Status &s : m.seen)
    EXPECT_TRUE(mentions(s, "device 0 called all_reduce(f32[0], SUM) [an "
                            "invalid tensor: invalid tensor shape [-1, 3]]"))
        << s;
  Misuse p2p = misuse(2, [](int64_t rank) {
    HostTensor bad(DType::F32, {-1});
    return rank == 0 ? dist::send(bad, 1) : absl::OkStatus();
  });
  EXPECT_TRUE(mentions(p2p.seen[0], "an invalid tensor")) << p2p.seen[0];
}

TEST(DistFound, MeshReduceErrorsReachSpawn) {
  Misuse m = misuse(2, [](int64_t rank) {
    auto sum = [](auto v) { return v[0]; };
    return rank == 0 ? xm::mesh_reduce("x", int32_t(1), sum).status()
                     : xm::mesh_reduce("x", double(1), sum).status();
  });
  EXPECT_TRUE(mentions(m.spawned, "sent 8 bytes, not 4") ||
              mentions(m.spawned, "sent 4 bytes, not 8"))
      << m.spawned;
}

TEST(DistFound, XmGroupsMustAgreeAndNotOverlap) {
  Misuse m = misuse(4, [](int64_t rank) {
    std::vector<HostTensor> t = {HostTensor(DType::F32, {2})};
    if (rank == 0)
      return xm::all_reduce(dist::ReduceOp::SUM, t, 1.0, {{0, 1}, {2, 3}});
    return xm::all_reduce(dist::ReduceOp::SUM, t, 1.0, {{0, 1}, {3, 2}});
  });
  for (int64_t rank : {0, 1})
    EXPECT_TRUE(mentions(m.seen[rank], "does not match")) << m.seen[rank];
  Misuse overlap = misuse(2, [](int64_t) {
    std::vector<HostTensor> t = {HostTensor(DType::F32, {2})};
    return xm::all_reduce(dist::ReduceOp::SUM, t, 1.0, {{0, 1}, {1}});
  });
  for (const absl::Status &s : overlap.seen)
    EXPECT_TRUE(mentions(s, "rank 1 is in two groups")) << s;
}

// Groups in which a device appears twice fail on every device at once:
// the first group's members do not wait for a member that meets in
// another, and the next collective finds every device there.
TEST(DistFound, OverlappingXmGroupsFailEverywhereAtOnce) {
  auto start = std::chrono::steady_clock::now();
  Misuse m = misuse(4, [](int64_t) -> absl::Status {
    std::vector<HostTensor> t = {HostTensor(DType::F32, {1})};
    absl::Status overlap =
        xm::all_reduce(dist::ReduceOp::SUM, t, 1.0, {{0, 1}, {1, 2, 3}});
    if (!mentions(overlap, "rank 1 is in two groups"))
      return absl::InternalError("overlap: " + overlap.ToString());
    HostTensor one = *HostTensor::fromVector<float>({1}, {1.0f});
    if (absl::Status s = dist::all_reduce(one); !s.ok())
      return s;
    if (one.at(0) != 4)
      return absl::InternalError("reduced to " + std::to_string(one.at(0)));
    return absl::OkStatus();
  });
  for (const absl::Status &s : m.seen)
    EXPECT_TRUE(s.ok()) << s;
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      1.5)
      << "a device waited for the timeout";
}

// A scale with an integer input fails before any input is reduced.
TEST(DistFound, AnXmAllReduceThatFailsLeavesItsInputsAlone) {
  Misuse m = misuse(2, [](int64_t rank) -> absl::Status {
    float mine = float(rank + 1); // reduced and scaled: 1.5 on both
    std::vector<HostTensor> t = {*HostTensor::fromVector<float>({1}, {mine}),
                                 *HostTensor::fromVector<int32_t>({1}, {3})};
    absl::Status s = xm::all_reduce(dist::ReduceOp::SUM, t, 0.5);
    if (!mentions(s, "integers are not scaled"))
      return absl::InternalError("scaled integers: " + s.ToString());
    if (t[0].at(0) != mine || t[1].at(0) != 3)
      return absl::InternalError("inputs changed to " +
                                 std::to_string(t[0].at(0)) + ", " +
                                 std::to_string(t[1].at(0)));
    return absl::OkStatus();
  });
  for (const absl::Status &s : m.seen)
    EXPECT_TRUE(s.ok()) << s;
}

TEST(DistFound, ManyDevicesOnFewCoresWaitWhileTheProcessMovesOn) {
  // 64 devices computing 100 ms each before one all_reduce: the last start
  // seconds after the first waits, longer than the 2 s timeout, but some
  // device moves all along.
  Misuse m = misuse(64, [](int64_t) {
    auto end =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    while (std::chrono::steady_clock::now() < end) {
    }
    HostTensor t = tensorOf(DType::F32, {1}, [](int64_t) { return 1; });
    absl::Status s = dist::all_reduce(t);
    return s.ok() && t.at(0) != 64 ? absl::InternalError("sum") : s;
  });
  for (const absl::Status &s : m.seen)
    EXPECT_TRUE(s.ok()) << s;
}

} // namespace
