//===- CommandLine.h - What spmd-opt and spmd-run read alike ----*- C++ -*-===//
//
// The two tools treat their command lines and program files the same way:
// a command-line error is bad input like any other (one `tool: error:`
// line, exit code 2; LLVM's parser prints several lines and exits 1), a
// response file (`@FILE`) and the program file are read only when they are
// regular files of bounded size, never a device or a FIFO.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_TOOLS_COMMANDLINE_H
#define SPMD_TOOLS_COMMANDLINE_H

#include "support/Files.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace spmd::tools {

/// The largest response file (`@FILE` on the command line).
inline constexpr uint64_t kMaxResponseFileBytes = uint64_t(1) << 20;

namespace detail {
/// The real file system, where only regular files of at most
/// kMaxResponseFileBytes open: LLVM's parser reads `@FILE` whole, and
/// `@/dev/zero` ran out of memory, a FIFO blocked.
class ResponseFiles : public llvm::vfs::ProxyFileSystem {
public:
  ResponseFiles() : ProxyFileSystem(llvm::vfs::getRealFileSystem()) {}

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &path) override {
    llvm::ErrorOr<llvm::vfs::Status> status = this->status(path);
    if (!status)
      return status.getError();
    if (status->getType() != llvm::sys::fs::file_type::regular_file)
      return std::make_error_code(std::errc::not_supported);
    if (status->getSize() > kMaxResponseFileBytes)
      return std::make_error_code(std::errc::file_too_large);
    return ProxyFileSystem::openFileForRead(path);
  }
};
} // namespace detail

/// What `body` prints on standard error (llvm::errs() and stdio alike),
/// caught instead of printed.
inline std::string catchStandardError(llvm::function_ref<void()> body) {
  std::FILE *caught = std::tmpfile();
  int saved = caught ? ::dup(STDERR_FILENO) : -1;
  llvm::errs().flush();
  std::fflush(stderr);
  if (saved >= 0)
    ::dup2(::fileno(caught), STDERR_FILENO);
  body();
  llvm::errs().flush();
  std::fflush(stderr);
  std::string printed;
  if (saved >= 0) {
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    std::rewind(caught);
    char chunk[4096];
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, caught)) > 0;)
      printed.append(chunk, n);
  }
  if (caught)
    std::fclose(caught);
  return printed;
}

/// Ends the process as a command-line error of `tool`: what was printed
/// about it (LLVM's and MLIR's lines, each perhaps starting with
/// `program: `) as one line `tool: error: ...`, exit code 2.
[[noreturn]] inline void commandLineError(llvm::StringRef tool,
                                          llvm::StringRef program,
                                          llvm::StringRef printed) {
  llvm::SmallVector<llvm::StringRef> lines;
  printed.split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::string message;
  for (llvm::StringRef line : lines) {
    line = line.trim();
    line.consume_front((program + ": ").str());
    // MLIR's diagnostics without a place: the message alone.
    line.consume_front("<unknown>:0: ");
    if (line == "error:")
      continue;
    line.consume_front("error: ");
    for (llvm::StringRef word : llvm::split(line.trim(), ' ')) {
      if (word.empty())
        continue;
      if (!message.empty())
        message += ' ';
      message += word;
    }
  }
  if (message.empty())
    message = "invalid command line";
  llvm::errs() << (tool + ": error: " + message + "\n").str();
  std::exit(2);
}

/// Parses the command line of `tool`. An error (an unknown option, a value
/// an option does not take, a response file that cannot be read) is one
/// line `tool: error: ...` on stderr and exit code 2.
inline void parseCommandLine(int argc, const char *const *argv,
                             llvm::StringRef overview, llvm::StringRef tool) {
  // The response files named on the command line, with the reason and the
  // limit in words (LLVM says only "cannot not open file ...: File too
  // large"); those they name in turn are held to the same by
  // detail::ResponseFiles.
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (!arg.consume_front("@"))
      continue;
    struct stat status;
    std::string why;
    if (::stat(arg.str().c_str(), &status) != 0)
      why = std::strerror(errno);
    else if (!S_ISREG(status.st_mode))
      why = "not a regular file";
    else if (uint64_t(status.st_size) > kMaxResponseFileBytes)
      why = "larger than 1 MiB, the most a response file may hold";
    if (!why.empty())
      commandLineError(tool, llvm::sys::path::filename(argv[0]),
                       ("response file '" + arg + "': " + why).str());
  }
  std::string errors;
  llvm::raw_string_ostream os(errors);
  llvm::IntrusiveRefCntPtr<detail::ResponseFiles> files(
      new detail::ResponseFiles());
  // Options report a bad value on llvm::errs() itself, not on the stream
  // given: it is caught too (--help and --version print to standard
  // output).
  bool parsed = false;
  std::string printed = catchStandardError([&] {
    parsed = llvm::cl::ParseCommandLineOptions(argc, argv, overview, &os,
                                               files.get());
  });
  if (parsed) {
    // Warnings of options that were accepted are passed on.
    llvm::errs() << printed << errors;
    return;
  }
  commandLineError(tool, llvm::sys::path::filename(argv[0]), printed + errors);
}

/// Whether the plugin library `path` may be loaded: dlopen waits for a
/// writer on a FIFO, so anything but a regular file (or a missing one, which
/// the loader reports) is refused.
inline llvm::Error checkPluginFile(llvm::StringRef path) {
  struct stat status;
  if (::stat(path.str().c_str(), &status) != 0 || S_ISREG(status.st_mode))
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot load the plugin '" + path +
                                     "': it is not a regular file");
}

/// Checks the values of the plugin options (`--load-dialect-plugin`,
/// `--load-pass-plugin`) in `argv` before the command line is parsed, for
/// tools whose parser loads them as it reads them: regular files
/// (checkPluginFile) that load. MLIR's parser says that it ignores a
/// library it cannot load and goes on, and the program then fails on an
/// op of a dialect not found, far from the cause.
inline void checkPluginArguments(int argc, const char *const *argv,
                                 llvm::StringRef tool) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (!arg.consume_front("-"))
      continue;
    arg.consume_front("-");
    for (llvm::StringRef name : {"load-dialect-plugin", "load-pass-plugin"}) {
      llvm::StringRef rest = arg;
      if (!rest.consume_front(name))
        continue;
      llvm::StringRef path;
      if (rest.consume_front("="))
        path = rest;
      else if (rest.empty() && i + 1 < argc)
        path = argv[i + 1];
      else
        continue;
      std::string why;
      if (llvm::Error error = checkPluginFile(path))
        why = llvm::toString(std::move(error));
      else if (!llvm::sys::DynamicLibrary::getPermanentLibrary(
                    path.str().c_str(), &why)
                    .isValid())
        why = "cannot load the plugin '" + path.str() + "': " + why;
      else
        continue;
      llvm::errs() << (tool + ": error: " + why + "\n").str();
      std::exit(2);
    }
  }
}

/// The program file `path` (`-`: standard input), a regular file of at
/// most kMaxProgramBytes. Errors name the file.
inline llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readProgramFile(llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "'" + path + "': " + why);
  };
  if (path != "-") {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        readRegularFile(path, kMaxProgramBytes, "program");
    if (!buffer)
      return fail(llvm::toString(buffer.takeError()));
    return buffer;
  }
  // A pipe or a terminal is what standard input usually is: read as it
  // comes, up to the limit.
  std::string text;
  char chunk[1 << 16];
  while (true) {
    ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail("cannot read the program: " +
                  std::error_code(errno, std::generic_category()).message());
    if (n == 0)
      break;
    if (text.size() + n > kMaxProgramBytes)
      return fail(llvm::formatv("cannot read the program: it has more than "
                                "the limit of {0} bytes",
                                kMaxProgramBytes));
    text.append(chunk, n);
  }
  return llvm::MemoryBuffer::getMemBufferCopy(text, "<stdin>");
}

} // namespace spmd::tools

#endif // SPMD_TOOLS_COMMANDLINE_H
