//===- AutoShardModel.h - Choosing strategies as an integer program -*- C++
//-*-//
//
// The model of auto-sharding, free of MLIR: a graph whose nodes are ops
// (or groups of ops that share one choice), each with candidate strategies
// costed in modelled seconds (its local compute plus the collectives the
// strategy itself needs); whose values (a node's results) take bytes per
// device that depend on its strategy; whose edges carry the cost of
// resharding a value from the strategy its producer chose to the one its
// consumer reads; and whose memory constraint bounds, at each program
// point, the bytes per device of the values live there.
//
// solveWithCbc states it as the integer program of Alpa's intra-op pass
// and XLA's auto_sharding: a binary s[v][i] per node and strategy with
// sum_i s[v][i] = 1, a variable e[u,v][i][j] per edge and pair of
// strategies tied to the nodes' choices by its marginals (sum_j e[i][j] =
// s[u][i], sum_i e[i][j] = s[v][j], which forces e = s[u] s[v]^T for
// binary s), the objective sum cost.s + sum edgeCost.e, and one row per
// program point: sum over its live values of bytes.s <= budget - fixed
// bytes. COIN-OR CBC solves it (single-threaded, so deterministic) within
// a time limit. solveExhaustively enumerates every choice under the same
// model, for tests and tiny graphs.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PARTITIONER_AUTOSHARDMODEL_H
#define SPMD_PARTITIONER_AUTOSHARDMODEL_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace spmd {

struct ShardingProblem {
  struct Node {
    /// Per strategy: modelled seconds of the node itself.
    std::vector<double> cost;
  };
  /// A value a node makes: per strategy of the node, the bytes per device
  /// it holds while live.
  struct Value {
    unsigned node;
    std::vector<double> bytes;
  };
  struct Edge {
    unsigned from, to;
    /// [i * strategies(to) + j]: seconds to reshard from's value made by
    /// strategy i into the layout strategy j of `to` reads.
    std::vector<double> cost;
  };
  /// The values live at one program point, and the bytes per device that
  /// do not depend on any choice (the user's annotated values, say).
  struct LiveSet {
    std::vector<unsigned> values;
    double fixedBytes = 0;
  };

  std::vector<Node> nodes;
  std::vector<Value> values;
  std::vector<Edge> edges;
  std::vector<LiveSet> liveSets;
  double memoryBudget = std::numeric_limits<double>::infinity();

  size_t strategies(unsigned node) const { return nodes[node].cost.size(); }
};

struct ShardingSolution {
  enum class Status {
    /// The solver proved the choice optimal.
    Optimal,
    /// The time limit ended the search; the choice is the best found.
    TimeLimit,
  };
  Status status = Status::Optimal;
  /// A strategy index per node.
  std::vector<unsigned> choice;
  /// The objective of `choice`.
  double cost = 0;
  /// The solver's lower bound on any choice's cost.
  double bound = 0;
  double seconds = 0;
};

llvm::StringRef stringifyStatus(ShardingSolution::Status status);

/// The objective of `choice`, or +inf when a live set exceeds the budget.
double evaluate(const ShardingProblem &problem,
                const std::vector<unsigned> &choice);

/// Peak bytes per device over the live sets under `choice`.
double peakMemory(const ShardingProblem &problem,
                  const std::vector<unsigned> &choice);

/// The integer program solved by CBC. Fails when no choice fits the budget
/// or the time limit ends the search before any choice is found.
llvm::Expected<ShardingSolution> solveWithCbc(const ShardingProblem &problem,
                                              double timeLimitSeconds);

/// Every choice tried; the first of the cheapest in lexicographic order.
/// Fails when none fits the budget, or when there are more than
/// kMaxEnumerated choices.
llvm::Expected<ShardingSolution>
solveExhaustively(const ShardingProblem &problem);
constexpr double kMaxEnumerated = 1e8;

} // namespace spmd

#endif // SPMD_PARTITIONER_AUTOSHARDMODEL_H
