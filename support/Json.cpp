//===- Json.cpp - JSON from the files users name --------------------------===//

#include "support/Json.h"

#include "llvm/Support/FormatVariadic.h"

namespace spmd {

/// The deepest nesting of arrays and objects in `json`, counted without
/// recursion.
static unsigned nestingDepth(llvm::StringRef json) {
  unsigned depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                            unsigned maxDepth) {
  if (nestingDepth(text) > maxDepth)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("it nests more than {0} levels deep", maxDepth));
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "it is not JSON: " +
                                       llvm::toString(json.takeError()));
  return json;
}

} // namespace spmd
