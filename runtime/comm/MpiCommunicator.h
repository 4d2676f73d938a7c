//===- MpiCommunicator.h - Collectives across processes ---------*- C++ -*-===//
//
// The communicator of a run that spans processes. A group inside this
// process goes to a LocalCommunicator. A group that crosses processes is
// run hierarchically, for all of this process's groups of the collective
// at once: its devices meet, the last to arrive leads; it combines what
// its devices can combine inside the process (sums of the group's local
// members, pieces for each other process) and sends through MPI only
// what other processes lack:
// - all_reduce: a local reduction, then a reduce-scatter and an all-gather
//   between processes, each over 1/k of the data (k processes), so MPI
//   carries 2 (k-1)/k of one buffer per group and process;
// - reduce_scatter: each other member's piece, reduced inside the process;
// - all_gather: this process's buffers, once per other process;
// - all_to_all: the pieces other processes' members receive;
// - collective_permute: the buffers whose target is in another process.
// Each (mesh, axis set) has one MPI communicator (MPI_Comm_split of the
// processes its groups connect), made once by `prepare`.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_MPICOMMUNICATOR_H
#define SPMD_RUNTIME_MPICOMMUNICATOR_H

#include "runtime/comm/Communicator.h"
#include "runtime/comm/MpiWorld.h"

namespace spmd::runtime {

class MpiCommunicator : public Communicator {
public:
  /// Collectives inside the process time out as LocalCommunicator's do,
  /// after `localTimeout`; the others after the world's timeout.
  explicit MpiCommunicator(
      MpiWorld &world,
      std::chrono::milliseconds localTimeout = std::chrono::seconds(60));
  ~MpiCommunicator() override;

  /// Makes the MPI communicator of every axis set of `mesh` in `axisSets`
  /// not made yet. Collective over every process: all call it with the
  /// same arguments, in the same order.
  llvm::Error prepare(const DeviceMesh &mesh,
                      llvm::ArrayRef<llvm::SmallVector<AxisIndex>> axisSets);

  llvm::Expected<TensorRef> run(const CollectiveCall &call,
                                const Collective &collective,
                                TensorRef local) override;
  llvm::Expected<std::vector<TensorRef>>
  exchange(const std::string &key, const std::string &what, int64_t device,
           llvm::ArrayRef<int64_t> group, TensorRef local) override;
  llvm::Expected<TensorRef> allReduce(const std::string &key,
                                      const std::string &what, int64_t device,
                                      llvm::ArrayRef<int64_t> group,
                                      TensorRef local,
                                      ReductionKind kind) override;
  bool fail(int64_t device) override;
  /// A collective whose group stays inside the process ends at once; one
  /// that crosses processes waits for the timeout.
  void depart(int64_t device) override { local.depart(device); }
  void endRun() override { local.endRun(); }

  /// What this process sent through MPI for one collective op.
  struct Traffic {
    std::string collective; // the op and its location
    std::string axes;       // comma-separated
    std::string kind;
    int64_t calls = 0;
    int64_t bytes = 0;
  };
  /// By the collective's name (op and location), kind and axes.
  std::map<std::string, Traffic> traffic() const;
  void clearTraffic();

  struct Plan;
  struct Round;

private:
  const Plan *planFor(const DeviceMesh &mesh, llvm::ArrayRef<AxisIndex> axes);
  /// The collective for every crossing device of this process, whose
  /// inputs `round` holds; fills its outputs.
  llvm::Error lead(const Plan &plan, const Collective &collective, Round &round,
                   const std::string &what);
  /// Counts `bytes` sent through MPI for one run of collective `what`.
  void recordTraffic(const Plan &plan, CollectiveKind kind,
                     const std::string &what, int64_t bytes);

  MpiWorld &world;
  LocalCommunicator local;
  mutable std::mutex mutex; // plans, rounds, traffic
  std::map<std::string, std::unique_ptr<Plan>> plans;
  std::map<std::string, std::shared_ptr<Round>> rounds;
  std::map<std::string, Traffic> sent;
  std::atomic<int64_t> failedDevice{-1};
  std::mutex mpiTurn; // leaders call MPI one at a time
};

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_MPICOMMUNICATOR_H
