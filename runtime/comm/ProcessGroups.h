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
// Under mpirun process p runs ranks p*L .. p*L+L-1. A meeting whose members
// span processes is held in two steps: the members of each process meet
// there, and the last to arrive sends their posts to the other processes
// involved and receives theirs (MpiWorld's tagged messages, which never
// hold MPI while they wait). Point-to-point messages to another process
// are tagged messages too.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_PROCESSGROUPS_H
#define SPMD_RUNTIME_PROCESSGROUPS_H

#include "runtime/comm/Communicator.h"
#include "runtime/comm/MpiWorld.h"

#include <map>

namespace spmd::runtime {

class MpiWorld;

class ProcessGroups {
public:
  /// `devicesPerProcess` ranks in each process of `world` (null: this
  /// process alone). `generation` tells the messages of this world from
  /// those of an earlier one (left unreceived when it failed): every
  /// process numbers its worlds alike.
  ProcessGroups(int64_t devicesPerProcess, MpiWorld *world,
                std::chrono::milliseconds timeout, uint64_t generation);

  /// This process's first rank; ranks [firstRank(), firstRank() + L) are
  /// its devices.
  int64_t firstRank() const { return firstRank_; }
  /// Waits (at most the timeout) until the messages sent to other
  /// processes left.
  llvm::Error flush();

  int64_t worldSize() const { return worldSize_; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  /// Collectives whose data moves as the compiled programs' do, for
  /// groups inside this process.
  LocalCommunicator &communicator() { return local; }
  bool insideProcess(llvm::ArrayRef<int64_t> ranks) const {
    return llvm::all_of(ranks, [&](int64_t r) {
      return processOf(r) == processOf(firstRank_);
    });
  }

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
  /// The number of the next message `to` receives from `from` (in the
  /// order receives are posted, as MPI matches them).
  int64_t reserveReceive(int64_t to, int64_t from);
  /// Message `n` from `from` to `to`; waits for it unless `wait` is false
  /// (then null, after letting the other devices run a little, when it has
  /// not come).
  llvm::Expected<TensorRef> recv(int64_t to, int64_t from, int64_t n,
                                 bool wait);

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
    /// Set by the member that exchanged with the other processes, if that
    /// failed.
    std::string failure;
  };
  using Clock = std::chrono::steady_clock;
  /// With `lock` held, waits until `ready()` or until no device of this
  /// process called anything for the timeout (so devices that wait for
  /// others still computing, many to a core, do not give up while the
  /// process moves on). Returns ready().
  bool awaitProgress(std::unique_lock<std::mutex> &lock,
                     llvm::function_ref<bool()> ready);
  /// Why `ranks` cannot all arrive: a member departed before arriving.
  std::string departedMember(llvm::ArrayRef<int64_t> ranks,
                             const Meeting &meeting) const;
  int64_t processOf(int64_t rank) const { return rank / perProcess; }
  /// Sends the posts of this process's members of `meeting` to the other
  /// processes of `ranks` and adds theirs (called without the lock by the
  /// last of this process's members to arrive).
  llvm::Error exchangeWithProcesses(llvm::ArrayRef<int64_t> ranks,
                                    const std::string &key,
                                    const std::string &what, Meeting &meeting);
  /// Receives the message `key` from process `process`, waiting (letting
  /// the other devices run) up to the timeout: `read` reads its head and
  /// says where the parts that follow go. False without `wait` if none
  /// came.
  llvm::Expected<bool> receiveFrom(int64_t process, const std::string &key,
                                   const std::string &what, bool wait,
                                   const MpiWorld::TaggedParts &read);
  /// `message` (a Writer's bytes) with the hash of `key` in its first
  /// eight bytes, ready for sendTo.
  std::shared_ptr<const std::vector<uint8_t>>
  sealed(const std::string &key, std::vector<uint8_t> message);
  /// Sends a sealed head and the bytes of `payloads` after it.
  llvm::Error sendTo(int64_t process, const std::string &key,
                     std::shared_ptr<const std::vector<uint8_t>> head,
                     llvm::ArrayRef<TensorRef> payloads,
                     const std::string &what);

  int64_t perProcess, firstRank_ = 0;
  uint64_t generation;
  MpiWorld *world;
  int64_t worldSize_;
  std::chrono::milliseconds timeout_;
  LocalCommunicator local;
  std::mutex mutex; // everything below
  std::condition_variable changed;
  std::map<std::string, Meeting> meetings;
  /// Per rank: how many collectives it called on each group (by name).
  /// Each rank's entry is touched by that rank alone.
  std::vector<std::map<std::string, int64_t>> calls;
  /// Messages by sender and receiver, by number.
  std::map<std::pair<int64_t, int64_t>, std::map<int64_t, TensorRef>> mailboxes;
  Clock::time_point lastProgress = Clock::now();
  std::map<int64_t, std::string> departed;
};

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_PROCESSGROUPS_H
