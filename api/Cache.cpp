//===- Cache.cpp - Compiled programs in memory and on disk ----------------===//
//
// A program is compiled once per distinct text (its shardings included):
// the key is a hash of that text. On disk an entry is the partitioned
// module, behind a header holding the key and a hash of the module; an
// entry whose header does not match, or which does not parse, is compiled
// again (and rewritten unless the cache is read-only), never trusted.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "ir/SpmdDialect.h"
#include "ir/SpmdOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include "fmt/format.h"

#include <chrono>
#include <fstream>
#include <list>
#include <map>

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

constexpr llvm::StringLiteral kHeader = "// spmd compiled program v1 ";
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
  if (!readonly)
    if (std::error_code ec = llvm::sys::fs::create_directories(path))
      return absl::InvalidArgumentError(
          fmt::format("cannot create the cache '{}': {}", path, ec.message()));
  if (!llvm::sys::fs::is_directory(path))
    return absl::NotFoundError(fmt::format(
        "the cache '{}' does not exist or is not a directory", path));
  if (!readonly && llvm::sys::fs::access(path, llvm::sys::fs::AccessMode::Write))
    return absl::PermissionDeniedError(
        fmt::format("the cache '{}' is not writable", path));
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

/// Builds the executable of a partitioned module.
static absl::StatusOr<std::shared_ptr<Compiled>>
fromPartitioned(std::unique_ptr<mlir::MLIRContext> context,
                mlir::OwningOpRef<mlir::ModuleOp> module, std::string text,
                const std::string &entry) {
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
  llvm::Expected<std::unique_ptr<runtime::Program>> program =
      runtime::Program::compile(std::move(module), entry);
  if (!program)
    return detail::toStatus(program.takeError());
  // The executable may refer to the context: they live and die together.
  auto compiled = std::make_shared<Compiled>(std::move(context), std::move(mesh));
  compiled->inputShardings = std::move(inputs);
  compiled->outputShardings = std::move(outputs);
  compiled->partitioned = std::move(text);
  compiled->program = std::move(*program);
  return compiled;
}

static std::string entryPath(uint64_t key) {
  llvm::SmallString<256> path(cache().directory);
  llvm::sys::path::append(path, fmt::format("{:016x}.mlir", key));
  return std::string(path);
}

/// The on-disk entry for `key`: none, or its body if it verifies, or an
/// empty body if it does not.
static std::optional<std::string> readEntry(uint64_t key) {
  auto buffer = llvm::MemoryBuffer::getFile(entryPath(key));
  if (!buffer)
    return std::nullopt;
  llvm::StringRef text = (*buffer)->getBuffer();
  auto [header, body] = text.split('\n');
  std::string expected = fmt::format("{}{:016x} {:016x}", kHeader.str(), key,
                                     llvm::xxh3_64bits(body));
  if (header != expected || body.empty())
    return std::string();
  return body.str();
}

static void writeEntry(uint64_t key, const std::string &body) {
  std::string path = entryPath(key);
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << fmt::format("{}{:016x} {:016x}\n", kHeader.str(), key,
                       llvm::xxh3_64bits(body))
        << body;
    if (!out)
      return; // a cache that cannot be written is only slower
  }
  llvm::sys::fs::rename(temporary, path);
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

  // Each compiled program has a context of its own (see Compiled).
  std::unique_ptr<mlir::MLIRContext> context = newContext();
  std::string messages;
  auto collect = [&](mlir::Diagnostic &d) {
    if (!messages.empty())
      messages += "\n";
    messages += d.str();
    return mlir::success();
  };
  std::optional<mlir::ScopedDiagnosticHandler> handler;
  handler.emplace(context.get(), collect);
  if (!directory.empty())
    if (std::optional<std::string> body = readEntry(key)) {
      mlir::OwningOpRef<mlir::ModuleOp> module;
      if (!body->empty())
        module = mlir::parseSourceString<mlir::ModuleOp>(*body, context.get());
      if (module) {
        handler.reset();
        absl::StatusOr<std::shared_ptr<Compiled>> compiled =
            fromPartitioned(std::move(context), std::move(module), *body, entry);
        if (compiled.ok()) {
          finish("disk_cache_hits");
          return remember(std::move(*compiled));
        }
        context = newContext();
      }
      addCounter("disk_cache_rejected");
      messages.clear();
      handler.emplace(context.get(), collect);
    }

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(moduleText, context.get());
  if (!module)
    return absl::InternalError("the program does not print and parse back: " +
                               messages);
  handler.reset();
  if (llvm::Error err = runtime::partitionModule(*module))
    return toStatus(std::move(err));
  std::string partitioned;
  llvm::raw_string_ostream os(partitioned);
  module->print(os);
  absl::StatusOr<std::shared_ptr<Compiled>> compiled =
      fromPartitioned(std::move(context), std::move(module), partitioned, entry);
  if (!compiled.ok())
    return compiled.status();
  if (!directory.empty() && !readonly)
    writeEntry(key, partitioned);
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
