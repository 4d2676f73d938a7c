//===- partition_file.cpp - The API's partitioned program of a file -------===//
//
// Prints what the C++ API compiles a program file into (for the test that
// spmd-opt's --spmd-pipeline, spmd-run and the API partition alike).
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <iostream>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: spmd-api-partition FILE.mlir\n";
    return 2;
  }
  absl::StatusOr<spmd::Program> program = spmd::Program::fromFile(argv[1]);
  if (!program.ok()) {
    std::cerr << program.status() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> partitioned = program->partitioned();
  if (!partitioned.ok()) {
    std::cerr << partitioned.status() << "\n";
    return 1;
  }
  std::cout << *partitioned;
  return 0;
}
