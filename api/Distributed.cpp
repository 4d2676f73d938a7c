//===- Distributed.cpp - spawn, spmd::dist and spmd::xm -------------------===//
//
// Replicated execution: spawn runs the user's function on every device of
// the pool; each call of spmd::dist is a meeting of ProcessGroups (the
// runtime's), whose posted buffers are snapshots of the callers' tensors
// (a HostTensor is the user's mutable storage: nothing the call returns may
// share it with another device).
//
//===----------------------------------------------------------------------===//

#include "api/Internal.h"
#include "runtime/comm/MpiWorld.h"
#include "runtime/comm/ProcessGroups.h"
#include "runtime/exec/TensorOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <cmath>
#include <cstdlib>

namespace spmd {
namespace {

using runtime::HostBuffer;
using runtime::ProcessGroups;
using runtime::TensorRef;

/// One spawn: the devices' meetings and the first error of each device.
struct Session {
  Session(int64_t devices, runtime::MpiWorld *world,
          std::chrono::milliseconds timeout, uint64_t id)
      : groups(devices, world, timeout, id), id(id), errors(devices) {}
  ProcessGroups groups;
  /// The spawns started before this one, plus one: the same on every
  /// process, since all call spawn alike.
  uint64_t id;
  /// By this process's device: each device writes its own.
  std::vector<absl::Status> errors;
};

std::atomic<Session *> currentSession{nullptr};

/// The calling device and its session.
struct Caller {
  Session *session;
  int64_t rank;
};

absl::StatusOr<Caller> caller(const char *call) {
  Session *session = currentSession.load();
  int64_t device = runtime::currentPoolDevice();
  if (!session || device < 0)
    return absl::FailedPreconditionError(
        std::string("spmd::dist::") + call +
        " is called outside a device of spmd::spawn");
  return Caller{session, session->groups.firstRank() + device};
}

/// `status`, kept as the device's first error for spawn to return.
absl::Status note(const Caller &c, absl::Status status) {
  absl::Status &first =
      c.session->errors[c.rank - c.session->groups.firstRank()];
  if (!status.ok() && first.ok())
    first = status;
  return status;
}

/// Each ReduceOp's name and reduction.
struct ReduceOpInfo {
  dist::ReduceOp op;
  const char *name;
  ReductionKind kind;
};
constexpr ReduceOpInfo kReduceOps[] = {
    {dist::ReduceOp::SUM, "SUM", ReductionKind::Sum},
    {dist::ReduceOp::PRODUCT, "PRODUCT", ReductionKind::Prod},
    {dist::ReduceOp::MAX, "MAX", ReductionKind::Max},
    {dist::ReduceOp::MIN, "MIN", ReductionKind::Min},
};
const ReduceOpInfo &infoOf(dist::ReduceOp op) {
  for (const ReduceOpInfo &info : kReduceOps)
    if (info.op == op)
      return info;
  assert(false && "every ReduceOp is listed");
  return kReduceOps[0];
}

ReductionKind reductionOf(dist::ReduceOp op, runtime::ElementType type) {
  return detail::reductionKindOf(op, type == runtime::ElementType::I1);
}

const char *nameOf(dist::ReduceOp op) { return infoOf(op).name; }

const HostBuffer &bufferOf(const HostTensor &t) {
  return detail::TensorStorage::of(t);
}

/// "f32[4, 8]".
std::string describe(const HostBuffer &t) {
  std::string text = runtime::elementTypeName(t.type()).str() + "[";
  for (auto [i, size] : llvm::enumerate(t.shape()))
    text += (i ? ", " : "") + std::to_string(size);
  return text + "]";
}

bool sameKind(const HostBuffer &a, const HostBuffer &b) {
  return a.type() == b.type() && a.shape() == b.shape();
}

/// A copy of `t` that no user storage shares.
TensorRef snapshot(const HostBuffer &t) {
  auto copy = std::make_shared<HostBuffer>(
      t.type(), std::vector<int64_t>(t.shape()), runtime::Init::None);
  std::memcpy(copy->data(), t.data(), t.sizeInBytes());
  return copy;
}

/// `parts` (all of one type and shape) one after the other.
TensorRef stacked(const std::vector<HostTensor> &parts) {
  const HostBuffer &first = bufferOf(parts.front());
  std::vector<int64_t> shape{int64_t(parts.size())};
  shape.insert(shape.end(), first.shape().begin(), first.shape().end());
  auto all =
      std::make_shared<HostBuffer>(first.type(), shape, runtime::Init::None);
  for (auto [i, part] : llvm::enumerate(parts))
    std::memcpy(all->data() + i * first.sizeInBytes(), bufferOf(part).data(),
                first.sizeInBytes());
  return all;
}

/// Element `index * like.numElements()` of `all` as a fresh tensor like
/// `like`.
HostTensor pieceOf(const HostBuffer &all, int64_t index,
                   const HostBuffer &like) {
  auto piece = std::make_shared<HostBuffer>(
      like.type(), std::vector<int64_t>(like.shape()), runtime::Init::None);
  std::memcpy(piece->data(), all.data() + index * like.sizeInBytes(),
              like.sizeInBytes());
  return detail::TensorStorage::wrap(std::move(piece));
}

/// Piece `index` of each of `all`, as fresh tensors: built before the
/// caller's list is replaced, since `like` may be one of its tensors.
std::vector<HostTensor> piecesOf(const std::vector<TensorRef> &all,
                                 int64_t index, const HostBuffer &like) {
  std::vector<HostTensor> pieces;
  for (const TensorRef &part : all)
    pieces.push_back(pieceOf(*part, index, like));
  return pieces;
}

void copyInto(HostTensor &t, const HostBuffer &from, int64_t index = 0) {
  HostBuffer &to = detail::TensorStorage::mutableOf(t);
  std::memcpy(to.data(), from.data() + index * to.sizeInBytes(),
              to.sizeInBytes());
}

/// A collective's call on one device: its group resolved, its position.
struct GroupCall {
  Caller caller;
  std::vector<int64_t> ranks;
  int64_t position;
  std::string key;
  /// A tensor given that is invalid (HostTensor::status()).
  std::string invalid;

  /// Every member's `data`, once all called `call` (`problem`, when not
  /// empty, is this device's misuse: it fails the meeting on every member).
  absl::StatusOr<std::vector<TensorRef>>
  meet(std::string call, std::string problem, TensorRef data = nullptr) {
    if (!invalid.empty())
      problem = invalid;
    if (!problem.empty())
      call += " [" + problem + "]";
    llvm::Expected<std::vector<TensorRef>> all = caller.session->groups.meet(
        caller.rank, ranks, call, std::move(data), key);
    if (!all)
      return detail::toStatus(all.takeError(), absl::StatusCode::kAborted);
    if (!problem.empty())
      return absl::InvalidArgumentError(problem);
    return std::move(*all);
  }
  /// The position of rank `root` in the group, or the misuse.
  std::string rootProblem(int64_t root, int64_t &at, const char *role) const {
    auto it = llvm::find(ranks, root);
    at = it - ranks.begin();
    if (it == ranks.end())
      return std::string(role) + " " + std::to_string(root) +
             " is not in group " + ProcessGroups::groupName(ranks);
    return "";
  }
};

/// The group `g` for the caller, or why it cannot take part.
/// Why `t` cannot be used, or "".
std::string invalidTensor(const HostTensor &t) {
  return t.status().ok()
             ? ""
             : "an invalid tensor: " + std::string(t.status().message());
}

absl::StatusOr<GroupCall>
collective(const char *call, const dist::Group &g,
           std::initializer_list<const HostTensor *> tensors = {}) {
  absl::StatusOr<Caller> c = caller(call);
  if (!c.ok())
    return c.status();
  GroupCall result{*c, g.ranks(), 0, "", ""};
  for (const HostTensor *t : tensors)
    if (result.invalid.empty())
      result.invalid = invalidTensor(*t);
  if (g.is_world())
    for (int64_t r = 0; r < c->session->groups.worldSize(); ++r)
      result.ranks.push_back(r);
  auto it = llvm::find(result.ranks, c->rank);
  if (it == result.ranks.end())
    return note(*c, absl::InvalidArgumentError(
                        std::string("spmd::dist::") + call + ": device " +
                        std::to_string(c->rank) + " is not in group " +
                        ProcessGroups::groupName(result.ranks)));
  result.position = it - result.ranks.begin();
  return result;
}

/// The problem of a list argument: its size and each entry's kind.
std::string listProblem(const char *what, const std::vector<HostTensor> &list,
                        size_t size, const HostBuffer &like) {
  if (list.size() != size)
    return std::string(what) + " has " + std::to_string(list.size()) +
           " tensors for " + std::to_string(size) + " members";
  for (auto [i, t] : llvm::enumerate(list))
    if (!t.status().ok() || !sameKind(bufferOf(t), like))
      return std::string(what) + "[" + std::to_string(i) + "] is " +
             describe(bufferOf(t)) + ", not " + describe(like);
  return "";
}

} // namespace

namespace detail {
ReductionKind reductionKindOf(dist::ReduceOp op, bool boolean) {
  // torch's SUM and MAX of booleans are the logical or, PRODUCT and MIN
  // the logical and.
  if (boolean)
    return op == dist::ReduceOp::SUM || op == dist::ReduceOp::MAX
               ? ReductionKind::Min
               : ReductionKind::Max;
  return infoOf(op).kind;
}

absl::Status noteDeviceStatus(absl::Status status) {
  if (absl::StatusOr<Caller> c = caller("mesh_reduce"); c.ok())
    return note(*c, std::move(status));
  return status;
}

struct GroupAccess {
  static dist::Group make(std::vector<int64_t> ranks) {
    dist::Group g;
    g.ranks_ = std::move(ranks);
    return g;
  }
};
} // namespace detail

absl::Status spawn(std::function<void(int64_t index)> fn,
                   std::optional<int64_t> nprocs) {
  int64_t devices = addressable_device_count();
  int64_t count = nprocs.value_or(devices);
  runtime::MpiWorld *world = detail::mpiProcesses();
  // Processes running other device counts would name other groups and
  // meet only in timeouts.
  if (world) {
    absl::StatusOr<bool> same =
        detail::sameOnEveryProcess(uint64_t(count), "starting spmd::spawn");
    if (!same.ok())
      return same.status();
    if (!*same)
      return absl::InvalidArgumentError(
          "spmd::spawn: the processes run different numbers of devices "
          "(nprocs " +
          std::to_string(count) +
          " here): under mpirun every process passes the same nprocs");
  }
  if (nprocs && *nprocs != 1 && *nprocs != devices)
    return absl::InvalidArgumentError(
        "spmd::spawn: nprocs is " + std::to_string(*nprocs) +
        "; it must be 1 or this process's device count, " +
        std::to_string(devices));
  // A spawn refused below is no spawn: it takes no number.
  static std::mutex starting;
  static uint64_t started = 0;
  std::unique_lock<std::mutex> start(starting);
  if (currentSession.load())
    return absl::FailedPreconditionError(
        "spmd::spawn is already running (spawn does not nest)");
  // SPMD_MPI_TIMEOUT as it is now: a program may set it between spawns.
  std::chrono::milliseconds timeout =
      runtime::MpiWorld::timeoutFromEnvironment();
  Session session(count, world, timeout, ++started);
  currentSession = &session;
  start.unlock();
  int64_t first = session.groups.firstRank();
  llvm::Error ran = runtime::runOnDevicePool(
      count, runtime::defaultDeviceWorkers(count), [&](int64_t device) {
        int64_t index = first + device;
        std::string how = "returned";
        try {
          fn(index);
        } catch (const std::exception &e) {
          how = std::string("threw (") + e.what() + ")";
        } catch (...) {
          how = "threw";
        }
        if (how != "returned" && session.errors[device].ok())
          session.errors[device] =
              absl::AbortedError("device " + std::to_string(index) + " " + how);
        session.groups.depart(index, how);
      });
  currentSession = nullptr;
  absl::Status status = absl::OkStatus();
  if (ran)
    status =
        detail::toStatus(std::move(ran), absl::StatusCode::kResourceExhausted);
  for (const absl::Status &error : session.errors)
    if (status.ok() && !error.ok())
      status = error;
  if (llvm::Error err = session.groups.flush(); status.ok() && err)
    status = detail::toStatus(std::move(err), absl::StatusCode::kAborted);
  else
    llvm::consumeError(std::move(err));
  // Every process returns the same outcome. A process whose devices are
  // done may wait here for another whose devices still wait, up to the
  // timeout, at a collective that it will never join: so twice as long.
  return world
             ? detail::agreeOnFirstError(status, "spmd::spawn",
                                         2 * timeout + std::chrono::seconds(1))
             : status;
}

namespace dist {

int64_t get_rank() {
  absl::StatusOr<Caller> c = caller("get_rank");
  return c.ok() ? c->rank : -1;
}

int64_t get_world_size() {
  absl::StatusOr<Caller> c = caller("get_world_size");
  return c.ok() ? c->session->groups.worldSize() : -1;
}

absl::StatusOr<Group> new_group(std::vector<int64_t> ranks) {
  absl::StatusOr<GroupCall> world = collective("new_group", Group());
  if (!world.ok())
    return world.status();
  std::string problem;
  std::vector<int64_t> sorted = ranks;
  llvm::sort(sorted);
  if (ranks.empty())
    problem = "a group needs a member";
  else if (sorted.front() < 0 || sorted.back() >= int64_t(world->ranks.size()))
    problem =
        "rank out of range [0, " + std::to_string(world->ranks.size()) + ")";
  else if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    problem = "a rank is listed twice";
  absl::Status met =
      world->meet("new_group(" + ProcessGroups::groupName(ranks) + ")", problem)
          .status();
  if (!met.ok())
    return note(world->caller, met);
  return detail::GroupAccess::make(std::move(ranks));
}

namespace {
/// The reduction of every member's buffer in `all` (group order), into `t`
/// (never one of them: members post copies, received buffers are new).
void reduceInto(HostTensor &t, const std::vector<TensorRef> &all, ReduceOp op,
                int64_t offset = 0) {
  std::vector<runtime::ElementSpan> parts;
  for (const TensorRef &part : all)
    parts.push_back({part.get(), offset});
  HostBuffer &out = detail::TensorStorage::mutableOf(t);
  runtime::reduceElements(parts, reductionOf(op, out.type()), out, 0,
                          out.numElements());
}
} // namespace

namespace {
/// all_reduce of `t` in `c`'s group; `more` (xm's groups) is part of the
/// call the members compare, `problem` this device's misuse.
absl::Status allReduceIn(GroupCall &c, HostTensor &t, ReduceOp op,
                         const std::string &more, const std::string &problem) {
  const HostBuffer &mine = bufferOf(t);
  std::string call =
      "all_reduce(" + describe(mine) + ", " + nameOf(op) + more + ")";
  ProcessGroups &groups = c.caller.session->groups;
  // Inside the process the members reduce a share each, as the compiled
  // programs' all_reduce does; across processes each reduces every buffer.
  bool here = groups.insideProcess(c.ranks);
  auto all = c.meet(call, problem, here ? nullptr : snapshot(mine));
  if (!all.ok())
    return note(c.caller, all.status());
  if (!here) {
    reduceInto(t, *all, op);
    return absl::OkStatus();
  }
  llvm::Expected<TensorRef> sum = groups.communicator().allReduce(
      c.key, "all_reduce", c.caller.rank, c.ranks, snapshot(mine),
      reductionOf(op, mine.type()));
  if (!sum)
    return note(c.caller,
                detail::toStatus(sum.takeError(), absl::StatusCode::kAborted));
  copyInto(t, **sum);
  return absl::OkStatus();
}
} // namespace

absl::Status all_reduce(HostTensor &t, ReduceOp op, const Group &g) {
  absl::StatusOr<GroupCall> c = collective("all_reduce", g, {&t});
  if (!c.ok())
    return c.status();
  return allReduceIn(*c, t, op, "", "");
}

absl::Status broadcast(HostTensor &t, int64_t src, const Group &g) {
  absl::StatusOr<GroupCall> c = collective("broadcast", g, {&t});
  if (!c.ok())
    return c.status();
  int64_t root = 0;
  std::string problem = c->rootProblem(src, root, "src");
  const HostBuffer &mine = bufferOf(t);
  bool sends = c->caller.rank == src;
  auto all = c->meet("broadcast(" + describe(mine) +
                         ", src=" + std::to_string(src) + ")",
                     problem, sends ? snapshot(mine) : nullptr);
  if (!all.ok())
    return note(c->caller, all.status());
  if (!sends)
    copyInto(t, *(*all)[root]);
  return absl::OkStatus();
}

absl::Status reduce(HostTensor &t, int64_t dst, ReduceOp op, const Group &g) {
  absl::StatusOr<GroupCall> c = collective("reduce", g, {&t});
  if (!c.ok())
    return c.status();
  int64_t root = 0;
  std::string problem = c->rootProblem(dst, root, "dst");
  const HostBuffer &mine = bufferOf(t);
  auto all =
      c->meet("reduce(" + describe(mine) + ", dst=" + std::to_string(dst) +
                  ", " + nameOf(op) + ")",
              problem, snapshot(mine));
  if (!all.ok())
    return note(c->caller, all.status());
  if (c->caller.rank == dst)
    reduceInto(t, *all, op);
  return absl::OkStatus();
}

absl::Status all_gather(std::vector<HostTensor> &out, const HostTensor &t,
                        const Group &g) {
  absl::StatusOr<GroupCall> c = collective("all_gather", g, {&t});
  if (!c.ok())
    return c.status();
  const HostBuffer &mine = bufferOf(t);
  auto all = c->meet("all_gather(" + describe(mine) + ")", "", snapshot(mine));
  if (!all.ok())
    return note(c->caller, all.status());
  out = piecesOf(*all, 0, mine);
  return absl::OkStatus();
}

absl::Status gather(const HostTensor &t, std::vector<HostTensor> *out,
                    int64_t dst, const Group &g) {
  absl::StatusOr<GroupCall> c = collective("gather", g, {&t});
  if (!c.ok())
    return c.status();
  int64_t root = 0;
  std::string problem = c->rootProblem(dst, root, "dst");
  bool receives = c->caller.rank == dst;
  if (problem.empty() && receives && !out)
    problem = "dst has no output list";
  const HostBuffer &mine = bufferOf(t);
  auto all =
      c->meet("gather(" + describe(mine) + ", dst=" + std::to_string(dst) + ")",
              problem, snapshot(mine));
  if (!all.ok())
    return note(c->caller, all.status());
  if (receives) {
    *out = piecesOf(*all, 0, mine);
  }
  return absl::OkStatus();
}

absl::Status scatter(HostTensor &t, const std::vector<HostTensor> *in,
                     int64_t src, const Group &g) {
  absl::StatusOr<GroupCall> c = collective("scatter", g, {&t});
  if (!c.ok())
    return c.status();
  int64_t root = 0;
  std::string problem = c->rootProblem(src, root, "src");
  bool sends = c->caller.rank == src;
  const HostBuffer &mine = bufferOf(t);
  if (problem.empty() && sends)
    problem = in ? listProblem("the input list", *in, c->ranks.size(), mine)
                 : "src has no input list";
  auto all = c->meet(
      "scatter(" + describe(mine) + ", src=" + std::to_string(src) + ")",
      problem, sends && problem.empty() ? stacked(*in) : nullptr);
  if (!all.ok())
    return note(c->caller, all.status());
  copyInto(t, *(*all)[root], c->position);
  return absl::OkStatus();
}

absl::Status reduce_scatter(HostTensor &out, const std::vector<HostTensor> &in,
                            ReduceOp op, const Group &g) {
  absl::StatusOr<GroupCall> c = collective("reduce_scatter", g, {&out});
  if (!c.ok())
    return c.status();
  const HostBuffer &mine = bufferOf(out);
  std::string problem =
      listProblem("the input list", in, c->ranks.size(), mine);
  auto all =
      c->meet("reduce_scatter(" + describe(mine) + ", " + nameOf(op) + ")",
              problem, problem.empty() ? stacked(in) : nullptr);
  if (!all.ok())
    return note(c->caller, all.status());
  reduceInto(out, *all, op, c->position * mine.numElements());
  return absl::OkStatus();
}

absl::Status all_to_all(std::vector<HostTensor> &out,
                        const std::vector<HostTensor> &in, const Group &g) {
  absl::StatusOr<GroupCall> c = collective("all_to_all", g);
  if (!c.ok())
    return c.status();
  if (in.empty())
    return note(c->caller, absl::InvalidArgumentError(
                               "spmd::dist::all_to_all: the input list is "
                               "empty"));
  const HostBuffer &like = bufferOf(in.front());
  std::string problem =
      listProblem("the input list", in, c->ranks.size(), like);
  auto all = c->meet("all_to_all(" + describe(like) + ")", problem,
                     problem.empty() ? stacked(in) : nullptr);
  if (!all.ok())
    return note(c->caller, all.status());
  out = piecesOf(*all, c->position, like);
  return absl::OkStatus();
}

absl::Status barrier(const Group &g) {
  absl::StatusOr<GroupCall> c = collective("barrier", g);
  if (!c.ok())
    return c.status();
  return note(c->caller, c->meet("barrier()", "").status());
}

namespace {
/// The peer's problem for a point-to-point call of `c`.
std::string peerProblem(const Caller &c, int64_t peer, const char *role) {
  if (peer < 0 || peer >= c.session->groups.worldSize())
    return std::string(role) + " " + std::to_string(peer) +
           " is out of range [0, " +
           std::to_string(c.session->groups.worldSize()) + ")";
  if (peer == c.rank)
    return std::string(role) + " is the calling device";
  return "";
}

/// A receive posted: message `number` from `src`, into `t`.
struct Receive {
  Caller caller;
  uint64_t session;
  int64_t src, number = -1;
  HostTensor t; // shares the caller's tensor
  std::chrono::steady_clock::time_point deadline;
  /// Set once posted when the receive cannot be.
  absl::Status problem;
};

Receive postReceive(const Caller &c, HostTensor &t, int64_t src) {
  Receive r{c,
            c.session->id,
            src,
            -1,
            t,
            std::chrono::steady_clock::now() + c.session->groups.timeout(),
            absl::OkStatus()};
  std::string what =
      "spmd::dist::recv on device " + std::to_string(c.rank) + ": ";
  std::string problem = invalidTensor(t);
  if (problem.empty())
    problem = peerProblem(c, src, "src");
  if (!problem.empty())
    r.problem = note(c, absl::InvalidArgumentError(what + problem));
  else
    r.number = c.session->groups.reserveReceive(c.rank, src);
  return r;
}

/// Completes `r`; false when `wait` is false and its message has not come.
absl::StatusOr<bool> complete(Receive &r, bool wait) {
  if (!r.problem.ok())
    return r.problem;
  const Caller &c = r.caller;
  std::string what =
      "spmd::dist::recv on device " + std::to_string(c.rank) + ": ";
  llvm::Expected<TensorRef> message =
      c.session->groups.recv(c.rank, r.src, r.number, wait);
  if (!message)
    return note(c, detail::toStatus(message.takeError(),
                                    absl::StatusCode::kDeadlineExceeded));
  if (!*message) {
    if (std::chrono::steady_clock::now() < r.deadline)
      return false;
    return note(
        c, absl::DeadlineExceededError(
               what + "nothing came from device " + std::to_string(r.src) +
               " within " +
               std::to_string(c.session->groups.timeout().count() / 1000.0) +
               " s of posting the irecv"));
  }
  const HostBuffer &mine = bufferOf(r.t);
  if (!sameKind(**message, mine))
    return note(
        c, absl::InvalidArgumentError(what + "device " + std::to_string(r.src) +
                                      " sent " + describe(**message) +
                                      ", this receives " + describe(mine)));
  copyInto(r.t, **message);
  return true;
}
} // namespace

absl::Status send(const HostTensor &t, int64_t dst) {
  absl::StatusOr<Caller> c = caller("send");
  if (!c.ok())
    return c.status();
  std::string problem = invalidTensor(t);
  if (problem.empty())
    problem = peerProblem(*c, dst, "dst");
  if (!problem.empty())
    return note(*c, absl::InvalidArgumentError("spmd::dist::send on device " +
                                               std::to_string(c->rank) + ": " +
                                               problem));
  return note(*c, detail::toStatus(c->session->groups.send(
                      c->rank, dst, snapshot(bufferOf(t)))));
}

absl::Status recv(HostTensor &t, int64_t src) {
  absl::StatusOr<Caller> c = caller("recv");
  if (!c.ok())
    return c.status();
  Receive r = postReceive(*c, t, src);
  return complete(r, /*wait=*/true).status();
}

/// Done, with its outcome; or a receive still to complete.
struct Work::State {
  absl::Status status;
  bool done = true;
  std::optional<Receive> receive; // an irecv's

  bool poll(bool wait) {
    if (done)
      return true;
    Session *session = currentSession.load();
    if (!session || session->id != receive->session ||
        session->groups.firstRank() + runtime::currentPoolDevice() !=
            receive->caller.rank) {
      done = true;
      status = absl::FailedPreconditionError(
          "an irecv's Work completes on its device, inside the spmd::spawn "
          "that posted it");
      return done;
    }
    absl::StatusOr<bool> got = complete(*receive, wait);
    done = !got.ok() || *got;
    status = got.status();
    return done;
  }
};

Work::Work() : state_(std::make_shared<State>()) {}
absl::Status Work::wait() {
  state_->poll(/*wait=*/true);
  return state_->status;
}
bool Work::is_completed() { return state_->poll(/*wait=*/false); }

} // namespace dist

namespace detail {
struct WorkAccess {
  static dist::Work::State &state(dist::Work &w) { return *w.state_; }
};
} // namespace detail

namespace dist {

Work isend(const HostTensor &t, int64_t dst) {
  Work work;
  detail::WorkAccess::state(work).status = send(t, dst);
  return work;
}

Work irecv(HostTensor &t, int64_t src) {
  Work work;
  auto &state = detail::WorkAccess::state(work);
  absl::StatusOr<Caller> c = caller("irecv");
  if (!c.ok()) {
    state.status = c.status();
    return work;
  }
  state.done = false;
  state.receive = postReceive(*c, t, src);
  return work;
}

} // namespace dist

namespace xm {

absl::Status all_reduce(dist::ReduceOp op, std::vector<HostTensor> &inputs,
                        double scale,
                        const std::vector<std::vector<int64_t>> &groups) {
  absl::StatusOr<Caller> c = caller("xm::all_reduce");
  if (!c.ok())
    return c.status();
  // The groups must be the same on every device and hold each device at
  // most once: their text is part of the call the members compare. A
  // device in two groups would meet members that meet elsewhere: such
  // groups fail on every device at once, before any meeting.
  std::string text;
  std::vector<int64_t> seen;
  std::vector<int64_t> mine;
  auto refuse = [&](const std::string &problem) {
    return note(*c, absl::InvalidArgumentError(
                        "spmd::xm::all_reduce on device " +
                        std::to_string(c->rank) + ": " + problem));
  };
  for (const std::vector<int64_t> &g : groups) {
    text += ProcessGroups::groupName(g);
    for (int64_t r : g) {
      if (r < 0 || r >= c->session->groups.worldSize())
        return refuse("rank " + std::to_string(r) +
                      " of the groups is out of range");
      if (llvm::is_contained(seen, r))
        return refuse("rank " + std::to_string(r) + " is in two groups");
      seen.push_back(r);
    }
    if (llvm::is_contained(g, c->rank))
      mine = g;
  }
  if (!groups.empty() && mine.empty())
    return refuse("device " + std::to_string(c->rank) +
                  " is in none of the groups");
  dist::Group group;
  if (!groups.empty())
    group = detail::GroupAccess::make(mine);
  // Named whole when short; else by a hash, which the members compare.
  constexpr size_t kGroupsTextShown = 120;
  std::string more =
      groups.empty() ? ""
      : text.size() <= kGroupsTextShown
          ? ", groups " + text
          : ", groups #" + std::to_string(llvm::xxh3_64bits(text));
  // An integer input with a scale fails the first call, on every member,
  // before any input is reduced.
  std::string misuse;
  for (const HostTensor &t : inputs)
    if (misuse.empty() && scale != 1.0 && t.status().ok() &&
        !runtime::isFloat(bufferOf(t).type()))
      misuse = "scale " + std::to_string(scale) + " given for " +
               describe(bufferOf(t)) + " (integers are not scaled)";
  for (HostTensor &t : inputs) {
    absl::StatusOr<GroupCall> call = collective("xm::all_reduce", group, {&t});
    if (!call.ok())
      return call.status();
    if (absl::Status s = dist::allReduceIn(*call, t, op, more, misuse); !s.ok())
      return s;
    HostBuffer &reduced = detail::TensorStorage::mutableOf(t);
    if (scale != 1.0)
      for (int64_t i = 0, n = reduced.numElements(); i < n; ++i)
        reduced.setFloat(i, reduced.getFloat(i) * scale);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>>
rendezvous(const std::string &tag, const std::string &payload) {
  absl::StatusOr<GroupCall> c = collective("rendezvous", dist::Group());
  if (!c.ok())
    return c.status();
  auto bytes = std::make_shared<HostBuffer>(
      runtime::ElementType::I8, std::vector<int64_t>{int64_t(payload.size())},
      runtime::Init::None);
  std::memcpy(bytes->data(), payload.data(), payload.size());
  auto all = c->meet("rendezvous('" + tag + "')", "", bytes);
  if (!all.ok())
    return note(c->caller, all.status());
  std::vector<std::string> payloads;
  for (const TensorRef &part : *all)
    payloads.emplace_back(reinterpret_cast<const char *>(part->data()),
                          part->sizeInBytes());
  return payloads;
}

} // namespace xm
} // namespace spmd
