//===- Json.h - JSON from the files users name ------------------*- C++ -*-===//
//
// LLVM's JSON parser recurses once per level of nesting, so a file of a
// hundred thousand brackets overflows the stack. Every JSON a user names
// (a safetensors header, a checkpoint index, a mesh configuration) is
// parsed here, its nesting checked first.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SUPPORT_JSON_H
#define SPMD_SUPPORT_JSON_H

#include "llvm/Support/JSON.h"

namespace spmd {

/// The JSON value of `text`, or an error reading "it nests more than
/// `maxDepth` levels deep" or "it is not JSON: " and the parser's message.
llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                            unsigned maxDepth);

/// `value` as a non-negative integer as the format's writers emit it: `4`,
/// never `4.0` or `4e0` (which LLVM's getAsInteger accepts, and other
/// readers of the format refuse).
inline std::optional<uint64_t> jsonCount(const llvm::json::Value &value) {
  return value.getAsUINT64();
}

} // namespace spmd

#endif // SPMD_SUPPORT_JSON_H
