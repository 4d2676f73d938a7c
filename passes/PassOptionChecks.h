//===- PassOptionChecks.h - What each pass option accepts -------*- C++ -*-===//
//
// The values of the passes' options are checked as they are parsed, so
// that a bad one is one error naming the pass, the option, the value and
// what it accepts (llvm::cl alone prints its own message, when it refuses
// a value at all, and an empty error). Passes call parseCheckedOptions
// from initializeOptions (and the pipeline from its parser) with the
// options that take a restricted value or need one; the syntax and
// unknown options are left to llvm::cl.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PASSES_PASSOPTIONCHECKS_H
#define SPMD_PASSES_PASSOPTIONCHECKS_H

#include "ir/Namespaces.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <functional>
#include <optional>
#include <string>

namespace mlir::spmd {

/// Whether an option's value is accepted: nullopt if so, else what the
/// option accepts, in words ("a number from 1 to 1e6").
using OptionCheck = std::function<std::optional<std::string>(StringRef)>;

struct CheckedOption {
  StringRef name;
  OptionCheck check;
  /// Whether the key alone is a value (a boolean's `true`).
  bool isFlag = false;
};

/// `number` as a user writes it: 1000, 0.5, 1e30.
inline std::string formatNumber(double number) {
  std::string text = llvm::formatv("{0}", llvm::format("%g", number)).str();
  // %g writes 1e+30 and 1e-05.
  size_t e = text.find('e');
  if (e != std::string::npos) {
    std::string exponent = text.substr(e + 1);
    bool negative = exponent[0] == '-';
    exponent = exponent.substr(exponent[0] == '+' || negative ? 1 : 0);
    exponent.erase(0, std::min(exponent.find_first_not_of('0'),
                               exponent.size() - 1));
    text = text.substr(0, e + 1) + (negative ? "-" : "") + exponent;
  }
  return text;
}

/// What a number of `low` (excluded where `lowOpen`) to `high` is, in
/// words.
inline std::string numberRange(double low, double high, bool lowOpen) {
  return "a number " + std::string(lowOpen ? "above " : "from ") +
         formatNumber(low) + (lowOpen ? " and at most " : " to ") +
         formatNumber(high);
}

/// A finite number of `low` (excluded where `lowOpen`) to `high`.
inline bool isNumberIn(double number, double low, double high, bool lowOpen) {
  return std::isfinite(number) && (lowOpen ? number > low : number >= low) &&
         number <= high;
}

inline OptionCheck numberIn(double low, double high, bool lowOpen = false) {
  return [=](StringRef value) -> std::optional<std::string> {
    // As llvm::cl reads it (strtod, all of the text).
    double number;
    if (llvm::to_float(value, number) && isNumberIn(number, low, high, lowOpen))
      return std::nullopt;
    return numberRange(low, high, lowOpen);
  };
}

/// An integer from 0 to `high`.
inline OptionCheck integerTo(uint64_t high) {
  return [=](StringRef value) -> std::optional<std::string> {
    uint64_t number;
    if (!value.getAsInteger(10, number) && number <= high)
      return std::nullopt;
    return llvm::formatv("an integer from 0 to {0}", high).str();
  };
}

/// One of `names` (llvm::cl's enum values and booleans).
inline OptionCheck oneOf(std::vector<std::string> names) {
  return [=](StringRef value) -> std::optional<std::string> {
    if (llvm::is_contained(names, value.str()))
      return std::nullopt;
    return "one of " + llvm::join(names, ", ");
  };
}

inline OptionCheck boolean() {
  return oneOf({"true", "false", "1", "0", "TRUE", "FALSE", "True", "False"});
}

/// Any value (the option is listed so that a bare key is refused).
inline OptionCheck anyValue() {
  return [](StringRef) -> std::optional<std::string> { return std::nullopt; };
}

/// Not empty: a file name, or `-` where the option says so.
inline OptionCheck nonEmpty(StringRef what) {
  std::string words = what.str();
  return [=](StringRef value) -> std::optional<std::string> {
    if (!value.empty())
      return std::nullopt;
    return words;
  };
}

/// Splits `options` as MLIR's pass options are written (`key=value`
/// separated by spaces; a value may be quoted, or braced), calling
/// `visit(key, value)` for each; `value` is nullopt for a bare key.
inline void
forEachPassOption(StringRef options,
                  function_ref<void(StringRef, std::optional<StringRef>)>
                      visit) {
  while (!(options = options.ltrim()).empty()) {
    size_t keyEnd = options.find_first_of("= \t\n");
    StringRef key = options.take_front(keyEnd);
    options = options.drop_front(key.size());
    if (!options.consume_front("=")) {
      visit(key, std::nullopt);
      continue;
    }
    size_t end = options.find_first_of(" \t\n");
    if (!options.empty() && (options[0] == '"' || options[0] == '\'')) {
      size_t close = options.find(options[0], 1);
      end = close == StringRef::npos ? options.size() : close + 1;
    } else if (options.starts_with("{")) {
      unsigned depth = 0;
      end = options.size();
      for (size_t i = 0; i < options.size(); ++i) {
        depth += options[i] == '{';
        if (options[i] == '}' && --depth == 0) {
          end = i + 1;
          break;
        }
      }
    }
    StringRef value = options.take_front(end);
    options = options.drop_front(value.size());
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.drop_front().drop_back();
    visit(key, value);
  }
}

/// Checks the options of `pass` listed in `checked` in `options`; on the
/// first bad one, reports "PASS: OPTION must be WHAT, not 'VALUE'" (or
/// "PASS: OPTION needs a value" for a bare key that is not a flag) through
/// `errorHandler` and fails.
inline LogicalResult
checkPassOptions(StringRef pass, StringRef options,
                 ArrayRef<CheckedOption> checked,
                 function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::optional<std::string> error;
  forEachPassOption(options, [&](StringRef key,
                                 std::optional<StringRef> value) {
    if (error)
      return;
    for (const CheckedOption &option : checked) {
      if (option.name != key)
        continue;
      if (!value) {
        if (!option.isFlag)
          error = llvm::formatv("{0}: {1} needs a value ({1}=...)", pass, key)
                      .str();
        continue;
      }
      if (std::optional<std::string> want = option.check(*value))
        error = llvm::formatv("{0}: {1} must be {2}, not '{3}'", pass, key,
                              *want, *value)
                    .str();
    }
  });
  if (error)
    return errorHandler(*error);
  return success();
}

/// What spmd-auto-shard's dcn-cost and memory-budget take (also
/// spmd-pipeline's options of those names).
OptionCheck dcnCostCheck();
OptionCheck memoryBudgetCheck();

/// Parses `options` with `parse` (llvm::cl, through the pass's
/// Pass::initializeOptions or the pipeline's parser), then checks them:
/// a bad value gets our error, naming what the option takes, after any
/// message llvm::cl printed itself; other parse errors (an unknown option)
/// are reported as `parse` gave them, named after `pass`.
inline LogicalResult parseCheckedOptions(
    StringRef pass, StringRef options, ArrayRef<CheckedOption> checked,
    function_ref<LogicalResult(const Twine &)> errorHandler,
    function_ref<LogicalResult(function_ref<LogicalResult(const Twine &)>)>
        parse) {
  std::string parseError;
  bool parsed = succeeded(parse([&](const Twine &message) {
    parseError = message.str();
    return failure();
  }));
  if (failed(checkPassOptions(pass, options, checked, errorHandler)))
    return failure();
  if (parsed)
    return success();
  StringRef message = StringRef(parseError).trim();
  if (message.empty())
    return errorHandler(pass + ": cannot read the options '" + options + "'");
  return errorHandler(pass + ": " + message);
}

} // namespace mlir::spmd

#endif // SPMD_PASSES_PASSOPTIONCHECKS_H
