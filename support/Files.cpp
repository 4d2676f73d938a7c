//===- Files.cpp - Reading and writing the files users name ---------------===//

#include "support/Files.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

#include <cerrno>
#include <fcntl.h>
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

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(llvm::StringRef path, uint64_t maxBytes, llvm::StringRef what,
                bool followSymlinks) {
  auto fail = [&](const llvm::Twine &reason) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot read the {0}: ", what) + reason);
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  if (!followSymlinks)
    flags |= O_NOFOLLOW;
  int fd = ::open(path.str().c_str(), flags);
  if (fd < 0) {
    if (errno == ELOOP && !followSymlinks)
      return fail("it is a symbolic link");
    return fail(std::error_code(errno, std::generic_category()).message());
  }
  llvm::scope_exit closing([fd] { ::close(fd); });
  struct stat status;
  if (::fstat(fd, &status) != 0)
    return fail(std::error_code(errno, std::generic_category()).message());
  if (!S_ISREG(status.st_mode))
    return fail(llvm::formatv("it is {0}", kindOf(status.st_mode)).str());
  uint64_t size = status.st_size;
  if (size > maxBytes)
    return fail(llvm::formatv("it has {0} bytes, more than the limit of {1}",
                              size, maxBytes)
                    .str());
  if (::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    return fail(std::error_code(errno, std::generic_category()).message());
  // Exactly the size seen: a file that grows meanwhile is read no further.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getOpenFile(fd, path, size);
  if (!buffer)
    return fail(buffer.getError().message());
  return std::move(*buffer);
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
