// Transform on nlohmann JSON: renames and defaults are ours (JSON Pointers
// from nlohmann), the patch is nlohmann's RFC 6902 patch, one operation at a
// time so an error can name the operation.
//
// Numbers: nlohmann keeps integers as int64 or uint64 and the rest as double,
// so ordinary numbers come out as they went in (a double is written in its
// shortest form that reads back the same: 1e300 comes out as 1e+300). An
// integer beyond 64 bits becomes a double and loses digits: data that needs
// them should carry them as strings.
//
// Objects come out with their keys sorted (nlohmann::json keeps an object in
// a std::map): JSON objects are unordered (RFC 8259), and an ordered map
// would make a patch `test` of an object depend on the order of its keys.
#include "schemas/transform.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace indelible::schemas {
namespace {

using Json = nlohmann::json;
// The transform's own objects keep the order they were written in, so
// renames apply in that order (a rename may move what an earlier one left).
using OrderedJson = nlohmann::ordered_json;
using Pointer = Json::json_pointer;

// nlohmann parses without recursion but copies and writes values
// recursively: a bound keeps a deeply nested event (400 KiB of '[') from
// overflowing the stack.
constexpr int kMaxDepth = 512;
struct TooDeep {};

// Counts brackets outside strings: exact for JSON, and text that is not JSON
// the parser refuses anyway. nlohmann's parser callback knows the depth too,
// but added 20-50% to the parse of a 200-byte event.
bool NestedTooDeep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// Long values are cut in error messages: a message names, it does not dump.
constexpr std::size_t kMaxShownValue = 80;

std::string Shown(const Json& value) {
  std::string text = value.dump();
  if (text.size() > kMaxShownValue) {
    text.resize(kMaxShownValue);
    text += "...";
  }
  return text;
}

// nlohmann's message without its "[json.exception.type.id] " prefix.
std::string Reason(const Json::exception& e) {
  std::string_view what = e.what();
  if (auto end = what.find("] "); what.starts_with("[json.exception.") && end != what.npos) {
    what.remove_prefix(end + 2);
  }
  return std::string(what);
}

template <class J>
J ParseBounded(std::string_view text) {
  // Throws TooDeep, or nlohmann's parse_error for text that is not JSON.
  if (NestedTooDeep(text)) throw TooDeep{};
  return J::parse(text);
}

// A JSON Pointer with its unescaped tokens, for walks that make parents.
struct Path {
  Pointer pointer;
  std::string text;                 // as written
  std::vector<std::string> tokens;  // unescaped: "~1" is "/" here
};

// Throws nlohmann's parse_error when `text` is not an RFC 6901 pointer.
Path ParsePath(const std::string& text) {
  Path path{Pointer(text), text, {}};
  for (Pointer rest = path.pointer; !rest.empty(); rest = rest.parent_pointer()) {
    path.tokens.push_back(rest.back());
  }
  std::reverse(path.tokens.begin(), path.tokens.end());
  return path;
}

// The value at the first `n` tokens of `path`, named for messages.
std::string Prefix(const Path& path, std::size_t n) {
  if (n == 0) return "the data";
  Pointer prefix;
  for (std::size_t i = 0; i < n; ++i) prefix.push_back(path.tokens[i]);
  return fmt::format("'{}'", prefix.to_string());
}

bool IsPrefixOf(const Path& shorter, const Path& longer) {
  return shorter.tokens.size() < longer.tokens.size() &&
         std::equal(shorter.tokens.begin(), shorter.tokens.end(), longer.tokens.begin());
}

// The object that is to hold `path`'s last token: missing parents are made
// as objects, existing array elements are stepped through. Returns nullptr
// and sets *problem when a parent is there but cannot hold the next token.
Json* MakeParents(Json& doc, const Path& path, std::string* problem) {
  Json* node = &doc;
  for (std::size_t i = 0; i + 1 < path.tokens.size(); ++i) {
    const std::string& token = path.tokens[i];
    if (node->is_object()) {
      auto found = node->find(token);
      node = found != node->end() ? &*found : &((*node)[token] = Json::object());
    } else if (Pointer step = Pointer() / token; node->is_array() && node->contains(step)) {
      node = &node->at(step);
    } else {
      *problem = fmt::format(
          "{} is {}", Prefix(path, i),
          node->is_array() ? fmt::format("an array without element '{}'", token) : "not an object");
      return nullptr;
    }
  }
  if (!node->is_object()) {
    *problem = fmt::format("{} is not an object", Prefix(path, path.tokens.size() - 1));
    return nullptr;
  }
  return node;
}

// [{"op": "remove", "path": path}]: nlohmann's remove, for our moves.
Json RemoveOp(const Path& path) { return Json::array({{{"op", "remove"}, {"path", path.text}}}); }

struct Rename {
  Path source;
  Path target;
  Json remove_source;  // RemoveOp(source)
};

struct Default {
  Path path;
  Json value;
};

struct PatchOp {
  std::string entry;  // "patch[2]", for messages
  std::string op;
  Path path;
  std::optional<Path> from;  // move and copy
  Json value;                // add, replace, test
  Json as_patch;             // [the operation], what nlohmann applies
  // move, as RFC 6902 section 4.4 defines it: a remove of `from`, then an
  // add at `path` (see ApplyMove).
  Json remove_from;
};

Status Invalid(std::string_view part, std::string message) {
  return Status::Invalid(std::string(part), std::move(message));
}

Result<Path> ParsePathIn(std::string_view part, const std::string& entry, std::string_view role,
                         const std::string& text, bool root_allowed) {
  try {
    Path path = ParsePath(text);
    if (!root_allowed && path.tokens.empty()) {
      return Invalid(part,
                     fmt::format("{}: {} is \"\", the whole data: name a member", entry, role));
    }
    return path;
  } catch (const Json::exception& e) {
    return Invalid(
        part, fmt::format("{}: {} is not a JSON Pointer ('{}': {})", entry, role, text, Reason(e)));
  }
}

Result<OrderedJson> ParsePart(std::string_view part, std::string_view text) {
  try {
    return ParseBounded<OrderedJson>(text);
  } catch (const TooDeep&) {
    return Invalid(part, fmt::format("{}: nested deeper than {} levels", part, kMaxDepth));
  } catch (const Json::exception& e) {
    return Invalid(part, fmt::format("{}: not JSON ({})", part, Reason(e)));
  }
}

Result<std::vector<Rename>> ParseRenames(std::string_view text) {
  auto parsed = ParsePart("renames", text);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return Invalid("renames", "renames: not an object of JSON Pointer to JSON Pointer");
  }
  std::vector<Rename> renames;
  for (const auto& [source_text, target_json] : parsed->items()) {
    std::string entry = fmt::format("renames['{}']", source_text);
    auto source = ParsePathIn("renames", entry, "source", source_text, false);
    if (!source.ok()) return source.status();
    if (!target_json.is_string()) {
      return Invalid("renames",
                     fmt::format("{}: target is not a JSON Pointer (not a string)", entry));
    }
    auto target = ParsePathIn("renames", entry, "target", target_json.get<std::string>(), false);
    if (!target.ok()) return target.status();
    if (source->tokens == target->tokens) {
      return Invalid("renames", fmt::format("{}: target is the source", entry));
    }
    if (IsPrefixOf(*source, *target)) {
      return Invalid("renames",
                     fmt::format("{}: target '{}' is inside the source", entry, target->text));
    }
    Json remove_source = RemoveOp(*source);
    renames.push_back(
        {std::move(source).value(), std::move(target).value(), std::move(remove_source)});
  }
  return renames;
}

Result<std::vector<Default>> ParseDefaults(std::string_view text) {
  auto parsed = ParsePart("defaults", text);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return Invalid("defaults", "defaults: not an object of JSON Pointer to value");
  }
  std::vector<Default> defaults;
  for (const auto& [path_text, value] : parsed->items()) {
    auto path = ParsePathIn("defaults", fmt::format("defaults['{}']", path_text), "the key",
                            path_text, false);
    if (!path.ok()) return path.status();
    defaults.push_back({std::move(path).value(), Json(value)});
  }
  return defaults;
}

Result<PatchOp> ParsePatchOp(const OrderedJson& op_json, const std::string& entry) {
  if (!op_json.is_object()) return Invalid("patch", entry + ": not an object");
  auto member = [&](const char* name) -> const OrderedJson* {
    auto found = op_json.find(name);
    return found == op_json.end() ? nullptr : &*found;
  };
  const OrderedJson* op = member("op");
  if (op == nullptr || !op->is_string()) {
    return Invalid("patch", entry + ": needs 'op', a string");
  }
  PatchOp parsed;
  parsed.entry = entry;
  parsed.op = op->get<std::string>();
  static constexpr std::string_view kOps[] = {"add", "remove", "replace", "move", "copy", "test"};
  if (std::find(std::begin(kOps), std::end(kOps), parsed.op) == std::end(kOps)) {
    return Invalid("patch",
                   fmt::format("{}: op '{}' is not an RFC 6902 operation", entry, parsed.op));
  }
  auto pointer_member = [&](const char* name) -> Result<Path> {
    const OrderedJson* text = member(name);
    if (text == nullptr || !text->is_string()) {
      return Invalid("patch", fmt::format("{}: op '{}' needs '{}', a JSON Pointer string", entry,
                                          parsed.op, name));
    }
    return ParsePathIn("patch", entry, fmt::format("'{}'", name), text->get<std::string>(), true);
  };
  auto path = pointer_member("path");
  if (!path.ok()) return path.status();
  parsed.path = std::move(path).value();
  if (parsed.op == "move" || parsed.op == "copy") {
    auto from = pointer_member("from");
    if (!from.ok()) return from.status();
    parsed.from = std::move(from).value();
  }
  if (parsed.op == "add" || parsed.op == "replace" || parsed.op == "test") {
    const OrderedJson* value = member("value");
    if (value == nullptr) {
      return Invalid("patch", fmt::format("{}: op '{}' needs 'value'", entry, parsed.op));
    }
    parsed.value = Json(*value);
  }
  if (parsed.op == "remove" && parsed.path.tokens.empty()) {
    return Invalid("patch", entry + ": op 'remove' cannot remove the whole data ('path' is \"\")");
  }
  if (parsed.op == "move") {
    if (parsed.from->tokens.empty()) {
      return Invalid("patch", entry + ": op 'move' cannot move the whole data ('from' is \"\")");
    }
    if (IsPrefixOf(*parsed.from, parsed.path)) {
      return Invalid("patch", fmt::format("{}: op 'move' from '{}' into itself ('{}')", entry,
                                          parsed.from->text, parsed.path.text));
    }
    parsed.remove_from = RemoveOp(*parsed.from);
  }
  parsed.as_patch = Json::array({Json(op_json)});
  return parsed;
}

Result<std::vector<PatchOp>> ParsePatch(std::string_view text) {
  auto parsed = ParsePart("patch", text);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_array()) {
    return Invalid("patch", "patch: not an array of RFC 6902 operations");
  }
  std::vector<PatchOp> ops;
  for (std::size_t i = 0; i < parsed->size(); ++i) {
    auto op = ParsePatchOp((*parsed)[i], fmt::format("patch[{}]", i));
    if (!op.ok()) return op.status();
    ops.push_back(std::move(op).value());
  }
  return ops;
}

class JsonTransform final : public Transform {
 public:
  JsonTransform(std::vector<Rename> renames, std::vector<Default> defaults,
                std::vector<PatchOp> patch)
      : renames_(std::move(renames)), defaults_(std::move(defaults)), patch_(std::move(patch)) {}

  Result<std::string> Apply(std::string_view data_json) const override {
    try {
      Json doc;
      try {
        doc = ParseBounded<Json>(data_json);
      } catch (const TooDeep&) {
        return Status::Invalid("data", fmt::format("data nested deeper than {} levels", kMaxDepth));
      } catch (const Json::parse_error& e) {
        return Status::Invalid("data", fmt::format("data is not JSON ({})", Reason(e)));
      }
      if (Status s = ApplyRenames(doc); !s.ok()) return s;
      if (Status s = ApplyDefaults(doc); !s.ok()) return s;
      if (Status s = ApplyPatch(doc); !s.ok()) return s;
      return doc.dump();
    } catch (const Json::exception& e) {
      // Not expected (each step checks first), but nlohmann's errors stay ours.
      return Status::Invalid("data", fmt::format("transform failed: {}", Reason(e)));
    }
  }

 private:
  Status ApplyRenames(Json& doc) const {
    for (const Rename& rename : renames_) {
      if (!doc.contains(rename.source.pointer)) continue;
      Json value = std::move(doc.at(rename.source.pointer));
      doc.patch_inplace(rename.remove_source);
      std::string problem;
      Json* holder = MakeParents(doc, rename.target, &problem);
      if (holder == nullptr) {
        return Invalid("renames", fmt::format("renames['{}']: cannot set '{}': {}",
                                              rename.source.text, rename.target.text, problem));
      }
      (*holder)[rename.target.tokens.back()] = std::move(value);
    }
    return Status::Ok();
  }

  Status ApplyDefaults(Json& doc) const {
    for (const Default& entry : defaults_) {
      if (doc.contains(entry.path.pointer)) continue;
      std::string problem;
      Json* holder = MakeParents(doc, entry.path, &problem);
      if (holder == nullptr) {
        return Invalid("defaults", fmt::format("defaults['{}']: {}", entry.path.text, problem));
      }
      (*holder)[entry.path.tokens.back()] = entry.value;
    }
    return Status::Ok();
  }

  Status ApplyPatch(Json& doc) const {
    for (const PatchOp& op : patch_) {
      const std::string& entry = op.entry;
      try {
        if (op.op == "move") {
          if (Status s = ApplyMove(doc, op, entry); !s.ok()) return s;
          continue;
        }
        if (op.op == "copy" && !doc.contains(op.from->pointer)) {
          return Invalid("patch", fmt::format("{}: copy: nothing at '{}'", entry, op.from->text));
        }
        if (op.op == "add" || op.op == "copy") {
          if (Status s = CheckAddParent(doc, op, entry); !s.ok()) return s;
        }
        // nlohmann removes nothing, silently, below a scalar.
        if (op.op == "remove" && !doc.contains(op.path.pointer)) {
          return Invalid("patch", fmt::format("{}: remove: nothing at '{}'", entry, op.path.text));
        }
        doc.patch_inplace(op.as_patch);
      } catch (const Json::exception& e) {
        if (op.op == "test" && e.id == 501) return Invalid("patch", TestFailure(doc, op, entry));
        return Invalid("patch",
                       fmt::format("{}: {} at '{}': {}", entry, op.op, op.path.text, Reason(e)));
      }
    }
    return Status::Ok();
  }

  // An add's parent must be an object or an array (RFC 6902 section 4.1):
  // below a scalar nlohmann asserts (debug) or adds nothing (release), and a
  // null it would turn into an object.
  static Status CheckAddParent(const Json& doc, const PatchOp& op, const std::string& entry) {
    if (op.path.tokens.empty()) return Status::Ok();  // the whole data: always there
    Pointer parent = op.path.pointer.parent_pointer();
    if (doc.contains(parent) && !doc.at(parent).is_structured()) {
      return Invalid("patch", fmt::format("{}: {} at '{}': '{}' is not an object or an array",
                                          entry, op.op, op.path.text, parent.to_string()));
    }
    return Status::Ok();
  }

  // A move is the remove then the add (RFC 6902 section 4.4), both
  // nlohmann's, done as two steps so the add's parent is checked after the
  // remove has shifted an array.
  static Status ApplyMove(Json& doc, const PatchOp& op, const std::string& entry) {
    if (!doc.contains(op.from->pointer)) {
      return Invalid("patch", fmt::format("{}: move: nothing at '{}'", entry, op.from->text));
    }
    Json value = std::move(doc.at(op.from->pointer));
    doc.patch_inplace(op.remove_from);
    if (Status s = CheckAddParent(doc, op, entry); !s.ok()) return s;
    doc.patch_inplace(
        Json::array({{{"op", "add"}, {"path", op.path.text}, {"value", std::move(value)}}}));
    return Status::Ok();
  }

  static std::string TestFailure(const Json& doc, const PatchOp& op, const std::string& entry) {
    if (!doc.contains(op.path.pointer)) {
      return fmt::format("{}: test failed: nothing at '{}', expected {}", entry, op.path.text,
                         Shown(op.value));
    }
    return fmt::format("{}: test failed at '{}': found {}, expected {}", entry, op.path.text,
                       Shown(doc.at(op.path.pointer)), Shown(op.value));
  }

  const std::vector<Rename> renames_;
  const std::vector<Default> defaults_;
  const std::vector<PatchOp> patch_;
};

}  // namespace

Result<std::shared_ptr<const Transform>> Transform::Parse(std::string_view renames,
                                                          std::string_view defaults,
                                                          std::string_view patch) {
  try {
    auto parsed_renames = ParseRenames(renames);
    if (!parsed_renames.ok()) return parsed_renames.status();
    auto parsed_defaults = ParseDefaults(defaults);
    if (!parsed_defaults.ok()) return parsed_defaults.status();
    auto parsed_patch = ParsePatch(patch);
    if (!parsed_patch.ok()) return parsed_patch.status();
    return std::shared_ptr<const Transform>(std::make_shared<const JsonTransform>(
        std::move(parsed_renames).value(), std::move(parsed_defaults).value(),
        std::move(parsed_patch).value()));
  } catch (const Json::exception& e) {
    // Not expected (each step checks first), but nlohmann's errors stay ours.
    return Status::Invalid("transform", fmt::format("transform not valid: {}", Reason(e)));
  }
}

}  // namespace indelible::schemas
