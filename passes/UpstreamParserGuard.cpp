//===- UpstreamParserGuard.cpp - Inputs MLIR's own parsers crash on -------===//

#include "passes/UpstreamParserGuard.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using llvm::SmallVector;

/// Whether `rest` starts with `= [e, e, ...]` (spaces allowed), each entry
/// `e` consumed from the front by `entry`, which fails on a malformed one.
static bool isListOf(llvm::StringRef rest,
                     llvm::function_ref<bool(llvm::StringRef &)> entry) {
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
    if (!entry(rest))
      return false;
    rest = rest.ltrim();
    if (rest.consume_front("]"))
      return true;
    if (!rest.consume_front(","))
      return false;
    rest = rest.ltrim();
  }
}

/// A 64-bit integer (the parsers' attribute is null past that too).
static bool consumeInteger(llvm::StringRef &rest) {
  size_t sign = rest.starts_with("-") ? 1 : 0;
  size_t digits = rest.drop_front(sign).find_if_not(llvm::isDigit);
  int64_t value;
  if (digits == 0 || digits == llvm::StringRef::npos ||
      rest.take_front(sign + digits).getAsInteger(10, value))
    return false;
  rest = rest.drop_front(sign + digits);
  return true;
}

/// A string literal: MLIR 22's parser of linalg.generic reads every entry
/// of `iterator_types` as a string, unchecked (any other attribute aborted
/// or crashed it).
static bool consumeString(llvm::StringRef &rest) {
  if (!rest.consume_front("\""))
    return false;
  size_t end = 0;
  while (end < rest.size() && rest[end] != '"')
    end += rest[end] == '\\' ? 2 : 1;
  if (end >= rest.size())
    return false;
  rest = rest.drop_front(end + 1);
  return true;
}

static bool isIntegerList(llvm::StringRef rest) {
  return isListOf(rest, consumeInteger);
}
static bool isStringList(llvm::StringRef rest) {
  return isListOf(rest, consumeString);
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

/// The custom-form statements of `op` in `text`: the offset just past the
/// op name and the rest of its statement. The generic form ("op" in
/// quotes) has another parser; comments have none.
static SmallVector<std::pair<size_t, llvm::StringRef>>
statementsOf(llvm::StringRef text, llvm::StringRef op) {
  SmallVector<std::pair<size_t, llvm::StringRef>> found;
  for (size_t at = text.find(op); at != llvm::StringRef::npos;
       at = text.find(op, at + op.size())) {
    size_t lineStart = text.take_front(at).rfind('\n');
    llvm::StringRef lineBefore =
        text.slice(lineStart == llvm::StringRef::npos ? 0 : lineStart + 1, at);
    if ((at > 0 && text[at - 1] == '"') || lineBefore.contains("//"))
      continue;
    found.push_back(
        {at + op.size(), statementAt(text.drop_front(at + op.size()))});
  }
  return found;
}

/// `file:line:col: error: message` at `offset` of `text`.
static std::string errorAt(llvm::StringRef text, size_t offset,
                           llvm::StringRef bufferName,
                           const llvm::Twine &message) {
  llvm::StringRef before = text.take_front(offset);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column =
      offset - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
  return llvm::formatv("{0}:{1}:{2}: error: {3}", bufferName, line, column,
                       message.str())
      .str();
}

/// Whether a `tensor.from_elements` statement's result type has at most as
/// many elements as the statement lists operands: MLIR's parser allocates
/// one operand type per element of the type before comparing the counts.
static bool listsEnoughElements(llvm::StringRef statement) {
  size_t colon = statement.rfind(':');
  if (colon == llvm::StringRef::npos)
    return true; // Not the form the parser reads far enough.
  llvm::StringRef type = statement.drop_front(colon + 1).ltrim();
  if (!type.consume_front("tensor<"))
    return true;
  uint64_t operands = statement.take_front(colon).count('%');
  // The sizes: numbers each followed by `x`; the element type (`index`,
  // `i32`) after them may hold an `x` of its own.
  SmallVector<uint64_t> sizes;
  for (llvm::StringRef rest = type;;) {
    rest = rest.ltrim();
    if (rest.starts_with("?"))
      return false; // The parser counts it as huge.
    size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0 || digits == llvm::StringRef::npos ||
        !rest.drop_front(digits).ltrim().starts_with("x"))
      break;
    if (rest.take_front(digits).getAsInteger(10, sizes.emplace_back()))
      return false; // Beyond 64 bits: huge too.
    rest = rest.drop_front(digits).ltrim().drop_front();
  }
  if (llvm::is_contained(sizes, 0))
    return true;
  uint64_t elements = 1;
  for (uint64_t size : sizes) {
    if (elements > operands / size)
      return false;
    elements *= size;
  }
  return true;
}

/// Brackets nested deeper than this are refused: MLIR's parser descends
/// recursively into nested attributes, types, affine expressions and
/// regions, and such input overflows its stack (real programs nest a few
/// dozen levels).
constexpr int kMaxNesting = 512;

/// Where `text` nests brackets deeper than kMaxNesting, outside strings and
/// comments.
static std::optional<size_t> tooDeep(llvm::StringRef text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') { // a string: to its closing quote
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNesting)
        return i;
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

/// The lists whose malformed forms MLIR 22's parsers crash on.
struct ListRule {
  llvm::StringLiteral op, keyword;
  bool (*wellFormed)(llvm::StringRef rest);
  llvm::StringLiteral entries;
};
static constexpr ListRule kListRules[] = {
    {"linalg.reduce", "dimensions", isIntegerList, "i, j, ..."},
    {"linalg.broadcast", "dimensions", isIntegerList, "i, j, ..."},
    {"linalg.transpose", "permutation", isIntegerList, "i, j, ..."},
    {"linalg.generic", "iterator_types", isStringList,
     "\"parallel\", \"reduction\", ..."},
};

std::optional<std::string>
mlir::spmd::findUpstreamParserHazard(llvm::StringRef text,
                                     llvm::StringRef bufferName) {
  if (std::optional<size_t> at = tooDeep(text))
    return errorAt(text, *at, bufferName,
                   llvm::formatv("brackets nested more than {0} deep",
                                 kMaxNesting));
  for (const ListRule &rule : kListRules) {
    for (auto [offset, rest] : statementsOf(text, rule.op)) {
      size_t found = rest.find(rule.keyword);
      if (found == llvm::StringRef::npos)
        continue;
      llvm::StringRef list = rest.drop_front(found + rule.keyword.size());
      if (!list.ltrim().starts_with("=") || rule.wellFormed(list))
        continue;
      return errorAt(text, offset + found, bufferName,
                     llvm::formatv("malformed '{0}' list of {1}: expected {0} "
                                   "= [{2}]",
                                   rule.keyword, rule.op, rule.entries));
    }
  }
  llvm::StringRef fromElements = "tensor.from_elements";
  for (auto [offset, rest] : statementsOf(text, fromElements))
    if (!listsEnoughElements(rest))
      return errorAt(text, offset - fromElements.size(), bufferName,
                     "tensor.from_elements needs a static type of at most as "
                     "many elements as it lists");
  return std::nullopt;
}
