//===- StackTraceMain.cpp - GoogleTest's main with crash stack traces -----===//
//
// A crash (a segfault in a kernel or the device pool) prints the stack and
// the test it happened in, so that a failure seen once under load in CI can
// be traced.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Signals.h"

#include <gtest/gtest.h>

int main(int argc, char **argv) {
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
