//===- CpuPathTest.cpp - Kernels on every instruction set -----------------===//
//
// Each CPU path this machine supports can be chosen, its GEMM library was
// built for its instruction set, and programs give the same numbers on it.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/CpuPath.h"
#include "passes/Dialects.h"
#include "driver/Compile.h"
#include "runtime/kernels/LibraryKernels.h"
#include "runtime/kernels/gemm/GemmKernels.h"

#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>

using namespace spmd::runtime;

namespace {

const CpuPath kPaths[] = {CpuPath::Baseline, CpuPath::Avx2, CpuPath::Avx512};

/// Restores the path a test changed.
struct PathGuard {
  CpuPath saved = cpuPath();
  ~PathGuard() { setCpuPath(saved); }
};

TEST(CpuPath, NamesRoundTrip) {
  for (CpuPath path : kPaths)
    EXPECT_EQ(parseCpuPath(cpuPathName(path)), path);
  EXPECT_FALSE(parseCpuPath("sse9"));
  EXPECT_TRUE(cpuPathSupported(CpuPath::Baseline));
  EXPECT_TRUE(cpuPathSupported(bestCpuPath()));
}

// Eigen's account of what each library was compiled with: a library built
// without its flags (or the wrong one picked) fails here.
TEST(CpuPath, EachPathHasItsOwnGemm) {
  PathGuard guard;
  for (CpuPath path : kPaths) {
    if (!cpuPathSupported(path)) {
      EXPECT_FALSE(setCpuPath(path));
      continue;
    }
    ASSERT_TRUE(setCpuPath(path));
    EXPECT_EQ(cpuPath(), path);
    std::string isa = gemmKernels().isa;
    SCOPED_TRACE(std::string(cpuPathName(path)) + ": " + isa);
    bool avx2 = isa.find("AVX2") != std::string::npos;
    bool fma = isa.find("FMA") != std::string::npos;
    bool avx512 = isa.find("AVX512") != std::string::npos;
    EXPECT_EQ(avx2, path != CpuPath::Baseline);
    EXPECT_EQ(fma, path != CpuPath::Baseline);
    EXPECT_EQ(avx512, path == CpuPath::Avx512);
  }
}

// A GEMM with odd sizes (no whole vectors or register tiles), a transposed
// operand and both thread splits (rows; columns when rows are few), and a
// fused elementwise chain, against a plain loop in double.
TEST(CpuPath, ProgramsAgreeOnEveryPath) {
  PathGuard guard;
  mlir::DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  mlir::MLIRContext context(registry);
  constexpr int64_t m = 37, k = 301, n = 523;
  std::string source = R"mlir(
    func.func @main(%a: tensor<37x301xf32>, %bt: tensor<523x301xf32>) -> tensor<37x523xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<37x523xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x523xf32>) -> tensor<37x523xf32>
      %c = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                          affine_map<(d0, d1, d2) -> (d1, d2)>,
                                          affine_map<(d0, d1, d2) -> (d0, d1)>]
          ins(%a, %bt : tensor<37x301xf32>, tensor<523x301xf32>)
          outs(%f : tensor<37x523xf32>) -> tensor<37x523xf32>
      %half = arith.constant dense<0.5> : tensor<37x523xf32>
      %e2 = tensor.empty() : tensor<37x523xf32>
      %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%c, %half : tensor<37x523xf32>, tensor<37x523xf32>) outs(%e2 : tensor<37x523xf32>) {
      ^bb0(%x: f32, %h: f32, %o: f32):
        %y = arith.mulf %x, %h : f32
        linalg.yield %y : f32
      } -> tensor<37x523xf32>
      %e3 = tensor.empty() : tensor<37x523xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%s : tensor<37x523xf32>) outs(%e3 : tensor<37x523xf32>) {
      ^bb0(%x: f32, %o: f32):
        %y = arith.maximumf %x, %zero : f32
        linalg.yield %y : f32
      } -> tensor<37x523xf32>
      return %r : tensor<37x523xf32>
    })mlir";
  HostBuffer a(ElementType::F32, {m, k}), bt(ElementType::F32, {n, k});
  for (int64_t i = 0; i < m * k; ++i)
    a.setFloat(i, std::sin(0.37 * i));
  for (int64_t i = 0; i < n * k; ++i)
    bt.setFloat(i, std::cos(0.11 * i));
  std::vector<double> expected(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += a.getFloat(i * k + p) * bt.getFloat(j * k + p);
      expected[i * n + j] = std::max(0.5 * sum, 0.0);
    }
  for (CpuPath path : kPaths) {
    if (!setCpuPath(path))
      continue;
    for (int64_t threads : {1, 2}) {
      SCOPED_TRACE(std::string(cpuPathName(path)) + " threads " +
                   std::to_string(threads));
      auto program = ::spmd::driver::compile(
          mlir::parseSourceString<mlir::ModuleOp>(source, &context), "");
      ASSERT_TRUE(bool(program)) << llvm::toString(program.takeError());
      (*program)->setThreadsPerDevice(threads);
      auto out = (*program)->run({a, bt});
      ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
      int64_t wrong = 0;
      for (int64_t i = 0; i < m * n; ++i)
        if (std::abs((*out)[0].getFloat(i) - expected[i]) >
            1e-4 * (1 + std::abs(expected[i])))
          ++wrong;
      EXPECT_EQ(wrong, 0);
    }
  }
}

// Every path's f32 and f64 GEMM, called directly, against a loop in
// double: sizes around the register tiles and blocks (leftover rows and
// columns, several K blocks), each operand row-major or transposed with a
// leading dimension wider than its rows, and C overwritten or added to.
template <typename T> void checkGemm(GemmFn<T> gemm, const char *type) {
  const std::array<int64_t, 3> sizes[] = {
      {1, 1, 1},     {5, 3, 7},      {12, 256, 32}, {13, 257, 33},
      {64, 300, 96}, {250, 600, 70}, {3, 0, 5},
      // Rows where each path's library (pathGemm) takes over.
      {8, 9, 40},    {48, 17, 33},   {50, 0, 5}};
  for (auto [m, k, n] : sizes)
    for (int transposes = 0; transposes < 4; ++transposes)
      for (bool accumulate : {false, true}) {
        bool ta = transposes & 1, tb = transposes & 2;
        SCOPED_TRACE(std::string(type) + " " + std::to_string(m) + "x" +
                     std::to_string(k) + "x" + std::to_string(n) +
                     (ta ? " A^T" : "") + (tb ? " B^T" : "") +
                     (accumulate ? " +=" : " ="));
        // Stored [rows x cols] with a padded leading dimension.
        auto matrix = [](int64_t rows, int64_t cols, bool transposed,
                         double seed) {
          int64_t ld = (transposed ? rows : cols) + 3;
          std::vector<T> data((transposed ? cols : rows) * ld);
          for (size_t i = 0; i < data.size(); ++i)
            data[i] = T(std::sin(seed * double(i + 1)));
          return std::make_pair(data, ld);
        };
        auto [a, lda] = matrix(m, k, ta, 0.37);
        auto [b, ldb] = matrix(k, n, tb, 0.11);
        int64_t ldc = n + 5;
        std::vector<T> c(m * ldc);
        for (size_t i = 0; i < c.size(); ++i)
          c[i] = T(std::cos(0.7 * double(i)));
        std::vector<T> before = c;
        gemm({a.data(), lda, ta}, {b.data(), ldb, tb}, {c.data(), ldc}, m, k,
             n, accumulate);
        int64_t wrong = 0;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < ldc; ++j) {
            double expected = before[i * ldc + j];
            if (j < n) {
              double sum = 0;
              for (int64_t p = 0; p < k; ++p)
                sum += double(ta ? a[p * lda + i] : a[i * lda + p]) *
                       double(tb ? b[j * ldb + p] : b[p * ldb + j]);
              expected = accumulate ? expected + sum : sum;
            }
            // Columns past n are never written.
            if (std::abs(c[i * ldc + j] - expected) >
                (j < n ? 1e-4 * (1 + std::abs(expected)) : 0.0))
              ++wrong;
          }
        EXPECT_EQ(wrong, 0);
      }
}

TEST(CpuPath, GemmKernelsOfEveryPath) {
  PathGuard guard;
  for (CpuPath path : kPaths) {
    if (!setCpuPath(path))
      continue;
    SCOPED_TRACE(cpuPathName(path).str());
    checkGemm<float>(gemmKernels().f32, "f32");
    checkGemm<double>(gemmKernels().f64, "f64");
    // With OpenBLAS where it is faster.
    checkGemm<float>(pathGemm, "f32 of the path");
  }
}

} // namespace

// Each path's vector math against libm in double, to 4 ulp of f32, on
// every length up to a few vectors (the last partial vector goes through a
// padded copy) and the special values: a function in the wrong slot, a
// tail left unwritten or a lane lost fails here.
TEST(CpuPath, VectorMathOfEveryPath) {
  PathGuard guard;
  struct Case {
    MathFunction fn;
    double (*reference)(double);
    float lo, hi;
  };
  const Case cases[] = {
      {MathFunction::Exp, [](double x) { return std::exp(x); }, -87, 88},
      {MathFunction::Log, [](double x) { return std::log(x); }, 1e-30f, 1e30f},
      {MathFunction::Log2, [](double x) { return std::log2(x); }, 1e-30f,
       1e30f},
      {MathFunction::Log1p, [](double x) { return std::log1p(x); }, -0.99f,
       1e6f},
      {MathFunction::Tanh, [](double x) { return std::tanh(x); }, -10, 10},
      {MathFunction::Erf, [](double x) { return std::erf(x); }, -5, 5},
      {MathFunction::Sin, [](double x) { return std::sin(x); }, -100, 100},
      {MathFunction::Cos, [](double x) { return std::cos(x); }, -100, 100},
  };
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f};
  for (CpuPath path : kPaths) {
    if (!setCpuPath(path))
      continue;
    for (const Case &c : cases) {
      SCOPED_TRACE(cpuPathName(path).str() + " function " +
                   std::to_string(int(c.fn)));
      LanesF32Fn fn = gemmKernels().mathF32[size_t(c.fn)];
      for (int64_t n : {1, 3, 4, 7, 8, 15, 16, 17, 37, 256}) {
        std::vector<float> x(n), y(n, 12345.0f);
        for (int64_t i = 0; i < n; ++i)
          x[i] = i < int64_t(std::size(specials)) && n > 30
                     ? specials[i]
                     : c.lo + (c.hi - c.lo) * float(i + 1) / float(n + 1);
        fn(x.data(), y.data(), n);
        for (int64_t i = 0; i < n; ++i) {
          float want = float(c.reference(x[i]));
          if (std::isnan(want) || std::isinf(want)) {
            EXPECT_EQ(std::isnan(y[i]), std::isnan(want)) << "x = " << x[i];
            if (std::isinf(want)) {
              EXPECT_EQ(y[i], want) << "x = " << x[i];
            }
            continue;
          }
          float ulp =
              std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
          EXPECT_LE(std::fabs(y[i] - want), 4 * ulp + 1e-30f)
              << "x = " << x[i] << " n = " << n;
        }
      }
      // In place, as the evaluator calls it on one register.
      std::vector<float> z = {0.5f, 0.25f, 0.125f};
      fn(z.data(), z.data(), 3);
      EXPECT_NEAR(z[1], float(c.reference(0.25)), 1e-6);
    }
  }
}

/// `want`, within 4 ulp of f32 where ulp is the spacing at `want`,
/// subnormal spacing included: no absolute slack.
static void expectWithin4Ulp(float got, double want, float x) {
  float wantF = float(want);
  float ulp = std::nextafter(std::fabs(wantF), INFINITY) - std::fabs(wantF);
  EXPECT_LE(std::fabs(double(got) - want), 4.0 * ulp) << "x = " << x;
}

/// The current path's softmax of `row`, each lane within 4 ulp of
/// exp(x - top) / their sum in double (`top`: the row's maximum).
static void expectSoftmaxWithin4Ulp(const std::vector<float> &row,
                                    float top = 0.0f) {
  std::vector<float> out(row.size());
  gemmKernels().softmaxRowsF32(row.data(), out.data(), 1, row.size());
  double sum = 0;
  for (float v : row)
    sum += std::exp(double(v - top));
  for (size_t i = 0; i < row.size(); ++i)
    expectWithin4Ulp(out[i], std::exp(double(row[i] - top)) / sum, row[i]);
}

// Just above the smallest normal float Eigen's erf passed through
// subnormals and was 23 ulp off (at 1.2e-38): tiny lanes are libm's on
// every path, each within 4 ulp without absolute slack.
TEST(CpuPath, VectorMathOfTinyNumbersOnEveryPath) {
  PathGuard guard;
  const std::pair<MathFunction, double (*)(double)> functions[] = {
      {MathFunction::Erf, [](double x) { return std::erf(x); }},
      {MathFunction::Tanh, [](double x) { return std::tanh(x); }},
      {MathFunction::Sin, [](double x) { return std::sin(x); }},
      {MathFunction::Log1p, [](double x) { return std::log1p(x); }},
      {MathFunction::Exp, [](double x) { return std::exp(x); }},
      {MathFunction::Cos, [](double x) { return std::cos(x); }},
  };
  std::vector<float> x;
  for (double v = 1.1754944e-38; v < 1e-25; v *= 1.37)
    x.insert(x.end(), {float(v), -float(v)});
  for (CpuPath path : kPaths) {
    if (!setCpuPath(path))
      continue;
    for (auto [fn, reference] : functions) {
      SCOPED_TRACE(cpuPathName(path).str() + " function " +
                   std::to_string(int(fn)));
      std::vector<float> y(x.size());
      gemmKernels().mathF32[size_t(fn)](x.data(), y.data(), x.size());
      for (size_t i = 0; i < x.size(); ++i)
        expectWithin4Ulp(y[i], reference(x[i]), x[i]);
    }
  }
}

// Where exp leaves the normal floats (-87.3 to -103.9) and under it (0):
// Eigen's AVX2 and SSE exp clamp at -88.7, and gave exp(-100) = 2.9e-39
// and exp(-1e4) = 2.9e-39, in math bodies and in softmax rows (masked
// attention scores). Every path must give libm's; and near the top of the
// floats (2^128 scaled down by the polynomial) and over it (inf).
TEST(CpuPath, ExpUnderflowsAsLibmOnEveryPath) {
  PathGuard guard;
  const float high[] = {88.0f,  88.3f, 88.4f,  88.6f, 88.72f,
                        88.73f, 89.0f, 100.0f, 1e30f};
  const float xs[] = {-87.0f,  -87.5f,  -88.5f,  -88.8f,  -95.0f, -100.0f,
                      -103.0f, -103.9f, -104.0f, -110.0f, -1e4f,  -1e30f};
  for (CpuPath path : kPaths) {
    if (!setCpuPath(path))
      continue;
    SCOPED_TRACE(cpuPathName(path).str());
    std::vector<float> top(std::begin(high), std::end(high)),
        topExp(top.size());
    gemmKernels().mathF32[size_t(MathFunction::Exp)](top.data(), topExp.data(),
                                                     int64_t(top.size()));
    for (size_t i = 0; i < top.size(); ++i) {
      double want = std::exp(double(top[i]));
      if (std::isinf(float(want)))
        EXPECT_EQ(topExp[i], INFINITY) << "x = " << top[i];
      else
        expectWithin4Ulp(topExp[i], want, top[i]);
    }
    // The values once (a full vector and a partial one), and repeated over
    // 64 lanes.
    for (int64_t n : {int64_t(std::size(xs)), int64_t(64)}) {
      std::vector<float> x(n), y(n);
      for (int64_t i = 0; i < n; ++i)
        x[i] = xs[i % std::size(xs)];
      gemmKernels().mathF32[size_t(MathFunction::Exp)](x.data(), y.data(), n);
      for (int64_t i = 0; i < n; ++i)
        expectWithin4Ulp(y[i], std::exp(double(x[i])), x[i]);
      // A softmax row whose maximum is 0: each entry is exp(x) / (1 + tiny).
      std::vector<float> row(x);
      row[0] = 0.0f;
      expectSoftmaxWithin4Ulp(row);
    }
  }
}

// exp over the floats where it is finite and not 0, every 61st bit pattern
// (36 million each path) and the two worst of all (1.174 and 1.172 ulp,
// measured over every f32 in [-104, 89]), within 1.18 ulp. Cephes's
// degree-7 polynomial (1.27 ulp here) fails it, and so does the
// coefficient of r^2 off by one bit in its last place.
TEST(CpuPath, ExpWithin1Point18UlpOverTheFloats) {
  PathGuard guard;
  constexpr uint32_t kStep = 61;
  std::vector<float> x, y;
  for (uint32_t worst : {0x40A6662Cu, 0x40A65CD4u}) {
    float value;
    std::memcpy(&value, &worst, sizeof value);
    x.push_back(value);
  }
  for (uint32_t sign : {0u, 0x80000000u}) {
    float limit = sign ? 104.0f : 89.0f;
    for (uint32_t bits = 0;; bits += kStep) {
      float magnitude;
      std::memcpy(&magnitude, &bits, sizeof magnitude);
      if (magnitude > limit)
        break;
      x.push_back(sign ? -magnitude : magnitude);
    }
  }
  y.resize(x.size());
  for (CpuPath path : kPaths) {
    if (!setCpuPath(path))
      continue;
    SCOPED_TRACE(cpuPathName(path).str());
    gemmKernels().mathF32[size_t(MathFunction::Exp)](x.data(), y.data(),
                                                     int64_t(x.size()));
    double worst = 0;
    float worstX = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      double want = std::exp(double(x[i]));
      if (want >= 0x1p128)
        continue;
      double ulp = std::ldexp(1.0, std::max(std::ilogb(want), -126) - 23);
      double error = std::fabs(double(y[i]) - want) / ulp;
      if (error > worst)
        worst = error, worstX = x[i];
    }
    EXPECT_LE(worst, 1.18) << "at x = " << worstX;
  }
}

// Rows whose lanes all stay within 87 of their maximum take an unchecked
// exp, others the full one: every lane against libm, at lengths around the
// vector widths, with the row's spread on either side of that limit and
// maxima far from 0.
TEST(CpuPath, SoftmaxRowsWithinFourUlpOnEveryPath) {
  PathGuard guard;
  std::mt19937 random(7);
  for (CpuPath path : kPaths) {
    if (!setCpuPath(path))
      continue;
    SCOPED_TRACE(cpuPathName(path).str());
    for (int64_t n : {1, 7, 8, 9, 31, 1024, 1031})
      for (float top : {0.0f, 50.0f, -1000.0f})
        for (float spread : {1.0f, 30.0f, 86.99f, 95.0f}) {
          std::uniform_real_distribution<float> lane(top - spread, top);
          std::vector<float> row(n);
          for (float &v : row)
            v = lane(random);
          row[n / 2] = top;
          row[n - 1] = n > 1 ? top - spread : top;
          expectSoftmaxWithin4Ulp(row, top);
        }
    // One large exp and many just under half its ulp: a sum in f32 lanes
    // loses them all (62 ulp off on the baseline path).
    for (int64_t n : {256, 1024}) {
      std::vector<float> row(n, -80.0f);
      float tiny = std::log(0.99f * std::ldexp(1.0f, -24));
      for (int64_t i = 0; i < n; i += 4)
        row[i] = tiny;
      row[0] = 0.0f;
      expectSoftmaxWithin4Ulp(row);
    }
    // Masked lanes (-inf) give 0 and leave the rest as they were; a NaN or
    // +inf lane makes the whole row NaN, as max, exp and sum do.
    for (int64_t n : {5, 8, 1024}) {
      std::vector<float> row(n), out(n);
      for (int64_t i = 0; i < n; ++i)
        row[i] = i % 3 == 1 ? -INFINITY : -0.01f * float(i);
      expectSoftmaxWithin4Ulp(row);
      for (float poison : {NAN, INFINITY}) {
        row[n - 1] = poison;
        gemmKernels().softmaxRowsF32(row.data(), out.data(), 1, n);
        for (int64_t i = 0; i < n; ++i)
          EXPECT_TRUE(std::isnan(out[i])) << "lane " << i << " of " << n;
      }
    }
  }
}
