//===- RuntimeBench.cpp - Runtime speed against its baselines -------------===//
//
// Each runtime figure next to the baseline it is judged by, timed in the
// same run (medians of repetitions), then printed as ratios with the
// targets:
//   GEMMs (f32, C = A * B): 1024^3, 64x1024x4096, 8x4096x4096, at one and
//     two threads                   vs  OpenBLAS cblas_sgemm      >= 0.95
//   add+max over 16M f32            vs  memcpy of the same bytes  >= 0.50
//     (the kernel with the default threads per device, memcpy one thread)
//   softmax and layer norm rows, transposes, row and column sums, add+max,
//     on one thread                 vs  memcpy of their bytes     >= 0.70
//   all_reduce 64 MiB, 4 devices    vs  memcpy bandwidth          >= 0.25
//     (bus bandwidth: bytes * 2(n-1)/n per device, over time)
//   4-layer MLP, batch 512, width 1024: 1 device / 2 devices     >= 1.6
//   our packed f32 GEMM kernel alone, 1024^3, one thread (what the AVX2
//     path runs where OpenBLAS is not called) vs  OpenBLAS     >= 0.85
// and, without targets: attention's batch_matmul, ResNet-50's 1x1 and 3x3
// convolutions (against OpenBLAS on the same GEMM), ResNet's max pooling
// (against oneDNN's), a depthwise convolution and GELU's tanh chain
// (against memcpy of their bytes).
// The first line names the CPU and what the kernels run on it. On an
// AVX-512 machine the figures are then measured again on the AVX2 path.
// Exits 1 if a target is missed.
//
//===----------------------------------------------------------------------===//

#include "driver/Compile.h"
#include "ir/SpmdDialect.h"
#include "passes/Dialects.h"
#include "runtime/devices/Devices.h"
#include "runtime/kernels/CpuPath.h"
#include "runtime/kernels/Dnnl.h"
#include "runtime/kernels/LibraryKernels.h"
#include "runtime/kernels/gemm/GemmKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Parser/Parser.h"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <cblas.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

using namespace spmd::runtime;

namespace {

constexpr int64_t kElements = 16 << 20;       // 16M f32 = 64 MiB
constexpr int64_t kReduceElements = 16 << 20; // 64 MiB of f32
constexpr int64_t kReduceDevices = 4;
constexpr int64_t kBatch = 512, kWidth = 1024, kLayers = 4;
/// Memory-bound kernels on one thread: this share of memcpy's bandwidth.
constexpr double kMemoryBound = 0.7;

mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    mlir::spmd::registerInputDialects(registry);
    auto *c = new mlir::MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

std::unique_ptr<LoadedProgram> compile(const std::string &source) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context());
  if (!module) {
    llvm::errs() << "bench: cannot parse\n" << source;
    std::exit(2);
  }
  llvm::Expected<std::unique_ptr<LoadedProgram>> program =
      spmd::driver::compile(std::move(module), "main");
  if (!program) {
    llvm::errs() << "bench: " << llvm::toString(program.takeError()) << "\n";
    std::exit(2);
  }
  return std::move(*program);
}

HostBuffer randomTensor(std::vector<int64_t> shape, unsigned seed) {
  HostBuffer t(ElementType::F32, std::move(shape));
  float *p = t.as<float>();
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    state = state * 1664525u + 1013904223u;
    p[i] = float(int32_t(state >> 8) % 2001 - 1000) * 1e-3f;
  }
  return t;
}

/// Shards `args` once; every iteration runs the program on its devices,
/// each with `threads` threads (0: the default, cores / devices).
void runProgram(benchmark::State &state, LoadedProgram &program,
                llvm::ArrayRef<HostBuffer> args, int64_t threads) {
  if (threads > 0)
    program.setThreadsPerDevice(threads);
  state.counters["threads"] = program.threadsPerDevice();
  std::vector<std::vector<TensorRef>> perDevice(program.numDevices());
  for (auto [i, arg] : llvm::enumerate(args)) {
    std::vector<TensorRef> shards = program.shard(i, arg);
    for (int64_t d = 0; d < program.numDevices(); ++d)
      perDevice[d].push_back(shards[d]);
  }
  for (auto _ : state) {
    auto out = program.runShards(perDevice);
    if (!out) {
      state.SkipWithError(llvm::toString(out.takeError()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out->data());
  }
}

//===--- GEMMs and convolutions -------------------------------------------===//

std::string tensorType(llvm::ArrayRef<int64_t> shape) {
  std::string t = "tensor<";
  for (int64_t d : shape)
    t += std::to_string(d) + "x";
  return t + "f32>";
}

/// A function of `inputs` whose result `result` starts filled with `init`
/// (an f32 literal) and is computed by `op` (text using %a, %b, %f).
std::string filledInitProgram(llvm::ArrayRef<std::vector<int64_t>> inputs,
                              const std::vector<int64_t> &result,
                              const std::string &op,
                              const std::string &init = "0.0") {
  std::string r = tensorType(result), s = "func.func @main(";
  const char *names[] = {"%a", "%b"};
  for (size_t i = 0; i < inputs.size(); ++i)
    s += std::string(i ? ", " : "") + names[i] + ": " + tensorType(inputs[i]);
  s += ") -> " + r + " {\n  %z = arith.constant " + init +
       " : f32\n"
       "  %e = tensor.empty() : " +
       r +
       "\n"
       "  %f = linalg.fill ins(%z : f32) outs(%e : " +
       r + ") -> " + r +
       "\n"
       "  %r = " +
       op + "\n  return %r : " + r + "\n}\n";
  return s;
}

/// (m, k, n): C[m x n] = A[m x k] * B[k x n].
void BM_GemmSpmd(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  std::string a = tensorType({m, k}), b = tensorType({k, n}),
              c = tensorType({m, n});
  std::unique_ptr<LoadedProgram> program =
      compile(filledInitProgram({{m, k}, {k, n}}, {m, n},
                                "linalg.matmul ins(%a, %b : " + a + ", " + b +
                                    ") outs(%f : " + c + ") -> " + c));
  runProgram(state, *program, {randomTensor({m, k}, 1), randomTensor({k, n}, 2)},
             state.range(3));
}

void BM_GemmOpenBlas(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  openblas_set_num_threads(state.range(3));
  HostBuffer a = randomTensor({m, k}, 1), b = randomTensor({k, n}, 2);
  std::vector<float> c(m * n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                a.as<float>(), k, b.as<float>(), n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
}

/// (m, k, n) on one thread: our packed kernel of this CPU path alone, which
/// the AVX2 path runs for few rows and for strides BLAS refuses.
void BM_GemmPacked(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  HostBuffer a = randomTensor({m, k}, 1), b = randomTensor({k, n}, 2);
  std::vector<float> c(m * n);
  for (auto _ : state) {
    gemmKernels().f32({a.as<float>(), k}, {b.as<float>(), n}, {c.data(), n}, m,
                      k, n, /*accumulate=*/false);
    benchmark::DoNotOptimize(c.data());
  }
}

/// Attention scores: `batch` GEMMs of [m x k] * [k x n].
void BM_BatchGemmOpenBlas(benchmark::State &state) {
  int64_t batch = state.range(0), m = state.range(1), k = state.range(2),
          n = state.range(3);
  openblas_set_num_threads(1);
  HostBuffer a = randomTensor({batch, m, k}, 1),
             b = randomTensor({batch, k, n}, 2);
  std::vector<float> c(batch * m * n);
  for (auto _ : state) {
    for (int64_t i = 0; i < batch; ++i)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                  a.as<float>() + i * m * k, k, b.as<float>() + i * k * n, n,
                  0.0f, c.data() + i * m * n, n);
    benchmark::DoNotOptimize(c.data());
  }
}

void BM_BatchMatmulSpmd(benchmark::State &state) {
  int64_t batch = state.range(0), m = state.range(1), k = state.range(2),
          n = state.range(3);
  std::string a = tensorType({batch, m, k}), b = tensorType({batch, k, n}),
              c = tensorType({batch, m, n});
  std::unique_ptr<LoadedProgram> program =
      compile(filledInitProgram({{batch, m, k}, {batch, k, n}}, {batch, m, n},
                                "linalg.batch_matmul ins(%a, %b : " + a + ", " +
                                    b + ") outs(%f : " + c + ") -> " + c));
  runProgram(state, *program,
             {randomTensor({batch, m, k}, 1), randomTensor({batch, k, n}, 2)},
             1);
}

/// ResNet-50 NHWC convolutions, one image: (input side, channels, kernel
/// side, filters), the input already padded, unit strides.
void BM_ConvSpmd(benchmark::State &state) {
  int64_t h = state.range(0), c = state.range(1), kh = state.range(2),
          f = state.range(3), oh = h - kh + 1;
  std::string in = tensorType({1, h, h, c}), w = tensorType({kh, kh, c, f}),
              out = tensorType({1, oh, oh, f});
  std::unique_ptr<LoadedProgram> program = compile(filledInitProgram(
      {{1, h, h, c}, {kh, kh, c, f}}, {1, oh, oh, f},
      "linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
      "strides = dense<1> : tensor<2xi64>} ins(%a, %b : " +
          in + ", " + w + ") outs(%f : " + out + ") -> " + out));
  runProgram(state, *program,
             {randomTensor({1, h, h, c}, 1), randomTensor({kh, kh, c, f}, 2)},
             1);
}

/// MobileNet's depthwise 3x3: (input side, channels).
void BM_DepthwiseSpmd(benchmark::State &state) {
  int64_t h = state.range(0), c = state.range(1), oh = h - 2;
  std::string in = tensorType({1, h, h, c}), w = tensorType({3, 3, c}),
              out = tensorType({1, oh, oh, c});
  std::unique_ptr<LoadedProgram> program = compile(filledInitProgram(
      {{1, h, h, c}, {3, 3, c}}, {1, oh, oh, c},
      "linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : "
      "tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %b : " +
          in + ", " + w + ") outs(%f : " + out + ") -> " + out));
  runProgram(state, *program,
             {randomTensor({1, h, h, c}, 1), randomTensor({3, 3, c}, 2)}, 1);
}

/// ResNet's max pooling after its stem: 3x3, stride 2, over 112^2x64
/// padded to 113^2 (to 56^2x64), one image, NHWC.
constexpr int64_t kPoolSide = 113, kPoolChannels = 64, kPoolOut = 56;

void BM_MaxPoolSpmd(benchmark::State &state) {
  std::vector<int64_t> in = {1, kPoolSide, kPoolSide, kPoolChannels},
                       out = {1, kPoolOut, kPoolOut, kPoolChannels};
  // The window operand gives only its shape.
  std::unique_ptr<LoadedProgram> program = compile(filledInitProgram(
      {in, {3, 3}}, out,
      "linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, "
      "strides = dense<2> : tensor<2xi64>} ins(%a, %b : " +
          tensorType(in) + ", tensor<3x3xf32>) outs(%f : " + tensorType(out) +
          ") -> " + tensorType(out),
      "0xFF800000"));
  runProgram(state, *program, {randomTensor(in, 1), randomTensor({3, 3}, 2)},
             1);
}

/// The same pooling by oneDNN's primitive on one thread (it drops NaN,
/// which linalg's max keeps: the baseline, not a kernel the runtime runs).
void BM_MaxPoolDnnl(benchmark::State &state) {
  using dnnl::memory;
  HostBuffer in = randomTensor({1, kPoolSide, kPoolSide, kPoolChannels}, 1);
  std::vector<float> out(kPoolOut * kPoolOut * kPoolChannels);
  memory::desc src({1, kPoolChannels, kPoolSide, kPoolSide},
                   memory::data_type::f32, memory::format_tag::nhwc);
  memory::desc dst({1, kPoolChannels, kPoolOut, kPoolOut},
                   memory::data_type::f32, memory::format_tag::nhwc);
  std::optional<std::string> error = onThisThreadAlone([&] {
    dnnl::pooling_forward::primitive_desc pd(
        dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference,
                                    dnnl::algorithm::pooling_max, src, dst,
                                    {2, 2}, {3, 3}, {0, 0}, {0, 0}),
        dnnlEngine());
    dnnl::pooling_forward pool(pd);
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(src, dnnlEngine(), in.as<float>())},
        {DNNL_ARG_DST, memory(dst, dnnlEngine(), out.data())}};
    for (auto _ : state) {
      runOnThisThread(pool, args);
      benchmark::DoNotOptimize(out.data());
    }
  });
  if (error)
    state.SkipWithError(error->c_str());
}

constexpr int64_t kRows = 4096, kRowLength = 1024; // 16 MiB of f32

void BM_SoftmaxSpmd(benchmark::State &state) {
  std::string t = tensorType({kRows, kRowLength});
  std::unique_ptr<LoadedProgram> program = compile(
      "func.func @main(%a: " + t + ") -> " + t +
      " {\n  %e = tensor.empty() : " + t +
      "\n  %r = linalg.softmax dimension(1) ins(%a : " + t +
      ") outs(%e : " + t + ") -> " + t + "\n  return %r : " + t + "\n}\n");
  runProgram(state, *program, {randomTensor({kRows, kRowLength}, 1)}, 1);
}

/// Layer norm as torch-mlir writes it: mean, centred, variance, scaled.
void BM_LayerNormSpmd(benchmark::State &state) {
  std::string t = tensorType({kRows, kRowLength}), r = tensorType({kRows});
  std::string n = std::to_string(double(kRowLength));
  // `result` = the sums of `input`'s rows.
  auto rowSum = [&](const char *result, const char *input) {
    return std::string("  ") + result +
           " = linalg.generic {indexing_maps = [#i, #r], iterator_types = "
           "[\"parallel\", \"reduction\"]} ins(" + input + " : " + t +
           ") outs(%fr : " + r + ") {\n"
           "  ^bb0(%p: f32, %o: f32):\n    %q = arith.addf %p, %o : f32\n"
           "    linalg.yield %q : f32\n  } -> " + r + "\n";
  };
  std::string s =
      "#i = affine_map<(d0, d1) -> (d0, d1)>\n"
      "#r = affine_map<(d0, d1) -> (d0)>\n"
      "func.func @main(%x: " + t + ") -> " + t + " {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %n = arith.constant " + n + " : f32\n"
      "  %eps = arith.constant 1.0e-5 : f32\n"
      "  %er = tensor.empty() : " + r + "\n"
      "  %fr = linalg.fill ins(%z : f32) outs(%er : " + r + ") -> " + r + "\n"
      "  %et = tensor.empty() : " + t + "\n"
      + rowSum("%sum", "%x") +
      "  %c = linalg.generic {indexing_maps = [#i, #r, #i], iterator_types = [\"parallel\", \"parallel\"]} ins(%x, %sum : " + t + ", " + r + ") outs(%et : " + t + ") {\n"
      "  ^bb0(%p: f32, %s: f32, %o: f32):\n    %m = arith.divf %s, %n : f32\n    %q = arith.subf %p, %m : f32\n    linalg.yield %q : f32\n  } -> " + t + "\n"
      "  %sq = linalg.generic {indexing_maps = [#i, #i], iterator_types = [\"parallel\", \"parallel\"]} ins(%c : " + t + ") outs(%et : " + t + ") {\n"
      "  ^bb0(%p: f32, %o: f32):\n    %q = arith.mulf %p, %p : f32\n    linalg.yield %q : f32\n  } -> " + t + "\n"
      + rowSum("%var", "%sq") +
      "  %y = linalg.generic {indexing_maps = [#i, #r, #i], iterator_types = [\"parallel\", \"parallel\"]} ins(%c, %var : " + t + ", " + r + ") outs(%et : " + t + ") {\n"
      "  ^bb0(%p: f32, %v: f32, %o: f32):\n    %m = arith.divf %v, %n : f32\n    %d = arith.addf %m, %eps : f32\n    %s = math.rsqrt %d : f32\n    %q = arith.mulf %p, %s : f32\n    linalg.yield %q : f32\n  } -> " + t + "\n"
      "  return %y : " + t + "\n}\n";
  std::unique_ptr<LoadedProgram> program = compile(s);
  runProgram(state, *program, {randomTensor({kRows, kRowLength}, 1)}, 1);
}

/// GELU as BERT and GPT-2 write it: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715
/// x^3))), one elementwise generic.
void BM_GeluSpmd(benchmark::State &state) {
  std::string t = tensorType({kRows, kRowLength});
  std::unique_ptr<LoadedProgram> program = compile(
      "#m = affine_map<(d0, d1) -> (d0, d1)>\n"
      "func.func @main(%x: " +
      t + ") -> " + t +
      " {\n"
      "  %e = tensor.empty() : " +
      t +
      "\n"
      "  %half = arith.constant 0.5 : f32\n"
      "  %one = arith.constant 1.0 : f32\n"
      "  %c = arith.constant 0.7978845608 : f32\n"
      "  %k = arith.constant 0.044715 : f32\n"
      "  %r = linalg.generic {indexing_maps = [#m, #m], iterator_types = "
      "[\"parallel\", \"parallel\"]} ins(%x : " +
      t + ") outs(%e : " + t +
      ") {\n"
      "  ^bb0(%a: f32, %o: f32):\n"
      "    %a3 = arith.mulf %a, %a : f32\n    %a4 = arith.mulf %a3, %a : f32\n"
      "    %t1 = arith.mulf %a4, %k : f32\n    %t2 = arith.addf %a, %t1 : f32\n"
      "    %t3 = arith.mulf %t2, %c : f32\n    %th = math.tanh %t3 : f32\n"
      "    %p = arith.addf %th, %one : f32\n    %h = arith.mulf %a, %half : "
      "f32\n"
      "    %q = arith.mulf %h, %p : f32\n    linalg.yield %q : f32\n"
      "  } -> " +
      t + "\n  return %r : " + t + "\n}\n");
  runProgram(state, *program, {randomTensor({kRows, kRowLength}, 1)}, 1);
}

//===--- elementwise ------------------------------------------------------===//

// The elementwise kernel reads two inputs and writes one: three buffers,
// as many bytes as a memcpy of 1.5 buffers reads and writes.
void BM_Memcpy(benchmark::State &state) {
  int64_t bytes = state.range(0);
  std::vector<char> from(bytes, 1), to(bytes, 0);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), bytes);
    benchmark::DoNotOptimize(to.data());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

void BM_ElementwiseSpmd(benchmark::State &state) {
  std::string t = "tensor<" + std::to_string(kElements) + "xf32>";
  std::unique_ptr<LoadedProgram> program = compile(
      "#m = affine_map<(i) -> (i)>\n"
      "func.func @main(%a: " +
      t + ", %b: " + t + ") -> " + t +
      " {\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %e = tensor.empty() : " +
      t +
      "\n"
      "  %r = linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = "
      "[\"parallel\"]} ins(%a, %b : " +
      t + ", " + t + ") outs(%e : " + t +
      ") {\n"
      "  ^bb0(%x: f32, %y: f32, %o: f32):\n"
      "    %s = arith.addf %x, %y : f32\n"
      "    %m = arith.maximumf %s, %z : f32\n"
      "    linalg.yield %m : f32\n"
      "  } -> " +
      t +
      "\n"
      "  return %r : " +
      t + "\n}\n");
  runProgram(state, *program,
             {randomTensor({kElements}, 3), randomTensor({kElements}, 4)},
             state.range(0));
}

//===--- data movement and reductions (no targets) ------------------------===//

constexpr int64_t kSquare = 4096; // 4096x4096 f32 = 64 MiB

void runSquareOp(benchmark::State &state, const std::string &resultType,
                 const std::string &body) {
  std::string t = "tensor<4096x4096xf32>";
  std::unique_ptr<LoadedProgram> program =
      compile("func.func @main(%a: " + t + ") -> " + resultType + " {\n" +
              "  %z = arith.constant 0.0 : f32\n" + body + "}\n");
  runProgram(state, *program, {randomTensor({kSquare, kSquare}, 9)},
             /*threads=*/1);
}

void BM_TransposeSpmd(benchmark::State &state) {
  std::string t = "tensor<4096x4096xf32>";
  runSquareOp(state, t,
              "  %e = tensor.empty() : " + t +
                  "\n"
                  "  %r = linalg.transpose ins(%a : " +
                  t + ") outs(%e : " + t +
                  ") permutation = [1, 0]\n"
                  "  return %r : " +
                  t + "\n");
}

/// Sums along dimension `state.range(0)` (1: rows, contiguous; 0: columns).
void BM_ReduceSpmd(benchmark::State &state) {
  std::string t = "tensor<4096x4096xf32>", v = "tensor<4096xf32>";
  runSquareOp(state, v,
              "  %e = tensor.empty() : " + v +
                  "\n"
                  "  %f = linalg.fill ins(%z : f32) outs(%e : " +
                  v + ") -> " + v +
                  "\n"
                  "  %r = linalg.reduce ins(%a : " +
                  t + ") outs(%f : " + v + ") dimensions = [" +
                  std::to_string(state.range(0)) +
                  "]\n"
                  "    (%x: f32, %o: f32) {\n"
                  "      %s = arith.addf %x, %o : f32\n"
                  "      linalg.yield %s : f32\n"
                  "    }\n"
                  "  return %r : " +
                  v + "\n");
}

//===--- all_reduce -------------------------------------------------------===//

void BM_AllReduceSpmd(benchmark::State &state) {
  std::string t = "tensor<" + std::to_string(kReduceElements) + "xf32>";
  std::string sharding = "{spmd.sharding = #spmd.sharding<@mesh, [{}]>}";
  // Each device's argument is its own buffer (the global argument is split
  // over "x"); the partitioned program all-reduces it, so every device
  // holds the whole (replicated) sum.
  std::string g =
      "tensor<" + std::to_string(kReduceElements * kReduceDevices) + "xf32>";
  std::unique_ptr<LoadedProgram> program =
      compile("module attributes {spmd.partitioned} {\n"
              "spmd.mesh @mesh = <[\"x\"=" +
              std::to_string(kReduceDevices) +
              "]>\n"
              "func.func @main(%a: " +
              t + " " +
              "{spmd.sharding = #spmd.sharding<@mesh, [{\"x\"}]>, "
              "spmd.global_type = " +
              g + "}) -> (" + t + " " + sharding +
              ") {\n"
              "  %r = spmd.all_reduce %a on @mesh axes = [\"x\"] : " +
              t +
              "\n"
              "  return %r : " +
              t + "\n}\n}\n");
  runProgram(state, *program,
             {randomTensor({kReduceElements * kReduceDevices}, 5)},
             /*threads=*/0);
}

//===--- data-parallel MLP ------------------------------------------------===//

std::string mlpSource(int64_t devices) {
  std::string mesh =
      "spmd.mesh @mesh = <[\"data\"=" + std::to_string(devices) + "]>\n";
  std::string x = "tensor<" + std::to_string(kBatch) + "x" +
                  std::to_string(kWidth) + "xf32>";
  std::string w = "tensor<" + std::to_string(kWidth) + "x" +
                  std::to_string(kWidth) + "xf32>";
  std::string data =
      " {spmd.sharding = #spmd.sharding<@mesh, [{\"data\"}, {}]>}";
  std::string s =
      mesh + "#m = affine_map<(i, j) -> (i, j)>\nfunc.func @main(%x0: " + x +
      data;
  for (int64_t l = 0; l < kLayers; ++l)
    s += ", %w" + std::to_string(l) + ": " + w;
  s += ") -> (" + x + data +
       ") {\n  %z = arith.constant 0.0 : f32\n"
       "  %e = tensor.empty() : " +
       x +
       "\n"
       "  %f = linalg.fill ins(%z : f32) outs(%e : " +
       x + ") -> " + x + "\n";
  for (int64_t l = 0; l < kLayers; ++l) {
    std::string in = "%x" + std::to_string(l), L = std::to_string(l);
    s += "  %h" + L + " = linalg.matmul ins(" + in + ", %w" + L + " : " + x +
         ", " + w + ") outs(%f : " + x + ") -> " + x + "\n";
    s += "  %x" + std::to_string(l + 1) +
         " = linalg.generic {indexing_maps = [#m, #m], iterator_types = "
         "[\"parallel\", \"parallel\"]} ins(%h" +
         L + " : " + x + ") outs(%e : " + x +
         ") {\n"
         "  ^bb0(%a: f32, %o: f32):\n"
         "    %r = arith.maximumf %a, %z : f32\n"
         "    linalg.yield %r : f32\n"
         "  } -> " +
         x + "\n";
  }
  s += "  return %x" + std::to_string(kLayers) + " : " + x + "\n}\n";
  return s;
}

void BM_MlpSpmd(benchmark::State &state) {
  std::unique_ptr<LoadedProgram> program = compile(mlpSource(state.range(0)));
  std::vector<HostBuffer> args = {randomTensor({kBatch, kWidth}, 6)};
  for (int64_t l = 0; l < kLayers; ++l)
    args.push_back(randomTensor({kWidth, kWidth}, 7 + l));
  runProgram(state, *program, args, /*threads=*/1);
}

/// The GEMM shapes with targets: square, and the skinny ones of serving
/// (a batch of 64 or 8 rows through wide layers).
const int64_t kGemmShapes[][3] = {
    {1024, 1024, 1024}, {64, 1024, 4096}, {8, 4096, 4096}};

void gemmArgs(benchmark::internal::Benchmark *b) {
  for (auto &shape : kGemmShapes)
    for (int64_t threads : {1, 2})
      b->Args({shape[0], shape[1], shape[2], threads});
}

// Real time: the programs run on their own device threads.
BENCHMARK(BM_GemmSpmd)
    ->Apply(gemmArgs)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GemmOpenBlas)
    ->Apply(gemmArgs)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_GemmPacked)
    ->Args({1024, 1024, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BatchGemmOpenBlas)
    ->Args({12, 128, 64, 128})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// The convolutions' GEMMs: pixels x (kh kw c) x f.
BENCHMARK(BM_GemmOpenBlas)
    ->Args({56 * 56, 64, 256, 1})
    ->Args({56 * 56, 9 * 64, 64, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BatchMatmulSpmd)
    ->Args({12, 128, 64, 128})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ConvSpmd)
    ->Args({56, 64, 1, 256})
    ->Args({58, 64, 3, 64})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_DepthwiseSpmd)->Args({58, 128})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MaxPoolSpmd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MaxPoolDnnl)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SoftmaxSpmd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LayerNormSpmd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GeluSpmd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Memcpy)
    ->Arg(kElements * 4 * 3 / 2)
    ->Arg(kReduceElements * 4)
    ->Arg(58 * 58 * 128 * 4 + 56 * 56 * 128 * 4)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Default threads per device (cores / devices), and one thread.
BENCHMARK(BM_ElementwiseSpmd)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_TransposeSpmd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReduceSpmd)
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_AllReduceSpmd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MlpSpmd)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

/// Keeps the median real time (ms) of every benchmark as it prints them.
class Collector : public benchmark::ConsoleReporter {
public:
  std::map<std::string, double> medians;
  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &run : runs)
      if (run.aggregate_name == "median")
        medians[run.run_name.str()] =
            run.GetAdjustedRealTime() *
            benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e3;
  }
};

/// The CPU's model and widest vectors, and what the kernels run on it.
std::string machineLine() {
  std::string model = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  const char *isa = __builtin_cpu_supports("avx512f") ? "AVX-512"
                    : __builtin_cpu_supports("avx2")  ? "AVX2 + FMA"
                                                      : "SSE";
  return fmt::format("CPU: {} ({}); kernels on CPU path {} (our GEMM: {}; {})",
                     model, isa, cpuPathName(cpuPath()).str(),
                     gemmKernels().isa, libraryIsas());
}

/// On an AVX-512 machine, unless a path was forced, the same figures again
/// on the AVX2 path, with the baselines' libraries also held to AVX2 (as
/// on a CPU without AVX-512): one machine shows both. True when that run
/// met its targets (or did not happen).
bool rerunOnAvx2(int argc, char **argv) {
  if (std::getenv("SPMD_CPU_PATH") || bestCpuPath() != CpuPath::Avx512)
    return true;
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    setenv("SPMD_CPU_PATH", "avx2", 1);
    setenv("OPENBLAS_CORETYPE", "Haswell", 1);
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  int status = 0;
  fmt::print("\n=== the same on the AVX2 path (SPMD_CPU_PATH=avx2 "
             "OPENBLAS_CORETYPE=Haswell) ===\n");
  std::fflush(stdout);
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace

int main(int argc, char **argv) {
  fmt::print("{}\n", machineLine());
  std::fflush(stdout);
  // Medians over repetitions, unless the command line says otherwise.
  std::vector<char *> args(argv, argv + argc);
  std::string repetitions = "--benchmark_repetitions=5";
  args.insert(args.begin() + 1, repetitions.data());
  int count = args.size();
  benchmark::Initialize(&count, args.data());
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);

  auto time = [&](const std::string &name) {
    auto it = collector.medians.find(name);
    return it == collector.medians.end() ? 0.0 : it->second;
  };
  struct Figure {
    std::string what;
    double ratio, target;
  };
  double memcpyElementwise =
      time("BM_Memcpy/" + std::to_string(kElements * 4 * 3 / 2) + "/real_time");
  double memcpyReduce =
      time("BM_Memcpy/" + std::to_string(kReduceElements * 4) + "/real_time");
  double ring = 2.0 * (kReduceDevices - 1) / kReduceDevices;
  std::vector<Figure> figures;
  auto shape = [](auto &s) {
    return fmt::format("{}/{}/{}", s[0], s[1], s[2]);
  };
  for (auto &s : kGemmShapes)
    for (int64_t threads : {1, 2}) {
      std::string args = shape(s) + "/" + std::to_string(threads);
      std::string what =
          fmt::format("GEMM {}x{}x{} f32, {} thread{}: spmd / OpenBLAS", s[0],
                      s[1], s[2], threads, threads > 1 ? "s" : "");
      double openblas = time("BM_GemmOpenBlas/" + args + "/real_time");
      if (openblas > 0)
        figures.push_back(
            {what, openblas / time("BM_GemmSpmd/" + args + "/real_time"),
             0.95});
    }
  figures.push_back(
      {"  our packed kernel alone, 1024^3, 1 thread: kernel / OpenBLAS",
       time("BM_GemmOpenBlas/1024/1024/1024/1/real_time") /
           time("BM_GemmPacked/1024/1024/1024/real_time"),
       0.85});
  double memcpyDepthwise = time(
      "BM_Memcpy/" + std::to_string(58 * 58 * 128 * 4 + 56 * 56 * 128 * 4) +
      "/real_time");
  std::vector<Figure> more = {
      {"attention batch_matmul 12x128x64x128: spmd / OpenBLAS loop",
       time("BM_BatchGemmOpenBlas/12/128/64/128/real_time") /
           time("BM_BatchMatmulSpmd/12/128/64/128/real_time"),
       0},
      {"ResNet-50 1x1 conv 56^2x64->256: spmd / OpenBLAS same GEMM",
       time("BM_GemmOpenBlas/3136/64/256/1/real_time") /
           time("BM_ConvSpmd/56/64/1/256/real_time"),
       0},
      {"ResNet-50 3x3 conv 56^2x64->64: spmd / OpenBLAS same GEMM",
       time("BM_GemmOpenBlas/3136/576/64/1/real_time") /
           time("BM_ConvSpmd/58/64/3/64/real_time"),
       0},
      {"depthwise 3x3 56^2x128: time of a memcpy of in+out / spmd",
       memcpyDepthwise / time("BM_DepthwiseSpmd/58/128/real_time"), 0},
      {"max pooling 3x3/2 to 56^2x64: oneDNN / spmd",
       time("BM_MaxPoolDnnl/real_time") / time("BM_MaxPoolSpmd/real_time"), 0},
      {"softmax 4096 rows x 1024: time of a memcpy / spmd",
       time("BM_Memcpy/" + std::to_string(kReduceElements * 4) + "/real_time") /
           4 / time("BM_SoftmaxSpmd/real_time"),
       kMemoryBound},
      {"layer norm 4096 rows x 1024: time of a memcpy / spmd",
       time("BM_Memcpy/" + std::to_string(kReduceElements * 4) + "/real_time") /
           4 / time("BM_LayerNormSpmd/real_time"),
       kMemoryBound},
      {"GELU (tanh) 4096 x 1024: time of a memcpy / spmd",
       time("BM_Memcpy/" + std::to_string(kReduceElements * 4) + "/real_time") /
           4 / time("BM_GeluSpmd/real_time"),
       0},
  };
  figures.insert(figures.end(), more.begin(), more.end());
  std::vector<Figure> rest = {
      {"add+max 16M f32: bandwidth of spmd / memcpy",
       memcpyElementwise / time("BM_ElementwiseSpmd/0/real_time"), 0.50},
      {"  the same, spmd on one thread",
       memcpyElementwise / time("BM_ElementwiseSpmd/1/real_time"),
       kMemoryBound},
      {"all_reduce 64 MiB x4: bus bandwidth / memcpy bandwidth",
       ring * memcpyReduce / time("BM_AllReduceSpmd/real_time"), 0.25},
      {"transpose 4096^2 f32: time of a memcpy / spmd",
       memcpyReduce / time("BM_TransposeSpmd/real_time"), kMemoryBound},
      {"row sums 4096^2 f32: time of a memcpy / spmd",
       memcpyReduce / time("BM_ReduceSpmd/1/real_time"), kMemoryBound},
      {"column sums 4096^2 f32: time of a memcpy / spmd",
       memcpyReduce / time("BM_ReduceSpmd/0/real_time"), kMemoryBound},
      {"MLP 4x1024, batch 512: 1 device / 2 devices",
       time("BM_MlpSpmd/1/real_time") / time("BM_MlpSpmd/2/real_time"), 1.6},
  };
  figures.insert(figures.end(), rest.begin(), rest.end());
  bool ok = true;
  fmt::print("\n{}\n{:<62} {:>7} {:>7}\n", machineLine(), "figure", "ratio",
             "target");
  for (const Figure &f : figures) {
    if (!std::isfinite(f.ratio) || f.ratio <= 0) { // a benchmark filtered out
      fmt::print("{:<62} {:>7}\n", f.what, "skipped");
      continue;
    }
    if (f.target == 0) { // for information
      fmt::print("{:<62} {:>7.2f} {:>7}\n", f.what, f.ratio, "-");
      continue;
    }
    bool met = f.ratio >= f.target;
    ok &= met;
    fmt::print("{:<62} {:>7.2f} {:>7.2f} {}\n", f.what, f.ratio, f.target,
               met ? "ok" : "MISSED");
  }
  bool avx2Met = rerunOnAvx2(argc, argv);
  return ok && avx2Met ? 0 : 1;
}
