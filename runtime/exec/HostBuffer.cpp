//===- HostBuffer.cpp - Tensors in memory ---------------------------------===//

#include "runtime/exec/HostBuffer.h"
#include "mesh/DeviceMesh.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

#include <sys/mman.h>

namespace spmd::runtime {

MemoryStats::MemoryStats(int64_t devices)
    : devices(devices), liveBytes(new std::atomic<int64_t>[devices]()),
      peakBytes(new std::atomic<int64_t>[devices]()) {}

int64_t MemoryStats::peak(int64_t device) const {
  assert(device >= 0 && device < devices && "no such device");
  return peakBytes[device].load();
}

int64_t MemoryStats::live(int64_t device) const {
  assert(device >= 0 && device < devices && "no such device");
  return liveBytes[device].load();
}

void MemoryStats::add(int64_t device, int64_t bytes) {
  assert(device >= 0 && device < devices && "no such device");
  int64_t now = liveBytes[device] += bytes;
  int64_t peak = peakBytes[device].load();
  while (now > peak && !peakBytes[device].compare_exchange_weak(peak, now)) {
  }
}

namespace {
thread_local MemoryScope currentScope;

/// heldBytes's counters, process-wide, in blocks made on first use (and
/// kept), so counting never locks.
constexpr int64_t kCountersPerBlock = 8192;
constexpr int64_t kBlocks = DeviceMesh::kMaxDevices / kCountersPerBlock;
std::atomic<std::atomic<int64_t> *> counterBlocks[kBlocks];
std::atomic<int64_t> positionsCounted{0};

std::atomic<int64_t> *heldBytesCounter(int64_t position, bool make) {
  if (position < 0 || position >= DeviceMesh::kMaxDevices)
    return nullptr;
  std::atomic<std::atomic<int64_t> *> &slot =
      counterBlocks[position / kCountersPerBlock];
  std::atomic<int64_t> *block = slot.load();
  if (!block && make) {
    auto *made = new std::atomic<int64_t>[kCountersPerBlock]();
    if (slot.compare_exchange_strong(block, made))
      block = made;
    else
      delete[] made;
  }
  if (!block)
    return nullptr;
  int64_t seen = positionsCounted.load();
  while (make && position >= seen &&
         !positionsCounted.compare_exchange_weak(seen, position + 1)) {
  }
  return &block[position % kCountersPerBlock];
}

void count(const MemoryScope &scope, int64_t bytes) {
  if (scope.stats)
    scope.stats->add(scope.device, bytes);
  if (std::atomic<int64_t> *held = heldBytesCounter(scope.device, true))
    *held += bytes;
}
} // namespace

int64_t heldBytes(int64_t position) {
  std::atomic<int64_t> *held = heldBytesCounter(position, false);
  return held ? held->load() : 0;
}

int64_t heldBytesPositions() { return positionsCounted.load(); }

const MemoryScope &MemoryScope::current() { return currentScope; }
void MemoryScope::setCurrent(MemoryScope scope) {
  currentScope = std::move(scope);
}

namespace {
/// Freed large blocks by size, kept up to a byte budget. Small blocks go
/// straight to malloc, which reuses them from its heap; larger ones it
/// maps and unmaps (from 128 KiB) or trims from the heap's top, so their
/// pages fault in again on every use: ResNet-50's activations of 100 to
/// 200 KB did, 600 faults a run, none with this pool from 64 KiB.
class BlockPool {
public:
  static BlockPool &get() {
    static BlockPool *pool = new BlockPool(); // outlives static tensors
    return *pool;
  }

  uint8_t *take(size_t size) {
    if (size >= kPooledBytes) {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = free.find(size);
      if (it != free.end()) {
        uint8_t *p = it->second;
        free.erase(it);
        cached -= size;
        return p;
      }
    }
    if (size >= kHugeBytes) {
      // Huge pages: a 2 MiB page holds what 512 small ones would, so
      // strided walks (transposes, column reads) miss the TLB far less.
      size_t rounded = (size + kHugeBytes - 1) / kHugeBytes * kHugeBytes;
      void *p = std::aligned_alloc(kHugeBytes, rounded);
      if (p) {
        madvise(p, rounded, MADV_HUGEPAGE);
        return static_cast<uint8_t *>(p);
      }
    }
    // 64-byte aligned, whatever the size: kernels that peel elements up to
    // an aligned address (Eigen's) round those elements apart from the
    // rest, so a malloc'd buffer's address would decide the rounding, and
    // two devices computing one replicated value would differ in it.
    size_t rounded =
        (std::max<size_t>(size, 1) + kAlignment - 1) / kAlignment * kAlignment;
    return static_cast<uint8_t *>(std::aligned_alloc(kAlignment, rounded));
  }

  void give(uint8_t *p, size_t size) {
    if (size >= kPooledBytes) {
      std::lock_guard<std::mutex> lock(mutex);
      // Over budget: drop the smallest blocks first, the cheapest to
      // fault in again.
      while (cached + size > kBudgetBytes && !free.empty()) {
        cached -= free.begin()->first;
        std::free(free.begin()->second);
        free.erase(free.begin());
      }
      if (cached + size <= kBudgetBytes) {
        free.emplace(size, p);
        cached += size;
        return;
      }
    }
    std::free(p);
  }

private:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kPooledBytes = 64 << 10;
  static constexpr size_t kHugeBytes = 2 << 20;
  static constexpr size_t kBudgetBytes = size_t(2) << 30;
  std::mutex mutex;
  std::multimap<size_t, uint8_t *> free;
  size_t cached = 0;
};
} // namespace

TrackedBytes::TrackedBytes(size_t size, Init init)
    : scope(MemoryScope::current()), size(size),
      ptr(BlockPool::get().take(size)) {
  // Kernels cannot fail halfway; programs whose tensors exceed memory are
  // refused when compiled (SPMD_MAX_TENSOR_BYTES), so this is the machine
  // running out while running: one clear line, not a null dereference.
  if (!ptr)
    llvm::report_fatal_error(
        llvm::formatv("out of memory: {0} bytes requested on device {1}", size,
                      scope.device),
        /*GenCrashDiag=*/false);
  if (init == Init::Zero)
    std::memset(ptr, 0, size);
  count(scope, size);
}

TrackedBytes::TrackedBytes(const TrackedBytes &o)
    : TrackedBytes(o.size, Init::None) {
  std::memcpy(ptr, o.ptr, size);
}

TrackedBytes::~TrackedBytes() {
  if (!ptr)
    return;
  count(scope, -int64_t(size));
  BlockPool::get().give(ptr, size);
}

ElementType integerElementType(unsigned width) {
  assert(width >= 1 && width <= 64 && "integers have 1 to 64 bits");
  return ElementType(kIntegerElementTypeBase + width);
}

static bool isIntegerElementType(ElementType type) {
  return uint8_t(type) > kIntegerElementTypeBase;
}

std::optional<uint64_t> firstNonBool(const uint8_t *data, uint64_t bytes) {
  const uint8_t *bad =
      std::find_if(data, data + bytes, [](uint8_t b) { return b > 1; });
  if (bad == data + bytes)
    return std::nullopt;
  return uint64_t(bad - data);
}

std::string notABool(uint64_t element, uint8_t value) {
  return llvm::formatv("element {0} is {1}, not a bool (0 or 1)", element,
                       unsigned(value))
      .str();
}

int64_t elementTypeBytes(ElementType type) {
  switch (type) {
  case ElementType::F64:
  case ElementType::Index:
    return 8;
  case ElementType::F32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  default:
    break;
  }
  unsigned width = intWidth(type);
  return width <= 8 ? 1 : width <= 16 ? 2 : width <= 32 ? 4 : 8;
}

bool isFloat(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F64 ||
         type == ElementType::F16 || type == ElementType::BF16;
}

unsigned intWidth(ElementType type) {
  return isIntegerElementType(type) ? uint8_t(type) - kIntegerElementTypeBase
                                    : 64;
}

llvm::StringRef elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::Index:
    return "index";
  default:
    break;
  }
  static const std::array<std::string, 65> integerNames = [] {
    std::array<std::string, 65> names;
    for (unsigned width = 1; width <= 64; ++width)
      names[width] = "i" + std::to_string(width);
    return names;
  }();
  return integerNames[intWidth(type)];
}

int64_t toIntSaturating(double v) {
  if (std::isnan(v))
    return 0;
  // 2^63 is exact in a double; every double below it converts.
  if (v >= 9223372036854775808.0)
    return std::numeric_limits<int64_t>::max();
  if (v < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return int64_t(v);
}

uint16_t floatToBFloat16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN stays NaN
    return uint16_t((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

float bfloat16ToFloat(uint16_t v) {
  uint32_t bits = uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float v) {
  uint32_t x;
  std::memcpy(&x, &v, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exponent = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) // inf or NaN
    return uint16_t(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  if (exponent >= 31)
    return uint16_t(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10)
      return uint16_t(sign);
    mantissa |= 0x800000;
    uint32_t shift = uint32_t(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return uint16_t(half);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {
      exponent = 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      mantissa &= 0x3ff;
      bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

HostBuffer::HostBuffer(ElementType type, std::vector<int64_t> shape, Init init)
    : type_(type), shape_(std::move(shape)) {
  numElements_ = 1;
  for (int64_t s : shape_)
    numElements_ *= s;
  bytes_ = TrackedBytes(numElements_ * elementTypeBytes(type_), init);
}

std::vector<int64_t> HostBuffer::strides() const {
  std::vector<int64_t> s(shape_.size(), 1);
  for (int64_t d = int64_t(shape_.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape_[d + 1];
  return s;
}

double HostBuffer::getFloat(int64_t i) const {
  switch (type_) {
  case ElementType::F32:
    return as<float>()[i];
  case ElementType::F64:
    return as<double>()[i];
  case ElementType::F16:
    return halfToFloat(as<uint16_t>()[i]);
  case ElementType::BF16:
    return bfloat16ToFloat(as<uint16_t>()[i]);
  default:
    return double(getInt(i));
  }
}

void HostBuffer::setFloat(int64_t i, double v) {
  switch (type_) {
  case ElementType::F32:
    as<float>()[i] = float(v);
    return;
  case ElementType::F64:
    as<double>()[i] = v;
    return;
  case ElementType::F16:
    as<uint16_t>()[i] = floatToHalf(float(v));
    return;
  case ElementType::BF16:
    as<uint16_t>()[i] = floatToBFloat16(float(v));
    return;
  default:
    setInt(i, toIntSaturating(v));
  }
}

int64_t HostBuffer::getInt(int64_t i) const {
  if (isFloat(type_))
    return toIntSaturating(getFloat(i));
  // Stored sign-extended: the container's value is the element's.
  switch (elementTypeBytes(type_)) {
  case 1:
    return type_ == ElementType::I1 ? (as<uint8_t>()[i] & 1) : as<int8_t>()[i];
  case 2:
    return as<int16_t>()[i];
  case 4:
    return as<int32_t>()[i];
  default:
    return as<int64_t>()[i];
  }
}

void HostBuffer::wrapIntegers() {
  if (isFloat(type_) || 8 * elementTypeBytes(type_) == intWidth(type_))
    return; // the container's width: nothing to wrap
  for (int64_t i = 0; i < numElements_; ++i)
    setInt(i, getInt(i));
}

void HostBuffer::setInt(int64_t i, int64_t v) {
  if (isFloat(type_)) {
    setFloat(i, double(v));
    return;
  }
  v = wrapToWidth(v, intWidth(type_));
  switch (elementTypeBytes(type_)) {
  case 1:
    as<int8_t>()[i] = int8_t(v);
    return;
  case 2:
    as<int16_t>()[i] = int16_t(v);
    return;
  case 4:
    as<int32_t>()[i] = int32_t(v);
    return;
  default:
    as<int64_t>()[i] = v;
  }
}

} // namespace spmd::runtime
