//===- MpiWorld.cpp - The processes mpirun started, as one device ---------===//

#include "runtime/comm/MpiWorld.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>
#include <unistd.h>

namespace spmd::runtime {

namespace {
constexpr int kDataTag = 1;
constexpr int kNoticeTag = 2;
/// Empty messages of a process that works alone (MpiWorld::aloneFor).
constexpr int kAliveTag = 3;
/// Messages are cut into pieces MPI's int counts can address.
constexpr int64_t kMaxPiece = int64_t(1) << 30;
} // namespace

struct MpiWorld::State {
  std::vector<MPI_Comm> comms;     // 0: the world's, for data
  std::map<std::string, int> made; // split's communicators by key
  MPI_Comm control = MPI_COMM_NULL;
  MPI_Comm stopping = MPI_COMM_NULL;    // only the barrier of `stop`
  std::vector<std::string> noticeTexts; // kept until sent
  std::vector<MPI_Request> noticeRequests;
  // Tagged messages (postTagged, takeTagged): their communicator, the
  // sends not completed yet with their buffers, and the MPI calls' turn.
  MPI_Comm tagged = MPI_COMM_NULL;
  int64_t tagLimit = 32767;
  std::vector<MPI_Request> taggedRequests;
  std::vector<std::shared_ptr<const void>> taggedBuffers;
  std::mutex taggedTurn;
};

MpiWorld::MpiWorld() : state(std::make_unique<State>()) {}
MpiWorld::~MpiWorld() = default;

bool MpiWorld::launched() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name))
      return true;
  return false;
}

static std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, length);
}

/// "rank 1" or "ranks 0, 2, 3".
static std::string rankList(llvm::ArrayRef<int64_t> ranks) {
  std::string list = ranks.size() > 1 ? "ranks " : "rank ";
  for (auto [i, r] : llvm::enumerate(ranks))
    list += (i ? ", " : "") + std::to_string(r);
  return list;
}

/// A wait for every process at once that ended before all came; the
/// ranks it waited for, when known.
static std::string notEveryProcess(const std::string &what,
                                   std::chrono::milliseconds timeout,
                                   llvm::ArrayRef<int64_t> waitedFor = {}) {
  std::string waited;
  if (!waitedFor.empty())
    waited = "waited for " + rankList(waitedFor) + "; ";
  return llvm::formatv("{0}: not every process arrived within {1} s ({2}one "
                       "died, exited, or is still computing; "
                       "SPMD_MPI_TIMEOUT sets the wait)",
                       what, timeout.count() / 1000.0, waited);
}

/// Every rank of `size` but `rank`.
static std::vector<int64_t> othersThan(int64_t rank, int64_t size) {
  std::vector<int64_t> others;
  for (int64_t r = 0; r < size; ++r)
    if (r != rank)
      others.push_back(r);
  return others;
}

/// Ends the process on a fault where no error can be returned (in a
/// blocking MPI call, at start-up, at exit): one line, in one write, so
/// that the lines of several processes do not interleave.
[[noreturn]] static void endOnFault(const std::string &message) {
  std::string line =
      std::string(program_invocation_short_name) + ": error: " + message + "\n";
  (void)!::write(STDERR_FILENO, line.data(), line.size());
  ::_exit(MpiWorld::kFaultExitCode);
}

namespace {
/// Ends the process with `message` unless disarmed (destroyed) within
/// `timeout`: it bounds an MPI call that waits for every process and
/// cannot poll, which a stopped process would otherwise hold forever.
class Watchdog {
public:
  Watchdog(std::chrono::milliseconds timeout, std::string message)
      : thread([this, timeout, message = std::move(message)] {
          std::unique_lock<std::mutex> lock(mutex);
          if (!disarmed.wait_for(lock, timeout, [&] { return done; }))
            endOnFault(message);
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> guard(mutex);
      done = true;
    }
    disarmed.notify_all();
    thread.join();
  }

private:
  std::mutex mutex;
  std::condition_variable disarmed;
  bool done = false;
  std::thread thread; // last: starts once the members above exist
};
} // namespace

/// This process's rank and the number of processes, as the launcher set
/// them before MPI starts; {-1, 0} when it did not say.
static std::pair<int64_t, int64_t> launcherRank() {
  for (auto [rank, size] :
       {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
        std::pair{"PMI_RANK", "PMI_SIZE"}}) {
    const char *r = std::getenv(rank), *s = std::getenv(size);
    if (r && s)
      return {std::atoll(r), std::atoll(s)};
  }
  return {-1, 0};
}

MpiWorld *MpiWorld::get(std::optional<double> timeoutSeconds) {
  static MpiWorld *world = [&]() -> MpiWorld * {
    if (!launched())
      return nullptr;
    auto *w = new MpiWorld();
    w->timeout_ = timeoutFromEnvironment();
    if (timeoutSeconds)
      w->setTimeoutSeconds(*timeoutSeconds);
    w->start();
    std::atexit(finalizeAtExit);
    return w;
  }();
  return world;
}

std::chrono::milliseconds MpiWorld::timeoutFromEnvironment() {
  const char *env = std::getenv("SPMD_MPI_TIMEOUT");
  if (!env || !*env)
    return std::chrono::seconds(60);
  char *end = nullptr;
  double seconds = std::strtod(env, &end);
  if (end == env || *end || !(seconds > 0 && seconds <= kMaxTimeoutSeconds)) {
    std::fprintf(stderr,
                 "spmd: warning: SPMD_MPI_TIMEOUT=%s is not a number of "
                 "seconds in (0, %g]; waiting 60 s\n",
                 env, kMaxTimeoutSeconds);
    return std::chrono::seconds(60);
  }
  return std::chrono::milliseconds(int64_t(seconds * 1000));
}

bool MpiWorld::setTimeoutSeconds(double seconds) {
  // Also refuses NaN and infinities; the bound keeps milliseconds and
  // deadlines far from overflowing.
  if (!(seconds > 0 && seconds <= kMaxTimeoutSeconds))
    return false;
  timeout_ = std::chrono::milliseconds(int64_t(seconds * 1000));
  return true;
}

void MpiWorld::finalizeAtExit() {
  MpiWorld *world = get();
  // After a failure the peers may be gone or stuck: MPI_Finalize would
  // wait for them. The launcher sees this process end and ends the job.
  if (world->broken_)
    return;
  // MPI_Finalize waits for every process, with no timeout: every process
  // meets first, so that one that does not come is named, and the
  // watchdog bounds what is left.
  if (llvm::Error err = world->barrier("ending")) {
    std::fflush(nullptr);
    endOnFault(llvm::toString(std::move(err)));
  }
  Watchdog watchdog(world->timeout_,
                    notEveryProcess("ending MPI", world->timeout_,
                                    othersThan(world->rank_, world->size_)));
  MPI_Finalize();
}

llvm::Error MpiWorld::fail(std::string message) {
  broken_ = true;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<int> MpiWorld::split(const std::string &key, int64_t color,
                                    const std::string &what) {
  if (auto it = state->made.find(key); it != state->made.end())
    return it->second;
  // MPI_Comm_split blocks: it starts once every process is known to have
  // come, so that a process that stopped before cannot hang the others.
  if (llvm::Error err = barrier(what))
    return std::move(err);
  MPI_Comm comm;
  int rc;
  {
    // Every process came, but one may stop before it takes part.
    std::string making = "making the MPI communicator of " + what;
    Watchdog watchdog(
        timeout_, notEveryProcess(making, timeout_, othersThan(rank_, size_)));
    // Colors must be non-negative ints; they are process ranks here.
    rc = MPI_Comm_split(state->comms[0], int(color), int(rank_), &comm);
  }
  if (rc != MPI_SUCCESS)
    return fail("rank " + std::to_string(rank_) +
                ": cannot make the MPI "
                "communicator of " +
                what + ": " + mpiErrorText(rc));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  state->comms.push_back(comm);
  return state->made[key] = int(state->comms.size() - 1);
}

/// The rank in `comm` of world rank `peer`.
static int rankIn(MPI_Comm comm, int64_t peer) {
  MPI_Group world, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_group(comm, &group);
  int from = int(peer), to = MPI_UNDEFINED;
  MPI_Group_translate_ranks(world, 1, &from, group, &to);
  MPI_Group_free(&world);
  MPI_Group_free(&group);
  return to;
}

namespace {
/// Requests being completed, each with the world rank it talks to.
struct Pending {
  std::vector<MPI_Request> requests;
  std::vector<int64_t> peers;
};
} // namespace

/// A stop another process announced.
struct Notice {
  int rank;
  std::string text;
};
static std::optional<Notice> takeNotice(MPI_Comm control) {
  int flag = 0;
  MPI_Status status;
  if (MPI_Iprobe(MPI_ANY_SOURCE, kNoticeTag, control, &flag, &status) !=
          MPI_SUCCESS ||
      !flag)
    return std::nullopt;
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  std::string text(length, '\0');
  MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, kNoticeTag,
           control, MPI_STATUS_IGNORE);
  return Notice{status.MPI_SOURCE, std::move(text)};
}

/// Whether a process that works alone said it is alive since the last call
/// (its messages taken).
static bool takeAlive(MPI_Comm control) {
  bool alive = false;
  int flag = 1;
  MPI_Status status;
  while (MPI_Iprobe(MPI_ANY_SOURCE, kAliveTag, control, &flag, &status) ==
             MPI_SUCCESS &&
         flag) {
    MPI_Recv(nullptr, 0, MPI_CHAR, status.MPI_SOURCE, kAliveTag, control,
             MPI_STATUS_IGNORE);
    alive = true;
  }
  return alive;
}

/// Polls `pending` until every request completes, a notice of a stop
/// comes, an error is returned, or `timeout` passes.
static llvm::Error
waitFor(Pending &pending, MPI_Comm control, std::chrono::milliseconds timeout,
        const std::string &what,
        llvm::function_ref<llvm::Error(std::string)> report) {
  // Requests still open when the wait fails are cancelled, so that no
  // late message lands in a buffer its owner has freed.
  auto fail = [&](std::string message) {
    for (MPI_Request &request : pending.requests)
      if (request != MPI_REQUEST_NULL) {
        MPI_Cancel(&request);
        MPI_Request_free(&request);
      }
    return report(std::move(message));
  };
  if (pending.requests.empty())
    return llvm::Error::success();
  // The ranks whose messages have not come (-1: a collective of every
  // process).
  auto missingRanks = [&] {
    std::vector<int64_t> missing;
    for (size_t i = 0; i < pending.requests.size(); ++i)
      if (pending.requests[i] != MPI_REQUEST_NULL &&
          !llvm::is_contained(missing, pending.peers[i]))
        missing.push_back(pending.peers[i]);
    llvm::sort(missing);
    return missing;
  };
  auto start = std::chrono::steady_clock::now();
  auto nextCheck = start;
  size_t left = pending.requests.size();
  std::vector<int> indices(pending.requests.size());
  std::vector<MPI_Status> statuses(pending.requests.size());
  while (left > 0) {
    int count = 0;
    int rc = MPI_Testsome(int(pending.requests.size()), pending.requests.data(),
                          &count, indices.data(), statuses.data());
    if (rc != MPI_SUCCESS) {
      for (int i = 0; i < count && count != MPI_UNDEFINED; ++i)
        if (statuses[i].MPI_ERROR != MPI_SUCCESS)
          return fail(llvm::formatv("{0}: MPI failed talking to rank {1}: {2}",
                                    what, pending.peers[indices[i]],
                                    mpiErrorText(statuses[i].MPI_ERROR)));
      return fail(what + ": MPI failed: " + mpiErrorText(rc));
    }
    if (count != MPI_UNDEFINED)
      left -= count;
    if (left == 0)
      break;
    auto now = std::chrono::steady_clock::now();
    if (now < nextCheck)
      continue;
    nextCheck = now + std::chrono::milliseconds(1);
    // The timeout counts from the last sign of a process working alone.
    if (takeAlive(control))
      start = now;
    // Another process stopped: it said so before leaving.
    if (std::optional<Notice> notice = takeNotice(control)) {
      // The stopped rank may have waited for one that waits for the rank
      // at fault: this process names whom it still waits for too.
      std::vector<int64_t> missing = missingRanks();
      std::string waiting;
      if (!missing.empty() && !llvm::is_contained(missing, -1))
        waiting = "; this process still waited for " + rankList(missing);
      return fail(llvm::formatv("{0}: rank {1} stopped: {2}{3}", what,
                                notice->rank, notice->text, waiting));
    }
    if (now - start > timeout) {
      std::vector<int64_t> missing = missingRanks();
      if (llvm::is_contained(missing, -1)) // a collective of every process
        return fail(notEveryProcess(what, timeout));
      return fail(llvm::formatv(
          "{0}: {1} did not answer within {2} s (the process died, "
          "exited, or is still computing; SPMD_MPI_TIMEOUT sets the wait)",
          what, rankList(missing), timeout.count() / 1000.0));
    }
    std::this_thread::yield();
  }
  return llvm::Error::success();
}

/// Posts every message (receives first) on `c` and waits for all; see
/// MpiWorld::exchange. `report` makes the error of a failure.
static llvm::Error
postAndWait(MPI_Comm c, MPI_Comm control, llvm::ArrayRef<Message> messages,
            const std::string &what, std::chrono::milliseconds timeout,
            llvm::function_ref<llvm::Error(std::string)> report) {
  Pending pending;
  // Receives first, so that no send waits for its match to be posted.
  for (bool send : {false, true})
    for (const Message &m : messages) {
      if (m.send != send)
        continue;
      int peer = rankIn(c, m.peer);
      assert(peer != MPI_UNDEFINED && "peer outside the communicator");
      for (int64_t at = 0; at < m.bytes || (at == 0 && m.bytes == 0);
           at += kMaxPiece) {
        int count = int(std::min(kMaxPiece, m.bytes - at));
        char *data = static_cast<char *>(m.data) + at;
        MPI_Request request;
        int rc =
            send
                ? MPI_Isend(data, count, MPI_BYTE, peer, kDataTag, c, &request)
                : MPI_Irecv(data, count, MPI_BYTE, peer, kDataTag, c, &request);
        if (rc != MPI_SUCCESS)
          return report(
              llvm::formatv("{0}: MPI failed talking to rank {1}: {2}", what,
                            m.peer, mpiErrorText(rc)));
        pending.requests.push_back(request);
        pending.peers.push_back(m.peer);
        if (m.bytes == 0)
          break;
      }
    }
  return waitFor(pending, control, timeout, what, report);
}

llvm::Error
MpiWorld::exchange(int comm, llvm::ArrayRef<Message> messages,
                   const std::string &what,
                   std::optional<std::chrono::milliseconds> timeout) {
  return postAndWait(state->comms[comm], state->control, messages, what,
                     timeout.value_or(timeout_),
                     [&](std::string text) { return fail(std::move(text)); });
}

/// The largest `value` of the processes `rank` of `size` of `c`, whose
/// ranks are the world's: each sends its value to every other, point to
/// point rather than through a collective of MPI's, so that a wait that
/// fails names the ranks that did not come. (P^2 small messages: meant
/// for the few processes of one job, between runs.)
static llvm::Expected<double>
maxOver(MPI_Comm c, MPI_Comm control, int64_t rank, int64_t size, double value,
        const std::string &what, std::chrono::milliseconds timeout,
        llvm::function_ref<llvm::Error(std::string)> report) {
  std::vector<double> values(size, value);
  std::vector<Message> messages;
  for (int64_t r = 0; r < size; ++r)
    if (r != rank) {
      messages.push_back({r, &values[r], sizeof(double), false});
      messages.push_back({r, &value, sizeof(double), true});
    }
  if (llvm::Error err =
          postAndWait(c, control, messages, what, timeout, report))
    return std::move(err);
  return *std::max_element(values.begin(), values.end());
}

llvm::Error MpiWorld::barrier(const std::string &what) {
  return maxOverProcesses(0, what).takeError();
}

llvm::Expected<double>
MpiWorld::maxOverProcesses(double value, const std::string &what,
                           std::optional<std::chrono::milliseconds> timeout) {
  return maxOver(state->comms[0], state->control, rank_, size_, value, what,
                 timeout.value_or(timeout_),
                 [&](std::string text) { return fail(std::move(text)); });
}

llvm::Expected<bool> MpiWorld::sameOnEveryProcess(uint64_t value,
                                                  const std::string &what) {
  // The largest and the smallest, in the 52 bits a double holds exactly.
  double mine = double(value & ((uint64_t(1) << 52) - 1));
  llvm::Expected<double> most = maxOverProcesses(mine, what);
  if (!most)
    return most.takeError();
  llvm::Expected<double> least = maxOverProcesses(-mine, what);
  if (!least)
    return least.takeError();
  return *most == -*least;
}

void MpiWorld::start() {
  // MPI_Init_thread waits for every process (Open MPI exchanges their
  // addresses there) and has no timeout of its own. Who is missing MPI
  // cannot tell there: the error lists the ranks the launcher started.
  auto [launched, count] = launcherRank();
  {
    Watchdog watchdog(timeout_, notEveryProcess("starting MPI", timeout_,
                                                othersThan(launched, count)));
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  }
  // Errors come back as codes, reported with the rank involved, rather
  // than ending the process inside MPI.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rank_ = rank;
  size_ = size;
  // Every process answers before the communicators are made (a blocking
  // collective): one that stopped meanwhile is named.
  llvm::Expected<double> met = maxOver(
      MPI_COMM_WORLD, MPI_COMM_WORLD, rank_, size_, 0, "starting MPI", timeout_,
      [](std::string text) {
        return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
      });
  if (!met)
    endOnFault(llvm::toString(met.takeError()));
  MPI_Comm data, control, stopping, tagged;
  {
    Watchdog watchdog(timeout_, notEveryProcess("starting MPI", timeout_,
                                                othersThan(rank_, size_)));
    MPI_Comm_dup(MPI_COMM_WORLD, &data);
    MPI_Comm_dup(MPI_COMM_WORLD, &control);
    MPI_Comm_dup(MPI_COMM_WORLD, &stopping);
    MPI_Comm_dup(MPI_COMM_WORLD, &tagged);
  }
  for (MPI_Comm comm : {data, control, stopping, tagged})
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  state->tagged = tagged;
  int *limit = nullptr, found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &limit, &found);
  if (found && limit)
    state->tagLimit = *limit;
  state->comms.push_back(data);
  state->control = control;
  state->stopping = stopping;
}

llvm::Expected<std::vector<std::string>>
MpiWorld::gatherText(const std::string &text, const std::string &what) {
  // Lengths first, then the texts, both as messages to rank 0.
  std::vector<int64_t> lengths(size_, 0);
  int64_t own = text.size();
  std::vector<Message> messages;
  if (rank_ == 0) {
    lengths[0] = own;
    for (int64_t r = 1; r < size_; ++r)
      messages.push_back({r, &lengths[r], sizeof(int64_t), false});
  } else {
    messages.push_back({0, &own, sizeof(int64_t), true});
  }
  if (llvm::Error err = exchange(0, messages, what))
    return std::move(err);
  std::vector<std::string> texts;
  messages.clear();
  if (rank_ == 0) {
    texts.resize(size_);
    texts[0] = text;
    for (int64_t r = 1; r < size_; ++r) {
      texts[r].resize(lengths[r]);
      messages.push_back({r, texts[r].data(), lengths[r], false});
    }
  } else {
    messages.push_back({0, const_cast<char *>(text.data()), own, true});
  }
  if (llvm::Error err = exchange(0, messages, what))
    return std::move(err);
  return texts;
}

llvm::Expected<std::string> MpiWorld::broadcastText(const std::string &text,
                                                    int64_t root,
                                                    const std::string &what) {
  assert(root >= 0 && root < size_ && "no such process");
  // The length first, then the text, as messages from the root.
  int64_t length = text.size();
  auto fromRoot = [&](void *data, int64_t bytes) {
    std::vector<Message> messages;
    for (int64_t r = 0; r < size_; ++r)
      if (r != root && (rank_ == root || r == rank_))
        messages.push_back(
            {rank_ == root ? r : root, data, bytes, rank_ == root});
    return exchange(0, messages, what);
  };
  if (llvm::Error err = fromRoot(&length, sizeof(length)))
    return std::move(err);
  std::string received = rank_ == root ? text : std::string(length, '\0');
  if (llvm::Error err = fromRoot(received.data(), length))
    return std::move(err);
  return received;
}

int64_t MpiWorld::tagLimit() const { return state->tagLimit; }

/// Completes what it can of the tagged sends, dropping their buffers.
static llvm::Error
progressTagged(std::vector<MPI_Request> &requests,
               std::vector<std::shared_ptr<const void>> &buffers,
               const std::string &what) {
  for (size_t i = 0; i < requests.size();) {
    int done = 0;
    MPI_Status status;
    if (int rc = MPI_Test(&requests[i], &done, &status); rc != MPI_SUCCESS)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     what +
                                         ": MPI failed: " + mpiErrorText(rc));
    if (!done) {
      ++i;
      continue;
    }
    requests.erase(requests.begin() + i);
    buffers.erase(buffers.begin() + i);
  }
  return llvm::Error::success();
}

/// Fails on a message MPI cannot send at once (its count is an int).
static std::optional<std::string> tooLarge(size_t size,
                                           const std::string &what) {
  if (size <= size_t(INT_MAX))
    return std::nullopt;
  return what + ": a message of " + std::to_string(size) +
         " bytes is larger than MPI sends at once (2 GiB)";
}

llvm::Error MpiWorld::postTagged(int64_t peer, int64_t tag,
                                 llvm::ArrayRef<TaggedPart> parts,
                                 const std::string &what) {
  assert(tag >= 0 && tag <= state->tagLimit && "tag out of range");
  for (const TaggedPart &part : parts)
    if (std::optional<std::string> problem = tooLarge(part.size, what))
      return fail(*problem);
  std::lock_guard<std::mutex> turn(state->taggedTurn);
  for (const TaggedPart &part : parts) {
    MPI_Request request;
    int rc = MPI_Isend(part.data, int(part.size), MPI_BYTE, int(peer), int(tag),
                       state->tagged, &request);
    if (rc != MPI_SUCCESS)
      return fail(llvm::formatv("{0}: MPI failed talking to rank {1}: {2}",
                                what, peer, mpiErrorText(rc)));
    state->taggedRequests.push_back(request);
    state->taggedBuffers.push_back(part.owner);
  }
  return llvm::Error::success();
}

llvm::Error MpiWorld::receiveTaggedPart(int64_t peer, int64_t tag, void *data,
                                        size_t size, const std::string &what) {
  if (std::optional<std::string> problem = tooLarge(size, what))
    return fail(*problem);
  MPI_Request request;
  int rc = MPI_Irecv(data, int(size), MPI_BYTE, int(peer), int(tag),
                     state->tagged, &request);
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  int done = 0;
  while (rc == MPI_SUCCESS && !done) {
    rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done || rc != MPI_SUCCESS)
      break;
    std::optional<Notice> notice = takeNotice(state->control);
    if (notice || std::chrono::steady_clock::now() > deadline) {
      MPI_Cancel(&request);
      MPI_Request_free(&request);
      if (notice)
        return fail(llvm::formatv("{0}: rank {1} stopped: {2}", what,
                                  notice->rank, notice->text));
      return fail(llvm::formatv("{0}: rank {1} sent a message's first part "
                                "but not the rest within the timeout",
                                what, peer));
    }
    std::this_thread::yield();
  }
  if (rc != MPI_SUCCESS)
    return fail(llvm::formatv("{0}: MPI failed talking to rank {1}: {2}", what,
                              peer, mpiErrorText(rc)));
  return llvm::Error::success();
}

llvm::Expected<std::optional<std::vector<uint8_t>>>
MpiWorld::takeTagged(int64_t peer, int64_t tag, const std::string &what,
                     const TaggedParts &parts) {
  std::lock_guard<std::mutex> turn(state->taggedTurn);
  if (llvm::Error err =
          progressTagged(state->taggedRequests, state->taggedBuffers, what))
    return fail(llvm::toString(std::move(err)));
  if (std::optional<Notice> notice = takeNotice(state->control))
    return fail(llvm::formatv("{0}: rank {1} stopped: {2}", what, notice->rank,
                              notice->text));
  int flag = 0;
  MPI_Message message;
  MPI_Status status;
  int rc =
      MPI_Improbe(int(peer), int(tag), state->tagged, &flag, &message, &status);
  if (rc != MPI_SUCCESS)
    return fail(llvm::formatv("{0}: MPI failed talking to rank {1}: {2}", what,
                              peer, mpiErrorText(rc)));
  if (!flag)
    return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::vector<uint8_t> bytes(count);
  rc = MPI_Mrecv(bytes.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS)
    return fail(llvm::formatv("{0}: MPI failed talking to rank {1}: {2}", what,
                              peer, mpiErrorText(rc)));
  // The parts, still holding MPI: no other wait may take them first.
  if (parts)
    for (auto [data, size] : parts(bytes))
      if (llvm::Error err = receiveTaggedPart(peer, tag, data, size, what))
        return std::move(err);
  return bytes;
}

llvm::Expected<bool> MpiWorld::taggedSendsDone(const std::string &what) {
  std::lock_guard<std::mutex> turn(state->taggedTurn);
  if (llvm::Error err =
          progressTagged(state->taggedRequests, state->taggedBuffers, what))
    return fail(llvm::toString(std::move(err)));
  return state->taggedRequests.empty();
}

void MpiWorld::aloneFor(llvm::function_ref<void()> work) {
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  std::thread beats([&] {
    std::vector<MPI_Request> sent;
    std::unique_lock<std::mutex> lock(mutex);
    while (!finished) {
      for (int64_t r = 0; r < size_; ++r) {
        MPI_Request request;
        if (r != rank_ && MPI_Isend(nullptr, 0, MPI_CHAR, int(r), kAliveTag,
                                    state->control, &request) == MPI_SUCCESS)
          sent.push_back(request);
      }
      int all = 0;
      MPI_Testall(int(sent.size()), sent.data(), &all, MPI_STATUSES_IGNORE);
      if (all)
        sent.clear();
      done.wait_for(lock, timeout_ / 4, [&] { return finished; });
    }
    // Empty sends a dead peer never takes complete on their own.
    for (MPI_Request &request : sent)
      if (request != MPI_REQUEST_NULL)
        MPI_Request_free(&request);
  });
  work();
  {
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
  }
  done.notify_all();
  beats.join();
}

void MpiWorld::announceStop(const std::string &message) {
  if (announced_)
    return;
  announced_ = true;
  broken_ = true;
  state->noticeTexts.push_back(message);
  const std::string &text = state->noticeTexts.back();
  for (int64_t r = 0; r < size_; ++r) {
    if (r == rank_)
      continue;
    MPI_Request request;
    if (MPI_Isend(text.data(), int(text.size()), MPI_CHAR, int(r), kNoticeTag,
                  state->control, &request) == MPI_SUCCESS)
      state->noticeRequests.push_back(request);
  }
  // Short notices leave at once; a peer that is gone must not hold this
  // process, so the wait is bounded.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  int done = 0;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    MPI_Testall(int(state->noticeRequests.size()), state->noticeRequests.data(),
                &done, MPI_STATUSES_IGNORE);
    std::this_thread::yield();
  }
}

void MpiWorld::stop(const std::string &message, int code) {
  // After a wait that failed, the processes cannot all meet: waiting for
  // them would only add to the timeout.
  if (broken_) {
    announceStop(message);
    std::exit(code);
  }
  Pending pending;
  pending.requests.emplace_back();
  pending.peers.push_back(-1);
  bool together =
      MPI_Ibarrier(state->stopping, &pending.requests[0]) == MPI_SUCCESS &&
      !llvm::errorToBool(waitFor(pending, state->control,
                                 std::chrono::seconds(5), "stopping",
                                 [](std::string text) {
                                   return llvm::createStringError(
                                       llvm::inconvertibleErrorCode(), text);
                                 }));
  if (!together)
    announceStop(message);
  std::exit(code); // finalises MPI unless broken
}

} // namespace spmd::runtime
