//===- HostBuffer.h - Tensors in memory -------------------------*- C++ -*-===//
//
// A dense, row-major tensor of one of the supported element types, owning
// its bytes. Elements are read and written as double or int64 so kernels
// can stay type-generic; the storage keeps the exact type (f16 and bf16 are
// rounded on store).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_HOSTTENSOR_H
#define SPMD_RUNTIME_HOSTTENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spmd::runtime {

/// Element types: the floats, index, and the integers of every width N from
/// 1 to 64 (`integerElementType(N)`; the usual widths are named). An iN element
/// is stored in the smallest of 1, 2, 4 or 8 bytes holding N bits,
/// sign-extended from N bits (i1: 0 or 1), so that kernels read it as a plain
/// int8_t .. int64_t; setInt wraps what it stores to N bits.
constexpr uint8_t kIntegerElementTypeBase =
    64; // iN is kIntegerElementTypeBase + N
enum class ElementType : uint8_t {
  F32,
  F64,
  F16,
  BF16,
  Index,
  I1 = kIntegerElementTypeBase + 1,
  I8 = kIntegerElementTypeBase + 8,
  I16 = kIntegerElementTypeBase + 16,
  I32 = kIntegerElementTypeBase + 32,
  I64 = kIntegerElementTypeBase + 64,
};

/// The integer type of `width` bits, 1 <= width <= 64.
ElementType integerElementType(unsigned width);
int64_t elementTypeBytes(ElementType type);
bool isFloat(ElementType type);
/// Bit width of integer types (index: 64).
unsigned intWidth(ElementType type);
/// "f32", "i4", "index", ...: the MLIR spelling.
llvm::StringRef elementTypeName(ElementType type);
/// The position of the first of `bytes` bytes at `data` that is no bool
/// (an i1 is stored as a byte, 0 or 1), if any.
std::optional<uint64_t> firstNonBool(const uint8_t *data, uint64_t bytes);
/// "element 2 is 5, not a bool (0 or 1)": what refuses such a byte.
std::string notABool(uint64_t element, uint8_t value);

/// Bytes of tensor storage live on each device of one run, and their
/// peaks. Each run has its own, so runs in one process (two Programs at
/// once) keep their own figures; storage that outlives the run keeps its
/// statistics alive until it is freed.
class MemoryStats {
public:
  explicit MemoryStats(int64_t devices);
  int64_t numDevices() const { return devices; }
  void add(int64_t device, int64_t bytes);
  int64_t peak(int64_t device) const;
  int64_t live(int64_t device) const;

private:
  int64_t devices;
  std::unique_ptr<std::atomic<int64_t>[]> liveBytes, peakBytes;
};

/// Bytes of tensor storage held now for the device at `position` among
/// the devices of this process, whatever run or placement made it.
int64_t heldBytes(int64_t position);
/// One more than the largest position storage was ever counted for.
int64_t heldBytesPositions();

/// Where the storage the calling thread allocates counts: a run's
/// statistics (none when `stats` is null) and a device of it, the device's
/// position among this process's devices (none when negative). Devices set
/// it when they start; the device pool carries it with each device.
struct MemoryScope {
  std::shared_ptr<MemoryStats> stats;
  int64_t device = -1;

  static const MemoryScope &current();
  static void setCurrent(MemoryScope scope);
};

/// Storage the calling thread allocates while it lives counts for the
/// device at `position` of this process (placing host data, say).
class CountedFor {
public:
  explicit CountedFor(int64_t position) : saved(MemoryScope::current()) {
    MemoryScope::setCurrent({nullptr, position});
  }
  ~CountedFor() { MemoryScope::setCurrent(std::move(saved)); }
  CountedFor(const CountedFor &) = delete;
  CountedFor &operator=(const CountedFor &) = delete;

private:
  MemoryScope saved;
};

/// Whether new storage starts zeroed (the default) or holds whatever the
/// allocator gives (for kernels that write every byte).
enum class Init { Zero, None };

/// Storage bytes that count for the device that allocated them. Large
/// blocks come from a process-wide pool that keeps freed blocks for reuse,
/// so a program run many times does not fault its pages in every run.
class TrackedBytes {
public:
  TrackedBytes() = default;
  explicit TrackedBytes(size_t size, Init init = Init::Zero);
  TrackedBytes(const TrackedBytes &o);
  TrackedBytes(TrackedBytes &&o) noexcept
      : scope(std::move(o.scope)), size(o.size), ptr(o.ptr) {
    o.size = 0;
    o.ptr = nullptr;
  }
  TrackedBytes &operator=(TrackedBytes o) {
    std::swap(scope, o.scope);
    std::swap(size, o.size);
    std::swap(ptr, o.ptr);
    return *this;
  }
  ~TrackedBytes();

  uint8_t *data() { return ptr; }
  const uint8_t *data() const { return ptr; }

private:
  MemoryScope scope;
  size_t size = 0;
  uint8_t *ptr = nullptr;
};

class HostBuffer {
public:
  HostBuffer() = default;
  HostBuffer(ElementType type, std::vector<int64_t> shape,
             Init init = Init::Zero);

  ElementType type() const { return type_; }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  int64_t rank() const { return shape_.size(); }
  int64_t numElements() const { return numElements_; }
  int64_t sizeInBytes() const { return numElements_ * elementTypeBytes(type_); }
  uint8_t *data() { return bytes_.data(); }
  const uint8_t *data() const { return bytes_.data(); }
  template <typename T> T *as() { return reinterpret_cast<T *>(data()); }
  template <typename T> const T *as() const {
    return reinterpret_cast<const T *>(data());
  }

  double getFloat(int64_t i) const;
  void setFloat(int64_t i, double v);
  int64_t getInt(int64_t i) const;
  void setInt(int64_t i, int64_t v);
  /// As a double whatever the type (integers converted).
  double getAsDouble(int64_t i) const {
    return isFloat(type_) ? getFloat(i) : double(getInt(i));
  }

  /// Wraps every integer element to its width, as setInt does: after raw
  /// bytes were copied in (an i4 constant's bytes may hold 15 for -1).
  void wrapIntegers();

  /// Row-major strides in elements.
  std::vector<int64_t> strides() const;

private:
  ElementType type_ = ElementType::F32;
  std::vector<int64_t> shape_;
  int64_t numElements_ = 0;
  TrackedBytes bytes_;
};

using TensorRef = std::shared_ptr<HostBuffer>;

/// Round-to-nearest-even conversions of the 16-bit float formats.
uint16_t floatToHalf(float v);
float halfToFloat(uint16_t v);
uint16_t floatToBFloat16(float v);
float bfloat16ToFloat(uint16_t v);

/// Sign-extends `v` from `width` bits (wraps integer arithmetic to a type);
/// inline, as kernels' loops call it per element.
inline int64_t wrapToWidth(int64_t v, unsigned width) {
  if (width >= 64)
    return v;
  if (width == 1)
    return v & 1;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t u = uint64_t(v) & mask;
  uint64_t sign = uint64_t(1) << (width - 1);
  return int64_t((u ^ sign) - sign);
}
/// The value `v` of an integer of `width` bits read signed: integers are
/// held sign-extended, except i1, held as 0 or 1 (true read signed is -1).
inline int64_t readSigned(int64_t v, unsigned width) {
  return width == 1 ? -v : v;
}
/// `v` truncated to an integer, saturating at the int64 range; NaN gives 0.
/// (A plain conversion of a value out of range is undefined in C++; MLIR
/// leaves its result unspecified, so one defined answer serves both the
/// partitioned and the reference program.)
int64_t toIntSaturating(double v);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_HOSTTENSOR_H
