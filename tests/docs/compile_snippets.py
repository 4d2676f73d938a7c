#!/usr/bin/env python3
"""Compiles every C++ block of the documentation against the installed
package, so that the docs cannot drift from <spmd/spmd.h>.

usage: compile_snippets.py --prefix=DIR [--install-from=BUILD] [--source=DIR]
                           [--cxx=C++] [--std=c++17] [--jobs=2] [FILE.md...]

Every ```c++ (or ```cpp) block of docs/*.md and README.md (or of the files
given) becomes one translation unit, compiled with `c++ -std=c++17
-fsyntax-only -I DIR/include` (abseil from the compiler's default paths,
/usr/include). Errors are reported at the markdown file and line. No block
is skipped. The rules, in order:

1. A block that defines `main` is a whole program: it is compiled as it is.
2. Otherwise it is a fragment. It gets <spmd/spmd.h> and the standard
   headers of PREAMBLE; its own #include lines go first. A fragment that
   defines a function, class, struct, namespace or template (a line at its
   first column that opens one) is put at namespace scope; any other is the
   body of a function `absl::Status snippet()`, so it may `return` a status.
3. A fragment may use names of an earlier block: an HTML comment just
   before the block (blank lines may separate them) gives the declarations
   it assumes, put before it in the same scope:

       <!-- snippet-context: spmd::HostTensor x, w1, w2; -->

Prints `FILE:LINE: ok` or the compiler's errors per block, then
`snippets: N compiled, M failed`; exits 1 when M > 0 or when no block
compiled.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

LANGUAGES = {"c++", "cpp"}
PREAMBLE = """\
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>
"""
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
CONTEXT_START = "<!-- snippet-context:"
MAIN = re.compile(r"^\s*int\s+main\s*\(", re.M)
INCLUDE = re.compile(r"^\s*#\s*include\b")
# A line at the first column opening a definition at namespace scope.
DEFINITION = re.compile(r"^(struct|class|namespace|template|enum|union)\b")
FUNCTION = re.compile(r"^[A-Za-z_][\w:<>,*&\s]*[\s*&]([A-Za-z_]\w*)\s*\(.*\)"
                      r"\s*(const\s*)?(->[^{;]*)?\{?\s*$")
KEYWORDS = {"if", "for", "while", "switch", "return", "else", "do", "case"}


class Block:
    def __init__(self, path, line, text, context=None, context_line=0):
        self.path = path  # as printed: relative to the source folder
        self.line = line  # of the fence
        self.text = text
        self.context = context
        self.context_line = context_line


def find_context(lines, fence_index):
    """The snippet-context comment just before lines[fence_index]."""
    end = fence_index - 1
    while end >= 0 and not lines[end].strip():
        end -= 1
    if end < 0 or not lines[end].rstrip().endswith("-->"):
        return None, 0
    start = end
    while start >= 0 and "<!--" not in lines[start]:
        start -= 1
    if start < 0 or not lines[start].lstrip().startswith(CONTEXT_START):
        return None, 0
    comment = "\n".join(lines[start:end + 1]).strip()
    body = comment[len(CONTEXT_START):-len("-->")]
    # Line numbers: the first line of the comment holds the text after the
    # marker.
    return body, start + 1


def extract(path, shown):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, language = m.group(1), m.group(2), m.group(3).lower()
        closing = re.compile(r"^\s*" + re.escape(fence[0]) + "{" +
                             str(len(fence)) + r",}\s*$")
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        if language in LANGUAGES:
            body = [l[len(indent):] if l.startswith(indent) else l.lstrip()
                    for l in lines[i + 1:j]]
            context, context_line = find_context(lines, i)
            blocks.append(Block(shown, i + 1, "\n".join(body) + "\n",
                                context, context_line))
        i = j + 1
    return blocks


def at_namespace_scope(text):
    for line in text.split("\n"):
        if DEFINITION.match(line):
            return True
        m = FUNCTION.match(line)
        if m and line.split()[0] not in KEYWORDS and \
                m.group(1) not in KEYWORDS and "=" not in line:
            return True
    return False


def translation_unit(block):
    """The C++ source for `block`, with #line directives that point every
    line of it back into the markdown file."""
    first = block.line + 1  # the line after the fence
    path = block.path.replace("\\", "\\\\").replace('"', '\\"')
    if MAIN.search(block.text):
        return f'#line {first} "{path}"\n' + block.text
    body, includes = [], []
    for k, line in enumerate(block.text.split("\n")):
        if INCLUDE.match(line):
            includes.append(f'#line {first + k} "{path}"\n{line}\n')
            body.append("")
        else:
            body.append(line)
    body = "\n".join(body)
    context = ""
    if block.context is not None:
        context = f'#line {block.context_line} "{path}"\n{block.context}\n'
    source = "".join(includes) + "#include <spmd/spmd.h>\n" + PREAMBLE
    placed = f'{context}#line {first} "{path}"\n{body}'
    if at_namespace_scope(body):
        return source + placed + "\n"
    return (source + "absl::Status snippet() {\n" + placed +
            "\nreturn absl::OkStatus();\n}\n")


def compile_block(index, block, options, folder):
    name = os.path.join(folder, f"snippet{index}.cpp")
    with open(name, "w", encoding="utf-8") as f:
        f.write(translation_unit(block))
    command = [options.cxx, f"-std={options.std}", "-fsyntax-only",
               "-I", os.path.join(options.prefix, "include")]
    for directory in options.include:
        command += ["-I", directory]
    command.append(name)
    try:
        result = subprocess.run(command, capture_output=True, text=True,
                                timeout=600, cwd=options.source)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"{' '.join(command)}: {e}\n"
    return result.returncode == 0, result.stderr


def errors_only(messages):
    """The compiler's error lines, each with the source line it quotes; the
    whole output when it has none."""
    lines = messages.splitlines()
    kept = []
    for k, line in enumerate(lines):
        if "error:" in line:
            kept.append(line)
            if k + 1 < len(lines) and re.match(r"^\s*\d* \|", lines[k + 1]):
                kept.append(lines[k + 1])
    return "\n".join(kept or lines) + "\n"


def markdown_files(source):
    files = sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    readme = os.path.join(source, "README.md")
    if os.path.exists(readme):
        files.append(readme)
    return files


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--prefix", required=True,
                        help="install prefix of the package")
    parser.add_argument("--install-from", metavar="BUILD",
                        help="first run `cmake --install BUILD --prefix "
                             "PREFIX` (PREFIX/include/spmd is replaced)")
    parser.add_argument("--source", default=os.path.dirname(
        os.path.dirname(here)), help="the checkout (default: this one)")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    parser.add_argument("--std", default="c++17")
    parser.add_argument("--include", action="append", default=[],
                        metavar="DIR", help="another include folder")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verbose", action="store_true",
                        help="the compiler's whole output, notes included")
    parser.add_argument("files", nargs="*",
                        help="markdown files (default: docs/*.md, README.md)")
    options = parser.parse_args()
    options.source = os.path.abspath(options.source)
    options.prefix = os.path.abspath(options.prefix)

    if options.install_from:
        # A header removed from the package must not stay from an earlier
        # install.
        shutil.rmtree(os.path.join(options.prefix, "include", "spmd"),
                      ignore_errors=True)
        result = subprocess.run(
            ["cmake", "--install", options.install_from, "--prefix",
             options.prefix], capture_output=True, text=True)
        if result.returncode != 0:
            sys.stdout.write(result.stdout + result.stderr)
            print("snippets: 0 compiled, 0 failed (the install failed)")
            return 1
    header = os.path.join(options.prefix, "include", "spmd", "spmd.h")
    if not os.path.isfile(header):
        print(f"error: {header} is not installed")
        print("snippets: 0 compiled, 0 failed")
        return 1

    blocks = []
    for path in options.files or markdown_files(options.source):
        shown = os.path.relpath(os.path.abspath(path), options.source)
        blocks += extract(path, shown)

    failed = 0
    with tempfile.TemporaryDirectory(prefix="snippets-") as folder, \
            concurrent.futures.ThreadPoolExecutor(
                max(1, options.jobs)) as pool:
        results = pool.map(lambda ib: compile_block(ib[0], ib[1], options,
                                                    folder),
                           enumerate(blocks))
        for block, (ok, messages) in zip(blocks, results):
            if ok:
                print(f"{block.path}:{block.line}: ok", flush=True)
            else:
                failed += 1
                print(f"{block.path}:{block.line}: FAILED", flush=True)
                sys.stdout.write(messages if options.verbose
                                 else errors_only(messages))
    compiled = len(blocks) - failed
    print(f"snippets: {compiled} compiled, {failed} failed")
    return 1 if failed or compiled == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
