//===- CompilerIdentity.cpp - Which build compiled an on-disk entry -------===//
//
// An on-disk cache entry is a program some build of the compiler
// partitioned. After an upgrade (one that fixes a partitioning, say) the
// entries of the old build must not be read as this one's: the cache key
// holds the identity of the code that compiles, taken from the loaded
// objects themselves rather than from a version string that a rebuild
// need not change. That code is spmd's libraries (every loaded object in
// the folder of the one holding the pipeline: one object in a static
// build), MLIR's and LLVM's.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "driver/Compile.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string>
#include <vector>

namespace spmd {
namespace {

/// The lowest address of a loaded object's segments: what dladdr gives as
/// the base of the object holding an address.
uintptr_t loadedBase(const dl_phdr_info &info) {
  uintptr_t base = UINTPTR_MAX;
  for (int i = 0; i < info.dlpi_phnum; ++i)
    if (info.dlpi_phdr[i].p_type == PT_LOAD)
      base =
          std::min<uintptr_t>(base, info.dlpi_addr + info.dlpi_phdr[i].p_vaddr);
  return base;
}

/// The GNU build id of a loaded object (the linker derives it from the
/// object's contents), empty if it has none.
std::string gnuBuildId(const dl_phdr_info &info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr) &segment = info.dlpi_phdr[i];
    if (segment.p_type != PT_NOTE)
      continue;
    size_t align = segment.p_align == 8 ? 8 : 4;
    const char *p =
        reinterpret_cast<const char *>(info.dlpi_addr + segment.p_vaddr);
    const char *end = p + segment.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p, sizeof note);
      const char *name = p + sizeof note;
      const char *desc = name + llvm::alignTo(note.n_namesz, align);
      if (desc + note.n_descsz > end)
        break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0)
        return std::string(desc, note.n_descsz);
      p = desc + llvm::alignTo(note.n_descsz, align);
    }
  }
  return {};
}

/// Where the object holding `address` was loaded from, and its base.
std::pair<std::string, uintptr_t> loadedObjectOf(const void *address) {
  Dl_info info;
  if (!dladdr(address, &info) || !info.dli_fname)
    return {"", 0};
  return {info.dli_fname, reinterpret_cast<uintptr_t>(info.dli_fbase)};
}

struct CompilerObjects {
  std::string folder; // of the object holding the pipeline
  std::vector<uintptr_t> bases;
  std::vector<std::string> identities;
};

int addIfCompiler(dl_phdr_info *info, size_t, void *data) {
  auto &selection = *static_cast<CompilerObjects *>(data);
  uintptr_t base = loadedBase(*info);
  std::string path =
      info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
  bool chosen = std::find(selection.bases.begin(), selection.bases.end(),
                          base) != selection.bases.end() ||
                (*info->dlpi_name &&
                 llvm::sys::path::parent_path(path) == selection.folder);
  if (!chosen)
    return 0;
  std::string id = gnuBuildId(*info);
  if (id.empty()) {
    // No build id (a linker told not to write one): the file's bytes.
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    id = file ? llvm::utohexstr(llvm::xxh3_64bits((*file)->getBuffer()))
              : "unreadable " + path;
  }
  selection.identities.push_back(std::move(id));
  return 0;
}
} // namespace

uint64_t detail::compilerIdentity() {
  static const uint64_t identity = [] {
    CompilerObjects selection;
    auto [pipeline, pipelineBase] =
        loadedObjectOf(reinterpret_cast<const void *>(&driver::runPipeline));
    selection.folder = llvm::sys::path::parent_path(pipeline).str();
    selection.bases = {
        pipelineBase,
        loadedObjectOf(
            reinterpret_cast<const void *>(&detail::compilerIdentity))
            .second,
        loadedObjectOf(
            reinterpret_cast<const void *>(
                static_cast<mlir::LogicalResult (*)(mlir::Operation *, bool)>(
                    &mlir::verify)))
            .second,
        loadedObjectOf(reinterpret_cast<const void *>(
                           static_cast<uint64_t (*)(llvm::ArrayRef<uint8_t>)>(
                               &llvm::xxh3_64bits)))
            .second};
    dl_iterate_phdr(addIfCompiler, &selection);
    // Load order is not part of what compiles.
    std::sort(selection.identities.begin(), selection.identities.end());
    std::string all;
    for (const std::string &id : selection.identities)
      all += std::to_string(id.size()) + ":" + id;
    return llvm::xxh3_64bits(all);
  }();
  return identity;
}

} // namespace spmd
