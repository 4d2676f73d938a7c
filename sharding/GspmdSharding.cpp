//===- GspmdSharding.cpp - GSPMD / XLA sharding strings -------------------===//

#include "sharding/GspmdSharding.h"
#include "sharding/ShardLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace spmd;
using llvm::StringRef;

namespace {
/// A cursor over the string; every failure names what was expected.
class Lexer {
public:
  explicit Lexer(StringRef text) : full(text), rest(text) {}

  bool consume(StringRef token) {
    rest = rest.ltrim();
    return rest.consume_front(token);
  }
  bool consumeInt(int64_t &value) {
    rest = rest.ltrim();
    return !rest.consumeInteger(10, value);
  }
  bool atEnd() { return rest.ltrim().empty(); }

  llvm::Error error(const llvm::Twine &expected) const {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("invalid GSPMD sharding '{0}': expected {1} at column "
                      "{2}",
                      full, expected.str(), full.size() - rest.size() + 1));
  }

  /// `[a,b,...]`
  llvm::Error intList(std::vector<int64_t> &values) {
    if (!consume("["))
      return error("'['");
    if (consume("]"))
      return llvm::Error::success();
    do {
      int64_t v;
      if (!consumeInt(v))
        return error("an integer");
      values.push_back(v);
    } while (consume(","));
    return consume("]") ? llvm::Error::success() : error("']'");
  }

private:
  StringRef full, rest;
};
} // namespace

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Devices of `<=[reshape]T(perm)`: iota over prod(reshape), viewed with
/// shape `reshape`, transposed by `perm`, read row-major.
static std::vector<int64_t> expandIota(llvm::ArrayRef<int64_t> reshape,
                                       llvm::ArrayRef<int64_t> perm) {
  std::vector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(reshape[p]);
  std::vector<int64_t> devices(product(reshape));
  llvm::SmallVector<int64_t> source(reshape.size());
  for (int64_t i = 0, e = devices.size(); i < e; ++i) {
    llvm::SmallVector<int64_t> index = delinearize(i, outShape);
    for (size_t k = 0; k < perm.size(); ++k)
      source[perm[k]] = index[k];
    devices[i] = linearize(source, reshape);
  }
  return devices;
}

llvm::Expected<GspmdSharding> GspmdSharding::parse(StringRef text) {
  Lexer lex(text);
  GspmdSharding result;
  if (!lex.consume("{"))
    return lex.error("'{'");
  if (lex.consume("replicated")) {
    result.kind = Kind::Replicated;
  } else if (lex.consume("maximal")) {
    result.kind = Kind::Maximal;
    if (!lex.consume("device") || !lex.consume("="))
      return lex.error("'device='");
    if (!lex.consumeInt(result.maximalDevice) || result.maximalDevice < 0)
      return lex.error("a device number");
  } else if (lex.consume("devices")) {
    result.kind = Kind::Tiled;
    if (!lex.consume("="))
      return lex.error("'='");
    if (llvm::Error err = lex.intList(result.tileShape))
      return std::move(err);
    if (result.tileShape.empty() ||
        llvm::any_of(result.tileShape, [](int64_t s) { return s < 1; }))
      return lex.error("a non-empty tile shape of sizes >= 1");
    // Device counts are bounded before any list is built from them.
    auto tooMany = [&](llvm::ArrayRef<int64_t> sizes) {
      std::optional<int64_t> count = 1;
      for (int64_t size : sizes)
        if (count)
          count = llvm::checkedMul(*count, size);
      return !count || *count > DeviceMesh::kMaxDevices;
    };
    if (tooMany(result.tileShape))
      return makeError(llvm::formatv("invalid GSPMD sharding '{0}': more than "
                                     "{1} devices",
                                     text, DeviceMesh::kMaxDevices));
    if (lex.consume("<=")) {
      std::vector<int64_t> reshape, perm;
      if (llvm::Error err = lex.intList(reshape))
        return std::move(err);
      if (lex.consume("T(")) {
        do {
          int64_t p;
          if (!lex.consumeInt(p))
            return lex.error("a transpose dimension");
          perm.push_back(p);
        } while (lex.consume(","));
        if (!lex.consume(")"))
          return lex.error("')'");
      } else {
        perm.resize(reshape.size());
        std::iota(perm.begin(), perm.end(), 0);
      }
      std::vector<int64_t> sorted = perm;
      llvm::sort(sorted);
      for (size_t i = 0; i < sorted.size(); ++i)
        if (sorted[i] != static_cast<int64_t>(i) ||
            perm.size() != reshape.size())
          return makeError("invalid GSPMD sharding '" + text +
                           "': T(...) must permute the iota dimensions");
      if (llvm::any_of(reshape, [](int64_t s) { return s < 1; }))
        return makeError("invalid GSPMD sharding '" + text +
                         "': iota sizes must be >= 1");
      if (tooMany(reshape))
        return makeError(llvm::formatv("invalid GSPMD sharding '{0}': more "
                                       "than {1} devices",
                                       text, DeviceMesh::kMaxDevices));
      result.devices = expandIota(reshape, perm);
      result.iotaReshape = reshape;
      result.iotaPerm = perm;
    } else {
      do {
        int64_t d;
        if (!lex.consumeInt(d))
          return lex.error("a device number");
        if (int64_t(result.devices.size()) >= DeviceMesh::kMaxDevices)
          return makeError(llvm::formatv("invalid GSPMD sharding '{0}': more "
                                         "than {1} devices",
                                         text, DeviceMesh::kMaxDevices));
        result.devices.push_back(d);
      } while (lex.consume(","));
    }
    result.lastTileDimReplicate = lex.consume("last_tile_dim_replicate");
    int64_t tiles = product(result.tileShape);
    if (static_cast<int64_t>(result.devices.size()) != tiles)
      return makeError(llvm::formatv(
          "invalid GSPMD sharding '{0}': the tile shape has {1} tiles but {2} "
          "devices are listed",
          text, tiles, result.devices.size()));
    if (llvm::Error err = DeviceMesh::verify({"tiles"}, {tiles}, result.devices))
      return makeError("invalid GSPMD sharding '" + text +
                       "': " + llvm::toString(std::move(err)));
  } else {
    return lex.error("'replicated', 'maximal' or 'devices'");
  }
  if (!lex.consume("}"))
    return lex.error("'}'");
  if (!lex.atEnd())
    return lex.error("the end of the string");
  return result;
}

std::string GspmdSharding::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  switch (kind) {
  case Kind::Replicated:
    return "{replicated}";
  case Kind::Maximal:
    os << "{maximal device=" << maximalDevice << "}";
    return text;
  case Kind::Tiled:
    break;
  }
  os << "{devices=[";
  llvm::interleave(tileShape, os, ",");
  os << "]";
  bool iota = llvm::all_of(llvm::enumerate(devices), [](auto it) {
    return it.value() == static_cast<int64_t>(it.index());
  });
  if (iota)
    os << "<=[" << devices.size() << "]";
  else
    llvm::interleave(devices, os, ",");
  if (lastTileDimReplicate)
    os << " last_tile_dim_replicate";
  os << "}";
  return text;
}

llvm::Expected<std::pair<DeviceMesh, TensorSharding>>
GspmdSharding::toSpmd(unsigned rank, StringRef meshName) const {
  if (kind != Kind::Tiled) {
    // Every device holds the whole value (for maximal: the value its owner
    // holds), so any mesh serves; return the one-device mesh.
    DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({}, {}));
    return std::make_pair(std::move(mesh),
                          TensorSharding::replicatedOf(meshName.str(), rank));
  }
  unsigned tileRank = tileShape.size() - (lastTileDimReplicate ? 1 : 0);
  if (tileRank != rank)
    return makeError(llvm::formatv(
        "GSPMD sharding '{0}' tiles {1} dimensions but the tensor has rank {2}",
        str(), tileRank, rank));
  std::vector<std::string> names;
  std::vector<int64_t> shape;
  std::vector<DimSharding> dims(rank);
  for (unsigned d = 0; d < tileShape.size(); ++d) {
    if (tileShape[d] == 1)
      continue;
    names.push_back(d < rank ? "t" + std::to_string(d) : "r");
    shape.push_back(tileShape[d]);
    if (d < rank)
      dims[d].axes.push_back(names.back());
  }
  llvm::Expected<DeviceMesh> mesh = DeviceMesh::create(names, shape, devices);
  if (!mesh)
    return makeError("GSPMD sharding '" + str() +
                     "': " + llvm::toString(mesh.takeError()));
  return std::make_pair(std::move(*mesh),
                        TensorSharding(meshName.str(), std::move(dims)));
}

llvm::Expected<GspmdSharding>
GspmdSharding::fromSpmd(const TensorSharding &sharding, const DeviceMesh &mesh) {
  if (sharding.isPartial())
    return makeError("partial sharding " + sharding.str() +
                     " has no GSPMD string");
  std::vector<int64_t> shape(sharding.rank(), 1);
  llvm::Expected<ShardLayout> layout = ShardLayout::get(sharding, mesh, shape);
  if (!layout)
    return layout.takeError();
  GspmdSharding result;
  if (sharding.isFullyReplicated())
    return result;
  result.kind = Kind::Tiled;
  // Axes not used by any dimension enumerate the replicas of a tile.
  llvm::SmallVector<AxisIndex> replicaAxes;
  for (AxisIndex a = 0; a < mesh.rank(); ++a)
    if (llvm::none_of(llvm::seq<unsigned>(0, sharding.rank()), [&](unsigned d) {
          return llvm::is_contained(layout->dimAxes(d), a);
        }))
      replicaAxes.push_back(a);
  for (unsigned d = 0; d < sharding.rank(); ++d)
    result.tileShape.push_back(layout->numShards(d));
  int64_t replicas = mesh.groupSize(replicaAxes);
  if (replicas > 1) {
    result.tileShape.push_back(replicas);
    result.lastTileDimReplicate = true;
  }
  result.devices.resize(mesh.numDevices());
  for (int64_t pos = 0; pos < mesh.numDevices(); ++pos) {
    int64_t device = mesh.deviceIdAt(pos);
    llvm::SmallVector<int64_t> tile = layout->shardIndex(device);
    if (replicas > 1)
      tile.push_back(mesh.indexInGroup(device, replicaAxes));
    result.devices[linearize(tile, result.tileShape)] = device;
  }
  return result;
}

namespace {
/// A tile dimension's share of the iota order: a range of strides
/// [stride, stride * size) of the linear device index.
struct StrideRange {
  int64_t stride, size;
};
} // namespace

/// The transposed iota an explicit device list spells, as (reshape, perm),
/// when it is one: `0,4,1,5,2,6,3,7` is `<=[2,4]T(1,0)`. Positions are
/// split into runs from the minor end: a run of `size` positions steps the
/// device by one `stride`; the list is an iota when every device is the
/// sum of its position's run digits times their strides and the strides,
/// sorted, are those of one mixed radix.
static bool explicitIotaForm(llvm::ArrayRef<int64_t> devices,
                             std::vector<int64_t> &reshape,
                             std::vector<int64_t> &perm) {
  int64_t n = devices.size();
  if (n == 0 || devices[0] != 0)
    return false;
  std::vector<StrideRange> runs; // minor first, in position order
  for (int64_t block = 1; block < n;) {
    int64_t stride = devices[block];
    int64_t size = 1;
    while (block * size < n && devices[block * size] == stride * size)
      ++size;
    while ((n / block) % size)
      --size;
    if (size == 1)
      return false;
    runs.push_back({stride, size});
    block *= size;
  }
  // Every position's device from its digits.
  for (int64_t pos = 0; pos < n; ++pos) {
    int64_t rest = pos, device = 0;
    for (StrideRange r : runs) {
      device += rest % r.size * r.stride;
      rest /= r.size;
    }
    if (device != devices[pos])
      return false;
  }
  std::vector<size_t> byStride(runs.size());
  std::iota(byStride.begin(), byStride.end(), 0);
  llvm::sort(byStride, [&](size_t a, size_t b) {
    return runs[a].stride > runs[b].stride;
  });
  int64_t expected = 1;
  for (size_t i : llvm::reverse(byStride)) {
    if (runs[i].stride != expected)
      return false;
    expected *= runs[i].size;
  }
  // Reshape: major stride first; perm: the runs in position order, major
  // first, as reshape dimensions.
  reshape.clear();
  perm.clear();
  for (size_t i : byStride)
    reshape.push_back(runs[i].size);
  for (size_t r = runs.size(); r-- > 0;)
    perm.push_back(llvm::find(byStride, r) - byStride.begin());
  return true;
}

/// The iota order of `s` as (reshape, perm), when it has one.
static bool iotaForm(const GspmdSharding &s, std::vector<int64_t> &reshape,
                     std::vector<int64_t> &perm) {
  if (!s.iotaReshape.empty()) {
    reshape = s.iotaReshape;
    perm = s.iotaPerm;
    return true;
  }
  return explicitIotaForm(s.devices, reshape, perm);
}

/// For each tile dimension of `s`, the stride ranges (major to minor) of
/// the linear device index it covers; nullopt if a tile dimension cuts an
/// iota dimension in a way no stride range describes.
static std::optional<std::vector<std::vector<StrideRange>>>
tileStrideRanges(const GspmdSharding &s) {
  std::vector<int64_t> reshape, perm;
  if (!iotaForm(s, reshape, perm))
    return std::nullopt;
  // Stride of each iota dimension in the linear index.
  std::vector<int64_t> strides(reshape.size(), 1);
  for (int64_t d = reshape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * reshape[d + 1];
  // Walk the permuted iota dimensions and the tile dimensions together, as
  // a reshape does: pieces of permuted dimensions fill tile dimensions.
  std::vector<std::vector<StrideRange>> ranges(s.tileShape.size());
  size_t j = 0;
  int64_t restIota = perm.empty() ? 1 : reshape[perm[0]];
  for (size_t t = 0; t < s.tileShape.size(); ++t) {
    int64_t restTile = s.tileShape[t];
    while (restTile > 1) {
      while (restIota == 1 && ++j < perm.size())
        restIota = reshape[perm[j]];
      if (j >= perm.size())
        return std::nullopt;
      int64_t piece = std::min(restTile, restIota);
      if (restTile % piece || restIota % piece)
        return std::nullopt;
      // The major `piece` of what is left of iota dimension perm[j].
      restIota /= piece;
      ranges[t].push_back({strides[perm[j]] * restIota, piece});
      restTile /= piece;
    }
  }
  return ranges;
}

llvm::Expected<std::pair<DeviceMesh, std::vector<TensorSharding>>>
GspmdSharding::toSpmdCommon(llvm::ArrayRef<GspmdSharding> shardings,
                            llvm::ArrayRef<unsigned> ranks,
                            StringRef meshName) {
  auto fail = [](const llvm::Twine &why) {
    return makeError("no common mesh: " + why);
  };
  int64_t numDevices = 0;
  std::vector<std::vector<std::vector<StrideRange>>> all;
  std::vector<int64_t> cuts;
  for (auto [s, rank] : llvm::zip_equal(shardings, ranks)) {
    all.emplace_back();
    if (s.kind != Kind::Tiled)
      continue;
    unsigned tileRank = s.tileShape.size() - (s.lastTileDimReplicate ? 1 : 0);
    if (tileRank != rank)
      return makeError(llvm::formatv(
          "GSPMD sharding '{0}' tiles {1} dimensions but the tensor has rank "
          "{2}",
          s.str(), tileRank, rank));
    if (numDevices && numDevices != static_cast<int64_t>(s.devices.size()))
      return fail("the shardings use different device counts");
    numDevices = s.devices.size();
    std::optional<std::vector<std::vector<StrideRange>>> ranges =
        tileStrideRanges(s);
    if (!ranges)
      return fail("'" + s.str() + "' is not an iota order");
    for (const auto &dim : *ranges)
      for (StrideRange r : dim) {
        cuts.push_back(r.stride);
        cuts.push_back(r.stride * r.size);
      }
    all.back() = std::move(*ranges);
  }
  if (!numDevices)
    numDevices = 1;
  cuts.push_back(1);
  cuts.push_back(numDevices);
  llvm::sort(cuts);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (size_t i = 1; i < cuts.size(); ++i)
    if (cuts[i] % cuts[i - 1])
      return fail("the device orders have no common refinement");

  // Mesh axes, major first: the stride intervals between cuts.
  std::vector<std::string> names;
  std::vector<int64_t> shape, axisStride;
  for (size_t i = cuts.size() - 1; i > 0; --i) {
    names.push_back("axis" + std::to_string(names.size()));
    shape.push_back(cuts[i] / cuts[i - 1]);
    axisStride.push_back(cuts[i - 1]);
  }
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create(names, shape));

  std::vector<TensorSharding> result;
  for (auto [s, rank, ranges] : llvm::zip_equal(shardings, ranks, all)) {
    std::vector<DimSharding> dims(rank);
    for (unsigned d = 0; d < rank && d < ranges.size(); ++d)
      for (StrideRange r : ranges[d])
        // The mesh axes inside [stride, stride * size), major first.
        for (size_t a = 0; a < names.size(); ++a)
          if (axisStride[a] >= r.stride && axisStride[a] < r.stride * r.size)
            dims[d].axes.push_back(names[a]);
    result.emplace_back(meshName.str(), std::move(dims));
  }
  return std::make_pair(std::move(mesh), std::move(result));
}
