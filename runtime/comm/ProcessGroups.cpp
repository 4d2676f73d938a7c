//===- ProcessGroups.cpp - Meetings of replicated devices -----------------===//

#include "runtime/comm/ProcessGroups.h"
#include "runtime/devices/DevicePool.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace spmd::runtime {

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string seconds(std::chrono::milliseconds timeout) {
  return llvm::formatv("{0}", timeout.count() / 1000.0).str();
}

/// "device 3" or "devices 0, 2".
static std::string devices(llvm::ArrayRef<int64_t> ranks) {
  std::string text = ranks.size() == 1 ? "device " : "devices ";
  for (auto [i, rank] : llvm::enumerate(ranks))
    text += (i ? ", " : "") + std::to_string(rank);
  return text;
}

ProcessGroups::ProcessGroups(int64_t worldSize,
                             std::chrono::milliseconds timeout)
    : worldSize_(worldSize), timeout_(timeout), local(timeout),
      calls(worldSize) {}

std::string ProcessGroups::groupName(llvm::ArrayRef<int64_t> ranks) {
  std::string name = "[";
  for (auto [i, rank] : llvm::enumerate(ranks))
    name += (i ? ", " : "") + std::to_string(rank);
  return name + "]";
}

std::string ProcessGroups::departedMember(llvm::ArrayRef<int64_t> ranks,
                                          const Meeting &meeting) const {
  for (auto [i, rank] : llvm::enumerate(ranks))
    if (!meeting.arrived[i])
      if (auto it = departed.find(rank); it != departed.end())
        return "device " + std::to_string(rank) + " " + it->second +
               " without calling it";
  return "";
}

/// "devices 0, 2 called all_reduce(...); device 1 called broadcast(...)":
/// each distinct call once, with the members that made it.
static std::string describeCalls(llvm::ArrayRef<int64_t> ranks,
                                 llvm::ArrayRef<std::string> calls) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> distinct;
  for (auto [rank, call] : llvm::zip(ranks, calls)) {
    auto it = llvm::find_if(distinct, [&](auto &d) { return d.first == call; });
    if (it == distinct.end())
      distinct.push_back({call, {rank}});
    else
      it->second.push_back(rank);
  }
  std::string text;
  for (auto [i, d] : llvm::enumerate(distinct))
    text += (i ? "; " : "") + devices(d.second) + " called " + d.first;
  return text;
}

llvm::Expected<std::vector<TensorRef>>
ProcessGroups::meet(int64_t rank, llvm::ArrayRef<int64_t> ranks,
                    const std::string &call, TensorRef data, std::string &key) {
  auto position = llvm::find(ranks, rank) - ranks.begin();
  assert(size_t(position) < ranks.size() && "a member meets");
  std::string group = groupName(ranks);
  int64_t number = calls[rank][group]++;
  key = group + "#" + std::to_string(number);
  std::string what = "collective " + std::to_string(number) + " of group " +
                     group + " (" + call + ")";

  std::unique_lock<std::mutex> lock(mutex);
  Meeting &meeting = meetings[key];
  if (meeting.arrived.empty()) {
    meeting.posted.resize(ranks.size());
    meeting.calls.resize(ranks.size());
    meeting.arrived.assign(ranks.size(), false);
  }
  meeting.posted[position] = std::move(data);
  meeting.calls[position] = call;
  meeting.arrived[position] = true;
  ++meeting.count;
  notifyDevices(changed);
  [[maybe_unused]] bool complete = waitForDevices(lock, changed, timeout_, [&] {
    return meeting.count == ranks.size() ||
           !departedMember(ranks, meeting).empty();
  });
  if (meeting.count != ranks.size()) {
    std::string gone = departedMember(ranks, meeting);
    assert((!complete || !gone.empty()) && "a meeting ends complete");
    std::vector<int64_t> missing;
    for (auto [i, member] : llvm::enumerate(ranks))
      if (!meeting.arrived[i])
        missing.push_back(member);
    // Those that come later find the failure too: the meeting stays, named
    // by its number, which no later collective of the group reuses.
    return error(what + " failed on device " + std::to_string(rank) + ": " +
                 (!gone.empty()
                      ? gone
                      : devices(missing) + " did not call it within " +
                            seconds(timeout_) +
                            " s (SPMD_MPI_TIMEOUT sets the wait)"));
  }
  std::vector<TensorRef> all = meeting.posted;
  bool agree = llvm::all_equal(meeting.calls);
  std::string mismatch = agree ? "" : describeCalls(ranks, meeting.calls);
  if (++meeting.left == ranks.size())
    meetings.erase(key);
  lock.unlock();
  if (!agree)
    return error("collective " + std::to_string(number) + " of group " + group +
                 " does not match on device " + std::to_string(rank) + ": " +
                 mismatch);
  return all;
}

llvm::Error ProcessGroups::send(int64_t from, int64_t to, TensorRef data) {
  std::lock_guard<std::mutex> guard(mutex);
  mailboxes[{from, to}].push_back(std::move(data));
  notifyDevices(changed);
  return llvm::Error::success();
}

llvm::Expected<TensorRef> ProcessGroups::recv(int64_t to, int64_t from,
                                              bool wait) {
  std::unique_lock<std::mutex> lock(mutex);
  std::deque<TensorRef> &box = mailboxes[{from, to}];
  auto senderGone = [&] { return departed.count(from) != 0; };
  if (wait)
    waitForDevices(lock, changed, timeout_,
                   [&] { return !box.empty() || senderGone(); });
  if (box.empty()) {
    if (!wait)
      return nullptr;
    std::string what = "recv on device " + std::to_string(to) +
                       " from device " + std::to_string(from) + ": ";
    if (senderGone())
      return error(what + "device " + std::to_string(from) + " " +
                   departed[from] + " without sending it");
    return error(what + "nothing came within " + seconds(timeout_) +
                 " s (SPMD_MPI_TIMEOUT sets the wait)");
  }
  TensorRef message = std::move(box.front());
  box.pop_front();
  return message;
}

void ProcessGroups::depart(int64_t rank, std::string how) {
  std::lock_guard<std::mutex> guard(mutex);
  departed.emplace(rank, std::move(how));
  notifyDevices(changed);
}

} // namespace spmd::runtime
