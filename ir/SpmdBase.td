//===- SpmdBase.td - The spmd dialect ----------------------*- tablegen -*-===//

#ifndef SPMD_IR_SPMDBASE_TD
#define SPMD_IR_SPMDBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Spmd_Dialect : Dialect {
  let name = "spmd";
  let cppNamespace = "::mlir::spmd";
  let summary = "Meshes, shardings and collectives for SPMD partitioning";
  let description = [{
    The `spmd` dialect describes how the tensors of a global program are laid
    out over a named mesh of devices (`#spmd.sharding`), and, after
    partitioning, the communication between devices as explicit collectives.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// Name of the discardable attribute holding shardings: a
    /// `#spmd.sharding` on function arguments and results, a
    /// `#spmd.sharding_per_value` on op results.
    static constexpr ::llvm::StringLiteral kShardingAttrName = "spmd.sharding";
    /// Written by `spmd-propagate{debug-origins=true}`: per dimension, the
    /// annotation its sharding came from ("" when unsharded). An array of
    /// strings on function arguments and results, an array of such arrays
    /// (one per result) on ops.
    static constexpr ::llvm::StringLiteral kOriginsAttrName =
        "spmd.sharding_origins";
    /// Written by spmd-auto-shard on the ops it chose a strategy for: the
    /// mesh axes of each factor of the op's rule (an array, per factor, of
    /// axis names), so that spmd-partition computes the op the way the
    /// plan was costed rather than choosing again.
    static constexpr ::llvm::StringLiteral kFactorSplitAttrName =
        "spmd.factor_split";
    /// Set by spmd-partition on the module: its functions are local.
    static constexpr ::llvm::StringLiteral kPartitionedAttrName =
        "spmd.partitioned";
    /// On collectives spmd-partition emits for a reshard: what a device
    /// must receive at least for the whole reshard (on its first
    /// collective; 0 on the others), for the communication report.
    static constexpr ::llvm::StringLiteral kMinBytesAttrName = "spmd.min_bytes";
    /// Set by spmd-auto-shard on a module it planned under a memory budget:
    /// the budget in bytes per device. Passes that would add buffers the
    /// plan did not price (spmd-channels-last) leave such a module alone.
    static constexpr ::llvm::StringLiteral kMemoryBudgetAttrName =
        "spmd.memory_budget";
    /// On arguments and results of partitioned functions: the global type.
    static constexpr ::llvm::StringLiteral kGlobalTypeAttrName =
        "spmd.global_type";
    /// Written by spmd-test-print-rules on each op with a factor rule: the
    /// rule as text.
    static constexpr ::llvm::StringLiteral kShardingRuleAttrName =
        "spmd.sharding_rule";

    /// State the ops' sharding models cache per context (structured ops'
    /// rules). It lives here because external models are freed without
    /// their destructors running; the dialect dies with its context.
    std::shared_ptr<void> &modelCache() { return modelCacheStorage; }

  private:
    std::shared_ptr<void> modelCacheStorage;
  public:
  }];
}

class Spmd_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Spmd_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class Spmd_Op<string mnemonic, list<Trait> traits = []>
    : Op<Spmd_Dialect, mnemonic, traits>;

#endif // SPMD_IR_SPMDBASE_TD
