//===- Communicator.cpp - Exchanging buffers between devices --------------===//

#include "runtime/comm/Communicator.h"
#include "runtime/devices/DevicePool.h"
#include "runtime/exec/TensorOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace spmd::runtime {

std::shared_ptr<LocalCommunicator::Meeting>
LocalCommunicator::meetingFor(const MeetingId &id, size_t members) {
  std::lock_guard<std::mutex> guard(meetingsMutex);
  std::shared_ptr<Meeting> &meeting = meetings[id];
  if (!meeting) {
    meeting = std::make_shared<Meeting>();
    meeting->posted.resize(members);
    meeting->arrived.assign(members, false);
  }
  return meeting;
}

llvm::Expected<std::vector<TensorRef>>
LocalCommunicator::exchange(const std::string &key, const std::string &what,
                            int64_t device, llvm::ArrayRef<int64_t> group,
                            TensorRef local) {
  auto failure = [&] {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "collective " + what + " on device " + std::to_string(device) +
            " stopped: device " + std::to_string(failedDevice.load()) +
            " failed");
  };
  if (failedDevice >= 0)
    return failure();
  auto position = llvm::find(group, device) - group.begin();
  MeetingId id{key, std::vector<int64_t>(group.begin(), group.end())};
  std::shared_ptr<Meeting> meeting = meetingFor(id, group.size());
  std::unique_lock<std::mutex> lock(meeting->mutex);
  meeting->posted[position] = std::move(local);
  meeting->arrived[position] = true;
  // Only the last arrival can end the others' wait (failures and
  // departures wake them through wakeMeetings): waking every waiter at
  // each arrival cost a group of N members N^2 checks.
  if (++meeting->count == group.size())
    notifyDevices(meeting->changed);
  bool complete = waitForDevices(lock, meeting->changed, timeout, [&] {
    return meeting->count == group.size() || failedDevice >= 0 ||
           departedFrom(*meeting, group);
  });
  if (meeting->count != group.size() && failedDevice >= 0)
    return failure();
  if (meeting->count != group.size())
    if (std::optional<int64_t> gone = departedFrom(*meeting, group))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "collective " + what + " on device " + std::to_string(device) +
              " cannot complete: device " + std::to_string(*gone) +
              " of its group finished its run without calling it (a "
              "collective under a condition on the device's position must "
              "run on every member of its group or on none)");
  if (!complete) {
    std::string missing;
    llvm::raw_string_ostream os(missing);
    int64_t count = 0;
    for (size_t i = 0; i < group.size(); ++i)
      if (!meeting->arrived[i])
        os << (count++ ? ", " : "") << group[i];
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "collective " + what + " timed out on device " +
            std::to_string(device) + ": " +
            (count > 1 ? "devices " : "device ") + missing +
            " of its group did not arrive");
  }
  std::vector<TensorRef> all = meeting->posted;
  bool last = ++meeting->left == group.size();
  lock.unlock();
  if (last) {
    std::lock_guard<std::mutex> guard(meetingsMutex);
    meetings.erase(id);
  }
  return all;
}

bool LocalCommunicator::fail(int64_t device) {
  int64_t none = -1;
  if (!failedDevice.compare_exchange_strong(none, device))
    return false;
  wakeMeetings();
  return true;
}

void LocalCommunicator::depart(int64_t device) {
  {
    std::lock_guard<std::mutex> guard(departedMutex);
    departed.insert(device);
  }
  wakeMeetings();
}

void LocalCommunicator::endRun() {
  std::lock_guard<std::mutex> guard(departedMutex);
  departed.clear();
}

std::optional<int64_t>
LocalCommunicator::departedFrom(const Meeting &meeting,
                                llvm::ArrayRef<int64_t> group) {
  std::lock_guard<std::mutex> guard(departedMutex);
  if (departed.empty())
    return std::nullopt;
  for (auto [i, member] : llvm::enumerate(group))
    if (!meeting.arrived[i] && departed.count(member))
      return member;
  return std::nullopt;
}

void LocalCommunicator::wakeMeetings() {
  std::lock_guard<std::mutex> guard(meetingsMutex);
  for (auto &[id, meeting] : meetings) {
    std::lock_guard<std::mutex> lock(meeting->mutex);
    notifyDevices(meeting->changed);
  }
}

TensorRef Collective::combine(std::vector<TensorRef> all,
                             int64_t position) const {
  switch (kind) {
  case CollectiveKind::AllGather:
    return concat(all, dim);
  case CollectiveKind::AllReduce:
    return reduce(all, reduction);
  case CollectiveKind::ReduceScatter:
    // Only this member's piece of each buffer is reduced.
    for (TensorRef &t : all)
      t = piece(*t, dim, position, resultDimSize);
    return reduce(all, reduction);
  case CollectiveKind::AllToAll: {
    // Piece j of every member's split dimension goes to member j, which
    // concatenates what it receives in group order.
    int64_t size = all[0]->shape()[dim] / all.size();
    std::vector<TensorRef> received;
    for (const TensorRef &t : all)
      received.push_back(piece(*t, dim, position, size));
    return concat(received, concatDim);
  }
  case CollectiveKind::Redistribute: {
    // The part of each member's block that this member's block covers.
    const Block &mine = targetBlocks[position];
    auto result = std::make_shared<HostBuffer>(all[0]->type(), resultShape);
    size_t rank = resultShape.size();
    for (size_t j = 0; j < all.size(); ++j) {
      const Block &theirs = sourceBlocks[j];
      std::vector<int64_t> from(rank), to(rank), sizes(rank);
      bool empty = false;
      for (size_t d = 0; d < rank; ++d) {
        int64_t lo = std::max(theirs[d].first, mine[d].first);
        int64_t hi = std::min(theirs[d].second, mine[d].second);
        empty |= hi <= lo;
        from[d] = lo - theirs[d].first;
        to[d] = lo - mine[d].first;
        sizes[d] = hi - lo;
      }
      if (!empty)
        copyBox(*all[j], from, sizes, *result, to);
    }
    return result;
  }
  case CollectiveKind::CollectivePermute:
    for (size_t i = 0; i + 1 < pairs.size(); i += 2)
      if (pairs[i + 1] == position)
        return all[pairs[i]];
    // A member no pair targets receives zeros.
    return std::make_shared<HostBuffer>(all[0]->type(),
                                        std::vector<int64_t>(all[0]->shape()));
  case CollectiveKind::Broadcast:
    return all[root];
  case CollectiveKind::Reduce:
    // The other members keep their operand.
    return position == root ? reduce(all, reduction) : all[position];
  case CollectiveKind::AllSlice:
    break; // its kernel slices locally
  }
  llvm_unreachable("not a collective that exchanges buffers");
}

llvm::Expected<TensorRef> Communicator::run(const CollectiveCall &call,
                                            const Collective &collective,
                                            TensorRef local) {
  if (collective.kind == CollectiveKind::AllReduce)
    return allReduce(call.key, call.what, call.device, call.group,
                     std::move(local), collective.reduction);
  llvm::Expected<std::vector<TensorRef>> all =
      exchange(call.key, call.what, call.device, call.group, std::move(local));
  if (!all)
    return all.takeError();
  int64_t position = llvm::find(call.group, call.device) - call.group.begin();
  TensorRef result = collective.combine(std::move(*all), position);
  if (llvm::Error err =
          allCombined(call.key, call.what, call.device, call.group))
    return std::move(err);
  return result;
}

llvm::Error Communicator::allCombined(const std::string &key,
                                      const std::string &what, int64_t device,
                                      llvm::ArrayRef<int64_t> group) {
  if (group.size() == 1)
    return llvm::Error::success();
  return exchange(key + "/done", what, device, group, nullptr).takeError();
}

llvm::Expected<TensorRef>
Communicator::allReduce(const std::string &key, const std::string &what,
                        int64_t device, llvm::ArrayRef<int64_t> group,
                        TensorRef local, ReductionKind kind) {
  llvm::Expected<std::vector<TensorRef>> all =
      exchange(key, what, device, group, std::move(local));
  if (!all)
    return all.takeError();
  TensorRef result = reduce(*all, kind);
  all->clear();
  if (llvm::Error err = allCombined(key, what, device, group))
    return std::move(err);
  return result;
}

llvm::Expected<TensorRef>
LocalCommunicator::allReduce(const std::string &key, const std::string &what,
                             int64_t device, llvm::ArrayRef<int64_t> group,
                             TensorRef local, ReductionKind kind) {
  // Below this size a second and third meeting cost more than the
  // redundant work.
  constexpr int64_t kCooperativeBytes = 1 << 20;
  if (group.size() == 1 || local->sizeInBytes() < kCooperativeBytes)
    return Communicator::allReduce(key, what, device, group, std::move(local),
                                   kind);
  int64_t position = llvm::find(group, device) - group.begin();
  // The first member allocates the result (counted on its device).
  TensorRef result;
  if (position == 0)
    result = std::make_shared<HostBuffer>(
        local->type(), std::vector<int64_t>(local->shape()), Init::None);
  llvm::Expected<std::vector<TensorRef>> inputs =
      exchange(key + "/in", what, device, group, std::move(local));
  if (!inputs)
    return inputs.takeError();
  llvm::Expected<std::vector<TensorRef>> results =
      exchange(key + "/out", what, device, group, std::move(result));
  if (!results)
    return results.takeError();
  TensorRef shared = (*results)[0];
  int64_t n = shared->numElements(), members = group.size();
  reduceInto(*inputs, kind, *shared, n * position / members,
             n * (position + 1) / members);
  inputs->clear();
  if (llvm::Error err = allCombined(key, what, device, group))
    return std::move(err);
  return shared;
}

} // namespace spmd::runtime
