//===- DebugOptions.h - --debug and --debug-only for the tools --*- C++ -*-===//
//
// LLVM registers -debug and -debug-only only when it is itself built with
// assertions, which Debian's LLVM is not. The project's libraries trace
// their decisions with LLVM_DEBUG when they are built with assertions
// (SPMD_ENABLE_ASSERTIONS), so the tools provide the two flags themselves;
// in other builds the flags say what is missing instead of being unknown.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_TOOLS_DEBUGOPTIONS_H
#define SPMD_TOOLS_DEBUGOPTIONS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace spmd::tools {

namespace detail {
/// Where -debug-only stores its value: turns tracing on for those types.
struct DebugTypes {
  void operator=(const std::string &value) const {
#ifdef NDEBUG
    llvm::errs() << "note: --debug-only traces nothing in this build; "
                    "configure with -DSPMD_ENABLE_ASSERTIONS=ON\n";
    (void)value;
#else
    static std::vector<std::string> names;
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(value).split(parts, ',', -1, false);
    names.assign(parts.begin(), parts.end());
    std::vector<const char *> types;
    for (const std::string &name : names)
      types.push_back(name.c_str());
    llvm::setCurrentDebugTypes(types.data(), types.size());
    llvm::DebugFlag = true;
#endif
  }
};
} // namespace detail

/// Registers --debug and --debug-only unless LLVM already did, in
/// `category` if given (a tool that lists only its own categories in
/// --help). Call before parsing the command line.
inline void registerDebugOptions(llvm::cl::OptionCategory *category = nullptr) {
  if (llvm::cl::Option *known =
          llvm::cl::getRegisteredOptions().lookup("debug-only")) {
    if (category)
      known->addCategory(*category);
    return;
  }
  static detail::DebugTypes location;
  static llvm::cl::opt<detail::DebugTypes, true, llvm::cl::parser<std::string>>
      debugOnly("debug-only",
                llvm::cl::desc("Trace the decisions of these passes "
                               "(comma separated: spmd-propagate, "
                               "spmd-partition)"),
                llvm::cl::value_desc("types"), llvm::cl::location(location),
                llvm::cl::ValueRequired);
  static llvm::cl::opt<bool, true> debug(
      "debug", llvm::cl::desc("Trace everything that can be traced"),
      llvm::cl::Hidden, llvm::cl::location(llvm::DebugFlag));
  if (category) {
    debugOnly.addCategory(*category);
    debug.addCategory(*category);
  }
}

} // namespace spmd::tools

#endif // SPMD_TOOLS_DEBUGOPTIONS_H
