//===- Passes.td - Passes of the spmd compiler -------------*- tablegen -*-===//

#ifndef SPMD_PASSES_PASSES_TD
#define SPMD_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpmdMeshConfig : Pass<"spmd-mesh-config", "mlir::ModuleOp"> {
  let summary = "Adds or replaces the mesh @mesh from a HybridDeviceMesh file";
  let description = [{
    Reads a HybridDeviceMesh configuration file (YAML, or the same keys in JSON)
    and makes `spmd.mesh @mesh` describe it, inserting the op when the module
    has none. Written `--spmd-mesh-config=FILE` on the command line, or
    `spmd-mesh-config{file=FILE}` in a pipeline. Errors in the file are
    reported at the file, line and column they are about.
  }];
  let options = [
    Option<"file", "file", "std::string", "",
           "HybridDeviceMesh configuration file (YAML or JSON)">
  ];
  let dependentDialects = ["mlir::spmd::SpmdDialect"];
}

def SpmdImport : Pass<"spmd-import", "mlir::ModuleOp"> {
  let summary = "Brings annotations of other stacks into spmd form";
  let description = [{
    Converts upstream MLIR `shard` dialect annotations (`shard.grid`,
    `shard.sharding`, `shard.shard`) into `spmd.mesh` and
    `spmd.sharding_constraint`, and GSPMD strings in `mhlo.sharding`
    attributes of function arguments and results into `spmd.sharding`
    attributes on a common mesh. `spmd.sharding_constraint` and `spmd`
    annotations already present are kept as they are. Paddings, offsets,
    strides and output shapes written as SSA values of constants
    (`tensor.pad %x low[%c0] high[%c1]`) become static entries.
  }];
  let dependentDialects = ["mlir::spmd::SpmdDialect"];
}

def SpmdAutoShard : Pass<"spmd-auto-shard", "mlir::ModuleOp"> {
  let summary = "Chooses the shardings the user left open, from a cost model";
  let description = [{
    For every function, chooses a layout for each tensor argument, result
    and op result the user gave no sharding, minimising the modelled step
    time (local compute plus the bytes of each collective over the speed of
    its slowest axis; DCN axes of a HybridMesh `dcn-cost` times slower)
    under a memory budget per device (arguments, results and the values
    live at each point). The choice of one strategy per op is an integer
    program (Alpa, XLA auto_sharding) solved by COIN-OR CBC; `time-limit`
    bounds the whole pass (on meshes of many axes the strategies come from
    a beam over the axes, and past the limit the rest of the problem is
    built coarsely). Shardings already written (arguments, results,
    `spmd.sharding_constraint`, op results) are never changed; the chosen
    ones are written as closed shardings on arguments, results and op
    results, and `--spmd-propagate` completes the rest. See
    docs/auto-sharding.md.
  }];
  let options = [
    Option<"memoryBudget", "memory-budget", "std::string", "\"\"",
           "Bytes per device, with an optional suffix (KB, MB, GB, KiB, MiB, "
           "GiB), at most 2^63 - 1; empty for no limit">,
    Option<"dcnCost", "dcn-cost", "double", "10",
           "How many times slower a byte moves over a DCN axis than an ICI "
           "axis (1 to 1e6)">,
    Option<"flopsPerSecond", "flops-per-second", "double", "1e12",
           "Modelled compute speed of one device (0.001 to 1e30)">,
    Option<"bytesPerSecond", "bytes-per-second", "double", "1e11",
           "Modelled bytes per second one device sends over an ICI axis "
           "(0.001 to 1e30)">,
    Option<"timeLimit", "time-limit", "double", "30",
           "Wall-clock seconds for the whole pass, building and solving "
           "(above 0, at most 1e9); the best plan found by then is used and "
           "the report says so">,
    Option<"solver", "solver", "std::string", "\"cbc\"",
           "cbc (the integer program) or enumerate (every choice; for tiny "
           "graphs and tests)">,
    Option<"shareAbove", "share-above", "unsigned", "256",
           "Above this many nodes, nodes of the same structure (repeated "
           "layers) share one choice">,
    Option<"report", "report", "std::string", "\"\"",
           "Where to write the plan report (JSON; '-' for standard output)">
  ];
  let dependentDialects = ["mlir::spmd::SpmdDialect"];
}

def SpmdPropagate : Pass<"spmd-propagate", "mlir::ModuleOp"> {
  let summary = "Completes the shardings of every value";
  let description = [{
    Gives every tensor value (function arguments and results, op results) a
    sharding, starting from the user's: function argument and result
    annotations, `spmd.sharding_constraint`, and shardings already on op
    results. Shardings flow through each op's factor rule
    (ShardingOpInterface, ir/ShardingInterface.h) forwards and backwards until nothing changes; see
    docs/sharding-semantics.md for priorities, open and closed dimensions
    and conflicts. Ops without a rule get replicated results and a remark.
  }];
  let options = [
    Option<"strategy", "strategy", "::spmd::PropagationStrategy",
           "::spmd::PropagationStrategy::Aggressive",
           "How to resolve conflicting shardings",
           [{::llvm::cl::values(
             clEnumValN(::spmd::PropagationStrategy::Basic, "basic",
                        "propagate only axes all sources agree on"),
             clEnumValN(::spmd::PropagationStrategy::Aggressive, "aggressive",
                        "also resolve conflicts: lower priority, then the "
                        "larger tensor, wins"))}]>,
    Option<"debugOrigins", "debug-origins", "bool", "false",
           "Record in spmd.sharding_origins which annotation each dimension's "
           "sharding came from">
  ];
  let dependentDialects = ["mlir::spmd::SpmdDialect"];
}

def SpmdPartition : Pass<"spmd-partition", "mlir::ModuleOp"> {
  let summary = "Rewrites the global program into the local SPMD program";
  let description = [{
    Needs complete shardings (run --spmd-propagate first). Every tensor gets
    its local (per-device) shape; data moves only through spmd collectives,
    planned to move the fewest bytes (partitioner/ReshardPlanner.h). Each op
    is split through its factor rule, choosing by cost how to split every
    factor; split reductions leave partial values that are reduced where a
    user needs them (all_reduce, or reduce_scatter when the user wants a
    split value). Function signatures keep their spmd.sharding attributes,
    which now describe how the local arguments and results are laid out.
  }];
  let dependentDialects = ["mlir::spmd::SpmdDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def SpmdOptimizeCollectives : Pass<"spmd-optimize-collectives",
                                   "mlir::ModuleOp"> {
  let summary = "Removes redundant collectives and combines small ones";
  let dependentDialects = ["mlir::tensor::TensorDialect"];
  let description = [{
    Drops collectives over groups of one device, cancels an all_gather and
    the all_slice that undoes it (either order), merges identical
    collectives of one value (CSE), and combines small all_reduces of one
    block over the same axes (each under 1 MiB per device) into one, their
    operands flattened and concatenated, when they are independent.
  }];
}

def SpmdFuseElementwise : Pass<"spmd-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuses chains of elementwise linalg.generic ops for the executor";
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect"];
  let description = [{
    Merges an elementwise `linalg.generic` into the elementwise generic that
    is its only user, over the same iteration space (upstream linalg's
    producer-consumer fusion), and folds splat constants read by generics
    into their bodies as scalars. `spmd-run` runs it on the programs it
    executes, so a chain such as a folded batch norm and its ReLU reads
    and writes each element once instead of once per op. A generic that
    only copies (transposes) its input is also fused into the contraction
    that reads it, a named one (`linalg.matmul`, ...) made a generic for
    that: its GEMM then reads the operand transposed where it lies, as
    `x @ w.t()` does. Other generics that reduce are left alone: the
    executor's GEMM, softmax and reduction kernels recognise them as they
    are.
  }];
}

def SpmdSinkRemade : Pass<"spmd-sink-remade", "mlir::ModuleOp"> {
  let summary = "Moves each tensor every device makes itself to its first reader";
  let description = [{
    An empty tensor, a fill of a scalar, a splat: tensors made from scalars
    only (see `isRemadePerDevice`) move to just before the first op of
    their block that reads them. The executor makes each buffer where its
    op stands, so a fill written early would be held beside buffers that
    die before its reader; auto-sharding's memory model holds it from its
    first reader. `spmd-run` runs it on the programs it executes.
  }];
}

def SpmdRaiseLayerNorm : Pass<"spmd-raise-layer-norm", "mlir::ModuleOp"> {
  let summary = "Makes the linalg ops of an f32 layer norm one spmd.layer_norm";
  let dependentDialects = ["mlir::spmd::SpmdDialect"];
  let description = [{
    Finds, through elementwise generics and row sums, an f32 value computed
    as `(x - mean(x)) * rsqrt(mean((x - mean(x))^2) + eps)` over the last
    dimension of `x` (also written with `1 / sqrt`, `/ sqrt`, or the means
    as sums times `1/n`), optionally times a per-column `scale` and plus a
    per-column `shift`, and computes it with `spmd.layer_norm` instead; then
    upstream's dead code elimination erases the unused ops of the functions
    it changed. The executor runs that op with
    oneDNN's layer normalization, which reads and writes each element once,
    where the ops it replaces make five passes over the tensor. Part of the
    Fuse phase. Other element types, reductions over other dimensions and
    the E[x^2] - E[x]^2 form are left as they are.
  }];
}

def SpmdLowerTosa : Pass<"spmd-lower-tosa", "mlir::ModuleOp"> {
  let summary = "Lowers TOSA ops to the linalg, tensor and arith ops the executor runs";
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect"];
  let description = [{
    Upstream's sharding tests, and TOSA importers, write `tosa` ops, which
    have no kernels of their own. When the module holds any, this pass runs
    upstream's `tosa-to-linalg-named`, `tosa-to-linalg`, `tosa-to-tensor`
    and `tosa-to-arith` on every function; a module without them is left
    alone at the cost of one walk. First of the Fuse phase, so partitioned
    programs lower their local ops.
  }];
}

def SpmdChannelsLast : Pass<"spmd-channels-last", "mlir::ModuleOp"> {
  let summary = "Computes f32 NCHW convolutions, and the image ops around them, in NHWC";
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
  let description = [{
    Rewrites each f32 `linalg.conv_2d_nchw_fchw` of static shapes as a
    `linalg.conv_2d_nhwc_hwcf`, and with it every op connected to one
    through images (static rank-4 tensors) that has an NHWC twin:
    `linalg.pooling_nchw_max` and `linalg.pooling_nchw_sum`, `tensor.pad`
    by static widths and a value defined outside it, and elementwise
    `linalg.generic`s (four parallel loops, one result written through
    the identity map, no `linalg.index`), whose other operands keep their
    layout and are read through maps composed with the new loop order.
    Images entering the region are transposed to NHWC once, images read
    outside it transposed back once; constant filters (dense, resource
    blobs, immutable `ml_program` globals) are rearranged into HWCF here,
    once each. Part of the Fuse phase, first: the executor runs f32 NHWC
    convolutions with oneDNN's direct convolution, NCHW ones as im2col and
    a GEMM. The result is the same, element for element. A module planned
    under a memory budget (`spmd.memory_budget`, set by spmd-auto-shard)
    is left as it is: the plan did not price the transposed copies.
  }];
}

def SpmdFuseConvolutions : Pass<"spmd-fuse-convolutions", "mlir::ModuleOp"> {
  let summary = "Groups each f32 NHWC convolution with its zero pad and elementwise reader";
  let dependentDialects = ["mlir::spmd::SpmdDialect"];
  let description = [{
    Moves an f32 `linalg.conv_2d_nhwc_hwcf` or
    `linalg.depthwise_conv_2d_nhwc_hwc` into an `spmd.fusion`, with the
    `tensor.pad` that makes its input when the pad adds +0.0 around the
    rows and columns only and the convolution is its only reader, and with
    the elementwise `linalg.generic` (identity maps, parallel loops, one
    result) that is the only reader of its result. The executor then may
    run the group as one oneDNN convolution: the padding as the
    convolution's, the elementwise ops as post-ops on its output while it
    is in cache. Part of the Fuse phase, after `--spmd-fuse-elementwise`.
    A convolution with neither stays as it is.
  }];
}

def SpmdDropShardings : Pass<"spmd-drop-shardings", "mlir::ModuleOp"> {
  let summary = "Makes the program one for one device: its shardings and meshes go";
  let description = [{
    Drops every sharding (of function arguments and results, of op
    results), replaces each `spmd.sharding_constraint` by its input and
    erases the meshes, so that the rest of the pipeline compiles the
    program as written for one device. Shardings do not change what a
    program computes, so the result is the same. A device of
    `spmd::spawn` runs programs so, each on its own. Fails, naming the op,
    on what a mesh's devices must run (a manual region, a collective, an
    `spmd.axis_index`) and on a module already partitioned.
  }];
}

def SpmdWidenFloats : Pass<"spmd-widen-floats", "mlir::ModuleOp"> {
  let summary = "Computes every float of the program in f64";
  let description = [{
    Makes every f16, bf16 and f32 type, constant and tensor f64; casts
    between floats vanish. `--check` compares a program's results with
    this form of the unpartitioned program, to tell how far the program's
    own precision is from the exact result. Fails where the widened program
    does not verify (a bitcast of a float, an op that takes narrow floats
    only).
  }];
}

def SpmdAddErrorScales : Pass<"spmd-add-error-scales", "mlir::ModuleOp"> {
  let summary = "Computes beside each float the scale of its rounding errors";
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::math::MathDialect", "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect"];
  let description = [{
    On a program whose floats are all f64 (`spmd-widen-floats`): every
    function also takes the scale of each float argument after its own
    arguments and returns the scale of each float result after its own
    results (the rules are in passes/ErrorScales.h). `--check` gives each
    element the slack `half-width` times its scale. Fails on an op without
    a rule (a discontinuous one such as floor, a user's op), naming it.
    With `entry`, only that function and those it calls are kept: the
    others may hold ops without a rule.
  }];
  let options = [
    Option<"halfWidth", "half-width", "double", "0",
           "The eps of the program's least precise float type before "
           "widening (0 for f64 programs: first-order rules)">,
    Option<"entry", "entry", "std::string", "",
           "Keep only this function and those it calls (default: every "
           "function)">
  ];
}

def SpmdCommReport : Pass<"spmd-comm-report", "mlir::ModuleOp"> {
  let summary = "Writes the communication report of a partitioned program";
  let description = [{
    JSON, per device and per call of each function: every collective with
    its axes, group size, local operand bytes and ring-algorithm volume
    (`comm_bytes`), and the total. Collectives inside loops are counted
    once.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write the report ('-' for standard output)">
  ];
}

def SpmdVisualize : Pass<"spmd-visualize", "mlir::ModuleOp"> {
  let summary = "Draws the device grid of every annotated argument and result";
  let description = [{
    For each function argument and result with a sharding, and a 1-D or
    2-D tensor type (the global type once partitioned), writes its name,
    type and sharding, then one box per block labelled with the ids of the
    devices holding it, as JAX's visualize_array_sharding and the C++ API's
    visualize_sharding draw it. Other ranks are named and skipped. The
    module is left unchanged.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write the grids ('-' for standard error)">
  ];
}

def SpmdTestPrintRules : Pass<"spmd-test-print-rules", "mlir::ModuleOp"> {
  let summary = "Writes each op's sharding rule as an attribute (for tests)";
  let description = [{
    Sets `spmd.sharding_rule` on every op that has a factor rule (its
    ShardingOpInterface's, or its traits') to the rule as text: one list of
    factors per operand and result, the factor sizes, and the kinds other
    than parallel, e.g. `([i, j], [j, k], [i, k]) -> ([i, k]) {i=4, j=8,
    k=2} reduction={j}`; then, where there are reduction factors, the
    reduction each result is pending when they are split (`pending=[sum]`,
    `none` when they must stay whole), and the windows its inputs are read
    through (`windows={operand0[1]: 2*j + [0, 2] + 0}`: stride, window
    extent and offset). Ops without a rule are left alone.
  }];
}

#endif // SPMD_PASSES_PASSES_TD
