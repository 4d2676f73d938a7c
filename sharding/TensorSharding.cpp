//===- TensorSharding.cpp - Shardings as plain values ---------------------===//

#include "sharding/TensorSharding.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace spmd;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
template <typename Kind> struct KindName {
  Kind kind;
  llvm::StringLiteral name;
};
} // namespace

// The one name table of each kind, in enum order.
static constexpr KindName<ReductionKind> kReductionNames[] = {
    {ReductionKind::Sum, "sum"},       {ReductionKind::Max, "max"},
    {ReductionKind::Min, "min"},       {ReductionKind::MaxNum, "maxnum"},
    {ReductionKind::MinNum, "minnum"}, {ReductionKind::Prod, "prod"},
};
static constexpr KindName<CollectiveKind> kCollectiveNames[] = {
    {CollectiveKind::AllGather, "all_gather"},
    {CollectiveKind::AllSlice, "all_slice"},
    {CollectiveKind::AllToAll, "all_to_all"},
    {CollectiveKind::AllReduce, "all_reduce"},
    {CollectiveKind::ReduceScatter, "reduce_scatter"},
    {CollectiveKind::CollectivePermute, "collective_permute"},
    {CollectiveKind::Redistribute, "redistribute"},
    {CollectiveKind::Broadcast, "broadcast"},
    {CollectiveKind::Reduce, "reduce"},
};

template <typename Kind, size_t N>
static llvm::StringRef nameIn(const KindName<Kind> (&table)[N], Kind kind) {
  size_t index = static_cast<size_t>(kind);
  assert(index < N && table[index].kind == kind && "name table out of order");
  return table[index].name;
}

template <typename Kind, size_t N>
static std::optional<Kind> kindIn(const KindName<Kind> (&table)[N],
                                  llvm::StringRef name) {
  for (const KindName<Kind> &entry : table)
    if (entry.name == name)
      return entry.kind;
  return std::nullopt;
}

llvm::StringRef spmd::stringifyReduction(ReductionKind kind) {
  return nameIn(kReductionNames, kind);
}

std::optional<ReductionKind> spmd::symbolizeReduction(llvm::StringRef name) {
  return kindIn(kReductionNames, name);
}

llvm::SmallVector<llvm::StringRef> spmd::reductionNames() {
  llvm::SmallVector<llvm::StringRef> names;
  for (const KindName<ReductionKind> &entry : kReductionNames)
    names.push_back(entry.name);
  return names;
}

llvm::StringRef spmd::stringifyCollectiveKind(CollectiveKind kind) {
  return nameIn(kCollectiveNames, kind);
}

std::optional<CollectiveKind>
spmd::symbolizeCollectiveKind(llvm::StringRef name) {
  return kindIn(kCollectiveNames, name);
}

TensorSharding TensorSharding::replicatedOf(std::string meshName,
                                            unsigned rank) {
  return TensorSharding(std::move(meshName), std::vector<DimSharding>(rank));
}

llvm::Expected<TensorSharding>
TensorSharding::fromPartitionSpec(const DeviceMesh &mesh, std::string meshName,
                                  const DimSpecs &spec, unsigned rank) {
  if (spec.size() > rank)
    return makeError(llvm::formatv(
        "partition spec has {0} entries but the tensor has rank {1}",
        spec.size(), rank));
  std::vector<DimSharding> dims(rank);
  for (auto [dim, entry] : llvm::enumerate(spec)) {
    for (const DimSpec::Axis &axis : entry.axes) {
      if (const auto *index = std::get_if<int64_t>(&axis)) {
        if (*index < 0 || *index >= mesh.rank())
          return makeError(llvm::formatv(
              "partition spec entry {0} names axis index {1}, but the mesh "
              "has {2} axes",
              dim, *index, mesh.rank()));
        dims[dim].axes.push_back(mesh.axisName(*index).str());
      } else {
        dims[dim].axes.push_back(std::get<std::string>(axis));
      }
    }
  }
  TensorSharding sharding(std::move(meshName), std::move(dims));
  if (llvm::Error err = sharding.verify(mesh, rank))
    return std::move(err);
  return sharding;
}

llvm::Error TensorSharding::verify() const {
  llvm::StringSet<> seen;
  auto use = [&](const std::string &axis,
                 const llvm::Twine &where) -> llvm::Error {
    if (!seen.insert(axis).second)
      return makeError("mesh axis \"" + axis + "\" is used twice (again in " +
                       where + ")");
    return llvm::Error::success();
  };
  for (auto [i, dim] : llvm::enumerate(dims)) {
    for (const std::string &axis : dim.axes)
      if (llvm::Error err = use(axis, "dimension " + llvm::Twine(i)))
        return err;
    if (dim.priority && *dim.priority < 0)
      return makeError(llvm::formatv("dimension {0} has negative priority {1}",
                                     i, *dim.priority));
  }
  for (const std::string &axis : replicated)
    if (llvm::Error err = use(axis, "replicated"))
      return err;
  for (const std::string &axis : partial)
    if (llvm::Error err = use(axis, "partial"))
      return err;
  // Ops that keep a pending sum (scaling, adding a replicated value) would
  // change a pending product.
  if (!partial.empty() && partialKind == ReductionKind::Prod)
    return makeError("a partial value cannot be a pending product");
  return llvm::Error::success();
}

llvm::Error TensorSharding::verify(const DeviceMesh &mesh, unsigned rank) const {
  if (dims.size() != rank)
    return makeError(
        llvm::formatv("sharding has {0} dimensions but the tensor has rank {1}",
                      dims.size(), rank));
  if (llvm::Error err = verify())
    return err;
  auto check = [&](const std::vector<std::string> &axes) -> llvm::Error {
    for (const std::string &axis : axes)
      if (!mesh.axisIndex(axis))
        return makeError("mesh @" + meshName + " has no axis named \"" + axis +
                         "\"");
    return llvm::Error::success();
  };
  for (const DimSharding &dim : dims)
    if (llvm::Error err = check(dim.axes))
      return err;
  if (llvm::Error err = check(replicated))
    return err;
  return check(partial);
}

bool TensorSharding::isFullyReplicated() const {
  return partial.empty() && llvm::all_of(dims, [](const DimSharding &d) {
           return d.axes.empty();
         });
}

static void printAxes(llvm::raw_ostream &os,
                      const std::vector<std::string> &axes, bool open) {
  os << '{';
  // Escaped as MLIR prints strings: `str()` parses back.
  llvm::interleaveComma(axes, os, [&](const std::string &a) {
    os << '"';
    llvm::printEscapedString(a, os);
    os << '"';
  });
  if (open)
    os << (axes.empty() ? "?" : ", ?");
  os << '}';
}

std::string TensorSharding::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "<@" << meshName << ", [";
  llvm::interleaveComma(dims, os, [&](const DimSharding &dim) {
    printAxes(os, dim.axes, dim.open);
    if (dim.priority)
      os << 'p' << *dim.priority;
  });
  os << ']';
  if (!replicated.empty()) {
    os << ", replicated=";
    printAxes(os, replicated, false);
  }
  if (!partial.empty()) {
    os << ", partial";
    if (partialKind != ReductionKind::Sum)
      os << '<' << stringifyReduction(partialKind) << '>';
    os << '=';
    printAxes(os, partial, false);
  }
  os << '>';
  return text;
}
