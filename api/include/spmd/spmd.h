//===- spmd/spmd.h - mark_sharding from C++ ---------------------*- C++ -*-===//
//
// The public C++ API: the concepts of torch_xla.distributed.spmd in C++.
// Write a program for one big device (an MLIR module, or the tensor builder),
// mark the sharding of a few tensors with a mesh and a partition spec,
// compile once, and run on all local devices as one logical device:
//
//   spmd::Mesh mesh({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, {"data", "model"});
//   auto program = spmd::Program::fromFile("mlp.mlir");
//   program->mark_sharding(program->argument(0), mesh, {"data", spmd::None});
//   auto outputs = program->run({x, w1, w2});
//   auto host = (*outputs)[0].to_host();
//
// Every fallible call returns absl::Status or absl::StatusOr<T>; nothing
// throws or aborts on misuse. This is the only header users include.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SPMD_H
#define SPMD_SPMD_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace spmd {

namespace detail {
struct MeshAccess;
} // namespace detail

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

/// An N-dimensional array of devices with named axes. `device_ids` are laid
/// out row-major over `mesh_shape`, as in torch_xla and JAX. A mesh built
/// from an invalid description keeps the reason in status(); every call
/// given it returns that status.
class Mesh {
public:
  Mesh(std::vector<int64_t> device_ids, std::vector<int64_t> mesh_shape,
       std::vector<std::string> axis_names = {});
  /// The same, reporting an invalid description at once.
  static absl::StatusOr<Mesh> create(std::vector<int64_t> device_ids,
                                     std::vector<int64_t> mesh_shape,
                                     std::vector<std::string> axis_names = {});

  absl::Status status() const { return status_; }
  /// The axes in order: name and size.
  std::vector<std::pair<std::string, int64_t>> shape() const;
  /// Device ids in logical (row-major) order, shaped by mesh_shape().
  const std::vector<int64_t> &get_logical_mesh() const { return device_ids_; }
  const std::vector<int64_t> &mesh_shape() const { return mesh_shape_; }
  const std::vector<std::string> &axis_names() const { return axis_names_; }
  int64_t size() const;
  /// Processes along each axis (all ones unless built from a HybridMesh).
  const std::vector<int64_t> &dcn_shape() const { return dcn_shape_; }

protected:
  Mesh() = default;
  std::vector<int64_t> device_ids_, mesh_shape_, dcn_shape_;
  std::vector<std::string> axis_names_;
  absl::Status status_;
  /// Built from a HybridMesh, whose ICI shape says how many devices each
  /// process runs; other meshes must fit in the devices that exist.
  bool states_devices_per_process_ = false;
  friend struct detail::MeshAccess;
};

/// A mesh spanning processes: `ici_mesh_shape` devices inside each process
/// times `dcn_mesh_shape` processes, axis by axis (the DCN index major).
class HybridMesh : public Mesh {
public:
  HybridMesh(std::vector<int64_t> ici_mesh_shape,
             std::vector<int64_t> dcn_mesh_shape,
             std::vector<std::string> axis_names = {});
  /// A HybridMesh configuration file (YAML or JSON, see the user guide).
  static absl::StatusOr<HybridMesh> fromFile(const std::string &path);

  const std::vector<int64_t> &ici_mesh_shape() const { return ici_shape_; }

private:
  HybridMesh() = default;
  std::vector<int64_t> ici_shape_;
};

/// The mesh mark_sharding uses when given none.
void set_global_mesh(const Mesh &mesh);
std::optional<Mesh> get_global_mesh();

//===----------------------------------------------------------------------===//
// Runtime queries (as torch_xla.runtime)
//===----------------------------------------------------------------------===//

// Devices are virtual CPU devices: threads of this process sharing its
// cores (and, under mpirun, the devices of every process). An invalid
// SPMD_NUM_DEVICES is returned by every call given a mesh; the counts
// then count cores.

/// Devices of all processes (each process has as many as this one).
int64_t global_runtime_device_count();
/// Devices this process has: SPMD_NUM_DEVICES if set, else one per core
/// the process may run on (its CPU affinity).
int64_t addressable_device_count();
/// Devices of this host: addressable_device_count() * local_process_count().
int64_t local_device_count();
/// Processes taking part.
int64_t world_size();
int64_t process_index();
/// Processes on this host.
int64_t local_process_count();
/// In SPMD mode each process runs its devices as one logical device: its
/// ordinal among all processes (process_index()), and among the processes
/// of this host.
int64_t global_ordinal();
int64_t local_ordinal();
/// local_ordinal() == 0, or global_ordinal() == 0 when `local` is false.
bool is_master_ordinal(bool local = true);
/// "CPU".
std::string device_type();

struct MemoryInfo {
  /// Tensor storage the runtime holds for the device now.
  int64_t bytes_used = 0;
  /// The memory the process may use (its cgroup limit or the machine's),
  /// shared evenly by its devices.
  int64_t bytes_limit = 0;
};
/// The memory of this process's device at position `device`
/// (0 <= device < addressable_device_count(), or beyond where a HybridMesh
/// had the process run more); OutOfRange otherwise.
absl::StatusOr<MemoryInfo> get_memory_info(int64_t device);

//===----------------------------------------------------------------------===//
// Partition specs
//===----------------------------------------------------------------------===//

/// A mesh axis, by name or by index.
using Axis = std::variant<std::string, int64_t>;

/// One entry of a partition spec: the dimension is replicated (None), or
/// split over one axis, or over several (major to minor).
class SpecEntry {
public:
  SpecEntry(std::nullopt_t) {}
  SpecEntry(const char *axis) : axes_{Axis(std::string(axis))} {}
  SpecEntry(std::string axis) : axes_{Axis(std::move(axis))} {}
  SpecEntry(int axis) : axes_{Axis(int64_t(axis))} {}
  SpecEntry(int64_t axis) : axes_{Axis(axis)} {}
  SpecEntry(std::initializer_list<Axis> axes) : axes_(axes) {}
  const std::vector<Axis> &axes() const { return axes_; }

private:
  std::vector<Axis> axes_;
};

inline constexpr std::nullopt_t None = std::nullopt;
/// One entry per dimension; axes left out are replicated.
using PartitionSpec = std::vector<SpecEntry>;

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

enum class DType { F32, F64, F16, BF16, I1, I8, I16, I32, I64 };

namespace detail {
struct TensorStorage;
struct ShardedStorage;
struct ProgramState;
template <typename T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<float>() { return DType::F32; }
template <> constexpr DType dtypeOf<double>() { return DType::F64; }
template <> constexpr DType dtypeOf<bool>() { return DType::I1; }
template <> constexpr DType dtypeOf<int8_t>() { return DType::I8; }
template <> constexpr DType dtypeOf<int16_t>() { return DType::I16; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::I32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::I64; }
} // namespace detail

/// A dense row-major tensor in host memory.
class HostTensor {
public:
  /// A 0-d f32 zero.
  HostTensor();
  /// Zeros. A negative size or more than 2^40 elements makes a tensor
  /// holding nothing whose status() says why; every call given it returns
  /// that status.
  HostTensor(DType dtype, std::vector<int64_t> shape);
  absl::Status status() const;
  /// `values` (row-major) of `shape`.
  template <typename T>
  static absl::StatusOr<HostTensor> fromVector(std::vector<int64_t> shape,
                                               absl::Span<const T> values) {
    return fromBytes(detail::dtypeOf<T>(), std::move(shape), values.data(),
                     values.size() * sizeof(T));
  }
  /// `bytes` bytes at `data`, row-major; an I1 element is a byte, 0 or 1.
  static absl::StatusOr<HostTensor> fromBytes(DType dtype,
                                              std::vector<int64_t> shape,
                                              const void *data, size_t bytes);

  DType dtype() const;
  std::vector<int64_t> shape() const;
  int64_t numel() const;
  const void *data() const;
  void *data();
  /// The elements as T, which must be the dtype's C++ type.
  template <typename T> absl::StatusOr<std::vector<T>> values() const {
    if (detail::dtypeOf<T>() != dtype())
      return typeMismatch();
    const T *begin = static_cast<const T *>(data());
    return std::vector<T>(begin, begin + numel());
  }
  /// Any element as a double.
  double at(int64_t flat_index) const;

private:
  absl::Status typeMismatch() const;
  friend struct detail::TensorStorage;
  std::shared_ptr<detail::TensorStorage> storage_;
};

/// A tensor split over the local devices. Its shards stay on their devices
/// across runs, so parameters stay sharded between training steps.
class ShardedTensor {
public:
  struct Shard {
    /// The local buffer (padded where the dimension is split unevenly).
    HostTensor data;
    /// The global [begin, end) this device holds, per dimension.
    std::vector<std::pair<int64_t, int64_t>> indices;
    int64_t device;
  };

  const std::vector<int64_t> &shape() const;
  DType dtype() const;
  /// The sharding with its mesh, as spmd-opt prints it
  /// (`<@mesh, [{"data"}, {}]>`).
  std::string sharding() const;
  std::vector<Shard> local_shards() const;
  /// The global tensor, assembled from the devices holding each element.
  absl::StatusOr<HostTensor> to_host() const;

private:
  friend struct detail::ShardedStorage;
  std::shared_ptr<detail::ShardedStorage> storage_;
};

/// Places `tensor` on the local devices of `mesh` as `spec` says (uneven
/// shapes padded).
absl::StatusOr<ShardedTensor> mark_sharding(const HostTensor &tensor,
                                            const Mesh &mesh,
                                            const PartitionSpec &spec);

//===----------------------------------------------------------------------===//
// Checkpoints (safetensors)
//===----------------------------------------------------------------------===//

/// Saves `tensors` in the folder `dir` (made if missing): each process
/// writes the shards its devices hold, each shard once, into a safetensors
/// file of its own, and process 0 writes `index.json`, which names every
/// shard's file, byte range, global box and checksums. A save replaces the
/// checkpoint already in `dir` only once the new one is complete: a save
/// killed on the way leaves the previous one loadable. Under mpirun every
/// process calls it with the same tensors, `dir` is a folder all of them
/// see, and all return the same outcome.
absl::Status
save_checkpoint(const std::string &dir,
                const std::map<std::string, ShardedTensor> &tensors);

/// Loads the tensors `targets` names, each placed on its mesh as its spec
/// says (any mesh, spec and process count), from: a folder save_checkpoint
/// wrote, a safetensors file, or a folder of published weights
/// (`model.safetensors`, or the files `model.safetensors.index.json`
/// lists). Each process reads only the byte ranges its devices hold, and
/// verifies the checksums of what it reads. A tensor missing, a file
/// truncated or corrupted is an error naming the file and the tensor, and
/// nothing is returned; under mpirun all processes return the same outcome.
absl::StatusOr<std::map<std::string, ShardedTensor>> load_checkpoint(
    const std::string &dir,
    const std::map<std::string, std::pair<Mesh, PartitionSpec>> &targets);

//===----------------------------------------------------------------------===//
// Sharded input loading (torch_xla's ParallelLoader)
//===----------------------------------------------------------------------===//

/// Feeds batches already on the devices: a background thread takes each
/// batch from the source, places input i as `input_sharding[i]` says, and
/// keeps up to `prefetch` placed batches ahead of the one being used, so
/// loading overlaps run(). Under mpirun each process places only its own
/// shards (from a folder, it reads only their bytes).
class ParallelLoader {
public:
  using Batch = std::vector<HostTensor>;
  /// Returns the next batch, std::nullopt at the end of the data.
  using Source = std::function<absl::StatusOr<std::optional<Batch>>()>;
  using InputSharding = std::vector<std::pair<Mesh, PartitionSpec>>;

  static absl::StatusOr<ParallelLoader>
  create(Source source, InputSharding input_sharding, int64_t prefetch = 2);
  /// The batches of `dir`, in name order: safetensors files or checkpoint
  /// folders (save_checkpoint's) whose tensors `input0`, `input1`, ... are
  /// the inputs, or, for one input, `.npy` files.
  static absl::StatusOr<ParallelLoader> fromFolder(const std::string &dir,
                                                   InputSharding input_sharding,
                                                   int64_t prefetch = 2);
  ParallelLoader(ParallelLoader &&) noexcept;
  ParallelLoader &operator=(ParallelLoader &&) noexcept;
  /// Stops the thread (after the batch it is loading, if any) and frees
  /// the batches it loaded ahead.
  ~ParallelLoader();

  /// The next batch on the devices; std::nullopt once the data ended. An
  /// error of the source, or a batch whose inputs differ in number, shape
  /// or type from the first batch's, is returned here, and ends the data.
  absl::StatusOr<std::optional<std::vector<ShardedTensor>>> next();
  /// Seconds next() waited for a batch, in all; batches it returned.
  double wait_seconds() const;
  int64_t batches() const;

private:
  struct State;
  explicit ParallelLoader(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

class Program;
namespace dist {
/// How collectives combine (torch.distributed's ReduceOp).
enum class ReduceOp { SUM, PRODUCT, MAX, MIN };
} // namespace dist

/// A tensor value of a program: an argument, a result or an intermediate.
class Value {
public:
  Value() = default;
  bool valid() const { return program_ != nullptr; }
  const std::vector<int64_t> &shape() const { return shape_; }
  DType dtype() const { return dtype_; }

private:
  friend class Program;
  friend struct detail::ProgramState;
  const detail::ProgramState *program_ = nullptr;
  /// Tells the program apart from a later one at the same address.
  uint64_t program_id_ = 0;
  void *handle_ = nullptr;
  /// A result of the entry (whatever value it returns), or -1.
  int64_t result_index_ = -1;
  std::vector<int64_t> shape_;
  DType dtype_ = DType::F32;
};

/// An input of run(): host data, split by the program, or a tensor already
/// on the devices (resharded on the devices if its sharding differs).
using Input = std::variant<HostTensor, ShardedTensor>;

class Program {
public:
  /// A linalg-on-tensors module; `entry` empty means the function no other
  /// function calls.
  static absl::StatusOr<Program> fromFile(const std::string &path,
                                          const std::string &entry = "");
  static absl::StatusOr<Program> fromString(const std::string &mlir,
                                            const std::string &entry = "");
  /// An empty function `name` for the tensor builder.
  static Program build(const std::string &name = "main");
  Program(Program &&) noexcept;
  Program &operator=(Program &&) noexcept;
  ~Program();

  /// The entry's arguments and results. A result stands for the entry's
  /// result itself: marking it annotates the result, whatever value is
  /// returned there.
  Value argument(int64_t index) const;
  Value result(int64_t index) const;
  int64_t num_arguments() const;
  int64_t num_results() const;
  /// A value of the entry by its SSA name in the source (`%scores`).
  absl::StatusOr<Value> value(const std::string &ssa_name) const;

  /// Shards `value` over `mesh` (the global mesh when none). An argument or
  /// result gets the annotation; an intermediate a sharding constraint.
  absl::Status mark_sharding(const Value &value, const Mesh &mesh,
                             const PartitionSpec &spec);
  absl::Status mark_sharding(const Value &value, const PartitionSpec &spec);
  absl::Status clear_sharding(const Value &value);

  /// How compile() treats the shardings left open.
  struct CompileOptions {
    /// Choose every sharding left open from a cost model (spmd-auto-shard,
    /// torch_xla's use_spmd(auto=True)); the marked ones stay. A program
    /// with nothing marked is sharded on the global mesh.
    bool auto_shard = false;
    /// Bytes per device the plan may hold (arguments, results, live
    /// values); 0 for no limit.
    int64_t memory_budget = 0;
    /// How many times slower a byte crosses a DCN axis of a HybridMesh.
    double dcn_cost = 10;
  };

  /// Propagates, partitions and builds the plan, unless an identical
  /// program with identical shardings was compiled before (in this process,
  /// or in the on-disk cache). The options stay for later compile() and
  /// run() calls (the defaults until some are given).
  absl::Status compile();
  absl::Status compile(const CompileOptions &options);
  /// The plan report (JSON) of the last auto-sharded compile(): each
  /// argument's sharding, the modelled cost and the solver's status; empty
  /// when it was not auto-sharded.
  std::string auto_shard_report() const;
  /// The compiler's warnings about the program as last compiled (by
  /// compile(), or by run() for the shardings of its inputs), one string
  /// each: `file:line:col: warning: ...` (no place for ops the builder
  /// made), its notes on the lines after. Empty before the first compile.
  /// The program compiles and runs as written; a warning names what it may
  /// do that its author did not mean (a manual region's result said to be
  /// replicated that can differ between devices, docs/api.md lists them).
  std::vector<std::string> warnings() const;
  /// Runs on all local devices (compiling first if needed).
  absl::StatusOr<std::vector<ShardedTensor>> run(std::vector<Input> inputs);

  /// The module as MLIR text (global, with its shardings).
  std::string to_string() const;
  /// The partitioned module (compiling first if needed).
  absl::StatusOr<std::string> partitioned() const;

  //===--------------------------------------------------------------------===//
  // Tensor builder: linalg-on-tensors ops appended to the entry. A call
  // given values that do not fit returns an empty Value and keeps the error
  // (status()); compile() and run() return it too.
  //===--------------------------------------------------------------------===//
  /// A new argument of the entry.
  Value parameter(std::vector<int64_t> shape, DType dtype = DType::F32);
  Value constant(const HostTensor &value);
  /// [m, k] x [k, n]; batch_matmul: [b, m, k] x [b, k, n].
  Value matmul(const Value &a, const Value &b);
  Value batch_matmul(const Value &a, const Value &b);
  /// Elementwise, on tensors of one shape and type.
  Value add(const Value &a, const Value &b);
  Value sub(const Value &a, const Value &b);
  Value mul(const Value &a, const Value &b);
  Value div(const Value &a, const Value &b);
  Value max(const Value &a, const Value &b);
  Value exp(const Value &x);
  Value tanh(const Value &x);
  Value relu(const Value &x);
  /// The tanh approximation (GPT-2's).
  Value gelu(const Value &x);
  /// The dimensions `dims` removed.
  Value reduce_sum(const Value &x, std::vector<int64_t> dims);
  Value reduce_max(const Value &x, std::vector<int64_t> dims);
  Value mean(const Value &x, std::vector<int64_t> dims);
  Value transpose(const Value &x, std::vector<int64_t> permutation);
  Value reshape(const Value &x, std::vector<int64_t> shape);
  /// `x` broadcast to `shape`, its dimensions at `dims` (increasing).
  Value broadcast(const Value &x, std::vector<int64_t> shape,
                  std::vector<int64_t> dims);
  Value softmax(const Value &x, int64_t dim);
  /// (x - mean) / sqrt(var + epsilon) over `dim`, without scale or bias.
  Value layer_norm(const Value &x, int64_t dim, double epsilon = 1e-5);
  Value slice(const Value &x, std::vector<int64_t> offsets,
              std::vector<int64_t> sizes);
  Value concat(const std::vector<Value> &values, int64_t dim);
  /// Appends `values` to the entry's results.
  absl::Status output(const std::vector<Value> &values);

  //===--------------------------------------------------------------------===//
  // Manual regions (JAX's shard_map, Shardy's manual_computation)
  //===--------------------------------------------------------------------===//
  /// Computes `body` per device over `manual_axes` of `mesh`. `body` gets
  /// the local pieces of `inputs` (each dimension divided by the manual
  /// axes its spec names first) and returns the local results, which
  /// `out_specs` assemble; a result whose spec leaves a manual axis out must
  /// be equal along it. Inside `body` the builder's calls make the region's
  /// ops and the collectives below move data over the manual axes; the
  /// mesh's other axes stay automatic (specs may name them after the manual
  /// ones), and the body is partitioned over them. Returns the global
  /// results; none after an error (status()).
  std::vector<Value> shard_map(
      const std::function<std::vector<Value>(const std::vector<Value> &)> &body,
      const std::vector<Value> &inputs, const Mesh &mesh,
      const std::vector<PartitionSpec> &in_specs,
      const std::vector<PartitionSpec> &out_specs,
      const std::vector<std::string> &manual_axes);
  /// Collectives of a shard_map body over some of its manual axes `axes`: a
  /// device's group is the devices that differ from it only along them,
  /// ordered by their coordinates along `axes` (major to minor).
  Value all_reduce(const Value &x, const std::vector<std::string> &axes,
                   dist::ReduceOp op = dist::ReduceOp::SUM);
  /// The members' pieces concatenated along `dim`.
  Value all_gather(const Value &x, const std::vector<std::string> &axes,
                   int64_t dim);
  /// Member i's block (ceil(d / n), the last padded) along `dim` of the
  /// reduction.
  Value reduce_scatter(const Value &x, const std::vector<std::string> &axes,
                       int64_t dim, dist::ReduceOp op = dist::ReduceOp::SUM);
  /// Piece j along `split_dim` sent to member j; the pieces received are
  /// concatenated along `concat_dim`.
  Value all_to_all(const Value &x, const std::vector<std::string> &axes,
                   int64_t split_dim, int64_t concat_dim);
  /// Each (source, target) pair sends source's value to target; a member
  /// that is no target receives zeros.
  Value ppermute(const Value &x, const std::vector<std::string> &axes,
                 const std::vector<std::pair<int64_t, int64_t>> &pairs);
  absl::Status status() const;

private:
  friend struct detail::ProgramState;
  explicit Program(std::unique_ptr<detail::ProgramState> state);
  std::unique_ptr<detail::ProgramState> state_;
};

//===----------------------------------------------------------------------===//
// Replicated execution (torch_xla's spawn, torch.distributed's groups)
//===----------------------------------------------------------------------===//

/// Runs `fn(index)` once per device of this process, each on its own
/// device, and returns when all returned. `nprocs` is 1 (one device runs
/// `fn(0)`) or addressable_device_count() (the default). Inside `fn` the
/// devices meet only in the calls of spmd::dist and spmd::xm. Under
/// mpirun every process calls it and `index` is global (process-major).
/// Returns the first error (by device) that one of those calls returned on
/// any device, or the exception a device threw; OK when none; under
/// mpirun every process returns the same outcome. Does not nest; inside
/// `fn`, Program::run runs the program on the calling device alone, as
/// written for one device.
absl::Status spawn(std::function<void(int64_t index)> fn,
                   std::optional<int64_t> nprocs = {});

namespace detail {
struct GroupAccess;
struct WorkAccess;
/// `status`, kept (when an error) as the calling device's for spawn to
/// return.
absl::Status noteDeviceStatus(absl::Status status);
} // namespace detail

namespace dist {

/// The devices a collective runs over: every device (WORLD, the default
/// Group), or the ranks new_group listed, in that order.
class Group {
public:
  Group() = default;
  bool is_world() const { return ranks_.empty(); }
  /// The members' ranks (empty for WORLD).
  const std::vector<int64_t> &ranks() const { return ranks_; }

private:
  friend struct spmd::detail::GroupAccess;
  std::vector<int64_t> ranks_;
};

/// An isend's or irecv's completion.
class Work {
public:
  Work();
  /// Waits (at most the timeout) until it completed; its outcome.
  absl::Status wait();
  /// Whether it completed (an irecv whose message arrived is completed
  /// here, its tensor filled). A failed one has completed too, as in
  /// torch.distributed: wait() then returns its error.
  bool is_completed();

private:
  friend struct spmd::detail::WorkAccess;
  struct State;
  std::shared_ptr<State> state_;
};

// Inside spmd::spawn's function; outside it, get_rank() and
// get_world_size() are -1 and the calls below return FailedPrecondition.
// Ranks, `src` and `dst` are global device indices. A collective is called
// by every member of its group, in the same order on each; one whose
// members called different collectives, or the same with other shapes,
// types, roots or operations, returns an error on every member naming the
// devices and their calls. A member that does not come within
// SPMD_MPI_TIMEOUT seconds (60 by default), or that returned or threw,
// fails it too. Output lists are resized and filled with fresh tensors.

/// The calling device's global index.
int64_t get_rank();
int64_t get_world_size();
/// A group of `ranks` (distinct, in range): called by every device,
/// members or not, in the same order on each.
absl::StatusOr<Group> new_group(std::vector<int64_t> ranks);
/// `t` becomes the reduction of every member's `t`.
absl::Status all_reduce(HostTensor &t, ReduceOp op = ReduceOp::SUM,
                        const Group &g = {});
/// `t` becomes `src`'s `t`.
absl::Status broadcast(HostTensor &t, int64_t src, const Group &g = {});
/// `dst`'s `t` becomes the reduction; the others' stays.
absl::Status reduce(HostTensor &t, int64_t dst, ReduceOp op = ReduceOp::SUM,
                    const Group &g = {});
/// `out[i]` is member i's `t`.
absl::Status all_gather(std::vector<HostTensor> &out, const HostTensor &t,
                        const Group &g = {});
/// On `dst`, `(*out)[i]` is member i's `t` (`out` may be null elsewhere).
absl::Status gather(const HostTensor &t, std::vector<HostTensor> *out,
                    int64_t dst, const Group &g = {});
/// Member i's `t` becomes `src`'s `(*in)[i]` (`in` may be null elsewhere).
absl::Status scatter(HostTensor &t, const std::vector<HostTensor> *in,
                     int64_t src, const Group &g = {});
/// Member i's `out` becomes the reduction of every member's `in[i]`.
absl::Status reduce_scatter(HostTensor &out, const std::vector<HostTensor> &in,
                            ReduceOp op = ReduceOp::SUM, const Group &g = {});
/// Member i's `out[j]` is member j's `in[i]`.
absl::Status all_to_all(std::vector<HostTensor> &out,
                        const std::vector<HostTensor> &in, const Group &g = {});
absl::Status barrier(const Group &g = {});
/// Point to point: a send never waits; a recv waits for the oldest message
/// `src` sent this device, whose type and shape must be `t`'s.
absl::Status send(const HostTensor &t, int64_t dst);
absl::Status recv(HostTensor &t, int64_t src);
Work isend(const HostTensor &t, int64_t dst);
/// `t` is filled when the Work completes.
Work irecv(HostTensor &t, int64_t src);

} // namespace dist

namespace xm {

/// Reduces each of `inputs` in place over the caller's group (the one of
/// `groups` that holds it; every device when empty), then multiplies
/// floating-point results by `scale`.
absl::Status all_reduce(dist::ReduceOp op, std::vector<HostTensor> &inputs,
                        double scale = 1.0,
                        const std::vector<std::vector<int64_t>> &groups = {});
/// Every device's `payload`, by rank, once all of them called it with the
/// same `tag`.
absl::StatusOr<std::vector<std::string>>
rendezvous(const std::string &tag, const std::string &payload = "");
/// `reduce_fn` (taking a std::vector<T> of every device's `data`, by rank)
/// on every device. T is copied as bytes; devices whose T differ in size
/// get an error.
template <class T, class Fn>
absl::StatusOr<T> mesh_reduce(const std::string &tag, const T &data,
                              Fn reduce_fn) {
  static_assert(std::is_trivially_copyable_v<T>,
                "mesh_reduce sends T as its bytes");
  absl::StatusOr<std::vector<std::string>> all = rendezvous(
      tag, std::string(reinterpret_cast<const char *>(&data), sizeof(T)));
  if (!all.ok())
    return all.status();
  std::vector<T> values(all->size());
  for (size_t i = 0; i < values.size(); ++i) {
    if ((*all)[i].size() != sizeof(T))
      return detail::noteDeviceStatus(absl::InvalidArgumentError(
          "mesh_reduce '" + tag + "': device " + std::to_string(i) + " sent " +
          std::to_string((*all)[i].size()) + " bytes, not " +
          std::to_string(sizeof(T))));
    std::memcpy(&values[i], (*all)[i].data(), sizeof(T));
  }
  return reduce_fn(std::move(values));
}

} // namespace xm

//===----------------------------------------------------------------------===//
// Cache and inspection
//===----------------------------------------------------------------------===//

/// Keeps compiled programs in `path` (created if missing) so that a later
/// process skips propagation and partitioning. `readonly`: use entries,
/// never write them. Entries are programs this process runs: whoever can
/// write `path` decides what they compute (the hash in each entry catches
/// accidents, not tampering). So a cache written to must belong to this
/// user and be writable by no one else (PermissionDenied otherwise, as ssh
/// with its configuration); a read-only one is not checked and must be
/// trusted. An entry that is not a regular file, is too large, or fails
/// the checks of a program read from text is compiled again (and
/// rewritten unless `readonly`), never an error (docs/api.md).
absl::Status initialize_cache(const std::string &path, bool readonly = false);

/// Compile count and time, cache hits and misses, run count and time,
/// bytes communicated per collective kind.
std::string metrics_report();
std::vector<std::string> counter_names();
/// A counter's value (0 for one never counted).
int64_t counter_value(const std::string &name);

/// The device grid of a 1-D or 2-D tensor's sharding in the terminal, the
/// ids of the devices holding each block inside it.
absl::StatusOr<std::string> visualize_sharding(const ShardedTensor &tensor);
absl::StatusOr<std::string>
visualize_sharding(const std::vector<int64_t> &shape, const Mesh &mesh,
                   const PartitionSpec &spec);

} // namespace spmd

#endif // SPMD_SPMD_H
