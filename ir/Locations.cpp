//===- Locations.cpp - Locations as compilers print them ------------------===//

#include "ir/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

std::string mlir::spmd::fileLineCol(Location loc) {
  if (auto file = llvm::dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  if (auto named = llvm::dyn_cast<NameLoc>(loc))
    return fileLineCol(named.getChildLoc());
  if (auto callSite = llvm::dyn_cast<CallSiteLoc>(loc))
    return fileLineCol(callSite.getCallee());
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (std::string place = fileLineCol(part); !place.empty())
        return place;
  return "";
}

std::string mlir::spmd::fileLineColPrefix(Location loc) {
  std::string place = fileLineCol(loc);
  return place.empty() ? place : place + ": ";
}

std::string mlir::spmd::placeOf(Location loc) {
  std::string place = fileLineCol(loc);
  return place.empty() ? "an unknown place" : place;
}

const char *mlir::spmd::severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return "error";
  case mlir::DiagnosticSeverity::Warning:
    return "warning";
  case mlir::DiagnosticSeverity::Note:
    return "note";
  case mlir::DiagnosticSeverity::Remark:
    return "remark";
  }
  llvm_unreachable("a severity MLIR does not have");
}

std::string mlir::spmd::describeDiagnostic(const Diagnostic &d) {
  std::string text = fileLineColPrefix(d.getLocation()) +
                     severityName(d.getSeverity()) + ": " + d.str();
  for (const Diagnostic &note : d.getNotes())
    text += "\n" + fileLineColPrefix(note.getLocation()) +
            severityName(note.getSeverity()) + ": " + note.str();
  return text;
}
