//===- MeshConfig.cpp - HybridMesh configuration files --------------------===//

#include "mesh/MeshConfig.h"
#include "support/Files.h"
#include "support/Json.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace spmd;
namespace yaml = llvm::yaml;

char ConfigError::ID = 0;

void ConfigError::log(llvm::raw_ostream &os) const {
  os << file;
  if (line)
    os << ':' << line << ':' << column;
  os << ": error: " << message;
}

namespace {
/// Walks the YAML node tree (LLVM's parser handles JSON too) and reports
/// the first error with its position.
class ConfigReader {
public:
  ConfigReader(llvm::StringRef text, llvm::StringRef name) : name(name) {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
    // The YAML parser reports syntax errors through the source manager;
    // keep the first one as our error.
    sourceMgr.setDiagHandler(
        [](const llvm::SMDiagnostic &diag, void *context) {
          auto *self = static_cast<ConfigReader *>(context);
          if (!self->error)
            self->error = std::make_unique<ConfigError>(
                self->name.str(), diag.getLineNo(), diag.getColumnNo() + 1,
                "invalid YAML/JSON: " + diag.getMessage().str());
        },
        this);
  }

  llvm::Expected<HybridDeviceMesh> read(std::optional<int64_t> expectedProcesses);

private:
  void fail(llvm::SMLoc loc, const llvm::Twine &message) {
    if (error)
      return;
    // After some syntax errors (NUL bytes in a key) the parser gives nodes
    // a position outside the text; those errors are placed at its start.
    llvm::StringRef text = sourceMgr.getMemoryBuffer(1)->getBuffer();
    const char *at = loc.getPointer();
    if (!at || at < text.begin() || at > text.end())
      loc = llvm::SMLoc::getFromPointer(text.begin());
    auto [line, column] = sourceMgr.getLineAndColumn(loc);
    error =
        std::make_unique<ConfigError>(name.str(), line, column, message.str());
  }
  /// `node` as the list `key` must be, or null after reporting it.
  yaml::SequenceNode *listOf(yaml::Node *node, llvm::StringRef key,
                             llvm::StringRef what);
  std::optional<std::vector<std::string>> readNames(yaml::Node *node,
                                                    llvm::StringRef key);
  std::optional<std::vector<int64_t>> readSizes(yaml::Node *node,
                                                llvm::StringRef key);
  /// Where `node` starts; the start of the text for a missing node (the
  /// parser gives none after some syntax errors).
  llvm::SMLoc locOf(yaml::Node *node) {
    return node ? node->getSourceRange().Start
                : llvm::SMLoc::getFromPointer(
                      sourceMgr.getMemoryBuffer(1)->getBufferStart());
  }
  llvm::Error takeError() {
    return llvm::Error(std::unique_ptr<llvm::ErrorInfoBase>(error.release()));
  }

  llvm::StringRef name;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<ConfigError> error;
};
} // namespace

yaml::SequenceNode *ConfigReader::listOf(yaml::Node *node,
                                         llvm::StringRef key,
                                         llvm::StringRef what) {
  auto *seq = llvm::dyn_cast_or_null<yaml::SequenceNode>(node);
  if (!seq)
    fail(locOf(node), "'" + key + "' must be a list of " + what);
  return seq;
}

std::optional<std::vector<std::string>>
ConfigReader::readNames(yaml::Node *node, llvm::StringRef key) {
  yaml::SequenceNode *seq = listOf(node, key, "axis names");
  if (!seq)
    return std::nullopt;
  std::vector<std::string> names;
  for (yaml::Node &entry : *seq) {
    if (error)
      return std::nullopt;
    auto *scalar = llvm::dyn_cast<yaml::ScalarNode>(&entry);
    if (!scalar) {
      fail(entry.getSourceRange().Start,
           "'" + key + "' entries must be axis names");
      return std::nullopt;
    }
    llvm::SmallString<32> storage;
    names.push_back(scalar->getValue(storage).str());
    if (names.back().empty()) {
      fail(entry.getSourceRange().Start,
           "'" + key + "' has an empty axis name");
      return std::nullopt;
    }
  }
  return names;
}

std::optional<std::vector<int64_t>>
ConfigReader::readSizes(yaml::Node *node, llvm::StringRef key) {
  yaml::SequenceNode *seq = listOf(node, key, "sizes");
  if (!seq)
    return std::nullopt;
  std::vector<int64_t> sizes;
  for (yaml::Node &entry : *seq) {
    if (error)
      return std::nullopt;
    auto *scalar = llvm::dyn_cast<yaml::ScalarNode>(&entry);
    llvm::SmallString<16> storage;
    int64_t value;
    // A quoted "2" is a string, in JSON as in YAML.
    if (!scalar || scalar->getRawValue().starts_with("\"") ||
        scalar->getRawValue().starts_with("'") ||
        scalar->getValue(storage).getAsInteger(10, value)) {
      fail(entry.getSourceRange().Start,
           "'" + key + "' entries must be integers");
      return std::nullopt;
    }
    if (value < 1) {
      fail(entry.getSourceRange().Start,
           llvm::formatv("'{0}' has size {1}; sizes must be >= 1", key, value));
      return std::nullopt;
    }
    sizes.push_back(value);
  }
  return sizes;
}

std::string spmd::processCountMismatch(int64_t described, int64_t started) {
  return llvm::formatv("'dcn_mesh_shape' describes {0} processes but {1} "
                       "were started",
                       described, started)
      .str();
}

llvm::Expected<HybridDeviceMesh>
ConfigReader::read(std::optional<int64_t> expectedProcesses) {
  llvm::StringRef text = sourceMgr.getMemoryBuffer(1)->getBuffer();
  // Syntax first, all of it: the parser is lazy, and an unclosed list read
  // value by value ends in a key it swallowed, a misleading error.
  {
    yaml::Stream whole(text, sourceMgr, /*ShowColors=*/false);
    whole.validate();
    if (error)
      return takeError();
    // One document: a second one would go unread.
    unsigned documents = 0;
    yaml::Stream counted(text, sourceMgr, /*ShowColors=*/false);
    for (yaml::document_iterator d = counted.begin(); d != counted.end(); ++d) {
      yaml::Node *root = d->getRoot();
      if (++documents == 2) {
        fail(root ? root->getSourceRange().Start
                  : llvm::SMLoc::getFromPointer(text.begin()),
             "a second document: a mesh config is one");
        return takeError();
      }
      d->skip();
    }
  }
  yaml::Stream stream(text, sourceMgr, /*ShowColors=*/false);
  yaml::document_iterator doc = stream.begin();
  yaml::Node *root = doc == stream.end() ? nullptr : doc->getRoot();
  auto *map = llvm::dyn_cast_or_null<yaml::MappingNode>(root);
  if (!map) {
    if (!error)
      fail(root ? root->getSourceRange().Start
                : llvm::SMLoc::getFromPointer(
                      sourceMgr.getMemoryBuffer(1)->getBufferStart()),
           "expected a mapping with keys axis_names, ici_mesh_shape and "
           "optionally dcn_mesh_shape");
    return takeError();
  }

  std::optional<std::vector<std::string>> names;
  std::optional<std::vector<int64_t>> ici, dcn;
  llvm::StringMap<llvm::SMLoc> keyLocs;
  for (yaml::KeyValueNode &kv : *map) {
    auto *keyNode = llvm::dyn_cast_or_null<yaml::ScalarNode>(kv.getKey());
    if (!keyNode)
      break; // A syntax error already reported by the parser.
    llvm::SmallString<32> storage;
    llvm::StringRef key = keyNode->getValue(storage);
    llvm::SMLoc loc = keyNode->getSourceRange().Start;
    if (!keyLocs.try_emplace(key, loc).second) {
      fail(loc, "key '" + key + "' appears twice");
      break;
    }
    // The parser may have failed on the way here; reading the value of a
    // broken pair dereferences nothing it can check.
    if (error)
      break;
    yaml::Node *value = kv.getValue();
    // Aliases are never followed, so no document expands beyond its size.
    if (auto *alias = llvm::dyn_cast_or_null<yaml::AliasNode>(value)) {
      fail(loc, "'" + key + "' is the alias *" + alias->getName() +
                    "; aliases are not followed: write its value");
      break;
    }
    if (key == "axis_names")
      names = readNames(value, key);
    else if (key == "ici_mesh_shape")
      ici = readSizes(value, key);
    else if (key == "dcn_mesh_shape")
      dcn = readSizes(value, key);
    else
      fail(loc, "unknown key '" + key +
                    "' (expected axis_names, ici_mesh_shape, dcn_mesh_shape)");
    if (error)
      break;
  }
  if (error)
    return takeError();

  llvm::SMLoc mapLoc = map->getSourceRange().Start;
  if (!names || !ici) {
    fail(mapLoc, llvm::Twine("missing required key '") +
                     (!names ? "axis_names" : "ici_mesh_shape") + "'");
    return takeError();
  }
  if (ici->size() != names->size()) {
    fail(keyLocs["ici_mesh_shape"],
         llvm::formatv("'ici_mesh_shape' has {0} entries but 'axis_names' "
                       "has {1}",
                       ici->size(), names->size()));
    return takeError();
  }
  if (dcn && dcn->size() != names->size()) {
    fail(keyLocs["dcn_mesh_shape"],
         llvm::formatv("'dcn_mesh_shape' has {0} entries but 'axis_names' "
                       "has {1}",
                       dcn->size(), names->size()));
    return takeError();
  }
  for (size_t i = 0; i < names->size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if ((*names)[i] == (*names)[j]) {
        fail(keyLocs["axis_names"],
             "'axis_names' lists \"" + (*names)[i] + "\" twice");
        return takeError();
      }
  // A config may promise any number of devices: counted without overflow
  // before anything is allocated.
  std::optional<int64_t> devices = 1, processes = 1;
  for (size_t i = 0; i < names->size() && devices; ++i) {
    devices = llvm::checkedMul(*devices, (*ici)[i]);
    if (dcn && devices && processes) {
      devices = llvm::checkedMul(*devices, (*dcn)[i]);
      processes = llvm::checkedMul(*processes, (*dcn)[i]);
    }
  }
  if (!devices || *devices > DeviceMesh::kMaxDevices) {
    fail(keyLocs["ici_mesh_shape"],
         llvm::formatv("the mesh has more than {0} devices (the products of "
                       "'ici_mesh_shape' and 'dcn_mesh_shape')",
                       DeviceMesh::kMaxDevices));
    return takeError();
  }
  if (expectedProcesses) {
    if (*processes != *expectedProcesses) {
      fail(dcn ? keyLocs["dcn_mesh_shape"] : mapLoc,
           processCountMismatch(*processes, *expectedProcesses));
      return takeError();
    }
  }
  // All invariants were checked above with positions; creation cannot fail.
  return HybridDeviceMesh::create(std::move(*names), std::move(*ici),
                            dcn ? std::move(*dcn) : std::vector<int64_t>{});
}

llvm::Expected<HybridDeviceMesh>
spmd::parseMeshConfig(llvm::StringRef text, llvm::StringRef bufferName,
                      std::optional<int64_t> expectedProcesses) {
  // JSON is read as YAML below, but YAML's flow syntax is laxer than JSON
  // (it accepts a missing comma), so JSON text is checked strictly first.
  if (text.ltrim().starts_with("{")) {
    // A configuration nests 3 levels: the object, a list, a mesh's axes.
    llvm::Expected<llvm::json::Value> json = parseJson(text, /*maxDepth=*/16);
    if (!json) {
      // json::ParseError prints "[line:column, byte=N]: message".
      std::string message = llvm::toString(json.takeError());
      unsigned line = 0, column = 0;
      llvm::StringRef rest(message);
      if (rest.consume_front("it is not JSON: [") &&
          !rest.consumeInteger(10, line) && rest.consume_front(":") &&
          !rest.consumeInteger(10, column))
        rest = rest.split("]: ").second;
      return llvm::make_error<ConfigError>(bufferName.str(), line, column,
                                           "invalid JSON: " + rest.str());
    }
  }
  ConfigReader reader(text, bufferName);
  return reader.read(expectedProcesses);
}

llvm::Expected<HybridDeviceMesh>
spmd::loadMeshConfigFile(llvm::StringRef path,
                         std::optional<int64_t> expectedProcesses) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path, kMaxMeshConfigBytes, "mesh config");
  if (!buffer)
    return llvm::make_error<ConfigError>(path.str(), 0, 0,
                                         llvm::toString(buffer.takeError()));
  return parseMeshConfig((*buffer)->getBuffer(), path, expectedProcesses);
}
