//===- ApiTestSupport.h - What the API's tests share ------------*- C++ -*-===//
//
// Tensors to feed programs, their comparison, and checks of error messages,
// through <spmd/spmd.h> only.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_TESTS_UNIT_APITESTSUPPORT_H
#define SPMD_TESTS_UNIT_APITESTSUPPORT_H

#include <spmd/spmd.h>

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

namespace spmd_test {

/// Small values of a repeating pattern, row-major over `shape`.
inline spmd::HostTensor iota(std::vector<int64_t> shape, float scale = 0.01f) {
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1),
                              std::multiplies<>());
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = scale * float((i * 7) % 13) - 0.05f;
  return *spmd::HostTensor::fromVector<float>(shape, values);
}

/// The largest difference between two tensors' elements.
inline double maxDiff(const spmd::HostTensor &a, const spmd::HostTensor &b) {
  EXPECT_EQ(a.shape(), b.shape());
  double worst = 0;
  for (int64_t i = 0; i < a.numel() && a.shape() == b.shape(); ++i)
    worst = std::max(worst, std::abs(a.at(i) - b.at(i)));
  return worst;
}

/// What went wrong on the devices' threads, for the test's thread to report
/// once they are done.
class DeviceFailures {
public:
  void add(const std::string &what) {
    std::lock_guard<std::mutex> lock(mutex);
    list.push_back(what);
  }
  void expect(bool ok, const std::string &what) {
    if (!ok)
      add(what);
  }
  void expectOk(const absl::Status &s, const std::string &what) {
    expect(s.ok(), what + ": " + s.ToString());
  }
  /// `t` holds expected(i) at every i.
  void expectValues(const spmd::HostTensor &t,
                    const std::function<double(int64_t)> &expected,
                    const std::string &what) {
    for (int64_t i = 0; i < t.numel(); ++i)
      if (t.at(i) != expected(i))
        return add(what + ": element " + std::to_string(i) + " is " +
                   std::to_string(t.at(i)) + ", expected " +
                   std::to_string(expected(i)));
  }
  /// One test failure for each; on the test's thread.
  void report() const {
    for (const std::string &failure : list)
      ADD_FAILURE() << failure;
  }

private:
  std::mutex mutex;
  std::vector<std::string> list;
};

} // namespace spmd_test

/// A status's message contains `part`.
#define EXPECT_ERROR(status, part)                                             \
  do {                                                                         \
    absl::Status s_ = (status);                                                \
    EXPECT_FALSE(s_.ok());                                                     \
    EXPECT_NE(std::string(s_.message()).find(part), std::string::npos)         \
        << s_.message();                                                       \
  } while (0)

#endif // SPMD_TESTS_UNIT_APITESTSUPPORT_H
