//===- MpiCommunicator.cpp - Collectives across processes -----------------===//

#include "runtime/comm/MpiCommunicator.h"
#include "runtime/devices/DevicePool.h"
#include "runtime/exec/TensorOps.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace spmd;

namespace spmd::runtime {

/// One (mesh, axis set), from this process's side.
struct MpiCommunicator::Plan {
  struct Group {
    llvm::SmallVector<int64_t> members; // device ids, in group order
    std::vector<int64_t> processOf;     // of each member
    std::vector<int64_t> processes;     // distinct, increasing
  };
  int comm = 0;
  int64_t first = 0, count = 0; // this process's devices
  /// Groups with a member here and one elsewhere, by their first device
  /// id, so that two processes list the groups they share in one order.
  std::vector<Group> groups;
  std::vector<int64_t> groupOfLocal; // per local device; -1: inside
  int64_t numCrossing = 0;
  std::vector<int64_t> peers; // processes sharing a group, increasing
  llvm::SmallVector<AxisIndex> axes;
  std::vector<std::string> axisNames; // of the mesh
};

/// One run of one collective by this process's crossing devices.
struct MpiCommunicator::Round {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<TensorRef> inputs, outputs; // per local device
  int64_t arrived = 0, left = 0;
  bool done = false;
  std::string error;
};

MpiCommunicator::MpiCommunicator(MpiWorld &world,
                                 std::chrono::milliseconds localTimeout)
    : world(world), local(localTimeout) {}
MpiCommunicator::~MpiCommunicator() = default;

static std::string planKey(const DeviceMesh &mesh,
                           llvm::ArrayRef<AxisIndex> axes) {
  std::string key = mesh.str();
  for (AxisIndex a : axes)
    key += "/" + std::to_string(a);
  return key;
}

llvm::Error
MpiCommunicator::prepare(const DeviceMesh &mesh,
                         llvm::ArrayRef<llvm::SmallVector<AxisIndex>> sets) {
  int64_t processes = world.size(), rank = world.rank();
  int64_t perProcess = mesh.numDevices() / processes;
  assert(perProcess * processes == mesh.numDevices() &&
         "devices not divisible among processes");
  for (const llvm::SmallVector<AxisIndex> &axes : sets) {
    std::string key = planKey(mesh, axes);
    {
      std::lock_guard<std::mutex> guard(mutex);
      if (plans.count(key))
        continue;
    }
    auto plan = std::make_unique<Plan>();
    plan->first = rank * perProcess;
    plan->axes = axes;
    plan->axisNames.assign(mesh.axisNames().begin(), mesh.axisNames().end());
    plan->count = perProcess;
    plan->groupOfLocal.assign(perProcess, -1);
    // Processes that share a group talk; each set of processes so
    // connected gets one communicator, named by its lowest rank.
    llvm::EquivalenceClasses<int64_t> connected;
    for (int64_t p = 0; p < processes; ++p)
      connected.insert(p);
    for (const llvm::SmallVector<int64_t> &members : mesh.groups(axes)) {
      Plan::Group group;
      group.members = members;
      bool here = false;
      for (int64_t device : members) {
        int64_t process = device / perProcess;
        group.processOf.push_back(process);
        here |= process == rank;
        connected.unionSets(process, group.processOf.front());
      }
      group.processes = group.processOf;
      llvm::sort(group.processes);
      group.processes.erase(llvm::unique(group.processes),
                            group.processes.end());
      if (!here || group.processes.size() == 1)
        continue;
      for (int64_t device : members)
        if (device / perProcess == rank) {
          plan->groupOfLocal[device - plan->first] = plan->groups.size();
          ++plan->numCrossing;
        }
      for (int64_t process : group.processes)
        if (process != rank && !llvm::is_contained(plan->peers, process))
          plan->peers.push_back(process);
      plan->groups.push_back(std::move(group));
    }
    llvm::sort(plan->groups, [](const Plan::Group &a, const Plan::Group &b) {
      return *llvm::min_element(a.members) < *llvm::min_element(b.members);
    });
    // Re-index the local devices after sorting.
    for (auto [index, group] : llvm::enumerate(plan->groups))
      for (auto [member, process] : llvm::zip(group.members, group.processOf))
        if (process == rank)
          plan->groupOfLocal[member - plan->first] = index;
    llvm::sort(plan->peers);
    int64_t color = *connected.findLeader(rank);
    llvm::Expected<int> comm =
        world.split(key, color, "the collectives over axes " + key);
    if (!comm)
      return comm.takeError();
    plan->comm = *comm;
    std::lock_guard<std::mutex> guard(mutex);
    plans[key] = std::move(plan);
  }
  return llvm::Error::success();
}

const MpiCommunicator::Plan *
MpiCommunicator::planFor(const DeviceMesh &mesh,
                         llvm::ArrayRef<AxisIndex> axes) {
  std::lock_guard<std::mutex> guard(mutex);
  auto it = plans.find(planKey(mesh, axes));
  return it == plans.end() ? nullptr : it->second.get();
}

llvm::Expected<std::vector<TensorRef>>
MpiCommunicator::exchange(const std::string &key, const std::string &what,
                          int64_t device, llvm::ArrayRef<int64_t> group,
                          TensorRef local) {
  return this->local.exchange(key, what, device, group, std::move(local));
}

llvm::Expected<TensorRef>
MpiCommunicator::allReduce(const std::string &key, const std::string &what,
                           int64_t device, llvm::ArrayRef<int64_t> group,
                           TensorRef local, ReductionKind kind) {
  return this->local.allReduce(key, what, device, group, std::move(local),
                               kind);
}

bool MpiCommunicator::fail(int64_t device) {
  local.fail(device);
  int64_t none = -1;
  if (!failedDevice.compare_exchange_strong(none, device))
    return false;
  std::lock_guard<std::mutex> guard(mutex);
  for (auto &[key, round] : rounds) {
    std::lock_guard<std::mutex> lock(round->mutex);
    notifyDevices(round->changed);
  }
  return true;
}

llvm::Expected<TensorRef> MpiCommunicator::run(const CollectiveCall &call,
                                               const Collective &collective,
                                               TensorRef input) {
  const Plan *plan = planFor(call.mesh, call.axes);
  if (!plan)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "collective " + call.what + " is on the mesh " + call.mesh.str() +
            ", which does not have the program's devices: it cannot run "
            "over several processes");
  int64_t index = call.device - plan->first;
  assert(index >= 0 && index < plan->count && "device of another process");
  if (plan->numCrossing == 0)
    return local.run(call, collective, std::move(input));

  // Every device of this process meets here, even one whose group is
  // inside it: so no device reaches a later collective that crosses
  // processes before this one is done, and the processes run their MPI
  // exchanges in one order, the program's.
  std::shared_ptr<Round> round;
  {
    std::lock_guard<std::mutex> guard(mutex);
    std::shared_ptr<Round> &slot = rounds[call.key];
    if (!slot) {
      slot = std::make_shared<Round>();
      slot->inputs.resize(plan->count);
      slot->outputs.resize(plan->count);
    }
    round = slot;
  }
  bool crossing = plan->groupOfLocal[index] >= 0;
  std::unique_lock<std::mutex> lock(round->mutex);
  if (crossing)
    round->inputs[index] = input;
  if (++round->arrived == plan->count) {
    // The last device to arrive leads: every input is here.
    lock.unlock();
    std::string error;
    {
      std::lock_guard<std::mutex> turn(mpiTurn);
      if (llvm::Error err = lead(*plan, collective, *round, call.what))
        error = llvm::toString(std::move(err));
    }
    lock.lock();
    round->error = std::move(error);
    round->done = true;
    round->inputs.clear();
    notifyDevices(round->changed);
  } else {
    // Every device of the process comes within the timeout (it computes
    // meanwhile, as a remote process may); then the leader's exchange,
    // whose own waits are bounded, ends the meeting.
    auto failure = [&](const std::string &why) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "collective " + call.what + " on device " +
                                         std::to_string(call.device) + ": " +
                                         why);
    };
    if (!waitForDevices(lock, round->changed, world.timeout(), [&] {
          return round->arrived == plan->count || failedDevice >= 0;
        }))
      return failure(llvm::formatv(
          "not every device of this process reached it within {0} s (a "
          "collective that crosses processes must run on every device; "
          "under a condition on the device's position it cannot)",
          world.timeout().count() / 1000.0));
    waitForDevices(lock, round->changed, std::chrono::hours(24 * 365),
                   [&] { return round->done || failedDevice >= 0; });
    if (!round->done)
      return failure("device " + std::to_string(failedDevice.load()) +
                     " failed");
  }
  if (!round->error.empty()) // names the collective already
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   round->error);
  TensorRef out = round->outputs[index];
  if (++round->left == plan->count) {
    lock.unlock();
    std::lock_guard<std::mutex> guard(mutex);
    rounds.erase(call.key);
  } else {
    lock.unlock();
  }
  if (crossing)
    return out;
  // A group inside this process: its devices all passed the meeting.
  return local.run(call, collective, std::move(input));
}

std::map<std::string, MpiCommunicator::Traffic>
MpiCommunicator::traffic() const {
  std::lock_guard<std::mutex> guard(mutex);
  return sent;
}

void MpiCommunicator::clearTraffic() {
  std::lock_guard<std::mutex> guard(mutex);
  sent.clear();
}

//===----------------------------------------------------------------------===//
// The leader: one process's side of a collective over processes.
//===----------------------------------------------------------------------===//

namespace {
/// Messages of one exchange, with the buffers they read and fill.
struct Exchange {
  std::vector<Message> messages;
  std::vector<TensorRef> keep; // buffers the messages point into
  int64_t bytesSent = 0;

  void send(int64_t peer, const TensorRef &t, int64_t offset = 0,
            int64_t bytes = -1) {
    if (bytes < 0)
      bytes = t->sizeInBytes();
    messages.push_back({peer, t->data() + offset, bytes, true});
    keep.push_back(t);
    bytesSent += bytes;
  }
  void receive(int64_t peer, const TensorRef &t, int64_t offset = 0,
               int64_t bytes = -1) {
    if (bytes < 0)
      bytes = t->sizeInBytes();
    messages.push_back({peer, t->data() + offset, bytes, false});
    keep.push_back(t);
  }
};

TensorRef like(const HostBuffer &t, std::vector<int64_t> shape = {}) {
  if (shape.empty() && t.rank() > 0)
    shape.assign(t.shape().begin(), t.shape().end());
  return std::make_shared<HostBuffer>(t.type(), std::move(shape), Init::None);
}
} // namespace

namespace {
/// One leader's run of one collective: this process's side of each of its
/// groups that cross processes. Every collective is one method; each
/// reads the round's inputs and fills its outputs.
class Leader {
public:
  using Plan = MpiCommunicator::Plan;
  using Group = Plan::Group;

  Leader(MpiWorld &world, const Plan &plan, const Collective &collective,
         MpiCommunicator::Round &round, const std::string &what)
      : world(world), plan(plan), collective(collective), round(round),
        what(what), me(world.rank()) {}

  llvm::Error run();
  /// What this process sent through MPI.
  int64_t bytesSent = 0;

private:
  llvm::Error allReduce();
  llvm::Error reduceScatter();
  llvm::Error allToAll();
  llvm::Error permute();
  llvm::Error exchangeWholeBuffers();

  llvm::Error send(Exchange &ex) {
    bytesSent += ex.bytesSent;
    return world.exchange(plan.comm, ex.messages, "collective " + what);
  }
  /// The input of member `position` of `group` (a device of this process).
  const TensorRef &inputOf(const Group &group, int64_t position) const {
    return round.inputs[group.members[position] - plan.first];
  }
  void setOutput(const Group &group, int64_t position, TensorRef value) {
    round.outputs[group.members[position] - plan.first] = std::move(value);
  }
  /// The positions of `group` whose member lives in `process`.
  static llvm::SmallVector<int64_t> positionsIn(const Group &group,
                                                int64_t process) {
    llvm::SmallVector<int64_t> positions;
    for (auto [position, owner] : llvm::enumerate(group.processOf))
      if (owner == process)
        positions.push_back(position);
    return positions;
  }
  const TensorRef &anyInput(const Group &group) const {
    return inputOf(group, positionsIn(group, me).front());
  }
  /// Messages to and from each peer, in an order both sides follow: peers
  /// increasing, then the groups they share in the plan's order.
  template <typename Body> void forEachShared(Body body) const {
    for (int64_t peer : plan.peers)
      for (auto [g, group] : llvm::enumerate(plan.groups))
        if (llvm::is_contained(group.processes, peer))
          body(peer, g, group);
  }

  MpiWorld &world;
  const Plan &plan;
  const Collective &collective;
  MpiCommunicator::Round &round;
  const std::string &what;
  int64_t me; // this process
};
} // namespace

llvm::Error Leader::run() {
  switch (collective.kind) {
  case CollectiveKind::AllReduce:
    return allReduce();
  case CollectiveKind::ReduceScatter:
    return reduceScatter();
  case CollectiveKind::AllToAll:
    return allToAll();
  case CollectiveKind::CollectivePermute:
    return permute();
  case CollectiveKind::AllGather:
  case CollectiveKind::Redistribute:
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
    return exchangeWholeBuffers();
  case CollectiveKind::AllSlice:
    break;
  }
  llvm_unreachable("not a collective that exchanges buffers");
}

/// Process j of `group` owns elements [n*j/k, n*(j+1)/k) of the flattened
/// buffer `t` (k processes) in an all-reduce.
static std::pair<int64_t, int64_t>
chunkOf(const MpiCommunicator::Plan::Group &group, const HostBuffer &t,
        int64_t process) {
  int64_t n = t.numElements(), k = group.processes.size();
  int64_t j = llvm::find(group.processes, process) - group.processes.begin();
  return {n * j / k, n * (j + 1) / k};
}

/// chunkOf as (byte offset, bytes), for messages.
static std::pair<int64_t, int64_t>
chunkBytesOf(const MpiCommunicator::Plan::Group &group, const HostBuffer &t,
             int64_t process) {
  auto [begin, end] = chunkOf(group, t, process);
  int64_t size = elementTypeBytes(t.type());
  return {begin * size, (end - begin) * size};
}

llvm::Error Leader::allReduce() {
  // A local reduction, then a reduce-scatter and an all-gather between
  // processes over chunks of the flattened buffer (chunkOf).
  size_t numGroups = plan.groups.size();
  std::vector<TensorRef> partial(numGroups), result(numGroups);
  std::vector<std::map<int64_t, TensorRef>> received(numGroups);
  for (auto [g, group] : llvm::enumerate(plan.groups)) {
    std::vector<TensorRef> locals;
    for (int64_t position : positionsIn(group, me))
      locals.push_back(inputOf(group, position));
    partial[g] =
        locals.size() == 1 ? locals[0] : reduce(locals, collective.reduction);
    result[g] = like(*partial[g]);
  }
  Exchange scatter;
  forEachShared([&](int64_t peer, size_t g, const Group &group) {
    auto [offset, bytes] = chunkBytesOf(group, *partial[g], peer);
    scatter.send(peer, partial[g], offset, bytes);
    auto [begin, end] = chunkOf(group, *partial[g], me);
    received[g][peer] = like(*partial[g], {end - begin});
    scatter.receive(peer, received[g][peer]);
  });
  if (llvm::Error err = send(scatter))
    return err;
  for (auto [g, group] : llvm::enumerate(plan.groups)) {
    auto [begin, end] = chunkOf(group, *partial[g], me);
    llvm::SmallVector<ElementSpan> spans;
    for (int64_t process : group.processes)
      spans.push_back(process == me
                          ? ElementSpan{partial[g].get(), begin}
                          : ElementSpan{received[g][process].get(), 0});
    reduceElements(spans, collective.reduction, *result[g], begin, end - begin);
  }
  received.clear();
  Exchange gather;
  forEachShared([&](int64_t peer, size_t g, const Group &group) {
    auto [mineOffset, mineBytes] = chunkBytesOf(group, *result[g], me);
    gather.send(peer, result[g], mineOffset, mineBytes);
    auto [theirsOffset, theirsBytes] = chunkBytesOf(group, *result[g], peer);
    gather.receive(peer, result[g], theirsOffset, theirsBytes);
  });
  if (llvm::Error err = send(gather))
    return err;
  for (auto [g, group] : llvm::enumerate(plan.groups))
    for (int64_t position : positionsIn(group, me))
      setOutput(group, position, result[g]);
  return llvm::Error::success();
}

llvm::Error Leader::reduceScatter() {
  // Member `target`'s piece of this process's members, reduced here.
  auto localSum = [&](const Group &group, int64_t target) {
    std::vector<TensorRef> pieces;
    for (int64_t position : positionsIn(group, me))
      pieces.push_back(piece(*inputOf(group, position), collective.dim, target,
                             collective.resultDimSize));
    return pieces.size() == 1 ? pieces[0]
                              : reduce(pieces, collective.reduction);
  };
  // received[g][target][process]
  std::vector<std::map<int64_t, std::map<int64_t, TensorRef>>> received(
      plan.groups.size());
  Exchange ex;
  forEachShared([&](int64_t peer, size_t g, const Group &group) {
    for (int64_t target : positionsIn(group, peer))
      ex.send(peer, localSum(group, target));
    for (int64_t target : positionsIn(group, me)) {
      std::vector<int64_t> shape(anyInput(group)->shape());
      shape[collective.dim] = collective.resultDimSize;
      received[g][target][peer] = like(*anyInput(group), shape);
      ex.receive(peer, received[g][target][peer]);
    }
  });
  if (llvm::Error err = send(ex))
    return err;
  for (auto [g, group] : llvm::enumerate(plan.groups))
    for (int64_t target : positionsIn(group, me)) {
      std::vector<TensorRef> parts;
      for (int64_t process : group.processes)
        parts.push_back(process == me ? localSum(group, target)
                                      : received[g][target][process]);
      setOutput(group, target, reduce(parts, collective.reduction));
    }
  return llvm::Error::success();
}

llvm::Error Leader::allToAll() {
  // received[g][(source, target)]
  std::vector<std::map<std::pair<int64_t, int64_t>, TensorRef>> received(
      plan.groups.size());
  auto pieceOf = [&](const Group &group, int64_t source, int64_t target) {
    const HostBuffer &t = *inputOf(group, source);
    return piece(t, collective.dim, target,
                 t.shape()[collective.dim] / int64_t(group.members.size()));
  };
  Exchange ex;
  forEachShared([&](int64_t peer, size_t g, const Group &group) {
    for (int64_t source : positionsIn(group, me))
      for (int64_t target : positionsIn(group, peer))
        ex.send(peer, pieceOf(group, source, target));
    for (int64_t source : positionsIn(group, peer))
      for (int64_t target : positionsIn(group, me)) {
        std::vector<int64_t> shape(anyInput(group)->shape());
        shape[collective.dim] /= int64_t(group.members.size());
        received[g][{source, target}] = like(*anyInput(group), shape);
        ex.receive(peer, received[g][{source, target}]);
      }
  });
  if (llvm::Error err = send(ex))
    return err;
  for (auto [g, group] : llvm::enumerate(plan.groups))
    for (int64_t target : positionsIn(group, me)) {
      std::vector<TensorRef> parts;
      for (int64_t source = 0, n = group.members.size(); source < n; ++source)
        parts.push_back(group.processOf[source] == me
                            ? pieceOf(group, source, target)
                            : received[g][{source, target}]);
      setOutput(group, target, concat(parts, collective.concatDim));
    }
  return llvm::Error::success();
}

llvm::Error Leader::permute() {
  const std::vector<int64_t> &pairs = collective.pairs;
  // received[g][index of the pair]
  std::vector<std::map<size_t, TensorRef>> received(plan.groups.size());
  Exchange ex;
  forEachShared([&](int64_t peer, size_t g, const Group &group) {
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
      int64_t from = group.processOf[pairs[i]];
      int64_t to = group.processOf[pairs[i + 1]];
      if (from == me && to == peer)
        ex.send(peer, inputOf(group, pairs[i]));
      if (from == peer && to == me) {
        received[g][i] = like(*anyInput(group));
        ex.receive(peer, received[g][i]);
      }
    }
  });
  if (llvm::Error err = send(ex))
    return err;
  for (auto [g, group] : llvm::enumerate(plan.groups))
    for (int64_t target : positionsIn(group, me)) {
      TensorRef value;
      for (size_t i = 0; i + 1 < pairs.size() && !value; i += 2)
        if (pairs[i + 1] == target)
          value = group.processOf[pairs[i]] == me ? inputOf(group, pairs[i])
                                                  : received[g][i];
      if (!value) // no source: zeros
        value = std::make_shared<HostBuffer>(
            anyInput(group)->type(),
            std::vector<int64_t>(anyInput(group)->shape()));
      setOutput(group, target, value);
    }
  return llvm::Error::success();
}

llvm::Error Leader::exchangeWholeBuffers() {
  // This process's buffers, once to each other process of the group (a
  // redistribute then takes the parts its members' blocks cover, a
  // broadcast the root's).
  std::vector<std::vector<TensorRef>> all(plan.groups.size());
  for (auto [g, group] : llvm::enumerate(plan.groups)) {
    all[g].resize(group.members.size());
    for (int64_t position : positionsIn(group, me))
      all[g][position] = inputOf(group, position);
  }
  Exchange ex;
  forEachShared([&](int64_t peer, size_t g, const Group &group) {
    for (int64_t position : positionsIn(group, me))
      ex.send(peer, all[g][position]);
    for (int64_t position : positionsIn(group, peer)) {
      all[g][position] = like(*anyInput(group));
      ex.receive(peer, all[g][position]);
    }
  });
  if (llvm::Error err = send(ex))
    return err;
  for (auto [g, group] : llvm::enumerate(plan.groups)) {
    TensorRef value;
    for (int64_t position : positionsIn(group, me)) {
      if (!value || !collective.sameForEveryMember())
        value = collective.combine(all[g], position);
      setOutput(group, position, value);
    }
  }
  return llvm::Error::success();
}

llvm::Error MpiCommunicator::lead(const Plan &plan,
                                  const Collective &collective, Round &round,
                                  const std::string &what) {
  Leader leader(world, plan, collective, round, what);
  if (llvm::Error err = leader.run())
    return err;
  recordTraffic(plan, collective.kind, what, leader.bytesSent);
  return llvm::Error::success();
}

void MpiCommunicator::recordTraffic(const Plan &plan, CollectiveKind kind,
                                    const std::string &what, int64_t bytes) {
  std::lock_guard<std::mutex> guard(mutex);
  // Ops at one location (a `return` that several ops were put at) stay
  // apart when their kinds or axes differ.
  std::string axes;
  for (AxisIndex a : plan.axes)
    axes += (axes.empty() ? "" : ",") + plan.axisNames[a];
  llvm::StringRef name = stringifyCollectiveKind(kind);
  Traffic &traffic = sent[what + " " + name.str() + " [" + axes + "]"];
  traffic.collective = what;
  traffic.axes = axes;
  traffic.kind = name.str();
  ++traffic.calls;
  traffic.bytes += bytes;
}

} // namespace spmd::runtime
