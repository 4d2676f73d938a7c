//===- ProcessGroups.cpp - Meetings of replicated devices -----------------===//

#include "runtime/comm/ProcessGroups.h"
#include "runtime/comm/MpiWorld.h"
#include "runtime/devices/DevicePool.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <cstring>

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

ProcessGroups::ProcessGroups(int64_t devicesPerProcess, MpiWorld *world,
                             std::chrono::milliseconds timeout,
                             uint64_t generation)
    : perProcess(devicesPerProcess), generation(generation), world(world),
      worldSize_(devicesPerProcess * (world ? world->size() : 1)),
      timeout_(timeout), local(timeout), calls(worldSize_) {
  if (world)
    firstRank_ = world->rank() * perProcess;
}

//===----------------------------------------------------------------------===//
// Messages to other processes: a head holding a key's hash first (checked
// on arrival, so that two keys whose tags collide are an error, never each
// other's data), then the body with each tensor's type and shape; each
// tensor's bytes follow as a message of its own, sent from the posted
// buffer and received into the new tensor (no copy of large buffers).
//===----------------------------------------------------------------------===//

namespace {
/// A message's head: room for the key's hash (sealed writes it), then the
/// body; and the tensors whose bytes follow it.
class Writer {
public:
  Writer() : bytes(sizeof(uint64_t)) {}
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void text(const std::string &t) {
    u64(t.size());
    raw(t.data(), t.size());
  }
  void tensor(const TensorRef &t) {
    u64(t != nullptr);
    if (!t)
      return;
    u64(uint64_t(t->type()));
    u64(t->rank());
    for (int64_t size : t->shape())
      u64(size);
    if (t->sizeInBytes())
      payloads.push_back(t);
  }
  std::vector<uint8_t> bytes;
  std::vector<TensorRef> payloads;

private:
  void raw(const void *p, size_t n) {
    const uint8_t *b = static_cast<const uint8_t *>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
};

/// A message's body (past the hash receiveFrom checked); the tensors it
/// makes are filled by the parts that follow (parts()).
class Reader {
public:
  explicit Reader(const std::vector<uint8_t> &bytes)
      : bytes(bytes), at(sizeof(uint64_t)) {}
  uint64_t u64() {
    uint64_t v = 0;
    raw(&v, sizeof v);
    return v;
  }
  std::string text() {
    std::string t(take(u64()), '\0');
    raw(t.data(), t.size());
    return t;
  }
  TensorRef tensor() {
    if (!u64())
      return nullptr;
    auto type = ElementType(u64());
    std::vector<int64_t> shape(take(u64()));
    for (int64_t &size : shape)
      size = int64_t(u64());
    auto t = std::make_shared<HostBuffer>(type, shape, Init::None);
    if (t->sizeInBytes())
      parts_.push_back({t->data(), t->sizeInBytes()});
    return t;
  }
  bool ok() const { return good; }
  /// Where the tensors' bytes go, in message order (none unless ok()).
  std::vector<std::pair<void *, size_t>> parts() const {
    return good ? parts_ : std::vector<std::pair<void *, size_t>>();
  }

private:
  /// `n`, or 0 (and not good) when fewer bytes are left.
  size_t take(uint64_t n) {
    if (n > bytes.size() - at) {
      good = false;
      return 0;
    }
    return n;
  }
  void raw(void *p, size_t n) {
    if (take(n) != n)
      return;
    std::memcpy(p, bytes.data() + at, n);
    at += n;
  }
  const std::vector<uint8_t> &bytes;
  size_t at;
  bool good = true;
  std::vector<std::pair<void *, size_t>> parts_;
};

uint64_t hashOf(const std::string &key) { return llvm::xxh3_64bits(key); }

/// Lets the other devices of this worker run once (a loop that polls MPI
/// calls it between polls: MPI moves large messages only inside its calls,
/// so the polls go on at once).
void pause() {
  std::mutex m;
  std::condition_variable never;
  std::unique_lock<std::mutex> lock(m);
  waitForDevices(lock, never, std::chrono::milliseconds(0),
                 [] { return false; });
}
} // namespace

std::shared_ptr<const std::vector<uint8_t>>
ProcessGroups::sealed(const std::string &name, std::vector<uint8_t> message) {
  uint64_t hash = hashOf(std::to_string(generation) + "/" + name);
  std::memcpy(message.data(), &hash, sizeof hash);
  return std::make_shared<const std::vector<uint8_t>>(std::move(message));
}

llvm::Error
ProcessGroups::sendTo(int64_t process, const std::string &name,
                      std::shared_ptr<const std::vector<uint8_t>> head,
                      llvm::ArrayRef<TensorRef> payloads,
                      const std::string &what) {
  uint64_t hash = hashOf(std::to_string(generation) + "/" + name);
  int64_t tag = int64_t(hash % uint64_t(world->tagLimit() + 1));
  std::vector<MpiWorld::TaggedPart> parts{{head, head->data(), head->size()}};
  for (const TensorRef &t : payloads)
    parts.push_back({t, t->data(), size_t(t->sizeInBytes())});
  return world->postTagged(process, tag, parts, what);
}

llvm::Expected<bool>
ProcessGroups::receiveFrom(int64_t process, const std::string &name,
                           const std::string &what, bool wait,
                           const MpiWorld::TaggedParts &read) {
  std::string key = std::to_string(generation) + "/" + name;
  int64_t tag = int64_t(hashOf(key) % uint64_t(world->tagLimit() + 1));
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  bool foreign = false;
  auto readOwn = [&](const std::vector<uint8_t> &head) {
    uint64_t hash = 0;
    if (head.size() >= sizeof hash)
      std::memcpy(&hash, head.data(), sizeof hash);
    foreign = hash != hashOf(key);
    return foreign ? std::vector<std::pair<void *, size_t>>() : read(head);
  };
  while (true) {
    auto got = world->takeTagged(process, tag, what, readOwn);
    if (!got)
      return got.takeError();
    if (*got && foreign)
      return error(what + ": process " + std::to_string(process) +
                   " sent a message of another call under the same tag");
    if (*got)
      return true;
    if (!wait)
      return false;
    if (std::chrono::steady_clock::now() > deadline)
      return error(what + ": process " + std::to_string(process) +
                   " did not answer within " + seconds(timeout_) +
                   " s (its devices did not call it, or it stopped; "
                   "SPMD_MPI_TIMEOUT sets the wait)");
    pause();
  }
}

llvm::Error ProcessGroups::flush() {
  if (!world)
    return llvm::Error::success();
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (true) {
    llvm::Expected<bool> done = world->taggedSendsDone("spmd::spawn");
    if (!done || *done)
      return done.takeError();
    if (std::chrono::steady_clock::now() > deadline)
      return error("spmd::spawn: messages to other processes were not "
                   "received within " +
                   seconds(timeout_) + " s");
    pause();
  }
}

llvm::Error ProcessGroups::exchangeWithProcesses(llvm::ArrayRef<int64_t> ranks,
                                                 const std::string &key,
                                                 const std::string &what,
                                                 Meeting &meeting) {
  int64_t me = processOf(firstRank_);
  Writer mine;
  std::vector<int64_t> others;
  for (auto [i, rank] : llvm::enumerate(ranks)) {
    int64_t process = processOf(rank);
    if (process == me) {
      mine.u64(i);
      mine.text(meeting.calls[i]);
      mine.tensor(meeting.posted[i]);
    } else if (!llvm::is_contained(others, process)) {
      others.push_back(process);
    }
  }
  auto message = sealed(key, std::move(mine.bytes));
  for (int64_t process : others)
    if (llvm::Error err = sendTo(process, key, message, mine.payloads, what))
      return err;
  for (int64_t process : others) {
    // Each member of `process`: its position, call and buffer.
    std::vector<std::tuple<uint64_t, std::string, TensorRef>> posts;
    bool readable = false;
    auto got = receiveFrom(
        process, key, what, /*wait=*/true,
        [&](const std::vector<uint8_t> &head) {
          Reader theirs(head);
          readable = true;
          for (int64_t rank : ranks) {
            if (processOf(rank) != process)
              continue;
            uint64_t i = theirs.u64();
            std::string call = theirs.text();
            TensorRef data = theirs.tensor();
            readable &= theirs.ok() && i < ranks.size() && ranks[i] == rank;
            posts.emplace_back(i, std::move(call), std::move(data));
          }
          return readable ? theirs.parts()
                          : std::vector<std::pair<void *, size_t>>();
        });
    if (!got)
      return got.takeError();
    if (!readable)
      return error(what + ": process " + std::to_string(process) +
                   " sent a message this one cannot read");
    std::unique_lock<std::mutex> lock(mutex);
    for (auto &[i, call, data] : posts) {
      meeting.calls[i] = std::move(call);
      meeting.posted[i] = std::move(data);
      meeting.arrived[i] = true;
    }
  }
  return llvm::Error::success();
}

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
    auto it =
        llvm::find_if(distinct, [&c = call](auto &d) { return d.first == c; });
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

  int64_t me = processOf(firstRank_);
  size_t here = llvm::count_if(
      ranks, [&](int64_t member) { return processOf(member) == me; });
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
  lastProgress = Clock::now();
  if (++meeting.count == here && here != ranks.size()) {
    // The last of this process's members: it brings the others'.
    lock.unlock();
    llvm::Error err = exchangeWithProcesses(ranks, key, what, meeting);
    lock.lock();
    if (err)
      meeting.failure = llvm::toString(std::move(err));
    else
      meeting.count = ranks.size();
  }
  notifyDevices(changed);
  [[maybe_unused]] bool complete = awaitProgress(lock, [&] {
    return meeting.count == ranks.size() || !meeting.failure.empty() ||
           !departedMember(ranks, meeting).empty();
  });
  if (meeting.failure.empty() && meeting.count != ranks.size()) {
    std::string gone = departedMember(ranks, meeting);
    assert((!complete || !gone.empty()) && "a meeting ends complete");
    std::vector<int64_t> missing;
    for (auto [i, member] : llvm::enumerate(ranks))
      if (!meeting.arrived[i])
        missing.push_back(member);
    // Those that come later fail too: the meeting stays, named by its
    // number, which no later collective of the group reuses.
    meeting.failure =
        what + " failed: " +
        (!gone.empty() ? gone
                       : devices(missing) + " did not call it within " +
                             seconds(timeout_) +
                             " s of the last call of any device "
                             "(SPMD_MPI_TIMEOUT sets the wait)");
  }
  if (!meeting.failure.empty())
    return error(meeting.failure);
  std::vector<TensorRef> all = meeting.posted;
  bool agree = llvm::all_equal(meeting.calls);
  std::string mismatch = agree ? "" : describeCalls(ranks, meeting.calls);
  if (++meeting.left == here)
    meetings.erase(key);
  lock.unlock();
  if (!agree)
    return error("collective " + std::to_string(number) + " of group " + group +
                 " does not match on device " + std::to_string(rank) + ": " +
                 mismatch);
  return all;
}

/// The key of the n-th message from `from` to `to`.
static std::string messageKey(int64_t from, int64_t to, int64_t n) {
  return "message " + std::to_string(from) + "->" + std::to_string(to) + "#" +
         std::to_string(n);
}

bool ProcessGroups::awaitProgress(std::unique_lock<std::mutex> &lock,
                                  llvm::function_ref<bool()> ready) {
  while (true) {
    auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(
        Clock::now() - lastProgress);
    if (idle >= timeout_)
      return ready();
    if (waitForDevices(lock, changed, timeout_ - idle, ready))
      return true;
  }
}

llvm::Error ProcessGroups::send(int64_t from, int64_t to, TensorRef data) {
  int64_t n = calls[from]["send to " + std::to_string(to)]++;
  if (processOf(to) != processOf(from)) {
    Writer body;
    body.tensor(data);
    std::string key = messageKey(from, to, n);
    return sendTo(processOf(to), key, sealed(key, std::move(body.bytes)),
                  body.payloads,
                  "send from device " + std::to_string(from) + " to device " +
                      std::to_string(to));
  }
  std::lock_guard<std::mutex> guard(mutex);
  mailboxes[{from, to}][n] = std::move(data);
  lastProgress = Clock::now();
  notifyDevices(changed);
  return llvm::Error::success();
}

int64_t ProcessGroups::reserveReceive(int64_t to, int64_t from) {
  return calls[to]["recv from " + std::to_string(from)]++;
}

llvm::Expected<TensorRef> ProcessGroups::recv(int64_t to, int64_t from,
                                              int64_t n, bool wait) {
  std::string what = "recv on device " + std::to_string(to) + " from device " +
                     std::to_string(from);
  if (processOf(from) != processOf(to)) {
    TensorRef message;
    bool readable = false;
    auto got =
        receiveFrom(processOf(from), messageKey(from, to, n), what, wait,
                    [&](const std::vector<uint8_t> &head) {
                      Reader body(head);
                      message = body.tensor();
                      readable = body.ok() && message;
                      return readable
                                 ? body.parts()
                                 : std::vector<std::pair<void *, size_t>>();
                    });
    if (!got)
      return got.takeError();
    if (!*got)
      return nullptr;
    if (!readable)
      return error(what + ": a message this device cannot read");
    return message;
  }
  std::unique_lock<std::mutex> lock(mutex);
  std::map<int64_t, TensorRef> &box = mailboxes[{from, to}];
  auto arrived = [&] { return box.count(n) != 0; };
  auto senderGone = [&] { return departed.count(from) != 0; };
  if (wait)
    awaitProgress(lock, [&] { return arrived() || senderGone(); });
  if (!arrived()) {
    what += ": ";
    if (senderGone())
      return error(what + "device " + std::to_string(from) + " " +
                   departed[from] + " without sending it");
    if (!wait) {
      // A device polling in a loop lets the others run.
      lock.unlock();
      pause();
      return nullptr;
    }
    return error(what + "nothing came within " + seconds(timeout_) +
                 " s of the last call of any device (SPMD_MPI_TIMEOUT sets "
                 "the wait)");
  }
  TensorRef message = std::move(box[n]);
  box.erase(n);
  lastProgress = Clock::now();
  return message;
}

void ProcessGroups::depart(int64_t rank, std::string how) {
  std::lock_guard<std::mutex> guard(mutex);
  departed.emplace(rank, std::move(how));
  lastProgress = Clock::now();
  notifyDevices(changed);
}

} // namespace spmd::runtime
