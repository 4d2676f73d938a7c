// spmd.memory_budget is a non-negative integer on modules.
// RUN: spmd-opt %s --split-input-file --verify-diagnostics -o /dev/null

// expected-error @+1 {{'spmd.memory_budget' is a non-negative integer on modules}}
module attributes {spmd.memory_budget = -1 : i64} {
}

// -----

// expected-error @+1 {{'spmd.memory_budget' is a non-negative integer on modules}}
module attributes {spmd.memory_budget = "16MB"} {
}

// -----

module {
  // expected-error @+1 {{'spmd.memory_budget' is a non-negative integer on modules}}
  func.func @f() attributes {spmd.memory_budget = 1 : i64} {
    return
  }
}
