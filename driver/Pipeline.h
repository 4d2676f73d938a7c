//===- Pipeline.h - The compile pipeline, defined once ----------*- C++ -*-===//
//
// The phases a program goes through, in order, written out in one place
// (buildPipeline): spmd-opt's `--spmd-pipeline`, spmd-run and the C++ API
// all build their pass managers here, each running the range of phases it
// needs. The programs `--check` runs against are built here too.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_DRIVER_PIPELINE_H
#define SPMD_DRIVER_PIPELINE_H

#include "passes/Passes.h"

namespace spmd::driver {

/// The compile phases, in the order they run.
enum class Phase {
  MeshConfig,          // spmd-mesh-config, when a mesh file is given
  Import,              // other stacks' annotations become spmd ones (and
                       // go, for one device)
  AutoShard,           // spmd-auto-shard, when asked for
  Propagate,           // every value gets a sharding
  Partition,           // local shapes and collectives
  OptimizeCollectives, // fewer, merged collectives
  Fuse,                // chains of elementwise ops fused for the executor
};

/// `spmd-pipeline`'s options.
struct PipelineOptions : mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> meshConfig{
      *this, "mesh-config",
      llvm::cl::desc("A HybridDeviceMesh file replacing @mesh "
                     "(spmd-mesh-config) before import"),
      llvm::cl::init("")};
  Option<bool> autoShard{
      *this, "auto-shard",
      llvm::cl::desc("Choose the shardings left open (spmd-auto-shard) "
                     "before propagation"),
      llvm::cl::init(false)};
  Option<std::string> memoryBudget{
      *this, "memory-budget", llvm::cl::desc("spmd-auto-shard's memory-budget"),
      llvm::cl::init("")};
  Option<double> dcnCost{*this, "dcn-cost",
                         llvm::cl::desc("spmd-auto-shard's dcn-cost"),
                         llvm::cl::init(10)};
  Option<std::string> autoShardReport{
      *this, "auto-shard-report", llvm::cl::desc("spmd-auto-shard's report"),
      llvm::cl::init("")};

  Option<bool> oneDevice{
      *this, "one-device",
      llvm::cl::desc("Compile the program as written for one device: its "
                     "shardings and meshes go after import "
                     "(spmd-drop-shardings)"),
      llvm::cl::init(false)};
  /// Receives the auto-sharding plan (for the C++ API; not an option).
  mlir::spmd::AutoShardReportSink autoShardReportSink;
};

/// Adds the phases `first` to `last` (both included) to `pm`.
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options,
                   Phase first, Phase last);

/// The forms of the unpartitioned program `--check` runs.
enum class ReferenceForm {
  AsWritten,   // the program as it is (fused for the executor)
  Widened,     // computing every float in f64
  ErrorScales, // in f64, with the scales of its rounding errors beside
};

/// Adds the phases making the unpartitioned program the `form` a check
/// runs of `entry` (and the functions it calls); `halfWidth` is the eps of
/// its least precise float type.
void buildReferencePipeline(mlir::OpPassManager &pm, ReferenceForm form,
                            double halfWidth, llvm::StringRef entry);

/// Registers `--spmd-pipeline`: the phases from MeshConfig to
/// OptimizeCollectives, as spmd-run and the API compile.
void registerSpmdPipeline();

} // namespace spmd::driver

#endif // SPMD_DRIVER_PIPELINE_H
