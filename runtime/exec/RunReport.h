//===- RunReport.h - What a run reports: checks, MPI traffic ----*- C++ -*-===//
//
// The parts of a run's report that spmd-run prints and writes and the C++
// API can give: a check's verdict as text and JSON, and every process's
// bytes through MPI gathered on rank 0.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_RUNREPORT_H
#define SPMD_RUNTIME_RUNREPORT_H

#include "runtime/exec/Check.h"
#include "runtime/exec/LoadedProgram.h"

#include "llvm/Support/JSON.h"

namespace spmd::runtime {

/// The lines a check's verdict prints: PASS or FAIL with its errors, then
/// the elements it could not check and why.
std::string checkSummary(const CheckResult &result);

/// A check's verdict as the report's "check" object.
llvm::json::Object checkJson(const CheckResult &result);

/// Every process's bytes through MPI per collective, on rank 0: for each
/// collective its kind, calls, the bytes of all processes and of each.
/// Every process of `world` calls it; without one it is empty.
llvm::Expected<llvm::json::Array> gatherMpiTraffic(const LoadedProgram &program,
                                                   MpiWorld *world);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_RUNREPORT_H
