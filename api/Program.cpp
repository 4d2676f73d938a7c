//===- Program.cpp - Programs: load, mark shardings, compile, run ---------===//

#include "Internal.h"

#include "driver/Compile.h"

#include "ir/Locations.h"
#include "ir/SpmdDialect.h"
#include "ir/SpmdOps.h"
#include "passes/AutoShardProblem.h"
#include "passes/Dialects.h"
#include "passes/UpstreamParserGuard.h"
#include "sharding/ShardLayout.h"
#include "support/Files.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/DebugStringHelper.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/xxhash.h"

#include "fmt/format.h"
#include "fmt/ranges.h"

#include <atomic>
#include <chrono>

namespace spmd {
using detail::ProgramState;
using detail::ShardedStorage;
using detail::TensorStorage;
using mlir::spmd::SpmdDialect;

namespace {
/// Collects the diagnostics of a scope into one message, each as the
/// tools print them: `file:line:col: error: ...`.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext &context)
      : context(context), handler(&context, [this](mlir::Diagnostic &d) {
          // A status carries what failed; warnings are not that.
          if (d.getSeverity() == mlir::DiagnosticSeverity::Warning)
            return mlir::success();
          append(d);
          for (mlir::Diagnostic &note : d.getNotes())
            append(note);
          return mlir::success();
        }) {}
  absl::Status error(llvm::StringRef fallback) const {
    return absl::InvalidArgumentError(text.empty() ? fallback.str() : text);
  }

private:
  void append(mlir::Diagnostic &d) {
    if (!text.empty())
      text += "\n";
    text += mlir::spmd::fileLineColPrefix(d.getLocation());
    text += mlir::spmd::severityName(d.getSeverity());
    text += ": ";
    text += adviseForTheApi(d.str());
  }
  /// MLIR's parser advises a flag of its command-line tools, or its FAQ,
  /// for ops of dialects it does not know; an API user needs another way.
  std::string adviseForTheApi(std::string message) const {
    size_t flag = message.find("-allow-unregistered-dialect");
    bool listed = llvm::StringRef(message).starts_with("Available dialects:");
    if (flag == std::string::npos && !listed)
      return message;
    size_t sentence = listed ? std::string::npos : message.rfind('.', flag);
    std::string known = fmt::format(
        "the compiler knows the dialects {}, and those a plugin registers "
        "(docs/api.md)",
        llvm::join(context.getAvailableDialects(), ", "));
    if (sentence == std::string::npos)
      return known;
    return message.substr(0, sentence) + ": " + known;
  }

  mlir::MLIRContext &context;
  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};
} // namespace

std::unique_ptr<mlir::MLIRContext> detail::newContext() {
  mlir::DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  context->printOpOnDiagnostic(false);
  return context;
}

absl::StatusCode detail::fileErrorCode(const std::string &path, bool folder) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status) ||
      status.type() == llvm::sys::fs::file_type::file_not_found)
    return absl::StatusCode::kNotFound;
  bool isFolder = status.type() == llvm::sys::fs::file_type::directory_file;
  bool isFile = status.type() == llvm::sys::fs::file_type::regular_file;
  if (folder ? !isFolder : !isFile)
    return absl::StatusCode::kFailedPrecondition;
  return absl::StatusCode::kInvalidArgument;
}

absl::Status detail::movedFrom() {
  return absl::FailedPreconditionError("the program was moved from");
}

static std::atomic<uint64_t> programCount{0};

ProgramState::ProgramState()
    : id(++programCount), context(detail::newContext()) {}

mlir::func::FuncOp ProgramState::entryFunction() const {
  return mlir::ModuleOp(module.get()).lookupSymbol<mlir::func::FuncOp>(entry);
}

static std::optional<DType> elementDType(mlir::Type type) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  mlir::Type element = tensor ? tensor.getElementType() : type;
  llvm::Expected<runtime::ElementType> dtype = runtime::elementTypeOf(element);
  if (!dtype) {
    llvm::consumeError(dtype.takeError());
    return std::nullopt;
  }
  return detail::fromRuntime(*dtype);
}

/// The returned value of `function`'s result `index`.
static mlir::Value returned(mlir::func::FuncOp function, int64_t index) {
  mlir::Operation *ret = function.getBody().front().getTerminator();
  return ret->getOperand(index);
}

Value ProgramState::handle(mlir::Value value) const {
  Value v;
  v.program_ = this;
  v.program_id_ = id;
  v.handle_ = value.getAsOpaquePointer();
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(value.getType()))
    v.shape_.assign(tensor.getShape().begin(), tensor.getShape().end());
  v.dtype_ = elementDType(value.getType()).value_or(DType::F32);
  return v;
}

absl::StatusOr<mlir::Value> ProgramState::resolve(const Value &v) const {
  if (!v.valid())
    return absl::InvalidArgumentError("the value is empty (no program made it)");
  if (v.program_ != this || v.program_id_ != id)
    return absl::InvalidArgumentError(
        "the value belongs to another program");
  if (v.result_index_ >= 0)
    return returned(entryFunction(), v.result_index_);
  return mlir::Value::getFromOpaquePointer(v.handle_);
}

/// `spmd.mesh @name` first in `module`, with the hosts each axis spans
/// where there are several.
static void addMesh(mlir::ModuleOp module, llvm::StringRef name,
                    const DeviceMesh &mesh, llvm::ArrayRef<int64_t> dcnShape) {
  mlir::MLIRContext *ctx = module.getContext();
  mlir::OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  auto op = mlir::spmd::MeshOp::create(b, module.getLoc(), name,
                                       mlir::spmd::MeshAttr::get(ctx, mesh));
  if (llvm::any_of(dcnShape, [](int64_t hosts) { return hosts > 1; }))
    op.setDcnShapeAttr(mlir::DenseI64ArrayAttr::get(ctx, dcnShape));
}

/// The `spmd.mesh` symbol of `module` for `mesh`, made first in it on
/// first use; `dcnShape` (hosts per axis) when it spans several.
static std::string meshSymbolIn(mlir::ModuleOp module, const DeviceMesh &mesh,
                                llvm::ArrayRef<int64_t> dcnShape) {
  auto attr = mlir::spmd::MeshAttr::get(module.getContext(), mesh);
  unsigned count = 0;
  for (auto op : module.getOps<mlir::spmd::MeshOp>()) {
    if (op.getMesh() == attr)
      return op.getSymName().str();
    ++count;
  }
  std::string name = count ? fmt::format("mesh{}", count) : "mesh";
  while (module.lookupSymbol(name))
    name += "_";
  addMesh(module, name, mesh, dcnShape);
  return name;
}

absl::StatusOr<std::string>
ProgramState::meshSymbol(const DeviceMesh &mesh,
                         llvm::ArrayRef<int64_t> dcnShape) {
  return meshSymbolIn(*module, mesh, dcnShape);
}

absl::StatusOr<std::string> ProgramState::meshFor(const Mesh &mesh) {
  absl::StatusOr<DeviceMesh> deviceMesh = detail::deviceMesh(mesh);
  if (!deviceMesh.ok())
    return deviceMesh.status();
  pruneMeshes();
  for (auto op : module->getOps<mlir::spmd::MeshOp>())
    if (op.getMesh().toMesh() != *deviceMesh)
      return absl::InvalidArgumentError(fmt::format(
          "the program's shardings are on the mesh {} (@{}); all shardings "
          "of one program use one mesh, and this one is {}",
          op.getMesh().toMesh().str(), op.getSymName().str(),
          deviceMesh->str()));
  return meshSymbol(*deviceMesh, mesh.dcn_shape());
}

void ProgramState::pruneMeshes() {
  for (auto mesh :
       llvm::make_early_inc_range(module->getOps<mlir::spmd::MeshOp>()))
    if (mlir::SymbolTable::symbolKnownUseEmpty(mesh, *module))
      mesh->erase();
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

Program::Program(std::unique_ptr<ProgramState> state)
    : state_(std::move(state)) {}
Program ProgramState::wrap(std::unique_ptr<ProgramState> state) {
  return Program(std::move(state));
}
Program::Program(Program &&) noexcept = default;
Program &Program::operator=(Program &&) noexcept = default;
Program::~Program() = default;

/// The SSA names of `block`'s definitions in the source.
static void recordNames(const mlir::AsmParserState &asmState,
                        mlir::func::FuncOp entry,
                        llvm::StringMap<mlir::Value> &names) {
  auto record = [&](llvm::StringRef name, mlir::Value value) {
    auto [it, inserted] = names.try_emplace(name, value);
    if (!inserted && it->second != value)
      it->second = nullptr;
  };
  auto text = [](llvm::SMRange range) {
    return llvm::StringRef(range.Start.getPointer(),
                           range.End.getPointer() - range.Start.getPointer());
  };
  auto inEntry = [&](mlir::Operation *op) {
    return op && entry->isAncestor(op);
  };
  for (const auto &def : asmState.getOpDefs()) {
    if (!inEntry(def.op))
      continue;
    for (auto [g, group] : llvm::enumerate(def.resultGroups)) {
      unsigned end = g + 1 < def.resultGroups.size()
                         ? def.resultGroups[g + 1].startIndex
                         : def.op->getNumResults();
      llvm::StringRef name = text(group.definition.loc).split(':').first;
      if (end - group.startIndex == 1) {
        record(name, def.op->getResult(group.startIndex));
        continue;
      }
      for (unsigned r = group.startIndex; r < end; ++r)
        record((name + "#" + llvm::Twine(r - group.startIndex)).str(),
               def.op->getResult(r));
    }
  }
  for (const auto &def : asmState.getBlockDefs())
    if (def.block->getParentOp() && inEntry(def.block->getParentOp()))
      for (auto [i, arg] : llvm::enumerate(def.arguments))
        record(text(arg.loc), def.block->getArgument(i));
}

absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>>
detail::parseModule(const llvm::SourceMgr &sourceMgr,
                    mlir::MLIRContext &context,
                    mlir::AsmParserState *asmState) {
  const llvm::MemoryBuffer &source =
      *sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (std::optional<std::string> hazard = mlir::spmd::findUpstreamParserHazard(
          source.getBuffer(), source.getBufferIdentifier()))
    return absl::InvalidArgumentError(*hazard);
  DiagnosticCapture diagnostics(context);
  mlir::Block block;
  mlir::ParserConfig config(&context);
  if (mlir::failed(
          mlir::parseAsmSourceFile(sourceMgr, &block, config, asmState)))
    return diagnostics.error("the program does not parse");
  // A module written out, or top-level ops to put in one.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (block.getOperations().size() == 1)
    if (auto written = llvm::dyn_cast<mlir::ModuleOp>(block.front())) {
      written->remove();
      module = written;
    }
  if (!module) {
    module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
    module->getBody()->getOperations().splice(module->getBody()->begin(),
                                              block.getOperations());
  }
  if (mlir::failed(mlir::verify(*module)))
    return diagnostics.error("the program does not verify");
  return module;
}

/// Parses `mlir`, whose locations name `bufferName`.
static absl::StatusOr<Program> parse(const std::string &mlir,
                                     const std::string &bufferName,
                                     const std::string &entry,
                                     std::unique_ptr<ProgramState> state) {
  // The source outlives the parser state, whose ranges point into it.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(mlir, bufferName), llvm::SMLoc());
  mlir::AsmParserState asmState;
  absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>> module =
      detail::parseModule(sourceMgr, *state->context, &asmState);
  if (!module.ok())
    return module.status();
  state->module = std::move(*module);
  mlir::func::FuncOp function = runtime::findEntry(*state->module, entry);
  if (!function)
    return entry.empty()
               ? absl::InvalidArgumentError("the module has no entry function")
               : absl::NotFoundError("the module has no function @" + entry);
  state->entry = function.getSymName().str();
  recordNames(asmState, function, state->names);
  return ProgramState::wrap(std::move(state));
}

absl::StatusOr<Program> Program::fromString(const std::string &mlir,
                                            const std::string &entry) {
  return parse(mlir, "<string>", entry, std::make_unique<ProgramState>());
}

absl::StatusOr<Program> Program::fromFile(const std::string &path,
                                          const std::string &entry) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path, kMaxProgramBytes, "program");
  if (!buffer)
    return absl::Status(
        detail::fileErrorCode(path),
        fmt::format("'{}': {}", path, llvm::toString(buffer.takeError())));
  return parse((*buffer)->getBuffer().str(), path, entry,
               std::make_unique<ProgramState>());
}

int64_t Program::num_arguments() const {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return 0;
  return state_->entryFunction().getNumArguments();
}
int64_t Program::num_results() const {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return 0;
  return state_->entryFunction().getNumResults();
}

Value Program::argument(int64_t index) const {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return {};
  mlir::func::FuncOp f = state_->entryFunction();
  if (index < 0 || index >= f.getNumArguments())
    return {};
  return state_->handle(f.getArgument(index));
}

Value Program::result(int64_t index) const {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return {};
  mlir::func::FuncOp f = state_->entryFunction();
  if (index < 0 || index >= f.getNumResults() || !f.getBody().hasOneBlock())
    return {};
  Value v = state_->handle(returned(f, index));
  v.result_index_ = index;
  return v;
}

absl::StatusOr<Value> Program::value(const std::string &ssa_name) const {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  std::string name = ssa_name.rfind('%', 0) == 0 ? ssa_name : "%" + ssa_name;
  auto it = state_->names.find(name);
  if (it == state_->names.end()) {
    bool several = state_->names.count(name + "#0");
    return absl::NotFoundError(fmt::format(
        "@{} defines no value named {}{}", state_->entry, name,
        several ? fmt::format(" (it names several results: {}#0, ...)", name)
                : ""));
  }
  if (!it->second)
    return absl::InvalidArgumentError(fmt::format(
        "{} names several values of @{} (in different regions)", name,
        state_->entry));
  return state_->handle(it->second);
}

std::string Program::to_string() const {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return {};
  std::string text;
  llvm::raw_string_ostream os(text);
  state_->module->print(os);
  return text;
}

//===----------------------------------------------------------------------===//
// Shardings
//===----------------------------------------------------------------------===//

absl::Status Program::mark_sharding(const Value &value, const Mesh &mesh,
                                    const PartitionSpec &spec) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  if (state_->manualScope)
    return absl::InvalidArgumentError(
        "mark_sharding inside a shard_map body: the body's values are local "
        "and have no sharding");
  absl::StatusOr<mlir::Value> v = state_->resolve(value);
  if (!v.ok())
    return v.status();
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(v->getType());
  if (!type)
    return absl::InvalidArgumentError(
        fmt::format("only ranked tensors are sharded; the value is {}",
                    mlir::debugString(v->getType())));
  absl::StatusOr<DeviceMesh> deviceMesh = detail::deviceMesh(mesh);
  if (!deviceMesh.ok())
    return deviceMesh.status();
  // The mesh symbol is made only once the sharding is known to be valid.
  absl::StatusOr<TensorSharding> checked =
      detail::shardingOf(*deviceMesh, "mesh", spec, type.getRank());
  if (!checked.ok())
    return checked.status();
  if (absl::StatusOr<std::string> checked = state_->meshFor(mesh);
      !checked.ok())
    return checked.status();
  if (absl::Status cleared = clear_sharding(value); !cleared.ok())
    return cleared;
  // Made again if the clear dropped it (nothing used it yet).
  absl::StatusOr<std::string> symbol =
      state_->meshSymbol(*deviceMesh, mesh.dcn_shape());
  if (!symbol.ok())
    return symbol.status();
  checked->meshName = *symbol;
  auto attr = mlir::spmd::ShardingAttr::get(state_->context.get(), *checked);

  mlir::func::FuncOp f = state_->entryFunction();
  if (value.result_index_ >= 0) {
    f.setResultAttr(value.result_index_, SpmdDialect::kShardingAttrName, attr);
    return absl::OkStatus();
  }
  // An argument of the entry: its annotation.
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(*v);
      arg && arg.getOwner() == &f.getBody().front()) {
    f.setArgAttr(arg.getArgNumber(), SpmdDialect::kShardingAttrName, attr);
    return absl::OkStatus();
  }
  // Any other value: a constraint after its definition, read by all its
  // users (the entry's results included).
  mlir::OpBuilder b(state_->context.get());
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(*v))
    b.setInsertionPointToStart(arg.getOwner());
  else
    b.setInsertionPointAfter(v->getDefiningOp());
  auto constraint =
      mlir::spmd::ShardingConstraintOp::create(b, v->getLoc(), *v, attr);
  v->replaceAllUsesExcept(constraint.getResult(), constraint);
  state_->constraints[*v] = constraint;
  return absl::OkStatus();
}

absl::Status Program::mark_sharding(const Value &value,
                                    const PartitionSpec &spec) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  std::optional<Mesh> mesh = get_global_mesh();
  if (!mesh)
    return absl::FailedPreconditionError(
        "no mesh given and no global mesh set (set_global_mesh)");
  return mark_sharding(value, *mesh, spec);
}

absl::Status Program::clear_sharding(const Value &value) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  absl::StatusOr<mlir::Value> v = state_->resolve(value);
  if (!v.ok())
    return v.status();
  mlir::func::FuncOp f = state_->entryFunction();
  if (value.result_index_ >= 0) {
    f.removeResultAttr(value.result_index_,
                       mlir::StringAttr::get(state_->context.get(),
                                             SpmdDialect::kShardingAttrName));
    return absl::OkStatus();
  }
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(*v);
      arg && arg.getOwner() == &f.getBody().front())
    f.removeArgAttr(arg.getArgNumber(), SpmdDialect::kShardingAttrName);
  auto it = state_->constraints.find(*v);
  if (it != state_->constraints.end()) {
    it->second->getResult(0).replaceAllUsesWith(*v);
    it->second->erase();
    state_->constraints.erase(it);
  }
  state_->pruneMeshes();
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Compile and run
//===----------------------------------------------------------------------===//

/// `source` with the shardings left open chosen (on a copy: the program
/// keeps what the user marked), printed; the plan report in `report`.
static absl::StatusOr<std::string>
autoShardCopy(mlir::ModuleOp source, const Program::CompileOptions &options,
              std::string &report, std::vector<std::string> &warnings) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = source.clone();
  if (copy->getOps<mlir::spmd::MeshOp>().empty()) {
    std::optional<Mesh> mesh = get_global_mesh();
    if (!mesh)
      return absl::FailedPreconditionError(
          "auto-sharding a program with nothing marked needs a mesh: "
          "set_global_mesh, or mark a value");
    absl::StatusOr<DeviceMesh> deviceMesh = detail::deviceMesh(*mesh);
    if (!deviceMesh.ok())
      return deviceMesh.status();
    addMesh(*copy, "mesh", *deviceMesh, mesh->dcn_shape());
  }
  driver::PipelineOptions pipeline;
  pipeline.autoShard = true;
  if (options.memory_budget > 0)
    pipeline.memoryBudget = std::to_string(options.memory_budget);
  pipeline.dcnCost = options.dcn_cost;
  pipeline.autoShardReportSink = [&](const llvm::json::Value &plan) {
    report = llvm::formatv("{0:2}", plan).str();
  };
  detail::WarningCollector collector(*copy->getContext(), warnings);
  if (llvm::Error err = driver::runPipeline(*copy, pipeline,
                                            driver::Phase::Import,
                                            driver::Phase::AutoShard))
    return detail::toStatus(std::move(err),
                            absl::StatusCode::kInvalidArgument);
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  return text;
}

/// `module` printed with its locations, so that errors point into the
/// user's source (they are part of the key: the same program from another
/// place compiles once more).
static std::string printWithLocations(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  return text;
}

/// A copy of `module` whose arguments take the shardings `followed` gives,
/// on the program's mesh (made if the program has none).
static mlir::OwningOpRef<mlir::ModuleOp>
withFollowedShardings(mlir::ModuleOp module, llvm::StringRef entry,
                      llvm::ArrayRef<detail::FollowedSharding> followed) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  auto function = copy->lookupSymbol<mlir::func::FuncOp>(entry);
  for (const detail::FollowedSharding &f : followed) {
    // A mark made since keeps its annotation.
    if (function.getArgAttr(f.argument, SpmdDialect::kShardingAttrName))
      continue;
    TensorSharding sharding = f.sharding;
    sharding.meshName = meshSymbolIn(*copy, f.mesh, {});
    function.setArgAttr(
        f.argument, SpmdDialect::kShardingAttrName,
        mlir::spmd::ShardingAttr::get(module.getContext(), sharding));
  }
  return copy;
}

/// What compileProgram compiles: `state`'s module, or a copy whose
/// arguments in `followed` take their inputs' shardings; its text and key.
struct CompileRequest {
  mlir::OwningOpRef<mlir::ModuleOp> following;
  mlir::ModuleOp module;
  std::string text;
  uint64_t key = 0;
};

static CompileRequest
compileRequest(const ProgramState &state,
               const Program::CompileOptions &options,
               llvm::ArrayRef<detail::FollowedSharding> followed) {
  CompileRequest request;
  request.module = *state.module;
  if (!followed.empty()) {
    request.following =
        withFollowedShardings(request.module, state.entry, followed);
    request.module = *request.following;
  }
  request.text = printWithLocations(request.module);
  // Auto-sharding a program with no mesh uses the global one: it is part
  // of what was compiled.
  std::string how;
  if (options.auto_shard) {
    how = fmt::format("\n@auto {} {}", options.memory_budget,
                      options.dcn_cost);
    if (request.module.getOps<mlir::spmd::MeshOp>().empty())
      if (std::optional<Mesh> global = get_global_mesh())
        how += fmt::format(" {} {} {}", fmt::join(global->mesh_shape(), "x"),
                           fmt::join(global->get_logical_mesh(), ","),
                           fmt::join(global->axis_names(), ","));
  }
  request.key = llvm::xxh3_64bits(request.text + "\n@" + state.entry + how);
  return request;
}

/// Unimplemented if an argument or result of `entry` has an element type
/// the API cannot hold: DType has the usual integer widths only, signless
/// (the runtime would run a ui8 as an i8: 200 read back as -56); spmd-run
/// runs the others.
static absl::Status checkElementTypes(mlir::func::FuncOp entry) {
  if (!entry)
    return absl::OkStatus(); // compiling names the missing entry
  for (mlir::Type type : llvm::concat<const mlir::Type>(
           entry.getArgumentTypes(), entry.getResultTypes())) {
    mlir::Type element = mlir::getElementTypeOrSelf(type);
    llvm::Expected<runtime::ElementType> held = runtime::elementTypeOf(element);
    if (!held) {
      llvm::consumeError(held.takeError()); // compiling says why
      continue;
    }
    auto integer = llvm::dyn_cast<mlir::IntegerType>(element);
    if (detail::fromRuntime(*held) && (!integer || integer.isSignless()))
      continue;
    std::string name;
    llvm::raw_string_ostream os(name);
    element.print(os);
    return absl::UnimplementedError(fmt::format(
        "the C++ API has no element type {} (spmd-run runs it)", name));
  }
  return absl::OkStatus();
}

/// The program `text` compiled (through the cache) for entry `entry` (the
/// function `function` of the program), unless the API lacks the element
/// type of an input or result.
static absl::StatusOr<std::shared_ptr<detail::Compiled>>
compileText(const std::string &text, const std::string &entry,
            mlir::func::FuncOp function) {
  if (absl::Status status = checkElementTypes(function); !status.ok())
    return status;
  return detail::cachedCompile(llvm::xxh3_64bits(text + "\n@" + entry), text,
                               entry);
}

/// Compiles `request` for `state`, unless it was compiled last time (a
/// cache hit counted when `countReuse`).
static absl::Status compileProgram(ProgramState &state,
                                   const Program::CompileOptions &options,
                                   CompileRequest request, bool countReuse) {
  if (!state.builderStatus.ok())
    return state.builderStatus;
  if (state.compiled && state.compiledHash == request.key) {
    if (countReuse)
      detail::addCounter("cache_hits");
    return absl::OkStatus();
  }
  std::string text = std::move(request.text);
  mlir::ModuleOp module = request.module;
  uint64_t key = request.key;
  std::string report;
  std::vector<std::string> autoShardWarnings;
  if (options.auto_shard) {
    absl::StatusOr<std::string> sharded =
        autoShardCopy(module, options, report, autoShardWarnings);
    if (!sharded.ok()) {
      // The report is this compile's, which found no plan.
      state.autoShardReport = std::move(report);
      return sharded.status();
    }
    text = std::move(*sharded);
  }
  absl::StatusOr<std::shared_ptr<detail::Compiled>> compiled =
      compileText(text, state.entry, state.entryFunction());
  if (!compiled.ok())
    return compiled.status();
  state.compiled = std::move(*compiled);
  state.compiledHash = key;
  state.autoShardReport = std::move(report);
  state.autoShardWarnings = std::move(autoShardWarnings);
  return absl::OkStatus();
}

absl::Status Program::compile() {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  return compile(state_->options);
}

absl::Status Program::compile(const CompileOptions &options) {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  double maxDcnCost = mlir::spmd::AutoShardSettings::kMaxDcnCost;
  if (options.memory_budget < 0 ||
      !(options.dcn_cost >= 1 && options.dcn_cost <= maxDcnCost))
    return absl::InvalidArgumentError(fmt::format(
        "the compile options need memory_budget >= 0 (0: no limit) and "
        "dcn_cost from 1 to {:g}, not {} and {}",
        maxDcnCost, options.memory_budget, options.dcn_cost));
  state_->options = options;
  return compileProgram(*state_, options, compileRequest(*state_, options, {}),
                        /*countReuse=*/true);
}

std::string Program::auto_shard_report() const {
  auto lock = detail::lockProgram(state_);
  return state_ ? state_->autoShardReport : "";
}

std::vector<std::string> Program::warnings() const {
  auto lock = detail::lockProgram(state_);
  if (!state_ || !state_->compiled)
    return {};
  // Auto-sharding imported the program too: its warnings of the import
  // are the compile's.
  std::vector<std::string> warnings = state_->autoShardWarnings;
  for (const std::string &warning : state_->compiled->warnings)
    if (!llvm::is_contained(warnings, warning))
      warnings.push_back(warning);
  return warnings;
}

absl::StatusOr<std::string> Program::partitioned() const {
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  // The program as the last run's inputs had it compiled.
  if (absl::Status status = compileProgram(
          *state_, state_->options,
          compileRequest(*state_, state_->options, state_->followed), false);
      !status.ok())
    return status;
  return state_->compiled->partitioned;
}

/// Counts the bytes one run of `program` communicates, per collective.
static void countCommunication(const runtime::LoadedProgram &program) {
  for (auto [kind, bytes] : program.collectiveBytes())
    detail::addCounter(
        fmt::format("bytes_{}", stringifyCollectiveKind(kind).str()), bytes);
}

/// The program that moves `tensor` from `source` to `target`: a function
/// returning its argument in another sharding, printed.
static std::string reshardProgram(const ShardedStorage &tensor,
                                  const TensorSharding &source,
                                  const TensorSharding &target) {
  std::unique_ptr<mlir::MLIRContext> context = detail::newContext();
  mlir::MLIRContext *ctx = context.get();
  mlir::OpBuilder b(ctx);
  mlir::Location loc = b.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  addMesh(*module, source.meshName, tensor.mesh, {});
  auto type = mlir::RankedTensorType::get(
      tensor.shape, detail::elementType(detail::toRuntime(tensor.dtype), ctx));
  b.setInsertionPointToEnd(module->getBody());
  auto function = mlir::func::FuncOp::create(
      b, loc, "reshard", b.getFunctionType({type}, {type}));
  llvm::StringRef sharding = mlir::spmd::SpmdDialect::kShardingAttrName;
  function.setArgAttr(0, sharding, mlir::spmd::ShardingAttr::get(ctx, source));
  function.setResultAttr(0, sharding,
                         mlir::spmd::ShardingAttr::get(ctx, target));
  mlir::Block *body = function.addEntryBlock();
  b.setInsertionPointToStart(body);
  mlir::func::ReturnOp::create(b, loc, body->getArgument(0));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// `tensor`'s buffers moved on the devices into `target` (on its mesh), by
/// the collectives the partitioner plans for a function returning its
/// argument in another sharding (compiled once per pair, through the
/// cache).
static absl::StatusOr<std::vector<runtime::TensorRef>>
reshardOnDevices(const ShardedStorage &tensor, TensorSharding target) {
  TensorSharding source = tensor.sharding;
  source.meshName = target.meshName = "mesh";
  std::string text = reshardProgram(tensor, source, target);
  absl::StatusOr<std::shared_ptr<detail::Compiled>> compiled =
      detail::cachedCompile(llvm::xxh3_64bits(text), text, "reshard");
  if (!compiled.ok())
    return compiled.status();
  llvm::Expected<std::vector<runtime::ShardedBuffer>> moved = [&] {
    std::lock_guard<std::mutex> lock((*compiled)->running);
    std::vector<std::vector<runtime::TensorRef>> perDevice;
    for (runtime::TensorRef &local : tensor.locals())
      perDevice.push_back({std::move(local)});
    return (*compiled)->program->runSharded(std::move(perDevice));
  }();
  if (!moved)
    return detail::toStatus(moved.takeError(), absl::StatusCode::kInternal);
  detail::addCounter("device_reshards");
  countCommunication(*(*compiled)->program);
  ShardedStorage moved_storage{std::move(moved->front()), tensor.mesh,
                               std::move(target), tensor.dtype, tensor.shape};
  return moved_storage.locals();
}

/// Whether `input` has the type and shape of argument `i` of `function`
/// and holds a tensor, or why not.
static absl::Status checkInputType(mlir::func::FuncOp function, unsigned i,
                                   const Input &input) {
  mlir::Type type = function.getArgumentTypes()[i];
  auto tensorType = llvm::dyn_cast<mlir::RankedTensorType>(type);
  std::vector<int64_t> want =
      tensorType ? tensorType.getShape().vec() : std::vector<int64_t>();
  std::optional<DType> wantType = elementDType(type);
  auto describe = [](DType t, const std::vector<int64_t> &shape) {
    return fmt::format("{}[{}]",
                       runtime::elementTypeName(detail::toRuntime(t)).str(),
                       fmt::join(shape, ", "));
  };
  DType given;
  std::vector<int64_t> shape;
  const auto *host = std::get_if<HostTensor>(&input);
  if (host) {
    if (!host->status().ok())
      return absl::Status(host->status().code(),
                          fmt::format("input {}: {}", i,
                                      std::string(host->status().message())));
    given = host->dtype();
    shape = host->shape();
  } else {
    const ShardedTensor &sharded = std::get<ShardedTensor>(input);
    if (sharded.sharding().empty())
      return absl::FailedPreconditionError(fmt::format(
          "input {} holds nothing (a ShardedTensor never placed on devices)",
          i));
    given = sharded.dtype();
    shape = sharded.shape();
  }
  // Dynamic sizes are the compiler's to refuse.
  if (tensorType && !tensorType.hasStaticShape() && shape.size() == want.size())
    for (auto [w, g] : llvm::zip(want, shape))
      if (mlir::ShapedType::isDynamic(w))
        w = g;
  if (!wantType || *wantType != given || shape != want)
    return absl::InvalidArgumentError(fmt::format(
        "input {} is {} but the program takes {}", i, describe(given, shape),
        wantType ? describe(*wantType, want) : "another type"));
  return absl::OkStatus();
}

/// Whether `input` can be argument `i` of `function`, or why not: its
/// type and shape, a tensor holding nothing, a mesh other than `mesh`
/// (the program's, which the first input on the devices gives when the
/// program has none). An argument without a sharding given a tensor on
/// the devices joins `followed`.
static absl::Status
checkInput(mlir::func::FuncOp function, unsigned i, const Input &input,
           std::optional<DeviceMesh> &mesh,
           std::vector<detail::FollowedSharding> &followed) {
  if (absl::Status status = checkInputType(function, i, input); !status.ok())
    return status;
  if (std::holds_alternative<HostTensor>(input))
    return absl::OkStatus();
  const ShardedStorage &sharded =
      ShardedStorage::of(std::get<ShardedTensor>(input));
  if (!mesh)
    mesh = sharded.mesh;
  if (sharded.mesh != *mesh)
    return absl::InvalidArgumentError(fmt::format(
        "input {} is on the mesh {} but the program runs on {}; tensors move "
        "between shardings of one mesh only",
        i, sharded.mesh.str(), mesh->str()));
  if (!function.getArgAttr(i, SpmdDialect::kShardingAttrName))
    followed.push_back({i, sharded.mesh, sharded.sharding});
  return absl::OkStatus();
}

/// Whether `inputs` are as many as `state`'s entry's arguments.
static absl::Status checkInputCount(ProgramState &state,
                                    const std::vector<Input> &inputs) {
  mlir::func::FuncOp function = state.entryFunction();
  if (inputs.size() == function.getNumArguments())
    return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("@{} takes {} inputs but {} were given", state.entry,
                  function.getNumArguments(), inputs.size()));
}

/// Why `inputs` cannot be `state`'s entry's arguments, or OK; the
/// arguments whose shardings follow their inputs in `followed`.
static absl::Status
checkInputs(ProgramState &state, const std::vector<Input> &inputs,
            std::vector<detail::FollowedSharding> &followed) {
  mlir::func::FuncOp function = state.entryFunction();
  if (absl::Status status = checkInputCount(state, inputs); !status.ok())
    return status;
  std::optional<DeviceMesh> mesh;
  for (auto op : state.module->getOps<mlir::spmd::MeshOp>())
    if (!mlir::SymbolTable::symbolKnownUseEmpty(op, *state.module))
      mesh = op.getMesh().toMesh();
  for (auto [i, input] : llvm::enumerate(inputs))
    if (absl::Status status = checkInput(function, i, input, mesh, followed);
        !status.ok())
      return status;
  return absl::OkStatus();
}

/// Whether `program` takes `inputs` (of the types and shapes checkInput
/// accepted).
static bool compiledTakes(const runtime::LoadedProgram &program,
                          const std::vector<Input> &inputs) {
  if (program.inputs().size() != inputs.size())
    return false;
  for (auto [spec, input] : llvm::zip(program.inputs(), inputs)) {
    auto [dtype, shape] = std::visit(
        [](const auto &t) { return std::make_pair(t.dtype(), t.shape()); },
        input);
    if (detail::fromRuntime(spec.type) != dtype || spec.shape != shape)
      return false;
  }
  return true;
}

/// `input`'s buffers on each device, in the layout input `i` of `compiled`
/// takes (checkInput has accepted it).
static absl::StatusOr<std::vector<runtime::TensorRef>>
placeInput(detail::Compiled &compiled, unsigned i, const Input &input) {
  if (const auto *host = std::get_if<HostTensor>(&input))
    return compiled.program->shard(i, TensorStorage::of(*host));
  const ShardedStorage &sharded =
      ShardedStorage::of(std::get<ShardedTensor>(input));
  assert(sharded.mesh == compiled.mesh && "checkInput compares meshes");
  TensorSharding target = compiled.inputShardings[i];
  TensorSharding have = sharded.sharding;
  have.meshName = target.meshName;
  if (have == target)
    return sharded.locals();
  return reshardOnDevices(sharded, target);
}

/// Counts a run that began at `start` in the metrics.
static void countRun(std::chrono::steady_clock::time_point start) {
  detail::addTime("run", std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count());
  detail::addCounter("run_count");
}

/// Compiles `state`'s program as written for one device
/// (spmd-drop-shardings), unless it was last time.
static absl::Status compileForOneDevice(ProgramState &state) {
  if (!state.builderStatus.ok())
    return state.builderStatus;
  std::string text = printWithLocations(*state.module);
  uint64_t key = llvm::xxh3_64bits(text + "\n@" + state.entry);
  if (state.oneDevice && state.oneDeviceHash == key)
    return absl::OkStatus();
  mlir::OwningOpRef<mlir::ModuleOp> copy = state.module->clone();
  driver::PipelineOptions pipeline;
  pipeline.oneDevice = true;
  if (llvm::Error err = driver::runPipeline(
          *copy, pipeline, driver::Phase::Import, driver::Phase::Import))
    return detail::toStatus(std::move(err),
                            absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<std::shared_ptr<detail::Compiled>> compiled = compileText(
      printWithLocations(*copy), state.entry, state.entryFunction());
  if (!compiled.ok())
    return compiled.status();
  state.oneDevice = std::move(*compiled);
  state.oneDeviceHash = key;
  return absl::OkStatus();
}

/// Input `i` on the calling device: a host tensor, or one that every
/// device holds whole (a result of a run on a device).
static absl::StatusOr<runtime::TensorRef> onCallingDevice(unsigned i,
                                                          const Input &input) {
  if (const auto *host = std::get_if<HostTensor>(&input))
    return detail::TensorStorage::ref(*host);
  const ShardedStorage &sharded =
      ShardedStorage::of(std::get<ShardedTensor>(input));
  if (sharded.tensor.layout())
    return absl::InvalidArgumentError(fmt::format(
        "input {} is split over the devices of {}; a device of spmd::spawn "
        "runs programs on host tensors and on the results of its own runs",
        i, sharded.mesh.str()));
  return sharded.tensor.localShards().front().data;
}

/// Program::run on a device of spmd::spawn: the program as written for one
/// device, run on the calling device alone (its fiber's thread), so that
/// the devices run theirs at once.
static absl::StatusOr<std::vector<ShardedTensor>>
runOnCallingDevice(const std::unique_ptr<ProgramState> &state,
                   const std::vector<Input> &inputs) {
  std::shared_ptr<detail::Compiled> compiled;
  {
    auto lock = detail::lockProgram(state);
    if (!state)
      return detail::movedFrom();
    if (absl::Status status = checkInputCount(*state, inputs); !status.ok())
      return status;
    for (auto [i, input] : llvm::enumerate(inputs))
      if (absl::Status status =
              checkInputType(state->entryFunction(), i, input);
          !status.ok())
        return status;
    if (absl::Status status = compileForOneDevice(*state); !status.ok())
      return status;
    compiled = state->oneDevice;
  }
  std::vector<runtime::TensorRef> args;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    absl::StatusOr<runtime::TensorRef> arg = onCallingDevice(i, input);
    if (!arg.ok())
      return arg.status();
    args.push_back(*std::move(arg));
  }
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<std::vector<runtime::TensorRef>> results =
      compiled->program->runOnCallingThread(args);
  if (!results)
    return detail::toStatus(results.takeError(), absl::StatusCode::kInternal);
  countRun(start);
  int64_t device = std::max<int64_t>(dist::get_rank(), 0);
  std::vector<ShardedTensor> outputs;
  for (auto [r, result] : llvm::enumerate(*results)) {
    const runtime::TensorSpec &spec = compiled->program->outputs()[r];
    runtime::ShardedBuffer whole(spec.shape, {std::move(result)}, std::nullopt,
                                 ReductionKind::Sum, device);
    outputs.push_back(
        ShardedStorage::wrap(std::make_shared<ShardedStorage>(ShardedStorage{
            std::move(whole), compiled->mesh, compiled->outputShardings[r],
            detail::fromRuntime(spec.type).value_or(DType::F32), spec.shape})));
  }
  return outputs;
}

absl::StatusOr<std::vector<ShardedTensor>>
Program::run(std::vector<Input> inputs) {
  if (runtime::currentPoolDevice() >= 0)
    return runOnCallingDevice(state_, inputs);
  auto lock = detail::lockProgram(state_);
  if (!state_)
    return detail::movedFrom();
  if (!state_->builderStatus.ok())
    return state_->builderStatus;
  // Every process checks its inputs before any exchange, so that all fail
  // at once, with one message.
  std::vector<detail::FollowedSharding> followed;
  std::string checking =
      fmt::format("checking the inputs of @{}", state_->entry);
  absl::Status checked = detail::agreeOnFirstError(
      checkInputs(*state_, inputs, followed), checking);
  if (!checked.ok())
    return checked;
  // And on the program they run: processes that built their meshes or
  // marked their programs differently would exchange garbage.
  CompileRequest request = compileRequest(*state_, state_->options, followed);
  absl::StatusOr<bool> same = detail::sameOnEveryProcess(request.key, checking);
  if (!same.ok())
    return same.status();
  if (!*same)
    return absl::FailedPreconditionError(fmt::format(
        "the processes would run different programs for @{}: under mpirun "
        "every process marks the same shardings on the same meshes (built "
        "from the same device counts: set SPMD_NUM_DEVICES alike)",
        state_->entry));
  if (absl::Status status =
          compileProgram(*state_, state_->options, std::move(request), false);
      !status.ok())
    return status;
  state_->followed = std::move(followed);
  detail::Compiled &compiled = *state_->compiled;
  runtime::LoadedProgram &program = *compiled.program;
  // A program from the disk cache is trusted to compute; that it takes
  // these inputs is checked all the same.
  if (!compiledTakes(program, inputs))
    return absl::InternalError(fmt::format(
        "the compiled @{} (from the cache) does not take the inputs its "
        "source takes; clear the cache",
        state_->entry));
  int64_t devices = program.numLocalDevices();
  std::vector<std::vector<runtime::TensorRef>> perDevice(devices);
  for (auto [i, input] : llvm::enumerate(inputs)) {
    absl::StatusOr<std::vector<runtime::TensorRef>> placed =
        placeInput(compiled, i, input);
    if (!placed.ok())
      return placed.status();
    for (int64_t d = 0; d < devices; ++d)
      perDevice[d].push_back((*placed)[d]);
  }
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<std::vector<runtime::ShardedBuffer>> results = [&] {
    std::lock_guard<std::mutex> running(compiled.running);
    return program.runSharded(std::move(perDevice));
  }();
  if (!results)
    return detail::toStatus(results.takeError(), absl::StatusCode::kInternal);
  countRun(start);
  countCommunication(program);

  std::vector<ShardedTensor> outputs;
  for (auto [r, result] : llvm::enumerate(*results)) {
    const runtime::TensorSpec &spec = program.outputs()[r];
    auto storage = std::make_shared<ShardedStorage>(ShardedStorage{
        std::move(result), compiled.mesh, compiled.outputShardings[r],
        detail::fromRuntime(spec.type).value_or(DType::F32), spec.shape});
    outputs.push_back(ShardedStorage::wrap(std::move(storage)));
  }
  return outputs;
}

} // namespace spmd
