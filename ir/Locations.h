//===- Locations.h - Locations as compilers print them ----------*- C++ -*-===//
//
// Errors that leave MLIR's diagnostic engine as text (llvm::Error of the
// runtime, pipeline errors collected by the tools) name their place as
// mlir-opt does: `file:line:col: error: ...`, not as `loc("file":l:c)`;
// without a place, `error: ...`.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_LOCATIONS_H
#define SPMD_IR_LOCATIONS_H

#include "ir/Namespaces.h"
#include "mlir/IR/Location.h"

namespace mlir {
class Diagnostic;
enum class DiagnosticSeverity;
} // namespace mlir

#include <string>

namespace mlir::spmd {

/// `file:line:col` of `loc` (through names, call sites and fusions, to the
/// first file location); empty for a location without one.
std::string fileLineCol(Location loc);
/// What starts an error about `loc`: `file:line:col: `, or nothing.
std::string fileLineColPrefix(Location loc);
/// `loc` in a name ("'op' at ..."): `file:line:col`, or "an unknown place".
std::string placeOf(Location loc);
/// "error", "warning", "note" or "remark".
const char *severityName(DiagnosticSeverity severity);
/// `d` as the tools print it, `file:line:col: warning: ...`, each of its
/// notes on a line of its own after it.
std::string describeDiagnostic(const Diagnostic &d);

} // namespace mlir::spmd

#endif // SPMD_IR_LOCATIONS_H
