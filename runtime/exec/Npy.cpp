//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "runtime/exec/Npy.h"
#include "support/Files.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace spmd::runtime {

static std::optional<ElementType> fromDescr(llvm::StringRef descr) {
  if (descr == "<f4")
    return ElementType::F32;
  if (descr == "<f8")
    return ElementType::F64;
  if (descr == "<f2")
    return ElementType::F16;
  if (descr == "|b1")
    return ElementType::I1;
  if (descr == "|i1" || descr == "<i1")
    return ElementType::I8;
  if (descr == "<i2")
    return ElementType::I16;
  if (descr == "<i4")
    return ElementType::I32;
  if (descr == "<i8")
    return ElementType::I64;
  return std::nullopt;
}

/// Integers are written in their storage container (i4 as int8,
/// sign-extended), bf16 as f32, index as int64.
static llvm::StringRef toDescr(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::BF16:
    return "<f4";
  case ElementType::F64:
    return "<f8";
  case ElementType::F16:
    return "<f2";
  case ElementType::I1:
    return "|b1";
  default:
    break;
  }
  switch (elementTypeBytes(type)) {
  case 1:
    return "|i1";
  case 2:
    return "<i2";
  case 4:
    return "<i4";
  default:
    return "<i8";
  }
}

/// The value of `key` in the header dictionary text.
static llvm::StringRef field(llvm::StringRef header, llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return {};
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return {};
  return rest.ltrim();
}

llvm::Expected<HostBuffer> readNpy(llvm::StringRef path,
                                   uint64_t maxDataBytes) {
  uint64_t maxBytes =
      maxDataBytes > std::numeric_limits<uint64_t>::max() - kMaxNpyHeaderBytes
          ? std::numeric_limits<uint64_t>::max()
          : kMaxNpyHeaderBytes + maxDataBytes;
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path, maxBytes, ".npy file");
  if (!buffer)
    return fileError(path, llvm::toString(buffer.takeError()));
  return parseNpy((*buffer)->getBuffer(), path);
}

llvm::Expected<NpyView> parseNpyHeader(llvm::StringRef bytes,
                                       llvm::StringRef path) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return fileError(path, "not a .npy file");
  unsigned major = uint8_t(bytes[6]);
  size_t headerLength, offset;
  if (major == 1) {
    headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fileError(path, "truncated header");
    headerLength =
        uint32_t(uint8_t(bytes[8])) | uint32_t(uint8_t(bytes[9])) << 8 |
        uint32_t(uint8_t(bytes[10])) << 16 | uint32_t(uint8_t(bytes[11])) << 24;
    offset = 12;
  } else {
    return fileError(path, "unsupported .npy version " + llvm::Twine(major));
  }
  if (headerLength > kMaxNpyHeaderBytes)
    return fileError(path,
                     llvm::formatv("its header has {0} bytes, more than the "
                                   "limit of {1}",
                                   headerLength, kMaxNpyHeaderBytes));
  if (offset + headerLength > bytes.size())
    return fileError(path, "truncated header");
  llvm::StringRef header = bytes.substr(offset, headerLength);

  llvm::StringRef descr = field(header, "descr");
  if (!descr.consume_front("'"))
    return fileError(path, "header has no descr");
  descr = descr.take_until([](char c) { return c == '\''; });
  std::optional<ElementType> type = fromDescr(descr);
  if (!type)
    return fileError(path, "unsupported element type '" + descr + "'");
  if (field(header, "fortran_order").starts_with("True"))
    return fileError(path, "Fortran-order arrays are not supported");
  llvm::StringRef shapeText = field(header, "shape");
  if (!shapeText.consume_front("("))
    return fileError(path, "header has no shape");
  shapeText = shapeText.take_until([](char c) { return c == ')'; });
  std::vector<int64_t> shape;
  while (!shapeText.trim().empty()) {
    auto [item, rest] = shapeText.split(',');
    item = item.trim();
    if (!item.empty()) {
      int64_t size;
      if (item.getAsInteger(10, size) || size < 0)
        return fileError(path, "bad shape entry '" + item + "'");
      shape.push_back(size);
    }
    shapeText = rest;
  }
  // The header may promise anything: the data it promises must be in the
  // file before anything is allocated. Bytes beyond it (which NumPy
  // ignores) are refused too: they mean a header that lost a dimension or
  // names a narrower type than was written.
  std::optional<int64_t> expected = elementTypeBytes(*type);
  for (int64_t size : shape)
    if (expected)
      expected = llvm::checkedMul(*expected, size);
  size_t data = offset + headerLength;
  if (!expected || uint64_t(*expected) != bytes.size() - data)
    return fileError(path,
                     llvm::formatv("holds {0} bytes of data, but its header "
                                   "promises {1}",
                                   bytes.size() - data,
                                   expected ? std::to_string(*expected)
                                            : std::string("more than 2^63")));
  const auto *values = reinterpret_cast<const uint8_t *>(bytes.data()) + data;
  // A bool is a byte, 0 or 1: another would read as true or false
  // depending on who reads it.
  if (*type == ElementType::I1)
    if (std::optional<uint64_t> bad = firstNonBool(values, *expected))
      return fileError(path, notABool(*bad, values[*bad]));
  return NpyView{*type, std::move(shape), values};
}

llvm::Expected<HostBuffer> parseNpy(llvm::StringRef bytes,
                                    llvm::StringRef path) {
  llvm::Expected<NpyView> view = parseNpyHeader(bytes, path);
  if (!view)
    return view.takeError();
  HostBuffer tensor(view->type, view->shape);
  std::memcpy(tensor.data(), view->data, tensor.sizeInBytes());
  return tensor;
}

/// The NumPy type an iN of an odd width is written as (its storage
/// container), if `type` is one.
static std::optional<ElementType> containerOf(ElementType type) {
  if (isFloat(type) || type == ElementType::Index || type == ElementType::I1)
    return std::nullopt;
  ElementType container = integerElementType(8 * elementTypeBytes(type));
  return container == type ? std::nullopt : std::optional(container);
}

/// Why `tensor` cannot be read as an iN: its first element outside
/// [-2^(N-1), 2^N - 1], the values an iN literal may have in MLIR (both
/// readings of N bits; they are stored wrapped to N bits).
static std::optional<std::string> outOfRange(const HostBuffer &tensor,
                                             unsigned width) {
  int64_t low = -(int64_t(1) << (width - 1));
  int64_t high = int64_t((uint64_t(1) << width) - 1); // width < 64
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    if (int64_t v = tensor.getInt(i); v < low || v > high)
      return llvm::formatv("element {0} is {1}, outside [{2}, {3}], the "
                           "values of i{4}",
                           i, v, low, high, width)
          .str();
  return std::nullopt;
}

llvm::Expected<HostBuffer> readNpy(llvm::StringRef path, ElementType want,
                                   uint64_t maxDataBytes) {
  llvm::Expected<HostBuffer> read = readNpy(path, maxDataBytes);
  if (!read || read->type() == want)
    return read;
  bool compatible =
      (want == ElementType::BF16 && read->type() == ElementType::F32) ||
      (want == ElementType::Index && read->type() == ElementType::I64) ||
      containerOf(want) == read->type();
  if (!compatible)
    return fileError(path, "holds " + elementTypeName(read->type()) + " but " +
                               elementTypeName(want) + " is expected");
  if (containerOf(want))
    if (std::optional<std::string> why = outOfRange(*read, intWidth(want)))
      return fileError(path, *why);
  HostBuffer converted(want, std::vector<int64_t>(read->shape()));
  for (int64_t i = 0; i < read->numElements(); ++i) {
    if (isFloat(want))
      converted.setFloat(i, read->getFloat(i));
    else
      converted.setInt(i, read->getInt(i));
  }
  return converted;
}

llvm::Error writeNpy(llvm::StringRef path, const HostBuffer &tensor) {
  std::string header = "{'descr': '" + toDescr(tensor.type()).str() +
                       "', 'fortran_order': False, 'shape': (";
  for (int64_t size : tensor.shape())
    header += std::to_string(size) + ", ";
  if (tensor.rank() > 1)
    header.resize(header.size() - 1);
  else if (tensor.rank() == 1)
    header.resize(header.size() - 1);
  header += "), }";
  // Pad so that the data starts on a 64-byte boundary, newline-terminated.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  return writeFile(path, "tensor", [&](llvm::raw_ostream &os) {
    os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
       << char((header.size() >> 8) & 0xff) << header;
    if (tensor.type() == ElementType::BF16) {
      for (int64_t i = 0; i < tensor.numElements(); ++i) {
        float v = float(tensor.getFloat(i));
        os.write(reinterpret_cast<const char *>(&v), 4);
      }
    } else {
      os.write(reinterpret_cast<const char *>(tensor.data()),
               tensor.sizeInBytes());
    }
  });
}

} // namespace spmd::runtime
