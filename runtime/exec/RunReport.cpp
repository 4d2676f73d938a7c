//===- RunReport.cpp - What a run reports: checks, MPI traffic ------------===//

#include "runtime/exec/RunReport.h"
#include "runtime/comm/MpiWorld.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace spmd::runtime {

std::string checkSummary(const CheckResult &result) {
  std::string text =
      llvm::formatv("check: {0} max_abs_err={1:e} "
                    "max_rel_err={2:e} worst={3:e}\n",
                    result.pass ? "PASS" : "FAIL", result.maxAbsErr,
                    result.maxRelErr, result.worst);
  if (result.unbounded)
    text += llvm::formatv(
        "check: {0} elements not checked: their error scale is unbounded "
        "(a rounding error there can move them arbitrarily far)\n",
        result.unbounded);
  if (result.overflowed)
    text += llvm::formatv(
        "check: {0} elements not checked: the program overflows its float "
        "type there (the f64 program does not), so which values overflow "
        "depends on the order of its sums\n",
        result.overflowed);
  if (!result.copyMismatch.empty())
    text += "check: " + result.copyMismatch + "\n";
  return text;
}

llvm::json::Object checkJson(const CheckResult &result) {
  return llvm::json::Object{{"pass", result.pass},
                            {"max_abs_err", result.maxAbsErr},
                            {"max_rel_err", result.maxRelErr},
                            {"worst", result.worst},
                            {"f64_reference", result.wideReference},
                            {"error_scales", result.errorScales},
                            {"unbounded", result.unbounded},
                            {"overflowed", result.overflowed},
                            {"copy_mismatch", result.copyMismatch}};
}

/// This process's traffic as JSON text, to gather.
static std::string ownTraffic(const LoadedProgram &program) {
  llvm::json::Object own;
  for (const auto &[name, traffic] : program.mpiTraffic())
    own[name] = llvm::json::Object{{"collective", traffic.collective},
                                   {"axes", traffic.axes},
                                   {"kind", traffic.kind},
                                   {"calls", traffic.calls},
                                   {"bytes", traffic.bytes}};
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(own));
  return text;
}

llvm::Expected<llvm::json::Array> gatherMpiTraffic(const LoadedProgram &program,
                                                   MpiWorld *world) {
  llvm::json::Array entries;
  if (!world)
    return entries;
  llvm::Expected<std::vector<std::string>> all =
      world->gatherText(ownTraffic(program), "gathering the MPI byte counts");
  if (!all)
    return all.takeError();
  std::map<std::string, llvm::json::Object> merged;
  for (auto [rank, text] : llvm::enumerate(*all)) {
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      continue;
    }
    for (const auto &[name, value] : *parsed->getAsObject()) {
      const llvm::json::Object &traffic = *value.getAsObject();
      llvm::json::Object &entry = merged[name.str()];
      if (entry.empty()) {
        for (const char *key : {"collective", "axes", "kind"})
          entry[key] = traffic.getString(key)->str();
        entry["calls"] = *traffic.getInteger("calls");
        entry["bytes"] = int64_t(0);
        entry["bytes_per_process"] =
            llvm::json::Array(std::vector<int64_t>(all->size(), 0));
      }
      int64_t bytes = *traffic.getInteger("bytes");
      entry["bytes"] = *entry.getInteger("bytes") + bytes;
      (*entry.getArray("bytes_per_process"))[rank] = bytes;
    }
  }
  for (auto &[name, entry] : merged)
    entries.push_back(std::move(entry));
  return entries;
}

} // namespace spmd::runtime
