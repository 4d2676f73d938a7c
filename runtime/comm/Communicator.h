//===- Communicator.h - Exchanging buffers between devices ------*- C++ -*-===//
//
// Collectives are built on one primitive: every device of a group posts its
// buffer and receives the buffers of all the group, in group order. Buffers
// are shared, immutable tensors, so inside one process nothing is copied.
// A device that does not arrive is reported, with the collective's name and
// the missing devices, after a timeout; nothing hangs.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_COMMUNICATOR_H
#define SPMD_RUNTIME_COMMUNICATOR_H

#include "runtime/exec/HostBuffer.h"
#include "sharding/TensorSharding.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

namespace spmd::runtime {

/// What one collective computes, as its kernel describes it.
struct Collective {
  CollectiveKind kind; // never AllSlice: it moves no data
  ReductionKind reduction = ReductionKind::Sum; // all_reduce, reduce_scatter
  /// all_gather: the gathered dimension; reduce_scatter: the scattered one;
  /// all_to_all: the split dimension.
  int64_t dim = 0;
  int64_t concatDim = 0;      // all_to_all
  int64_t resultDimSize = 0;  // reduce_scatter: the piece along `dim`
  std::vector<int64_t> pairs; // collective_permute: source, target, ...
  int64_t root = 0;           // broadcast, reduce: a group position
  /// redistribute: per group position, the global [start, end) of each
  /// dimension of its block in the source and in the target layout
  /// (blockBounds), and the local shape of a target block.
  using Block = std::vector<std::pair<int64_t, int64_t>>;
  std::vector<Block> sourceBlocks, targetBlocks;
  std::vector<int64_t> resultShape;

  /// Member `position`'s result from every member's buffer (group order).
  TensorRef combine(std::vector<TensorRef> buffers, int64_t position) const;
  /// Whether every member's result is the same (combined once for all).
  bool sameForEveryMember() const {
    return kind == CollectiveKind::AllGather ||
           kind == CollectiveKind::Broadcast;
  }
};

/// One device's part in one run of a collective.
struct CollectiveCall {
  /// Which collective and which invocation: the same on every device of
  /// the process, never reused while the collective runs.
  std::string key;
  const std::string &what; // names it in messages
  int64_t device;
  /// Device ids of the group, in group order: the mesh's group over `axes`.
  llvm::ArrayRef<int64_t> group;
  const DeviceMesh &mesh;
  llvm::ArrayRef<AxisIndex> axes;
};

class Communicator {
public:
  virtual ~Communicator() = default;

  /// Runs `collective` for `call.device`, whose buffer is `local`. By
  /// default every member receives every buffer (`exchange`) and combines
  /// them; all-reduce goes through `allReduce`.
  virtual llvm::Expected<TensorRef> run(const CollectiveCall &call,
                                        const Collective &collective,
                                        TensorRef local);

  /// Called by each device of `group` (device ids, in group order) with
  /// the same `key` (which collective, which invocation).
  virtual llvm::Expected<std::vector<TensorRef>>
  exchange(const std::string &key, const std::string &what, int64_t device,
           llvm::ArrayRef<int64_t> group, TensorRef local) = 0;

  /// Waits until every member of `group` has called it after a collective
  /// `key`: each has combined what it received, so the buffers the members
  /// sent are no longer read. A device then moves on with its input free,
  /// as the memory plan has it (its last use is the collective), rather
  /// than counted on it while a slower member still reads it.
  llvm::Error allCombined(const std::string &key, const std::string &what,
                          int64_t device, llvm::ArrayRef<int64_t> group);

  /// The reduction of every member's `local`, on every member. By default
  /// each member reduces all the buffers it receives.
  virtual llvm::Expected<TensorRef>
  allReduce(const std::string &key, const std::string &what, int64_t device,
            llvm::ArrayRef<int64_t> group, TensorRef local, ReductionKind kind);

  /// Device `device` stopped with an error: every collective waiting or
  /// still to come fails at once, naming it, instead of waiting for it.
  /// Returns whether this is the first failure.
  virtual bool fail(int64_t device) = 0;
  /// Device `device` finished its run: it calls no collective any more, so
  /// one that waits for it fails at once, naming it (devices that took
  /// different branches around a collective), instead of at the timeout.
  virtual void depart(int64_t device) {}
  /// The run is over on every device: its departures are forgotten (a
  /// communicator may serve many runs).
  virtual void endRun() {}
};

/// Devices of this process (on the device pool, or plain threads).
class LocalCommunicator : public Communicator {
public:
  explicit LocalCommunicator(
      std::chrono::milliseconds timeout = std::chrono::seconds(60))
      : timeout(timeout) {}

  llvm::Expected<std::vector<TensorRef>>
  exchange(const std::string &key, const std::string &what, int64_t device,
           llvm::ArrayRef<int64_t> group, TensorRef local) override;
  /// Large buffers are reduced cooperatively: each member reduces its
  /// 1/N of the elements straight into one result buffer that the whole
  /// group then shares (buffers are immutable once produced).
  llvm::Expected<TensorRef> allReduce(const std::string &key,
                                      const std::string &what, int64_t device,
                                      llvm::ArrayRef<int64_t> group,
                                      TensorRef local,
                                      ReductionKind kind) override;
  bool fail(int64_t device) override;
  void depart(int64_t device) override;
  void endRun() override;

private:
  /// One collective of one group: its members wait on it alone.
  struct Meeting {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<TensorRef> posted;
    std::vector<bool> arrived;
    size_t count = 0, left = 0;
  };
  /// A collective's key and its group's members (a copy of the group
  /// costs less than spelling it out: groups may hold thousands).
  using MeetingId = std::pair<std::string, std::vector<int64_t>>;
  std::shared_ptr<Meeting> meetingFor(const MeetingId &id, size_t members);

  std::mutex meetingsMutex; // the map; taken without a meeting's mutex
  std::map<MeetingId, std::shared_ptr<Meeting>> meetings;
  /// The first member of `group` that departed before arriving at
  /// `meeting`, if any.
  std::optional<int64_t> departedFrom(const Meeting &meeting,
                                      llvm::ArrayRef<int64_t> group);
  /// Wakes every meeting's waiters (each checks what changed under its
  /// mutex, so taking the mutex here loses no wakeup).
  void wakeMeetings();
  std::atomic<int64_t> failedDevice{-1};
  std::mutex departedMutex; // taken inside a meeting's mutex, never around
  std::set<int64_t> departed;
  std::chrono::milliseconds timeout;
};

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_COMMUNICATOR_H
