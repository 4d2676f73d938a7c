//===- Dnnl.h - oneDNN on the device's threads ------------------*- C++ -*-===//
//
// What the kernels that call oneDNN share: its CPU engine, whose code is
// held to the runtime's CPU path, and calls made on the calling thread
// alone, so that oneDNN adds no threads to the device pool.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_DNNL_H
#define SPMD_RUNTIME_KERNELS_DNNL_H

#include "runtime/exec/HostBuffer.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <optional>
#include <string>

namespace spmd::runtime {

/// oneDNN's CPU engine, its code held to the runtime's CPU path (SSE4.1,
/// oneDNN's lowest, on the baseline path). oneDNN fixes its instruction set
/// for the process at its first primitive: the path in force then, unless
/// something else in the process used oneDNN before.
const dnnl::engine &dnnlEngine();

/// Runs `body` (which makes or runs oneDNN primitives) with oneDNN's
/// OpenMP runtime held to one thread on the calling thread, restored
/// after: primitives made there size their scratchpads for one thread,
/// and run on it alone. Returns oneDNN's message when it throws.
std::optional<std::string> onThisThreadAlone(llvm::function_ref<void()> body);

/// Runs `primitive` with `args` on a stream of the calling thread, and
/// waits for it (inside onThisThreadAlone).
void runOnThisThread(const dnnl::primitive &primitive,
                     const std::unordered_map<int, dnnl::memory> &args);

/// f32 `data` laid out as `from`, copied into a new buffer laid out as `to`
/// (inside onThisThreadAlone): weights put once in the layout a primitive
/// reads.
std::shared_ptr<const HostBuffer> reordered(const dnnl::memory::desc &from,
                                            const void *data,
                                            const dnnl::memory::desc &to);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELS_DNNL_H
