//===- UpstreamParserGuard.h - Inputs MLIR's parsers crash on ---*- C++ -*-===//
//
// MLIR 22's parsers of linalg.reduce, linalg.broadcast and linalg.transpose
// dereference a null attribute when their `dimensions` / `permutation`
// list is malformed, that of linalg.generic reads every `iterator_types`
// entry as a string unchecked, and the parser of tensor.from_elements
// allocates one type per element of its result type
// (`tensor<99999999999xf32>` aborts; `mlir-opt` crashes the same way). The tools scan for such statements
// before parsing and report them as errors instead.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PASSES_UPSTREAMPARSERGUARD_H
#define SPMD_PASSES_UPSTREAMPARSERGUARD_H

#include "ir/Namespaces.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::spmd {

/// `file:line:col: error: ...` for the first malformed list in `text` (read
/// from `bufferName`), or nothing.
std::optional<std::string> findUpstreamParserHazard(llvm::StringRef text,
                                                    llvm::StringRef bufferName);

} // namespace mlir::spmd

#endif // SPMD_PASSES_UPSTREAMPARSERGUARD_H
