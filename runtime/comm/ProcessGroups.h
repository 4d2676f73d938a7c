//===- ProcessGroups.h - Meetings of replicated devices ---------*- C++ -*-===//
//
// Replicated execution (torch_xla's spawn, torch.distributed's process
// groups) runs one function per device; the devices synchronise only where
// they call a collective or a point-to-point operation. Unlike a compiled
// program, nothing guarantees that they call the same thing: so each
// collective is a meeting where every member posts what it calls (its
// signature) with its buffer, and a meeting whose members called different
// things fails on every member, naming the devices and the calls. A member
// that returned or threw, or does not come within the timeout, fails the
// meeting too: nothing waits forever.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_PROCESSGROUPS_H
#define SPMD_RUNTIME_PROCESSGROUPS_H

#include "runtime/comm/Communicator.h"

#include <deque>

namespace spmd::runtime {

class ProcessGroups {
public:
  ProcessGroups(int64_t worldSize, std::chrono::milliseconds timeout);

  int64_t worldSize() const { return worldSize_; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  /// Collectives whose data moves as the compiled programs' do.
  LocalCommunicator &communicator() { return local; }

  /// The next collective of `rank` on the group `ranks` (in group order):
  /// once every member called it with the same `call`, every member's
  /// `data` in group order. `key` gets the meeting's name, unique in this
  /// world, for a collective of `communicator()` that follows.
  llvm::Expected<std::vector<TensorRef>> meet(int64_t rank,
                                              llvm::ArrayRef<int64_t> ranks,
                                              const std::string &call,
                                              TensorRef data, std::string &key);

  /// Puts `data` in `to`'s mailbox from `from`; never waits.
  llvm::Error send(int64_t from, int64_t to, TensorRef data);
  /// The oldest message `from` sent `to`; waits for one unless `wait` is
  /// false (then null when none is there).
  llvm::Expected<TensorRef> recv(int64_t to, int64_t from, bool wait = true);

  /// `rank` ended (its function returned, or threw: `how` says which):
  /// meetings and receives waiting for it fail at once.
  void depart(int64_t rank, std::string how);

  /// "[0, 2, 3]".
  static std::string groupName(llvm::ArrayRef<int64_t> ranks);

private:
  struct Meeting {
    std::vector<TensorRef> posted;
    std::vector<std::string> calls;
    std::vector<bool> arrived;
    size_t count = 0, left = 0;
  };
  /// Why `ranks` cannot all arrive: a member departed before arriving.
  std::string departedMember(llvm::ArrayRef<int64_t> ranks,
                             const Meeting &meeting) const;

  int64_t worldSize_;
  std::chrono::milliseconds timeout_;
  LocalCommunicator local;
  std::mutex mutex; // everything below
  std::condition_variable changed;
  std::map<std::string, Meeting> meetings;
  /// Per rank: how many collectives it called on each group (by name).
  /// Each rank's entry is touched by that rank alone.
  std::vector<std::map<std::string, int64_t>> calls;
  std::map<std::pair<int64_t, int64_t>, std::deque<TensorRef>> mailboxes;
  std::map<int64_t, std::string> departed;
};

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_PROCESSGROUPS_H
