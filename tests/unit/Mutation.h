//===- Mutation.h - Random edits of program text ----------------*- C++ -*-===//

#ifndef SPMD_TESTS_UNIT_MUTATION_H
#define SPMD_TESTS_UNIT_MUTATION_H

#include <cstdlib>
#include <iterator>
#include <random>
#include <string>

namespace spmd::testing {

/// How many mutants a robustness test tries: `fallback`, or SPMD_MUTANTS
/// for long campaigns.
inline int mutantCount(int fallback) {
  const char *env = std::getenv("SPMD_MUTANTS");
  int count = env ? std::atoi(env) : 0;
  return count > 0 ? count : fallback;
}

/// One to three random edits of `text`: deleted and inserted characters,
/// numbers replaced by edge values, repeated pieces.
inline std::string mutate(std::string text, std::mt19937 &rng) {
  static const std::string kChars = "{}[]<>(),=?@\"0123456789-pxq \n";
  static const char *const kNumbers[] = {"0",
                                         "-1",
                                         "1",
                                         "3",
                                         "7",
                                         "65536",
                                         "9223372036854775807",
                                         "-9223372036854775808"};
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  for (int edits = 1 + pick(3); edits > 0 && !text.empty(); --edits) {
    size_t at = pick(text.size());
    switch (pick(4)) {
    case 0:
      text.erase(at, 1 + pick(4));
      break;
    case 1:
      text.insert(at, 1, kChars[pick(kChars.size())]);
      break;
    case 2: { // Replace the number at or after `at`.
      size_t begin = text.find_first_of("0123456789", at);
      if (begin == std::string::npos)
        break;
      size_t end = text.find_first_not_of("0123456789", begin);
      text.replace(begin, end - begin, kNumbers[pick(std::size(kNumbers))]);
      break;
    }
    case 3: { // Repeat a piece, e.g. an axis or a whole entry.
      size_t length = 1 + pick(24);
      text.insert(at, text.substr(at, length));
      break;
    }
    }
  }
  return text;
}

} // namespace spmd::testing

#endif // SPMD_TESTS_UNIT_MUTATION_H
