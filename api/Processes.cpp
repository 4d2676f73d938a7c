//===- Processes.cpp - What the processes under mpirun agree on -----------===//

#include "Internal.h"

#include "runtime/comm/MpiWorld.h"

#include "fmt/format.h"

namespace spmd {

runtime::MpiWorld *detail::mpiProcesses() {
  runtime::MpiWorld *world = runtime::MpiWorld::get();
  return world && world->size() > 1 ? world : nullptr;
}

absl::Status
detail::agreeOnFirstError(absl::Status local, const std::string &what,
                          std::optional<std::chrono::milliseconds> wait) {
  runtime::MpiWorld *world = mpiProcesses();
  if (!world)
    return local;
  // The largest of (size - rank) over the failed processes names the
  // lowest of them.
  int64_t size = world->size();
  llvm::Expected<double> failed = world->maxOverProcesses(
      local.ok() ? 0 : double(size - world->rank()), what, wait);
  if (!failed)
    return toStatus(failed.takeError(), absl::StatusCode::kInternal);
  if (*failed == 0)
    return absl::OkStatus();
  int64_t first = size - int64_t(*failed);
  // Its code, then its message.
  llvm::Expected<std::string> error = world->broadcastText(
      fmt::format("{}\n{}", int(local.code()), std::string(local.message())),
      first, what);
  if (!error)
    return toStatus(error.takeError(), absl::StatusCode::kInternal);
  auto [code, message] = llvm::StringRef(*error).split('\n');
  int number = int(absl::StatusCode::kUnknown);
  code.getAsInteger(10, number);
  return absl::Status(absl::StatusCode(number),
                      fmt::format("process {}: {}", first, message.str()));
}

absl::StatusOr<bool> detail::sameOnEveryProcess(uint64_t value,
                                                const std::string &what) {
  runtime::MpiWorld *world = mpiProcesses();
  if (!world)
    return true;
  llvm::Expected<bool> same = world->sameOnEveryProcess(value, what);
  if (!same)
    return toStatus(same.takeError(), absl::StatusCode::kInternal);
  return *same;
}

} // namespace spmd
