//===- Communicator.cpp - Exchanging buffers between devices --------------===//

#include "runtime/Communicator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace spmd::runtime {

llvm::Expected<std::vector<TensorRef>>
LocalCommunicator::exchange(const std::string &key, const std::string &what,
                            int64_t device, llvm::ArrayRef<int64_t> group,
                            TensorRef local) {
  auto position = llvm::find(group, device) - group.begin();
  std::string id = key;
  for (int64_t member : group)
    id += "," + std::to_string(member);
  std::unique_lock<std::mutex> lock(mutex);
  Meeting &meeting = meetings[id];
  if (meeting.posted.empty()) {
    meeting.posted.resize(group.size());
    meeting.arrived.assign(group.size(), false);
  }
  meeting.posted[position] = std::move(local);
  meeting.arrived[position] = true;
  ++meeting.count;
  changed.notify_all();
  bool complete = changed.wait_for(
      lock, timeout, [&] { return meeting.count == group.size(); });
  if (!complete) {
    std::string missing;
    llvm::raw_string_ostream os(missing);
    for (size_t i = 0; i < group.size(); ++i)
      if (!meeting.arrived[i])
        os << (missing.empty() ? "" : ", ") << group[i];
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "collective " + what + " timed out on device " +
            std::to_string(device) + ": devices " + missing +
            " of its group did not arrive");
  }
  std::vector<TensorRef> all = meeting.posted;
  if (++meeting.left == group.size())
    meetings.erase(id);
  return all;
}

} // namespace spmd::runtime
