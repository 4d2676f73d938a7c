//===- AutoShardModel.h - Strategies as an integer program ------*- C++ -*-===//
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
  /// Bytes per device held at one program point that only one node's
  /// choice decides (per strategy): a copy of a written layout that the
  /// node reads in another, its kernel's working buffers.
  struct NodeTerm {
    unsigned node;
    std::vector<double> bytes;
  };
  /// Bytes per device held at one program point that an edge's pair of
  /// choices decides (indexed as Edge::cost): the copy of a value resharded
  /// between its producer's layout and its reader's.
  struct EdgeTerm {
    unsigned edge;
    std::vector<double> bytes;
  };
  /// The values live at one program point, the copies and buffers held
  /// there, and the bytes per device that do not depend on any choice (the
  /// user's annotated values, say).
  struct LiveSet {
    std::vector<unsigned> values;
    double fixedBytes = 0;
    std::vector<NodeTerm> nodeTerms;
    std::vector<EdgeTerm> edgeTerms;
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

/// Bytes per device held at `live`'s program point under `choice`.
double liveBytes(const ShardingProblem &problem,
                 const ShardingProblem::LiveSet &live,
                 const std::vector<unsigned> &choice);

/// Peak bytes per device over the live sets under `choice`.
double peakMemory(const ShardingProblem &problem,
                  const std::vector<unsigned> &choice);

/// The integer program solved by CBC. Fails when no choice fits the budget
/// (the error then names the smallest budget one fits, from the same
/// program with the peak as its objective, within what is left of the
/// time limit) or the time limit ends the search before any choice is found,
/// and on costs that are not finite. `timeLimitSeconds` bounds the greedy start
/// and CBC's search; at 0 (or once the greedy start has used it up) the
/// greedy choice is the answer, with status TimeLimit.
llvm::Expected<ShardingSolution> solveWithCbc(const ShardingProblem &problem,
                                              double timeLimitSeconds);

/// Every choice tried; the first of the cheapest in lexicographic order.
/// Fails when none fits the budget (naming the smallest one fits), or when
/// there are more than kMaxEnumerated choices. Past `timeLimitSeconds`, the
/// best choice so far is the answer (status TimeLimit), or it fails if none
/// fits yet.
llvm::Expected<ShardingSolution> solveExhaustively(
    const ShardingProblem &problem,
    double timeLimitSeconds = std::numeric_limits<double>::infinity());
constexpr double kMaxEnumerated = 1e8;

} // namespace spmd

#endif // SPMD_PARTITIONER_AUTOSHARDMODEL_H
