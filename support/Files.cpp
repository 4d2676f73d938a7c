//===- Files.cpp - Reading and writing the files users name ---------------===//

#include "support/Files.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace spmd {

/// What a file of mode `mode` is, for an error.
static const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/// The error of the last system call, as text.
static std::string lastError() {
  return std::error_code(errno, std::generic_category()).message();
}

/// `path` opened for reading, a regular file (nothing else is opened far
/// enough to block); its size in `size`.
static llvm::Expected<int>
openRegular(llvm::StringRef path, bool followSymlinks, uint64_t &size,
            llvm::function_ref<llvm::Error(const llvm::Twine &)> fail) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  if (!followSymlinks)
    flags |= O_NOFOLLOW;
  int fd = ::open(path.str().c_str(), flags);
  if (fd < 0) {
    if (errno == ELOOP && !followSymlinks)
      return fail("it is a symbolic link");
    return fail(lastError());
  }
  struct stat status;
  const char *refusal = nullptr;
  std::string why;
  if (::fstat(fd, &status) != 0)
    why = lastError();
  else if (!S_ISREG(status.st_mode))
    refusal = kindOf(status.st_mode);
  else if (::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    why = lastError();
  if (refusal || !why.empty()) {
    ::close(fd);
    return fail(refusal ? llvm::formatv("it is {0}", refusal).str() : why);
  }
  size = status.st_size;
  return fd;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(llvm::StringRef path, uint64_t maxBytes, llvm::StringRef what,
                bool followSymlinks) {
  auto fail = [&](const llvm::Twine &reason) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot read the {0}: ", what) + reason);
  };
  uint64_t size = 0;
  llvm::Expected<int> opened = openRegular(path, followSymlinks, size, fail);
  if (!opened)
    return opened.takeError();
  int fd = *opened;
  llvm::scope_exit closing([fd] { ::close(fd); });
  if (size > maxBytes)
    return fail(llvm::formatv("it has {0} bytes, more than the limit of {1}",
                              size, maxBytes)
                    .str());
  // Exactly the size seen: a file that grows meanwhile is read no further.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getOpenFile(fd, path, size);
  if (!buffer)
    return fail(buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<RandomAccessFile> RandomAccessFile::open(llvm::StringRef path,
                                                        llvm::StringRef what) {
  auto fail = [&](const llvm::Twine &reason) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot read the {0}: ", what) + reason);
  };
  uint64_t size = 0;
  llvm::Expected<int> fd =
      openRegular(path, /*followSymlinks=*/true, size, fail);
  if (!fd)
    return fd.takeError();
  return RandomAccessFile(path.str(), *fd, size);
}

RandomAccessFile &RandomAccessFile::operator=(RandomAccessFile &&o) noexcept {
  std::swap(path_, o.path_);
  std::swap(fd, o.fd);
  std::swap(size_, o.size_);
  return *this;
}

RandomAccessFile::~RandomAccessFile() {
  if (fd >= 0)
    ::close(fd);
}

llvm::Error RandomAccessFile::readAt(uint64_t offset, uint64_t bytes,
                                     void *into) const {
  auto *out = static_cast<uint8_t *>(into);
  while (bytes > 0) {
    ssize_t got = ::pread(fd, out, std::min<uint64_t>(bytes, 1 << 30), offset);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("'{0}': {1}", path_, lastError()));
    if (got == 0) {
      // Cut short since it was opened: where it ends now.
      struct stat status;
      std::string end = ::fstat(fd, &status) == 0
                            ? "at byte " + std::to_string(status.st_size)
                            : "early";
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("'{0}': the file ends {1}, before byte {2} (it is "
                        "truncated)",
                        path_, end, offset + bytes));
    }
    out += got;
    offset += got;
    bytes -= got;
  }
  return llvm::Error::success();
}

llvm::Error syncDirectory(llvm::StringRef dir) {
  int fd = ::open(dir.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    std::string why = lastError();
    if (fd >= 0)
      ::close(fd);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot sync the folder '{0}': {1}", dir, why));
  }
  ::close(fd);
  return llvm::Error::success();
}

llvm::Expected<std::optional<FolderLock>>
FolderLock::tryAcquire(llvm::StringRef dir) {
  int fd = ::open(dir.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot open the folder '{0}': {1}", dir, lastError()));
  int result;
  do
    result = ::flock(fd, LOCK_EX | LOCK_NB);
  while (result != 0 && errno == EINTR);
  if (result == 0)
    return FolderLock(fd);
  bool held = errno == EWOULDBLOCK;
  std::string why = lastError();
  ::close(fd);
  if (held)
    return std::nullopt;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("cannot lock the folder '{0}': {1}", dir, why));
}

FolderLock &FolderLock::operator=(FolderLock &&o) noexcept {
  std::swap(fd, o.fd);
  return *this;
}

FolderLock::~FolderLock() {
  // Closing the folder's last descriptor releases the lock.
  if (fd >= 0)
    ::close(fd);
}

llvm::Error
writeFileDurably(llvm::StringRef path, llvm::StringRef what,
                 llvm::function_ref<std::error_code(int fd)> write) {
  auto fail = [&](const llvm::Twine &reason) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot write the {0} to '{1}': ", what, path) + reason);
  };
  std::string temporary = (path + ".tmp").str();
  int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return fail(lastError());
  std::error_code ec = write(fd);
  if (!ec && ::fsync(fd) != 0)
    ec = std::error_code(errno, std::generic_category());
  if (::close(fd) != 0 && !ec)
    ec = std::error_code(errno, std::generic_category());
  if (!ec && ::rename(temporary.c_str(), path.str().c_str()) != 0)
    ec = std::error_code(errno, std::generic_category());
  if (ec)
    return fail(ec.message());
  llvm::SmallString<128> dir(path);
  llvm::sys::path::remove_filename(dir);
  return syncDirectory(dir.empty() ? "." : dir.str());
}

llvm::Error
writeFileDurably(llvm::StringRef path, llvm::StringRef what,
                 llvm::function_ref<void(llvm::raw_ostream &)> write) {
  return writeFileDurably(path, what, [&](int fd) {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
    write(os);
    os.flush();
    std::error_code ec = os.error();
    os.clear_error();
    return ec;
  });
}

llvm::Error writeAt(int fd, const void *data, uint64_t bytes, uint64_t offset) {
  const auto *from = static_cast<const uint8_t *>(data);
  // In pieces, each sent to the disk once written (not waited for), so
  // that the disk works while the next is copied and the final sync waits
  // for little.
  constexpr uint64_t kPiece = uint64_t(16) << 20;
  while (bytes > 0) {
    ssize_t wrote = ::pwrite(fd, from, std::min(bytes, kPiece), offset);
    if (wrote > 0)
      ::sync_file_range(fd, offset, wrote, SYNC_FILE_RANGE_WRITE);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0)
      return llvm::createStringError(
          wrote < 0 ? std::error_code(errno, std::generic_category())
                    : std::make_error_code(std::errc::no_space_on_device),
          "a write failed");
    from += wrote;
    offset += wrote;
    bytes -= wrote;
  }
  return llvm::Error::success();
}

llvm::Error writeFile(llvm::StringRef path, llvm::StringRef what,
                      llvm::function_ref<void(llvm::raw_ostream &)> write) {
  auto fail = [&](std::error_code ec) {
    return llvm::createStringError(
        ec, llvm::formatv("cannot write the {0} to '{1}': {2}", what, path,
                          ec.message()));
  };
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return fail(ec);
  write(os);
  os.close();
  if (os.has_error()) {
    ec = os.error();
    // Reported here, not as a fatal error when the stream is destroyed.
    os.clear_error();
    return fail(ec);
  }
  return llvm::Error::success();
}

} // namespace spmd
