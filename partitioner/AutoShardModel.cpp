//===- AutoShardModel.cpp - Choosing strategies as an integer program -----===//

#include "partitioner/AutoShardModel.h"

#include "coin/Cbc_C_Interface.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <poll.h>
#include <stdio_ext.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace spmd {

llvm::StringRef stringifyStatus(ShardingSolution::Status status) {
  switch (status) {
  case ShardingSolution::Status::Optimal:
    return "optimal";
  case ShardingSolution::Status::TimeLimit:
    return "time_limit";
  }
  return "";
}

/// Whether `problem` is consistent: each node has a strategy, and each
/// value, edge and term indexes existing nodes and edges with a cost or
/// size per strategy (or pair of strategies). The pass builds it so.
[[maybe_unused]] static bool isWellFormed(const ShardingProblem &problem) {
  size_t n = problem.nodes.size();
  auto pairs = [&](unsigned e) {
    const ShardingProblem::Edge &edge = problem.edges[e];
    return problem.strategies(edge.from) * problem.strategies(edge.to);
  };
  auto nodeSized = [&](unsigned node, const std::vector<double> &v) {
    return node < n && v.size() == problem.strategies(node);
  };
  if (llvm::any_of(problem.nodes, [](const ShardingProblem::Node &node) {
        return node.cost.empty();
      }))
    return false;
  for (const ShardingProblem::Value &value : problem.values)
    if (!nodeSized(value.node, value.bytes))
      return false;
  for (auto [e, edge] : llvm::enumerate(problem.edges))
    if (edge.from >= n || edge.to >= n || edge.cost.size() != pairs(e))
      return false;
  for (const ShardingProblem::LiveSet &live : problem.liveSets) {
    for (unsigned v : live.values)
      if (v >= problem.values.size())
        return false;
    for (const ShardingProblem::NodeTerm &term : live.nodeTerms)
      if (!nodeSized(term.node, term.bytes))
        return false;
    for (const ShardingProblem::EdgeTerm &term : live.edgeTerms)
      if (term.edge >= problem.edges.size() ||
          term.bytes.size() != pairs(term.edge))
        return false;
  }
  return true;
}

double liveBytes(const ShardingProblem &problem,
                 const ShardingProblem::LiveSet &live,
                 const std::vector<unsigned> &choice) {
  double bytes = live.fixedBytes;
  for (unsigned v : live.values) {
    const ShardingProblem::Value &value = problem.values[v];
    bytes += value.bytes[choice[value.node]];
  }
  for (const ShardingProblem::NodeTerm &term : live.nodeTerms)
    bytes += term.bytes[choice[term.node]];
  for (const ShardingProblem::EdgeTerm &term : live.edgeTerms) {
    const ShardingProblem::Edge &e = problem.edges[term.edge];
    bytes +=
        term.bytes[choice[e.from] * problem.strategies(e.to) + choice[e.to]];
  }
  return bytes;
}

double peakMemory(const ShardingProblem &problem,
                  const std::vector<unsigned> &choice) {
  double peak = 0;
  for (const ShardingProblem::LiveSet &live : problem.liveSets)
    peak = std::max(peak, liveBytes(problem, live, choice));
  return peak;
}

double evaluate(const ShardingProblem &problem,
                const std::vector<unsigned> &choice) {
  assert(choice.size() == problem.nodes.size() && "a strategy per node");
  if (peakMemory(problem, choice) > problem.memoryBudget)
    return std::numeric_limits<double>::infinity();
  double cost = 0;
  for (size_t v = 0; v < problem.nodes.size(); ++v)
    cost += problem.nodes[v].cost[choice[v]];
  for (const ShardingProblem::Edge &e : problem.edges)
    cost += e.cost[choice[e.from] * problem.strategies(e.to) + choice[e.to]];
  return cost;
}

/// `bytes` as a whole number: budgets of 2^63 bytes or more do not convert
/// to int64 (nor do they bound anything).
static std::string bytesText(double bytes) {
  bytes = std::ceil(bytes);
  if (bytes < 0x1p63)
    return std::to_string(int64_t(bytes));
  return bytes == 0x1p63 ? std::to_string(INT64_MAX) : std::to_string(bytes);
}

namespace {
/// The smallest budget some choice fits: the peak of the leanest choice
/// found, and whether none smaller fits (else `bound`: none below fits).
struct LeastPeak {
  double found;
  bool proven;
  double bound;
};
} // namespace

static llvm::Error noFit(const ShardingProblem &problem,
                         const LeastPeak &least) {
  std::string message = "no choice of shardings fits the memory budget of " +
                        bytesText(problem.memoryBudget) + " bytes per device";
  if (least.proven)
    message +=
        "; the smallest that fits is " + bytesText(least.found) + " bytes";
  else
    message +=
        "; " + bytesText(least.found) +
        " bytes fit (the time limit passed before the solver proved "
        "that none smaller does" +
        (least.bound > 0
             ? "; none below " + bytesText(std::floor(least.bound)) + " does)"
             : std::string(")"));
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The time `seconds` from `start`, or never for limits beyond what a
/// clock counts.
static std::chrono::steady_clock::time_point
deadlineAfter(std::chrono::steady_clock::time_point start, double seconds) {
  using Clock = std::chrono::steady_clock;
  // A year of seconds is beyond any run, and far within the clock's range.
  if (!(seconds < 3.2e7))
    return Clock::time_point::max();
  return start + std::chrono::duration_cast<Clock::duration>(
                     std::chrono::duration<double>(std::max(seconds, 0.0)));
}

llvm::Expected<ShardingSolution>
solveExhaustively(const ShardingProblem &problem, double timeLimitSeconds) {
  assert(isWellFormed(problem) && "a consistent problem");
  auto start = std::chrono::steady_clock::now();
  auto deadline = deadlineAfter(start, timeLimitSeconds);
  size_t n = problem.nodes.size();
  double choices = 1;
  for (size_t v = 0; v < n; ++v)
    choices *= double(problem.strategies(v));
  if (choices > kMaxEnumerated)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "too many choices to enumerate (" +
                                       std::to_string(choices) +
                                       "); solve with CBC");
  std::vector<unsigned> choice(n, 0);
  ShardingSolution best;
  best.cost = std::numeric_limits<double>::infinity();
  double leastPeak = std::numeric_limits<double>::infinity();
  for (uint64_t tried = 1;; ++tried) {
    // The clock is read now and then: a choice is tried in microseconds.
    if (tried % 1024 == 0 && std::chrono::steady_clock::now() > deadline) {
      if (!std::isfinite(best.cost))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "the enumeration found no choice within the budget before its "
            "time limit of " +
                std::to_string(timeLimitSeconds) + " s");
      best.status = ShardingSolution::Status::TimeLimit;
      best.bound = 0;
      best.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
      return best;
    }
    leastPeak = std::min(leastPeak, peakMemory(problem, choice));
    double cost = evaluate(problem, choice);
    if (cost < best.cost) {
      best.cost = cost;
      best.choice = choice;
    }
    // Next choice (odometer, last node fastest).
    size_t v = n;
    while (v > 0 && ++choice[v - 1] == problem.strategies(v - 1))
      choice[--v] = 0;
    if (v == 0)
      break;
  }
  if (!std::isfinite(best.cost))
    return noFit(problem, {leastPeak, true, leastPeak});
  best.bound = best.cost;
  best.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return best;
}

/// Per node, the live sets its choice changes, in increasing order.
static std::vector<std::vector<unsigned>>
liveSetsByNode(const ShardingProblem &problem) {
  std::vector<std::vector<unsigned>> in(problem.nodes.size());
  auto touch = [&](unsigned node, size_t l) {
    if (in[node].empty() || in[node].back() != l)
      in[node].push_back(unsigned(l));
  };
  for (size_t l = 0; l < problem.liveSets.size(); ++l) {
    const ShardingProblem::LiveSet &live = problem.liveSets[l];
    for (unsigned x : live.values)
      touch(problem.values[x].node, l);
    for (const ShardingProblem::NodeTerm &term : live.nodeTerms)
      touch(term.node, l);
    for (const ShardingProblem::EdgeTerm &term : live.edgeTerms) {
      touch(problem.edges[term.edge].from, l);
      touch(problem.edges[term.edge].to, l);
    }
  }
  for (std::vector<unsigned> &sets : in) {
    llvm::sort(sets);
    sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
  }
  return in;
}

/// Each node's strategy of the fewest bytes where its own choice decides
/// them (then the cheapest); `in` as liveSetsByNode.
static std::vector<unsigned>
leanestChoice(const ShardingProblem &problem,
              const std::vector<std::vector<unsigned>> &in) {
  std::vector<unsigned> choice(problem.nodes.size(), 0);
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    std::vector<double> size(problem.strategies(v), 0);
    for (unsigned l : in[v]) {
      const ShardingProblem::LiveSet &live = problem.liveSets[l];
      for (unsigned x : live.values)
        if (problem.values[x].node == v)
          for (size_t s = 0; s < size.size(); ++s)
            size[s] += problem.values[x].bytes[s];
      for (const ShardingProblem::NodeTerm &term : live.nodeTerms)
        if (term.node == v)
          for (size_t s = 0; s < size.size(); ++s)
            size[s] += term.bytes[s];
    }
    for (size_t s = 1; s < size.size(); ++s)
      if (std::make_pair(size[s], problem.nodes[v].cost[s]) <
          std::make_pair(size[choice[v]], problem.nodes[v].cost[choice[v]]))
        choice[v] = s;
  }
  return choice;
}

/// Moves single nodes of `choice` to cheaper strategies while every live
/// set stays within the budget, until none does or `deadline` passes
/// (the moves made so far then stand: each kept the choice within the
/// budget).
static void improveByMoves(const ShardingProblem &problem,
                           const std::vector<std::vector<unsigned>> &in,
                           std::vector<unsigned> &choice,
                           std::chrono::steady_clock::time_point deadline) {
  size_t n = problem.nodes.size();
  std::vector<std::vector<unsigned>> incident(n);
  for (size_t e = 0; e < problem.edges.size(); ++e) {
    incident[problem.edges[e].from].push_back(e);
    incident[problem.edges[e].to].push_back(e);
  }
  // The cost of node v's strategy s with its own and its edges' terms.
  auto local = [&](size_t v, unsigned s) {
    double cost = problem.nodes[v].cost[s];
    for (unsigned e : incident[v]) {
      const ShardingProblem::Edge &edge = problem.edges[e];
      unsigned i = edge.from == v ? s : choice[edge.from];
      unsigned j = edge.to == v ? s : choice[edge.to];
      cost += edge.cost[i * problem.strategies(edge.to) + j];
    }
    return cost;
  };
  for (bool moved = true;
       moved && std::chrono::steady_clock::now() <= deadline;) {
    moved = false;
    for (size_t v = 0; v < n; ++v) {
      unsigned was = choice[v], best = was;
      double bestCost = local(v, best);
      for (unsigned s = 0; s < problem.strategies(v); ++s) {
        double cost = local(v, s);
        if (cost >= bestCost - 1e-15 * std::abs(bestCost))
          continue;
        choice[v] = s;
        bool fits = llvm::all_of(in[v], [&](unsigned l) {
          return liveBytes(problem, problem.liveSets[l], choice) <=
                 problem.memoryBudget;
        });
        choice[v] = was;
        if (fits) {
          best = s;
          bestCost = cost;
        }
      }
      moved |= best != was;
      choice[v] = best;
    }
  }
}

/// A choice within the budget found greedily, or nullopt: each node's
/// strategy of the fewest bytes (then the cheapest), then single-node moves
/// that lower the cost while every live set stays within the budget, until
/// none does. CBC starts from it, and it is the answer when CBC finds none
/// within its time limit.
static std::optional<std::vector<unsigned>>
greedyChoice(const ShardingProblem &problem,
             std::chrono::steady_clock::time_point deadline) {
  std::vector<std::vector<unsigned>> in = liveSetsByNode(problem);
  std::vector<unsigned> choice = leanestChoice(problem, in);
  for (const ShardingProblem::LiveSet &live : problem.liveSets)
    if (liveBytes(problem, live, choice) > problem.memoryBudget)
      return std::nullopt;
  improveByMoves(problem, in, choice, deadline);
  return choice;
}

namespace {
/// Costs as CBC takes them. Its tolerances are absolute, and it refuses
/// (aborts on) objective coefficients of 1e25 or more: costs are scaled so
/// the largest is 1e6.
struct CostScale {
  double largest = 0;
  double factor = 1;

  double scaled(double cost) const {
    // For the tiniest costs 1e6 / largest overflows: there each is divided
    // by the largest first.
    return std::isfinite(factor) ? cost * factor : cost / largest * 1e6;
  }
  double unscaled(double objective) const {
    return std::isfinite(factor) ? objective / factor
                                 : objective / 1e6 * largest;
  }
};

/// The integer program of the header, assembled to be loaded at once
/// (adding columns one by one is quadratic in CBC).
struct IntegerProgram {
  struct Entry {
    int row, col;
    double coef;
  };
  std::vector<double> objective, upper;
  std::vector<char> integer;
  std::vector<double> rowLower, rowUpper;
  std::vector<Entry> entries;
  /// The first column of each node's s[v][.] and each edge's e[u,v][.][.].
  std::vector<int> nodeFirst, edgeFirst;

  int addColumn(double cost, bool isInteger) {
    objective.push_back(cost);
    upper.push_back(1);
    integer.push_back(isInteger);
    return int(objective.size()) - 1;
  }
  int addRow(double lower, double upperBound) {
    rowLower.push_back(lower);
    rowUpper.push_back(upperBound);
    return int(rowLower.size()) - 1;
  }
};
} // namespace

/// The scale of the problem's costs; fails on a cost that is not finite.
static llvm::Expected<CostScale> costScale(const ShardingProblem &problem) {
  CostScale scale;
  bool finite = true;
  auto see = [&](double c) {
    finite &= std::isfinite(c);
    scale.largest = std::max(scale.largest, std::abs(c));
  };
  for (const ShardingProblem::Node &node : problem.nodes)
    llvm::for_each(node.cost, see);
  for (const ShardingProblem::Edge &e : problem.edges)
    llvm::for_each(e.cost, see);
  if (!finite)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a modelled cost is not a finite number of seconds");
  scale.factor = scale.largest > 0 ? 1e6 / scale.largest : 1;
  return scale;
}

static double secondsSince(std::chrono::steady_clock::time_point began) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - began)
      .count();
}

/// The greedy choice as the answer, when time ran out before CBC found one.
static ShardingSolution
greedySolution(const ShardingProblem &problem,
               const std::vector<unsigned> &greedy,
               std::chrono::steady_clock::time_point began) {
  ShardingSolution solution;
  solution.status = ShardingSolution::Status::TimeLimit;
  solution.choice = greedy;
  solution.cost = evaluate(problem, solution.choice);
  solution.bound = 0;
  solution.seconds = secondsSince(began);
  return solution;
}

/// A binary per node and strategy, one of which is chosen.
static void addNodeChoices(const ShardingProblem &problem,
                           const CostScale &scale, IntegerProgram &program) {
  for (const ShardingProblem::Node &node : problem.nodes) {
    program.nodeFirst.push_back(int(program.objective.size()));
    int row = program.addRow(1, 1);
    for (double c : node.cost)
      program.entries.push_back(
          {row, program.addColumn(scale.scaled(c), true), 1.0});
  }
}

/// A variable per edge and pair of strategies, tied to the nodes' choices
/// by its marginals: row i sums to s[from][i], column j to s[to][j].
static void addEdgePairs(const ShardingProblem &problem, const CostScale &scale,
                         IntegerProgram &program) {
  for (const ShardingProblem::Edge &e : problem.edges) {
    size_t a = problem.strategies(e.from), b = problem.strategies(e.to);
    int base = int(program.objective.size());
    program.edgeFirst.push_back(base);
    for (double c : e.cost)
      program.addColumn(scale.scaled(c), false);
    for (size_t i = 0; i < a; ++i) {
      int row = program.addRow(0, 0);
      for (size_t j = 0; j < b; ++j)
        program.entries.push_back({row, base + int(i * b + j), 1.0});
      program.entries.push_back(
          {row, program.nodeFirst[e.from] + int(i), -1.0});
    }
    for (size_t j = 0; j < b; ++j) {
      int row = program.addRow(0, 0);
      for (size_t i = 0; i < a; ++i)
        program.entries.push_back({row, base + int(i * b + j), 1.0});
      program.entries.push_back({row, program.nodeFirst[e.to] + int(j), -1.0});
    }
  }
}

/// A row per live set: the bytes its choices decide stay within the budget
/// less its fixed bytes. With a `peak` column, they stay within it instead
/// (bytes and peak in units of `unit` bytes). False if `deadline` passed
/// first (long chains have many large live sets: 57 s for 200 layers).
static bool addMemoryRows(const ShardingProblem &problem,
                          IntegerProgram &program,
                          std::chrono::steady_clock::time_point deadline,
                          int peak = -1, double unit = 1) {
  if (peak < 0 && !std::isfinite(problem.memoryBudget))
    return true;
  for (const ShardingProblem::LiveSet &live : problem.liveSets) {
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    // A node's values and terms add up in its columns' coefficients; a
    // copy between an edge's ends is the edge's pair column.
    std::map<int, double> bytes;
    for (unsigned v : live.values) {
      const ShardingProblem::Value &value = problem.values[v];
      for (size_t i = 0; i < value.bytes.size(); ++i)
        bytes[program.nodeFirst[value.node] + int(i)] += value.bytes[i];
    }
    for (const ShardingProblem::NodeTerm &term : live.nodeTerms)
      for (size_t i = 0; i < term.bytes.size(); ++i)
        bytes[program.nodeFirst[term.node] + int(i)] += term.bytes[i];
    for (const ShardingProblem::EdgeTerm &term : live.edgeTerms)
      for (size_t i = 0; i < term.bytes.size(); ++i)
        bytes[program.edgeFirst[term.edge] + int(i)] += term.bytes[i];
    double room = peak < 0 ? problem.memoryBudget - live.fixedBytes
                           : -live.fixedBytes / unit;
    int row = program.addRow(-std::numeric_limits<double>::max(), room);
    for (auto [col, coef] : bytes)
      if (coef != 0)
        program.entries.push_back({row, col, coef / unit});
    if (peak >= 0)
      program.entries.push_back({row, peak, -1.0});
  }
  return true;
}

/// Loads `program` into `m`, column-major as CBC takes it.
static void loadProgram(Cbc_Model *m, const IntegerProgram &program) {
  int columns = int(program.objective.size());
  std::vector<CoinBigIndex> starts(columns + 1, 0);
  for (const IntegerProgram::Entry &entry : program.entries)
    ++starts[entry.col + 1];
  for (int c = 0; c < columns; ++c)
    starts[c + 1] += starts[c];
  std::vector<int> rows(program.entries.size());
  std::vector<double> coefs(program.entries.size());
  std::vector<CoinBigIndex> next(starts.begin(), starts.end() - 1);
  for (const IntegerProgram::Entry &entry : program.entries) {
    CoinBigIndex at = next[entry.col]++;
    rows[at] = entry.row;
    coefs[at] = entry.coef;
  }
  std::vector<double> lower(columns, 0);
  Cbc_loadProblem(m, columns, int(program.rowLower.size()), starts.data(),
                  rows.data(), coefs.data(), lower.data(), program.upper.data(),
                  program.objective.data(), program.rowLower.data(),
                  program.rowUpper.data());
  for (int c = 0; c < columns; ++c)
    if (program.integer[c])
      Cbc_setInteger(m, c);
}

/// Sets CBC's limits: quiet, exact, and stopping at `deadline`.
static void setLimits(Cbc_Model *m,
                      std::chrono::steady_clock::time_point deadline) {
  Cbc_setLogLevel(m, 0);
  // The limit is wall-clock time, as the caller's (CBC counts CPU time by
  // default, which on a loaded machine runs far past it).
  Cbc_setParameter(m, "timeMode", "elapsed");
  Cbc_setMaximumSeconds(
      m, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now())
             .count());
  Cbc_setAllowableFractionGap(m, 0);
  Cbc_setAllowableGap(m, 1e-7);
}

/// Starts CBC's search from `start`, a choice per node.
static void startFrom(Cbc_Model *m, const IntegerProgram &program,
                      const std::vector<unsigned> &start) {
  std::vector<int> cols;
  std::vector<double> ones;
  for (auto [v, first] : llvm::enumerate(program.nodeFirst)) {
    cols.push_back(first + int(start[v]));
    ones.push_back(1);
  }
  Cbc_setMIPStartI(m, int(cols.size()), cols.data(), ones.data());
}

/// The choice CBC found: per node, its strategy of the largest value.
static std::vector<unsigned> cbcChoice(const ShardingProblem &problem,
                                       const IntegerProgram &program,
                                       const double *values) {
  std::vector<unsigned> choice(problem.nodes.size());
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    const double *s = values + program.nodeFirst[v];
    choice[v] = unsigned(std::max_element(s, s + problem.strategies(v)) - s);
  }
  return choice;
}

namespace {
/// What a CBC solve found.
struct CbcResult {
  /// The columns' values, if CBC saved a solution.
  std::vector<double> values;
  bool provenOptimal = false, provenInfeasible = false,
       secondsLimitReached = false;
  double bestPossible = 0;
};
} // namespace

/// CBC's solve of `program` (from `start`, when given) in this process.
static CbcResult solveHere(const IntegerProgram &program,
                           const std::vector<unsigned> *start,
                           std::chrono::steady_clock::time_point deadline) {
  std::unique_ptr<Cbc_Model, void (*)(Cbc_Model *)> model(Cbc_newModel(),
                                                          Cbc_deleteModel);
  Cbc_Model *m = model.get();
  setLimits(m, deadline);
  loadProgram(m, program);
  if (start)
    startFrom(m, program, *start);
  Cbc_solve(m);
  CbcResult result;
  const double *values = Cbc_getColSolution(m);
  if (values && Cbc_numberSavedSolutions(m) > 0)
    result.values.assign(values, values + program.objective.size());
  result.provenOptimal = Cbc_isProvenOptimal(m);
  result.provenInfeasible = Cbc_isProvenInfeasible(m);
  result.secondsLimitReached = Cbc_isSecondsLimitReached(m);
  result.bestPossible = Cbc_getBestPossibleObjValue(m);
  return result;
}

/// Writes all `size` bytes at `data` to `fd`.
static bool writeAll(int fd, const void *data, size_t size) {
  const char *at = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, at, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    at += n;
    size -= size_t(n);
  }
  return true;
}

/// Reads `size` bytes from `fd` into `data` by `until`; `late` says
/// whether it failed for the time.
static bool readAll(int fd, void *data, size_t size,
                    std::chrono::steady_clock::time_point until, bool &late) {
  char *at = static_cast<char *>(data);
  while (size > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    pollfd ready{fd, POLLIN, 0};
    int polled =
        ::poll(&ready, 1, int(std::clamp<int64_t>(left.count(), 0, INT32_MAX)));
    // A wait cut at INT32_MAX ms (a limit of days) goes on.
    if ((polled < 0 && errno == EINTR) ||
        (polled == 0 && std::chrono::steady_clock::now() < until))
      continue;
    late = polled == 0;
    if (polled <= 0)
      return false;
    ssize_t n = ::read(fd, at, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    at += n;
    size -= size_t(n);
  }
  return true;
}

/// CBC's solve of `program` by `deadline`, or nullopt if it did not end
/// by then. CBC's own limit does not bound its root LP relaxation, which
/// on large programs ran minutes past it (143 s for a limit of 5 s): the
/// solve runs in a child process, which is killed a second after the
/// deadline. CBC's limit comes earlier (by a quarter of the time, at most
/// 2 s): it takes a second or two past it to end, and what it found would
/// be lost. (In this process, unbounded, only if no child can be made.)
static llvm::Expected<std::optional<CbcResult>>
solveBounded(const IntegerProgram &program, const std::vector<unsigned> *start,
             std::chrono::steady_clock::time_point deadline) {
  using Clock = std::chrono::steady_clock;
  bool never = deadline == Clock::time_point::max();
  Clock::time_point cbcDeadline =
      never ? deadline
            : deadline -
                  std::min<Clock::duration>(
                      std::chrono::seconds(2),
                      std::max<Clock::duration>(Clock::duration::zero(),
                                                (deadline - Clock::now()) / 4));
  int pipeFds[2];
  if (::pipe(pipeFds) != 0)
    return solveHere(program, start, deadline);
  pid_t parent = ::getpid();
  pid_t child = ::fork();
  if (child < 0) {
    ::close(pipeFds[0]);
    ::close(pipeFds[1]);
    return solveHere(program, start, deadline);
  }
  if (child == 0) {
    // Only this thread lives here. It dies with the parent (killed by its
    // pid alone, it left CBC computing for minutes), fails as a plain
    // process (not with the parent's crash reports), and ends without
    // running the parent's exit handlers.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(1);
    // The parent's unwritten stdout was copied into this process: dropped,
    // lest CBC's messages flush it to the user's stdout a second time. Its
    // messages go to /dev/null (where there is one).
    ::__fpurge(stdout);
    if (int null = ::open("/dev/null", O_WRONLY); null >= 0)
      ::dup2(null, STDOUT_FILENO);
    for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTERM,
                       SIGINT, SIGQUIT, SIGHUP, SIGPIPE})
      std::signal(signal, SIG_DFL);
    std::set_new_handler(nullptr);
    ::close(pipeFds[0]);
    CbcResult result = solveHere(program, start, cbcDeadline);
    uint64_t count = result.values.size();
    bool flags[3] = {result.provenOptimal, result.provenInfeasible,
                     result.secondsLimitReached};
    bool sent =
        writeAll(pipeFds[1], flags, sizeof flags) &&
        writeAll(pipeFds[1], &result.bestPossible,
                 sizeof result.bestPossible) &&
        writeAll(pipeFds[1], &count, sizeof count) &&
        writeAll(pipeFds[1], result.values.data(), count * sizeof(double));
    ::_exit(sent ? 0 : 1);
  }
  ::close(pipeFds[1]);
  Clock::time_point until =
      never ? deadline : deadline + std::chrono::seconds(1);
  CbcResult result;
  bool flags[3];
  uint64_t count = 0;
  bool late = false;
  bool read = readAll(pipeFds[0], flags, sizeof flags, until, late) &&
              readAll(pipeFds[0], &result.bestPossible,
                      sizeof result.bestPossible, until, late) &&
              readAll(pipeFds[0], &count, sizeof count, until, late) &&
              count <= program.objective.size();
  if (read) {
    result.values.resize(count);
    read = readAll(pipeFds[0], result.values.data(), count * sizeof(double),
                   until, late);
  }
  ::close(pipeFds[0]);
  if (!read)
    ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!read && late)
    return std::nullopt;
  if (!read)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the auto-sharding solver failed: its process " +
            (WIFSIGNALED(status)
                 ? "was killed by signal " + std::to_string(WTERMSIG(status))
                 : "ended with exit code " +
                       std::to_string(WEXITSTATUS(status))) +
            " (CBC ran out of memory or crashed)");
  result.provenOptimal = flags[0];
  result.provenInfeasible = flags[1];
  result.secondsLimitReached = flags[2];
  return std::optional<CbcResult>(std::move(result));
}

/// The smallest budget some choice fits, as CBC finds it by `deadline`
/// (from the leanest choice of each node): the same program with the peak
/// of the live sets as its objective, and no costs.
static LeastPeak leastPeak(const ShardingProblem &problem,
                           std::chrono::steady_clock::time_point deadline) {
  std::vector<unsigned> lean = leanestChoice(problem, liveSetsByNode(problem));
  LeastPeak least{peakMemory(problem, lean), false, 0};
  if (std::chrono::steady_clock::now() >= deadline)
    return least;
  // Bytes in units of the leanest peak, so CBC's absolute tolerances
  // apply to numbers near 1.
  double unit = least.found > 0 ? least.found : 1;
  CostScale free{0, 0};
  IntegerProgram program;
  addNodeChoices(problem, free, program);
  addEdgePairs(problem, free, program);
  int peak = program.addColumn(1, false);
  program.upper[peak] = std::numeric_limits<double>::max();
  if (!addMemoryRows(problem, program, deadline, peak, unit))
    return least;
  llvm::Expected<std::optional<CbcResult>> solved =
      solveBounded(program, &lean, deadline);
  if (!solved) {
    // Only a bound is lost: the leanest choice's peak stands.
    llvm::consumeError(solved.takeError());
    return least;
  }
  if (!*solved)
    return least;
  const CbcResult &result = **solved;
  if (!result.values.empty()) {
    // The exact peak of the choice found, not CBC's within its tolerance.
    double found =
        peakMemory(problem, cbcChoice(problem, program, result.values.data()));
    least.found = std::min(least.found, found);
  }
  least.proven = result.provenOptimal;
  least.bound =
      least.proven ? least.found : std::max(0.0, result.bestPossible * unit);
  return least;
}

llvm::Expected<ShardingSolution> solveWithCbc(const ShardingProblem &problem,
                                              double timeLimitSeconds) {
  assert(isWellFormed(problem) && "a consistent problem");
  auto began = std::chrono::steady_clock::now();
  if (problem.nodes.empty()) {
    double peak = peakMemory(problem, {});
    if (peak > problem.memoryBudget)
      return noFit(problem, {peak, true, peak});
    return ShardingSolution();
  }
  llvm::Expected<CostScale> scale = costScale(problem);
  if (!scale)
    return scale.takeError();
  auto deadline = deadlineAfter(began, timeLimitSeconds);
  std::optional<std::vector<unsigned>> start = greedyChoice(problem, deadline);
  if (std::chrono::steady_clock::now() >= deadline) {
    // No time left for CBC (whose root LP its limit does not bound): the
    // greedy choice stands.
    if (!start)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the time limit passed before the solver ran, and the greedy "
          "choice does not fit the memory budget");
    return greedySolution(problem, *start, began);
  }

  IntegerProgram program;
  addNodeChoices(problem, *scale, program);
  addEdgePairs(problem, *scale, program);
  // Out of time while building the program: as if CBC found nothing.
  std::optional<CbcResult> solved;
  if (addMemoryRows(problem, program, deadline)) {
    llvm::Expected<std::optional<CbcResult>> bounded =
        solveBounded(program, start ? &*start : nullptr, deadline);
    if (!bounded)
      return bounded.takeError();
    solved = std::move(*bounded);
  }
  bool found = solved && !solved->values.empty();
  // Out of time before CBC found a choice (its status may then read
  // infeasible, which the greedy choice disproves): that one stands.
  if (!found && start)
    return greedySolution(problem, *start, began);
  if (!solved || solved->provenInfeasible || !found) {
    if (!solved || solved->secondsLimitReached)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the auto-sharding solver found no solution within its time limit "
          "of " +
              std::to_string(timeLimitSeconds) + " s");
    return noFit(problem, leastPeak(problem, deadline));
  }
  ShardingSolution solution;
  solution.status = solved->provenOptimal ? ShardingSolution::Status::Optimal
                                          : ShardingSolution::Status::TimeLimit;
  solution.choice = cbcChoice(problem, program, solved->values.data());
  solution.cost = evaluate(problem, solution.choice);
  solution.bound = solution.status == ShardingSolution::Status::Optimal
                       ? solution.cost
                       : scale->unscaled(solved->bestPossible);
  solution.seconds = secondsSince(began);
  return solution;
}

} // namespace spmd
