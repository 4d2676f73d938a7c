//===- UpstreamParserGuard.cpp - Inputs MLIR's own parsers crash on -------===//

#include "passes/UpstreamParserGuard.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

/// Whether `rest` starts with `= [i, j, ...]` (spaces allowed).
static bool isIntegerList(llvm::StringRef rest) {
  rest = rest.ltrim();
  if (!rest.consume_front("="))
    return false;
  rest = rest.ltrim();
  if (!rest.consume_front("["))
    return false;
  rest = rest.ltrim();
  if (rest.consume_front("]"))
    return true;
  while (true) {
    rest.consume_front("-");
    size_t digits = rest.find_if_not(llvm::isDigit);
    if (digits == 0 || digits == llvm::StringRef::npos)
      return false;
    rest = rest.drop_front(digits).ltrim();
    if (rest.consume_front("]"))
      return true;
    if (!rest.consume_front(","))
      return false;
    rest = rest.ltrim();
  }
}

/// The rest of the statement `text` starts in: up to the next line that
/// starts another one (a result `%x`, a closing brace, a block label, a
/// generic op, an op name with a dot, `return`). The list may come before
/// the body (`linalg.reduce ins(..) outs(..) dimensions = [..] (..) {..}`)
/// or after it (`linalg.reduce { arith.addf } ins(..) outs(..)
/// dimensions = [..]`).
static llvm::StringRef statementAt(llvm::StringRef text) {
  size_t end = text.find('\n');
  while (end != llvm::StringRef::npos) {
    llvm::StringRef line = text.drop_front(end + 1).ltrim(" \t");
    if (!line.empty() && line[0] != '\n') {
      llvm::StringRef word = line.take_while(
          [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; });
      if (llvm::StringRef("%}\"^").contains(line[0]) || word.contains('.') ||
          word == "return")
        break;
    }
    end = text.find('\n', end + 1);
  }
  return text.take_front(end);
}

std::optional<std::string>
mlir::spmd::findUpstreamParserHazard(llvm::StringRef text,
                                     llvm::StringRef bufferName) {
  for (llvm::StringRef name : {"reduce", "broadcast", "transpose"}) {
    std::string op = ("linalg." + name).str();
    llvm::StringRef keyword = name == "transpose" ? "permutation" : "dimensions";
    for (size_t at = text.find(op); at != llvm::StringRef::npos;
         at = text.find(op, at + op.size())) {
      // The generic form ("linalg.reduce" in quotes) has another parser;
      // comments have none.
      size_t lineStart = text.take_front(at).rfind('\n');
      llvm::StringRef lineBefore = text.slice(
          lineStart == llvm::StringRef::npos ? 0 : lineStart + 1, at);
      if ((at > 0 && text[at - 1] == '"') || lineBefore.contains("//"))
        continue;
      llvm::StringRef rest = statementAt(text.drop_front(at + op.size()));
      size_t found = rest.find(keyword);
      if (found == llvm::StringRef::npos)
        continue;
      llvm::StringRef list = rest.drop_front(found + keyword.size());
      if (!list.ltrim().starts_with("=") || isIntegerList(list))
        continue;
      size_t offset = at + op.size() + found;
      llvm::StringRef before = text.take_front(offset);
      size_t line = before.count('\n') + 1;
      size_t keywordLine = before.rfind('\n');
      size_t column =
          offset - (keywordLine == llvm::StringRef::npos ? 0 : keywordLine + 1) +
          1;
      return llvm::formatv("{0}:{1}:{2}: error: malformed '{3}' list of {4}: "
                           "expected {3} = [i, j, ...]",
                           bufferName, line, column, keyword, op)
          .str();
    }
  }
  return std::nullopt;
}
