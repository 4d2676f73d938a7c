//===- Safetensors.cpp - The safetensors format ---------------------------===//

#include "runtime/exec/Safetensors.h"
#include "support/Files.h"
#include "support/Json.h"

#include "support/Machine.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace spmd::runtime {

namespace {
struct DTypeName {
  ElementType type;
  llvm::StringLiteral name;
};
} // namespace

static constexpr DTypeName kDTypeNames[] = {
    {ElementType::F32, "F32"}, {ElementType::F64, "F64"},
    {ElementType::F16, "F16"}, {ElementType::BF16, "BF16"},
    {ElementType::I1, "BOOL"}, {ElementType::I8, "I8"},
    {ElementType::I16, "I16"}, {ElementType::I32, "I32"},
    {ElementType::I64, "I64"}, {ElementType::Index, "I64"},
};

/// The format's other dtypes of whole bytes, by width: a file holding
/// them still loads the tensors it holds of the others.
static constexpr std::pair<llvm::StringLiteral, unsigned> kUnheldDTypes[] = {
    {"U8", 1},      {"U16", 2},     {"U32", 4},     {"U64", 8},
    {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1},
};

std::optional<llvm::StringRef> safetensorsDType(ElementType type) {
  for (const DTypeName &entry : kDTypeNames)
    if (entry.type == type)
      return llvm::StringRef(entry.name);
  return std::nullopt;
}

std::optional<ElementType> fromSafetensorsDType(llvm::StringRef name) {
  // The first entry of a name is the type it reads as (I64, not index).
  for (const DTypeName &entry : kDTypeNames)
    if (entry.name == name)
      return entry.type;
  return std::nullopt;
}

/// Files at least twice this large are written by two threads or more.
static constexpr uint64_t kParallelWriteBytes = uint64_t(64) << 20;

/// The deepest a header nests (the format needs 3: object, entry, shape).
static constexpr unsigned kMaxHeaderDepth = 8;

/// The entry `name` describes in `fields`, its offsets relative to the data.
static llvm::Expected<SafetensorsEntry>
parseEntry(llvm::StringRef name, const llvm::json::Value &fields,
           llvm::StringRef path) {
  auto bad = [&](const llvm::Twine &why) {
    return fileError(path, "tensor '" + name + "': " + why);
  };
  const llvm::json::Object *object = fields.getAsObject();
  if (!object)
    return bad("its entry is not an object");
  std::optional<llvm::StringRef> dtype = object->getString("dtype");
  if (!dtype)
    return bad("no \"dtype\" string");
  std::optional<ElementType> type = fromSafetensorsDType(*dtype);
  std::optional<unsigned> width;
  if (type)
    width = elementTypeBytes(*type);
  for (const auto &[unheld, unheldWidth] : kUnheldDTypes)
    if (*dtype == unheld)
      width = unheldWidth;
  if (!width)
    return bad("dtype \"" + *dtype + "\" is not one of the format's");
  SafetensorsEntry entry{name.str(), type, dtype->str(), {}, 0, 0};
  const llvm::json::Array *shape = object->getArray("shape");
  if (!shape)
    return bad("no \"shape\" array");
  uint64_t elements = 1;
  for (const llvm::json::Value &dim : *shape) {
    std::optional<uint64_t> size = jsonCount(dim);
    if (!size || *size > uint64_t(std::numeric_limits<int64_t>::max()))
      return bad("a shape entry is not a non-negative integer");
    std::optional<uint64_t> product = llvm::checkedMulUnsigned(elements, *size);
    if (!product)
      return bad("its shape holds more elements than 2^64");
    elements = *product;
    entry.shape.push_back(int64_t(*size));
  }
  const llvm::json::Array *offsets = object->getArray("data_offsets");
  std::optional<uint64_t> begin, end;
  if (offsets && offsets->size() == 2) {
    begin = jsonCount((*offsets)[0]);
    end = jsonCount((*offsets)[1]);
  }
  if (!begin || !end || *begin > *end)
    return bad("\"data_offsets\" is not [begin, end] with begin <= end");
  std::optional<uint64_t> bytes =
      llvm::checkedMulUnsigned(elements, uint64_t(*width));
  if (!bytes || *bytes != *end - *begin)
    return bad(llvm::formatv(
        "its data_offsets hold {0} bytes, its dtype and "
        "shape {1}",
        *end - *begin, bytes ? std::to_string(*bytes) : "more than 2^64"));
  entry.offset = *begin;
  entry.bytes = *bytes;
  return entry;
}

/// The entries of a file of `fileSize` bytes whose header (the JSON after
/// the length) is `header`, in the order of their data.
static llvm::Expected<std::vector<SafetensorsEntry>>
parseSafetensorsHeader(llvm::StringRef header, uint64_t fileSize,
                       llvm::StringRef path) {
  if (!header.starts_with("{"))
    return fileError(path, "the header is not a JSON object");
  llvm::Expected<llvm::json::Value> json = parseJson(header, kMaxHeaderDepth);
  if (!json)
    return fileError(path, "cannot read the header: " +
                               llvm::toString(json.takeError()));
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return fileError(path, "the header is not a JSON object");
  std::vector<SafetensorsEntry> entries;
  for (const auto &[key, fields] : *object) {
    if (key == "__metadata__") {
      const llvm::json::Object *metadata = fields.getAsObject();
      if (!metadata || llvm::any_of(*metadata, [](const auto &kv) {
            return !kv.second.getAsString();
          }))
        return fileError(path, "\"__metadata__\" is not an object of strings");
      continue;
    }
    llvm::Expected<SafetensorsEntry> entry = parseEntry(key, fields, path);
    if (!entry)
      return entry.takeError();
    entries.push_back(std::move(*entry));
  }
  // The data follows the header and is covered exactly, in order.
  llvm::sort(entries, [](const SafetensorsEntry &a, const SafetensorsEntry &b) {
    return std::tie(a.offset, a.bytes) < std::tie(b.offset, b.bytes);
  });
  uint64_t dataStart = 8 + header.size(), at = 0;
  for (SafetensorsEntry &entry : entries) {
    if (entry.offset != at)
      return fileError(path,
                       llvm::formatv("tensor '{0}': its data starts at byte "
                                     "{1} of the data, where {2} was "
                                     "expected (holes and overlaps are "
                                     "not allowed)",
                                     entry.name, entry.offset, at));
    at += entry.bytes;
    entry.offset += dataStart;
  }
  if (dataStart + at != fileSize)
    return fileError(
        path, llvm::formatv(
                  "the header describes {0} bytes of data, "
                  "the file holds {1}{2}",
                  at, fileSize - dataStart,
                  dataStart + at > fileSize ? " (the file is truncated)" : ""));
  return entries;
}

/// The header's length from the first 8 bytes of a file of `fileSize`.
static llvm::Expected<uint64_t>
headerLength(const uint8_t *first8, uint64_t fileSize, llvm::StringRef path) {
  uint64_t length = llvm::support::endian::read64le(first8);
  if (length > kMaxSafetensorsHeaderBytes)
    return fileError(path,
                     llvm::formatv("its header length {0} is more than the "
                                   "limit of {1}",
                                   length, kMaxSafetensorsHeaderBytes));
  if (8 + length > fileSize)
    return fileError(path,
                     llvm::formatv("its header length {0} goes past the end "
                                   "of the file ({1} bytes)",
                                   length, fileSize));
  return length;
}

llvm::Expected<std::vector<SafetensorsEntry>>
readSafetensorsHeader(const RandomAccessFile &file) {
  if (file.size() < 8)
    return fileError(file.path(),
                     "not a safetensors file (fewer than 8 bytes)");
  uint8_t first8[8];
  if (llvm::Error err = file.readAt(0, 8, first8))
    return err;
  llvm::Expected<uint64_t> length =
      headerLength(first8, file.size(), file.path());
  if (!length)
    return length.takeError();
  std::string header(*length, '\0');
  if (llvm::Error err = file.readAt(8, *length, header.data()))
    return err;
  return parseSafetensorsHeader(header, file.size(), file.path());
}

llvm::Expected<ElementType> heldType(const SafetensorsEntry &entry,
                                     llvm::StringRef path) {
  if (entry.type)
    return *entry.type;
  return fileError(path, "tensor '" + entry.name + "': dtype \"" + entry.dtype +
                             "\" is not one this runtime holds");
}

llvm::Error checkSafetensorsValues(ElementType type, const uint8_t *data,
                                   uint64_t bytes, llvm::StringRef path,
                                   llvm::StringRef name) {
  std::optional<uint64_t> bad;
  if (type != ElementType::I1 || !(bad = firstNonBool(data, bytes)))
    return llvm::Error::success();
  return fileError(path,
                   "tensor '" + name + "': " + notABool(*bad, data[*bad]));
}

llvm::Expected<std::vector<SafetensorsEntry>>
parseSafetensorsEntries(llvm::StringRef bytes, llvm::StringRef path) {
  if (bytes.size() < 8)
    return fileError(path, "not a safetensors file (fewer than 8 bytes)");
  auto *base = reinterpret_cast<const uint8_t *>(bytes.data());
  llvm::Expected<uint64_t> length = headerLength(base, bytes.size(), path);
  if (!length)
    return length.takeError();
  return parseSafetensorsHeader(bytes.substr(8, *length), bytes.size(), path);
}

llvm::Expected<std::vector<std::pair<std::string, HostBuffer>>>
parseSafetensors(llvm::StringRef bytes, llvm::StringRef path) {
  llvm::Expected<std::vector<SafetensorsEntry>> entries =
      parseSafetensorsEntries(bytes, path);
  if (!entries)
    return entries.takeError();
  auto *base = reinterpret_cast<const uint8_t *>(bytes.data());
  std::vector<std::pair<std::string, HostBuffer>> tensors;
  for (const SafetensorsEntry &entry : *entries) {
    llvm::Expected<ElementType> type = heldType(entry, path);
    if (!type)
      return type.takeError();
    const uint8_t *data = base + entry.offset;
    if (llvm::Error err =
            checkSafetensorsValues(*type, data, entry.bytes, path, entry.name))
      return err;
    HostBuffer tensor(*type, entry.shape, Init::None);
    if (entry.bytes)
      std::memcpy(tensor.data(), data, entry.bytes);
    tensors.emplace_back(entry.name, std::move(tensor));
  }
  return tensors;
}

/// Writes `prefix` at the start of `fd` and each tensor's `sizes` bytes at
/// its offset: large files by several threads, each a contiguous part of
/// the data (the kernel's copy into the page cache is what takes the time).
static std::error_code writeData(int fd, llvm::StringRef prefix,
                                 llvm::ArrayRef<SafetensorsTensor> tensors,
                                 llvm::ArrayRef<uint64_t> offsets,
                                 llvm::ArrayRef<uint64_t> sizes) {
  uint64_t end =
      offsets.empty() ? prefix.size() : offsets.back() + sizes.back();
  unsigned threads = std::clamp<unsigned>(
      std::min<uint64_t>(availableCores(), end / kParallelWriteBytes), 1, 4);
  std::vector<std::error_code> errors(threads);
  auto writePart = [&](unsigned part) {
    uint64_t from = end * part / threads, to = end * (part + 1) / threads;
    auto writeRange = [&](const void *data, uint64_t at, uint64_t bytes) {
      uint64_t lo = std::max(at, from), hi = std::min(at + bytes, to);
      if (lo >= hi || errors[part])
        return;
      if (llvm::Error err = writeAt(
              fd, static_cast<const uint8_t *>(data) + (lo - at), hi - lo, lo))
        errors[part] = llvm::errorToErrorCode(std::move(err));
    };
    writeRange(prefix.data(), 0, prefix.size());
    for (auto [tensor, offset, size] : llvm::zip(tensors, offsets, sizes))
      writeRange(tensor.data, offset, size);
  };
  std::vector<std::thread> workers;
  for (unsigned part = 1; part < threads; ++part)
    workers.emplace_back(writePart, part);
  writePart(0);
  for (std::thread &worker : workers)
    worker.join();
  for (std::error_code ec : errors)
    if (ec)
      return ec;
  return {};
}

llvm::Expected<std::vector<uint64_t>>
writeSafetensors(llvm::StringRef path,
                 llvm::ArrayRef<SafetensorsTensor> tensors,
                 const std::map<std::string, std::string> &metadata) {
  std::string header;
  llvm::raw_string_ostream os(header);
  llvm::json::OStream json(os);
  std::vector<uint64_t> dataOffsets;
  std::vector<uint64_t> sizes;
  uint64_t at = 0;
  json.objectBegin();
  if (!metadata.empty())
    json.attributeObject("__metadata__", [&] {
      for (const auto &[key, value] : metadata)
        json.attribute(key, value);
    });
  for (const SafetensorsTensor &tensor : tensors) {
    std::optional<llvm::StringRef> dtype = safetensorsDType(tensor.type);
    if (!dtype)
      return fileError(path, "tensor '" + tensor.name +
                                 "': safetensors has no " +
                                 elementTypeName(tensor.type) + " type");
    uint64_t bytes = elementTypeBytes(tensor.type);
    for (int64_t d : tensor.shape)
      bytes *= uint64_t(d);
    json.attributeObject(tensor.name, [&] {
      json.attribute("dtype", *dtype);
      json.attributeArray("shape", [&] {
        for (int64_t d : tensor.shape)
          json.value(d);
      });
      json.attributeArray("data_offsets", [&] {
        json.value(int64_t(at));
        json.value(int64_t(at + bytes));
      });
    });
    dataOffsets.push_back(at);
    sizes.push_back(bytes);
    at += bytes;
  }
  json.objectEnd();
  // Spaces pad the header so that the data starts 8-byte aligned.
  header.append((8 - header.size() % 8) % 8, ' ');
  uint64_t dataStart = 8 + header.size();
  for (uint64_t &offset : dataOffsets)
    offset += dataStart;
  std::string prefix(8, '\0');
  llvm::support::endian::write64le(prefix.data(), header.size());
  prefix += header;
  if (llvm::Error err = writeFileDurably(path, "safetensors file", [&](int fd) {
        return writeData(fd, prefix, tensors, dataOffsets, sizes);
      }))
    return std::move(err);
  return dataOffsets;
}

} // namespace spmd::runtime
