//===- Cache.cpp - Compiled programs in memory and on disk ----------------===//
//
// A program is compiled once per distinct text (its shardings included):
// the key is a hash of that text (on disk, with the identity of the
// compiler's build: CompilerIdentity.cpp). On disk an entry is the partitioned
// module, behind a header holding the key and a hash of the module. An
// entry is read only as a regular file (never through a link, never a FIFO
// or a device) of a bounded size, and parsed, verified and checked as a
// program the user gives is; one that fails any of this is compiled again
// (and rewritten unless the cache is read-only), never trusted. The hash
// catches accidents (a truncated or corrupted file), not tampering: who
// can write the directory decides what programs compute, so a directory
// written to must be writable by its owner only, and be this user's.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "driver/Compile.h"
#include "ir/Locations.h"
#include "ir/SpmdDialect.h"
#include "ir/SpmdOps.h"
#include "runtime/devices/Devices.h"
#include "support/Files.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/xxhash.h"

#include "fmt/format.h"

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <list>
#include <map>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace spmd {
using detail::Compiled;

namespace {
struct Metrics {
  std::mutex mutex;
  std::map<std::string, int64_t> counters;
  std::map<std::string, double> seconds;
};
Metrics &metrics() {
  static Metrics m;
  return m;
}

/// Compiled programs kept in memory, the least recently used dropped
/// first: each holds its executable, device pool and context, and programs
/// of varying shapes would otherwise pile up. Programs still held by a
/// Program stay alive through it.
constexpr size_t kMemoryEntries = 64;

/// Entries larger than this are neither read nor written.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;

struct CacheState {
  std::mutex mutex;
  std::map<uint64_t, std::shared_ptr<Compiled>> memory;
  /// Keys, most recently used last.
  std::list<uint64_t> order;
  std::string directory;
  bool readonly = false;
};
CacheState &cache() {
  static CacheState c;
  return c;
}

constexpr llvm::StringLiteral kHeader = "// spmd compiled program v2 ";
/// What marks the lines of an entry's warnings, before its module: the
/// first line of each warning, and the others (its notes).
constexpr llvm::StringLiteral kWarningStart = "// warning+ ";
constexpr llvm::StringLiteral kWarningMore = "// warning| ";

/// The first line of the entry of `key` whose body is `body`.
std::string headerOf(uint64_t key, llvm::StringRef body) {
  return fmt::format("{}{:016x} {:016x}", kHeader.str(), key,
                     llvm::xxh3_64bits(body));
}

/// A module with the context it lives in: the module is destroyed first
/// (members die in reverse order), whichever way the owner goes.
struct OwnedModule {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};
} // namespace

void detail::addCounter(const std::string &name, int64_t delta) {
  std::lock_guard<std::mutex> lock(metrics().mutex);
  metrics().counters[name] += delta;
}

void detail::addTime(const std::string &name, double seconds) {
  std::lock_guard<std::mutex> lock(metrics().mutex);
  metrics().seconds[name] += seconds;
}

absl::Status initialize_cache(const std::string &path, bool readonly) {
  // Made writable by its owner only (less the umask), as the check below
  // asks.
  using llvm::sys::fs::perms;
  struct stat status;
  bool exists = ::stat(path.c_str(), &status) == 0;
  if (struct stat link;
      !exists && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
    return absl::FailedPreconditionError(fmt::format(
        "the cache '{}' is a symbolic link to nothing (its target does not "
        "exist)",
        path));
  if (exists && !S_ISDIR(status.st_mode))
    return absl::FailedPreconditionError(
        fmt::format("the cache '{}' exists and is not a directory", path));
  if (!exists && readonly)
    return absl::NotFoundError(
        fmt::format("the cache '{}' does not exist", path));
  if (!exists) {
    if (std::error_code ec = llvm::sys::fs::create_directories(
            path, /*IgnoreExisting=*/true,
            perms(perms::owner_all | perms::group_read | perms::group_exe |
                  perms::others_read | perms::others_exe)))
      return absl::Status(
          ec == std::errc::permission_denied
              ? absl::StatusCode::kPermissionDenied
              : absl::StatusCode::kInvalidArgument,
          fmt::format("cannot create the cache '{}': {}", path, ec.message()));
    if (::stat(path.c_str(), &status) != 0)
      return absl::NotFoundError(
          fmt::format("the cache '{}' vanished as it was made", path));
  }
  // Entries are programs this process runs: whoever may write them decides
  // what it computes. As ssh with its configuration, a cache written to
  // must be the user's and writable by no one else; a read-only one is
  // trusted as it is (docs/api.md).
  if (!readonly) {
    if (status.st_uid != ::geteuid())
      return absl::PermissionDeniedError(fmt::format(
          "the cache '{}' belongs to another user (uid {}, this process runs "
          "as {}): whoever writes a cache decides what its programs compute; "
          "use a directory of your own, or readonly = true on a directory "
          "you trust",
          path, status.st_uid, ::geteuid()));
    if (status.st_mode & (S_IWGRP | S_IWOTH))
      return absl::PermissionDeniedError(fmt::format(
          "the cache '{}' is writable by {} (mode {:04o}): whoever writes a "
          "cache decides what its programs compute; `chmod go-w` it, or use "
          "readonly = true on a directory you trust",
          path,
          (status.st_mode & S_IWOTH) ? "every user" : "its group",
          status.st_mode & 07777));
    if (::access(path.c_str(), W_OK | X_OK) != 0)
      return absl::PermissionDeniedError(
          fmt::format("the cache '{}' is not writable", path));
  }
  std::lock_guard<std::mutex> lock(cache().mutex);
  cache().directory = path;
  cache().readonly = readonly;
  return absl::OkStatus();
}

/// The shardings of the entry's arguments or results (replicated where
/// none is written).
static std::vector<TensorSharding>
shardingsOf(mlir::func::FuncOp entry, bool results, llvm::StringRef mesh) {
  std::vector<TensorSharding> shardings;
  unsigned n = results ? entry.getNumResults() : entry.getNumArguments();
  for (unsigned i = 0; i < n; ++i) {
    mlir::DictionaryAttr attrs =
        results ? entry.getResultAttrDict(i) : entry.getArgAttrDict(i);
    mlir::Type type =
        results ? entry.getResultTypes()[i] : entry.getArgumentTypes()[i];
    if (attrs)
      if (auto global = attrs.getAs<mlir::TypeAttr>(
              mlir::spmd::SpmdDialect::kGlobalTypeAttrName))
        type = global.getValue();
    auto sharding = attrs ? attrs.getAs<mlir::spmd::ShardingAttr>(
                                mlir::spmd::SpmdDialect::kShardingAttrName)
                          : nullptr;
    auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
    shardings.push_back(sharding ? sharding.toTensorSharding()
                                 : TensorSharding::replicatedOf(
                                       mesh.str(), tensor ? tensor.getRank()
                                                          : 0));
  }
  return shardings;
}

/// The lines that keep `warnings` in an entry.
static std::string warningLines(llvm::ArrayRef<std::string> warnings) {
  std::string lines;
  for (const std::string &warning : warnings) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(warning).split(parts, '\n');
    for (auto [i, part] : llvm::enumerate(parts))
      lines += ((i ? kWarningMore : kWarningStart) + part + "\n").str();
  }
  return lines;
}

/// The warnings at the start of an entry's body; `body` is left at its
/// module.
static std::vector<std::string> takeWarnings(llvm::StringRef &body) {
  std::vector<std::string> warnings;
  for (;;) {
    auto [line, rest] = body.split('\n');
    if (line.consume_front(kWarningStart))
      warnings.push_back(line.str());
    else if (!warnings.empty() && line.consume_front(kWarningMore))
      warnings.back() += ("\n" + line).str();
    else
      return warnings;
    body = rest;
  }
}

/// Builds the executable of a partitioned module.
static absl::StatusOr<std::shared_ptr<Compiled>>
fromPartitioned(OwnedModule owned, std::string text,
                std::vector<std::string> warnings, const std::string &entry) {
  mlir::OwningOpRef<mlir::ModuleOp> &module = owned.module;
  // Without a mesh the program runs on one device.
  auto meshes = module->getOps<mlir::spmd::MeshOp>();
  std::string meshName =
      meshes.empty() ? "mesh" : (*meshes.begin()).getSymName().str();
  DeviceMesh mesh = meshes.empty()
                        ? llvm::cantFail(DeviceMesh::create({"a0"}, {1}))
                        : (*meshes.begin()).getMesh().toMesh();
  mlir::func::FuncOp function = runtime::findEntry(*module, entry);
  if (!function)
    return absl::InvalidArgumentError("the module has no function @" + entry);
  std::vector<TensorSharding> inputs = shardingsOf(function, false, meshName);
  std::vector<TensorSharding> outputs = shardingsOf(function, true, meshName);
  llvm::Expected<std::unique_ptr<runtime::LoadedProgram>> program =
      driver::compile(std::move(module), entry);
  if (!program)
    return detail::toStatus(program.takeError());
  // The executable may refer to the context: they live and die together.
  auto compiled =
      std::make_shared<Compiled>(std::move(owned.context), std::move(mesh));
  compiled->inputShardings = std::move(inputs);
  compiled->outputShardings = std::move(outputs);
  compiled->partitioned = std::move(text);
  compiled->warnings = std::move(warnings);
  compiled->program = std::move(*program);
  return compiled;
}

static std::string entryPath(const std::string &directory, uint64_t key) {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, fmt::format("{:016x}.mlir", key));
  return std::string(path);
}

/// The program of the entry at `path` for `key`: none if there is no
/// entry, else the program or why the entry is refused. The entry goes
/// through what a program the user gives does (Program::fromString's
/// parser guard and verification) and the API's device limit.
static std::optional<absl::StatusOr<std::shared_ptr<Compiled>>>
readEntry(const std::string &path, uint64_t key, const std::string &entry) {
  struct stat status;
  if (::lstat(path.c_str(), &status) != 0 && errno == ENOENT)
    return std::nullopt;
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path, kMaxEntryBytes, "compile cache entry",
                      /*followSymlinks=*/false);
  if (!buffer)
    return detail::toStatus(buffer.takeError(), absl::StatusCode::kDataLoss);
  auto [header, body] = (*buffer)->getBuffer().split('\n');
  if (header != headerOf(key, body) || body.empty())
    return absl::DataLossError("the entry's header does not match it");
  std::vector<std::string> warnings = takeWarnings(body);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(body, path),
                               llvm::SMLoc());
  OwnedModule owned{detail::newContext(), nullptr};
  absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>> module =
      detail::parseModule(sourceMgr, *owned.context);
  if (!module.ok())
    return module.status();
  owned.module = std::move(*module);
  // The limit of a program's own mesh (fromString's): an entry cannot
  // have this process start more devices than its source could.
  for (auto meshOp : owned.module->getOps<mlir::spmd::MeshOp>())
    if (llvm::Error error =
            runtime::checkLocalDevices(meshOp.getMesh().toMesh().numDevices() /
                                       std::max<int64_t>(1, world_size())))
      return detail::toStatus(std::move(error));
  return fromPartitioned(std::move(owned), body.str(), std::move(warnings),
                         entry);
}

/// Writes the entry at `path` through a file of a name no one can guess,
/// created by this call (O_EXCL, O_NOFOLLOW: never a file or a link that
/// was there before; mode 0644 less the umask), then renamed over the
/// entry, so that readers see the old entry or the new one whole. A cache
/// that cannot be written is only slower.
static void writeEntry(const std::string &path, uint64_t key,
                       const std::string &body) {
  std::string header = headerOf(key, body) + "\n";
  if (header.size() + body.size() > kMaxEntryBytes)
    return;
  std::random_device random;
  std::string temporary;
  int fd = -1;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    temporary = fmt::format("{}.tmp.{:08x}{:08x}", path, random(), random());
    fd = ::open(temporary.c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      return;
  }
  if (fd < 0)
    return;
  llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
  out << header << body;
  out.close();
  bool written = !out.has_error();
  out.clear_error(); // not a fatal error when `out` is destroyed
  if (!written || ::rename(temporary.c_str(), path.c_str()) != 0)
    ::unlink(temporary.c_str());
}

detail::WarningCollector::WarningCollector(mlir::MLIRContext &context,
                                           std::vector<std::string> &warnings)
    : context(context),
      handler(context.getDiagEngine().registerHandler(
          [&warnings](mlir::Diagnostic &d) {
            if (d.getSeverity() != mlir::DiagnosticSeverity::Warning)
              return mlir::failure();
            warnings.push_back(mlir::spmd::describeDiagnostic(d));
            return mlir::success();
          })) {}

detail::WarningCollector::~WarningCollector() {
  context.getDiagEngine().eraseHandler(handler);
}

absl::StatusOr<std::shared_ptr<Compiled>>
detail::cachedCompile(uint64_t key, const std::string &moduleText,
                      const std::string &entry) {
  auto start = std::chrono::steady_clock::now();
  auto finish = [&](const char *outcome) {
    addCounter(outcome);
    addCounter("compile_count");
    addTime("compile", std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count());
  };
  std::string directory;
  bool readonly;
  {
    std::lock_guard<std::mutex> lock(cache().mutex);
    auto it = cache().memory.find(key);
    if (it != cache().memory.end()) {
      cache().order.remove(key);
      cache().order.push_back(key);
      addCounter("cache_hits");
      return it->second;
    }
    directory = cache().directory;
    readonly = cache().readonly;
  }
  auto remember = [&](std::shared_ptr<Compiled> compiled) {
    std::lock_guard<std::mutex> lock(cache().mutex);
    auto [it, inserted] = cache().memory.try_emplace(key, std::move(compiled));
    if (inserted) {
      cache().order.push_back(key);
      if (cache().order.size() > kMemoryEntries) {
        cache().memory.erase(cache().order.front());
        cache().order.pop_front();
      }
    }
    return it->second;
  };

  // On disk, entries of other builds of the compiler are not this one's.
  uint64_t diskKey = llvm::xxh3_64bits(
      fmt::format("{:016x} {:016x}", key, detail::compilerIdentity()));
  std::string path = directory.empty() ? "" : entryPath(directory, diskKey);
  if (!path.empty())
    if (std::optional<absl::StatusOr<std::shared_ptr<Compiled>>> fromDisk =
            readEntry(path, diskKey, entry)) {
      if (fromDisk->ok()) {
        finish("disk_cache_hits");
        return remember(std::move(**fromDisk));
      }
      addCounter("disk_cache_rejected");
    }

  // Each compiled program has a context of its own (see Compiled).
  OwnedModule owned{newContext(), nullptr};
  std::string messages;
  {
    mlir::ScopedDiagnosticHandler handler(
        owned.context.get(), [&](mlir::Diagnostic &d) {
          if (!messages.empty())
            messages += "\n";
          messages += d.str();
          return mlir::success();
        });
    owned.module =
        mlir::parseSourceString<mlir::ModuleOp>(moduleText, owned.context.get());
  }
  if (!owned.module)
    return absl::InternalError("the program does not print and parse back: " +
                               messages);
  // The pipeline's errors are its own to collect; its warnings are kept
  // with the program (Program::warnings).
  std::vector<std::string> warnings;
  {
    WarningCollector collector(*owned.context, warnings);
    if (llvm::Error err =
            driver::runPipeline(*owned.module, driver::PipelineOptions(),
                                driver::Phase::Import,
                                driver::Phase::OptimizeCollectives))
      return toStatus(std::move(err));
  }
  std::string partitioned;
  llvm::raw_string_ostream os(partitioned);
  owned.module->print(os);
  std::string lines = warningLines(warnings);
  absl::StatusOr<std::shared_ptr<Compiled>> compiled =
      fromPartitioned(std::move(owned), partitioned, std::move(warnings), entry);
  if (!compiled.ok())
    return compiled.status();
  if (!path.empty() && !readonly)
    writeEntry(path, diskKey, lines + partitioned);
  finish("cache_misses");
  return remember(std::move(*compiled));
}

//===----------------------------------------------------------------------===//
// Inspection
//===----------------------------------------------------------------------===//

std::string metrics_report() {
  std::lock_guard<std::mutex> lock(metrics().mutex);
  auto counter = [&](const std::string &name) {
    auto it = metrics().counters.find(name);
    return it == metrics().counters.end() ? int64_t(0) : it->second;
  };
  auto seconds = [&](const std::string &name) {
    auto it = metrics().seconds.find(name);
    return it == metrics().seconds.end() ? 0.0 : it->second;
  };
  std::string report = fmt::format(
      "compile: {} ({:.3f} s); cache: {} hits, {} from disk, {} misses, {} "
      "disk entries rejected\nrun: {} ({:.3f} s)\n",
      counter("compile_count"), seconds("compile"), counter("cache_hits"),
      counter("disk_cache_hits"), counter("cache_misses"),
      counter("disk_cache_rejected"), counter("run_count"), seconds("run"));
  std::string bytes;
  for (const auto &[name, value] : metrics().counters)
    if (llvm::StringRef(name).starts_with("bytes_"))
      bytes += fmt::format("{}{}={}", bytes.empty() ? "" : ", ",
                           name.substr(6), value);
  report += "bytes communicated: " + (bytes.empty() ? "none" : bytes) + "\n";
  return report;
}

std::vector<std::string> counter_names() {
  std::lock_guard<std::mutex> lock(metrics().mutex);
  std::vector<std::string> names;
  for (const auto &entry : metrics().counters)
    names.push_back(entry.first);
  return names;
}

int64_t counter_value(const std::string &name) {
  std::lock_guard<std::mutex> lock(metrics().mutex);
  auto it = metrics().counters.find(name);
  return it == metrics().counters.end() ? 0 : it->second;
}

} // namespace spmd
