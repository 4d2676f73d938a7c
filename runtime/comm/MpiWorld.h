//===- MpiWorld.h - The processes mpirun started, as one device -*- C++ -*-===//
//
// Under `mpirun -np P`, process p (its MPI rank) runs devices p*L .. p*L+L-1
// of every mesh of N = P*L devices. This is the only place that talks to
// MPI: sub-communicators, point-to-point messages and the small collectives
// of the tools. Every wait polls, so that nothing hangs: a message that does
// not come within the timeout, an MPI error (MPI_ERRORS_RETURN on every
// communicator) or a notice that another process stopped ends the wait
// with an error naming the rank. The few MPI calls that cannot poll
// (MPI_Init_thread, making a communicator, MPI_Finalize: each waits for
// every process) run under a watchdog that ends the process with an error
// once the timeout passed.
//
// MPI calls come from one thread at a time (MPI_THREAD_SERIALIZED): the
// device that leads a collective, or the caller between runs.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_MPIWORLD_H
#define SPMD_RUNTIME_MPIWORLD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace spmd::runtime {

/// One point-to-point message of an exchange, to or from `peer` (a world
/// rank) over `bytes` bytes at `data`.
struct Message {
  int64_t peer;
  void *data;
  int64_t bytes;
  bool send;
};

class MpiWorld {
public:
  /// Whether an MPI launcher (mpirun) started this process.
  static bool launched();
  /// The world, MPI initialised on the first call; null when this process
  /// was not started by an MPI launcher (one process, no MPI). The first
  /// call's `timeoutSeconds`, when valid, sets the timeout (start-up
  /// included) in place of SPMD_MPI_TIMEOUT. A start-up that does not
  /// complete within the timeout ends the process: one error naming the
  /// ranks waited for, exit code kFaultExitCode.
  static MpiWorld *get(std::optional<double> timeoutSeconds = std::nullopt);

  /// The exit code of a process that ends because another did not answer
  /// where nothing can return an error (start-up, the end): that of a
  /// failed run.
  static constexpr int kFaultExitCode = 1;

  int64_t rank() const { return rank_; }
  int64_t size() const { return size_; }

  /// How long a wait for another process lasts before it fails:
  /// SPMD_MPI_TIMEOUT seconds if set, else 60 s.
  std::chrono::milliseconds timeout() const { return timeout_; }
  /// SPMD_MPI_TIMEOUT seconds if set (a warning and 60 s if it is not a
  /// number in (0, kMaxTimeoutSeconds]), else 60 s: also the bound of
  /// waits inside one process (replicated execution).
  static std::chrono::milliseconds timeoutFromEnvironment();
  /// Sets it; false (nothing set) unless 0 < `seconds` <= kMaxTimeout.
  bool setTimeoutSeconds(double seconds);
  static constexpr double kMaxTimeoutSeconds = 1e6;

  /// A communicator of the processes that pass the same `color`, ranked
  /// by world rank; collective over every process (call it in the same
  /// order everywhere). Returns its handle. Made once per `key` (a mesh
  /// and axis set): later calls with the key return the same one.
  llvm::Expected<int> split(const std::string &key, int64_t color,
                            const std::string &what);

  /// Posts every message (receives first) on communicator `comm` (peers
  /// are world ranks of it) and waits for all, up to `timeout` if given
  /// (else the world's). `what` names the operation in errors.
  llvm::Error exchange(int comm, llvm::ArrayRef<Message> messages,
                       const std::string &what,
                       std::optional<std::chrono::milliseconds> timeout = {});

  /// Tagged messages, for devices that meet in any order (replicated
  /// execution): on a communicator of their own, none waits while it holds
  /// MPI, so one device's wait never keeps another's message from moving.
  /// Tags are in [0, tagLimit()].
  int64_t tagLimit() const;
  /// `size` bytes at `data`, which `owner` holds.
  struct TaggedPart {
    std::shared_ptr<const void> owner;
    const void *data;
    size_t size;
  };
  /// Starts sending each part to `peer` as one message, in order and with
  /// no other message of this process between them; the world keeps their
  /// owners until they are sent.
  llvm::Error postTagged(int64_t peer, int64_t tag,
                         llvm::ArrayRef<TaggedPart> parts,
                         const std::string &what);
  /// Where the parts that follow a message go (address, bytes), read from
  /// the message.
  using TaggedParts = std::function<std::vector<std::pair<void *, size_t>>(
      const std::vector<uint8_t> &head)>;
  /// The oldest message from `peer` with `tag`, or std::nullopt if none
  /// came yet; moves the sends on. With `parts`, the messages `peer` sent
  /// right after it with `tag` are received where `parts` says (each wait
  /// bounded by the timeout) before it returns: large buffers go straight
  /// into their tensors. A notice that another process stopped is an
  /// error.
  llvm::Expected<std::optional<std::vector<uint8_t>>>
  takeTagged(int64_t peer, int64_t tag, const std::string &what,
             const TaggedParts &parts = {});
  /// Whether every tagged send completed (moving them on).
  llvm::Expected<bool> taggedSendsDone(const std::string &what);

  /// Waits until every process arrives.
  llvm::Error barrier(const std::string &what);
  /// The largest of every process's `value`, on every process; the wait
  /// lasts `timeout` if given (longer than usual where one process works
  /// alone first).
  llvm::Expected<double>
  maxOverProcesses(double value, const std::string &what,
                   std::optional<std::chrono::milliseconds> timeout = {});
  /// Whether every process passed the same `value` (compared in its low 52
  /// bits), on every process.
  llvm::Expected<bool> sameOnEveryProcess(uint64_t value,
                                          const std::string &what);
  /// Every process's `text`, on rank 0 (in rank order); empty elsewhere.
  llvm::Expected<std::vector<std::string>> gatherText(const std::string &text,
                                                      const std::string &what);
  /// `root`'s `text`, on every process (the others' `text` is ignored).
  llvm::Expected<std::string>
  broadcastText(const std::string &text, int64_t root, const std::string &what);

  /// Runs `work`, which makes no MPI call, while a thread tells the other
  /// processes every quarter of the timeout that this one is alive: their
  /// waits for it then last as long as `work` does (a check of the whole
  /// program on one process, say), and no longer than a timeout after this
  /// process dies.
  void aloneFor(llvm::function_ref<void()> work);

  /// Tells every other process that this one stops with `message`; their
  /// waits then fail naming this rank. Once per process.
  void announceStop(const std::string &message);
  /// Ends a process that stops on an error every process may have met
  /// (bad input): waits up to a few seconds for all to get here, so that
  /// each prints its own message, and finalises MPI; if some do not come,
  /// tells them this one stops. Then exits with `code`.
  [[noreturn]] void stop(const std::string &message, int code);
  /// Whether a wait failed or this process announced a stop: MPI is then
  /// not finalised at exit (the peers may be gone), the process just ends.
  bool broken() const { return broken_; }

  ~MpiWorld();

private:
  MpiWorld();
  struct State; // MPI handles, kept out of this header
  /// MPI_Init_thread and the world's communicators, each wait bounded.
  void start();
  /// Receives `size` bytes from `peer` with `tag` at `data` (takeTagged's
  /// parts), holding MPI.
  llvm::Error receiveTaggedPart(int64_t peer, int64_t tag, void *data,
                                size_t size, const std::string &what);
  static void finalizeAtExit();
  llvm::Error fail(std::string message);

  std::unique_ptr<State> state;
  int64_t rank_ = 0, size_ = 1;
  std::chrono::milliseconds timeout_{60000};
  bool broken_ = false, announced_ = false;
};

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_MPIWORLD_H
