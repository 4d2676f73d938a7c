//===- Dnnl.cpp - oneDNN on the device's threads --------------------------===//

#include "runtime/kernels/Dnnl.h"
#include "runtime/kernels/CpuPath.h"

#include "llvm/ADT/ScopeExit.h"

// From libgomp, the OpenMP runtime oneDNN is built on (declared here: the
// header is the compiler's, and clang's builds have another runtime's).
// They bind to the first OpenMP runtime loaded: libgomp, which the
// runtime links, unless the process loaded another one before.
extern "C" void omp_set_num_threads(int);
extern "C" int omp_get_max_threads(void);

namespace spmd::runtime {

const dnnl::engine &dnnlEngine() {
  static const dnnl::engine engine = [] {
    if (cpuPath() != CpuPath::Avx512)
      (void)dnnl::set_max_cpu_isa(cpuPath() == CpuPath::Avx2
                                      ? dnnl::cpu_isa::avx2
                                      : dnnl::cpu_isa::sse41);
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

std::optional<std::string> onThisThreadAlone(llvm::function_ref<void()> body) {
  // The OpenMP threads of this thread's parallel regions (a per-thread
  // setting): one, since this thread is one of the device's; restored
  // after, in case it is a thread of the user's too.
  int ompThreads = omp_get_max_threads();
  omp_set_num_threads(1);
  llvm::scope_exit restore([&] { omp_set_num_threads(ompThreads); });
  try {
    body();
  } catch (const std::exception &e) { // dnnl::error, bad_alloc
    return std::string(e.what());
  }
  return std::nullopt;
}

void runOnThisThread(const dnnl::primitive &primitive,
                     const std::unordered_map<int, dnnl::memory> &args) {
  dnnl::stream stream(dnnlEngine());
  primitive.execute(stream, args);
  stream.wait();
}

std::shared_ptr<const HostBuffer> reordered(const dnnl::memory::desc &from,
                                            const void *data,
                                            const dnnl::memory::desc &to) {
  auto buffer = std::make_shared<HostBuffer>(
      ElementType::F32, std::vector<int64_t>{int64_t(to.get_size() / 4)},
      Init::None);
  const dnnl::engine &cpu = dnnlEngine();
  dnnl::memory source(from, cpu, const_cast<void *>(data));
  dnnl::memory target(to, cpu, buffer->data());
  runOnThisThread(dnnl::reorder(source, target),
                  {{DNNL_ARG_FROM, source}, {DNNL_ARG_TO, target}});
  return buffer;
}

} // namespace spmd::runtime
