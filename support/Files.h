//===- Files.h - Reading and writing the files users name -------*- C++ -*-===//
//
// Every file the tools, passes and API read or write goes through these, so
// that a FIFO, a device or a directory named (or linked) where a file is
// expected is refused before it is read or blocks, a size limit holds
// whatever the file's kind, and a write that fails (a full disk, /dev/full,
// a read-only file) is one error naming the file, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SUPPORT_FILES_H
#define SPMD_SUPPORT_FILES_H

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace spmd {

/// An error about the file at `path`: "path: why".
inline llvm::Error fileError(llvm::StringRef path, const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + why);
}

/// The largest program file (or standard input) the tools and the API
/// read: parsed, a program takes several times its text's size in memory.
inline constexpr uint64_t kMaxProgramBytes = uint64_t(1) << 30;

/// The contents of the regular file at `path` of at most `maxBytes` bytes.
/// A symbolic link is followed unless `followSymlinks` is false (then it is
/// refused). A FIFO, a device, a socket or a directory is refused without
/// reading it or waiting for a writer. Errors read "cannot read the `what`:
/// reason" (callers name the file as their messages do).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(llvm::StringRef path, uint64_t maxBytes, llvm::StringRef what,
                bool followSymlinks = true);

/// Writes `path` (created or truncated) with what `write` puts in the
/// stream, and checks that all of it reached the file, closing included.
/// Errors read "cannot write the `what` to 'path': reason".
llvm::Error writeFile(llvm::StringRef path, llvm::StringRef what,
                      llvm::function_ref<void(llvm::raw_ostream &)> write);

/// A regular file open for reading at any offset (pread), checked as
/// readRegularFile checks: reads what is asked for and no more, so that a
/// loader reads only the byte ranges it needs and counts them.
class RandomAccessFile {
public:
  /// Errors read "cannot read the `what`: reason".
  static llvm::Expected<RandomAccessFile> open(llvm::StringRef path,
                                               llvm::StringRef what);
  RandomAccessFile(RandomAccessFile &&o) noexcept
      : path_(std::move(o.path_)), fd(o.fd), size_(o.size_) {
    o.fd = -1;
  }
  RandomAccessFile &operator=(RandomAccessFile &&o) noexcept;
  ~RandomAccessFile();

  const std::string &path() const { return path_; }
  /// The size when opened.
  uint64_t size() const { return size_; }
  /// `bytes` bytes at `offset` into `into`: an error naming the file if
  /// they are not all there.
  llvm::Error readAt(uint64_t offset, uint64_t bytes, void *into) const;

private:
  RandomAccessFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd(fd), size_(size) {}
  std::string path_;
  int fd = -1;
  uint64_t size_ = 0;
};

/// Writes `path` so that it is either its old contents or all of the new:
/// a temporary file in the same folder (`path` + ".tmp"), synced to the
/// disk, renamed over `path`, the folder synced. A process killed on the
/// way leaves `path` as it was (and the temporary file behind).
llvm::Error
writeFileDurably(llvm::StringRef path, llvm::StringRef what,
                 llvm::function_ref<void(llvm::raw_ostream &)> write);
/// The same, `write` given the open file (for positioned writes from
/// several threads); it returns the first error.
llvm::Error writeFileDurably(llvm::StringRef path, llvm::StringRef what,
                             llvm::function_ref<std::error_code(int fd)> write);
/// Writes `bytes` bytes at `offset` of the open file `fd` (pwrite, resumed
/// until all are written).
llvm::Error writeAt(int fd, const void *data, uint64_t bytes, uint64_t offset);

/// Syncs folder `dir`, so that the renames and removals in it last.
llvm::Error syncDirectory(llvm::StringRef dir);

/// An exclusive advisory lock (flock) on a folder, held until destroyed or
/// the process ends, whichever comes first; it leaves no file behind.
class FolderLock {
public:
  /// The lock on `dir`; none when another open of the folder (in this
  /// process or another on the machine) holds it. Errors name the folder.
  static llvm::Expected<std::optional<FolderLock>>
  tryAcquire(llvm::StringRef dir);
  FolderLock(FolderLock &&o) noexcept : fd(o.fd) { o.fd = -1; }
  FolderLock &operator=(FolderLock &&o) noexcept;
  ~FolderLock();

private:
  explicit FolderLock(int fd) : fd(fd) {}
  int fd = -1;
};

} // namespace spmd

#endif // SPMD_SUPPORT_FILES_H
