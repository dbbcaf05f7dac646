// The structural check: walks the two schemas side by side and proves, one
// keyword at a time, that the wider accepts whatever the narrower does.
// Conservative by construction: a keyword it does not model stops the check
// ("cannot prove compatible") rather than being assumed harmless.
//
// Messages speak of the old and the new schema: CheckAccepts reads
// `narrower` as the old one (backward's view); the forward check calls the
// walk with the roles the other way round.
#include "schemas/compatibility.h"

#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace indelible::schemas {
namespace {

using Json = nlohmann::json;

// Why a walk stopped: a text that is no schema (invalid), or a change that
// breaks or that the walk cannot prove safe (rejected).
struct Finding {
  bool invalid = false;
  std::string message;
};
using Outcome = std::optional<Finding>;

Outcome Invalid(std::string message) { return Finding{true, std::move(message)}; }
Outcome Rejected(std::string message) { return Finding{false, std::move(message)}; }

// Deep enough for any real schema; a deeper walk is refused, not overflowed.
constexpr int kMaxDepth = 128;
// Steps of one $ref chain ("#/definitions/a" naming "#/definitions/b" ...).
constexpr int kMaxRefChain = 32;

const std::set<std::string, std::less<>> kAnnotations = {"title",    "description", "$comment",
                                                         "examples", "default",     "$schema",
                                                         "$id",      "readOnly",    "writeOnly"};

// Keywords the walk reasons about itself (definitions only through $ref).
const std::set<std::string, std::less<>> kModelled = {"type",
                                                      "properties",
                                                      "additionalProperties",
                                                      "required",
                                                      "items",
                                                      "additionalItems",
                                                      "minItems",
                                                      "maxItems",
                                                      "uniqueItems",
                                                      "enum",
                                                      "const",
                                                      "minimum",
                                                      "maximum",
                                                      "exclusiveMinimum",
                                                      "exclusiveMaximum",
                                                      "minLength",
                                                      "maxLength",
                                                      "minProperties",
                                                      "maxProperties",
                                                      "pattern",
                                                      "format",
                                                      "multipleOf",
                                                      "definitions"};

// Keywords that only add a condition of their own (the schema is the AND of
// them and the rest): the same value in both schemas keeps the proof.
const std::set<std::string, std::less<>> kConjunctive = {
    "allOf",         "anyOf",    "oneOf", "not",  "dependencies",
    "propertyNames", "contains", "if",    "then", "else"};

enum TypeBit : unsigned {
  kNull = 1,
  kBoolean = 2,
  kObject = 4,
  kArray = 8,
  kString = 16,
  kInteger = 32,
  kFraction = 64,  // a number that is not an integer
  kNumber = kInteger | kFraction,
  kAnyType = 127,
};

std::string Escape(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Where(const std::string& pointer) { return pointer.empty() ? "(root)" : pointer; }

// A JSON value short enough for a message.
std::string Show(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

bool HasRef(const Json& node) {
  if (node.is_object()) {
    if (node.contains("$ref")) return true;
    for (const auto& child : node) {
      if (HasRef(child)) return true;
    }
  } else if (node.is_array()) {
    for (const auto& child : node) {
      if (HasRef(child)) return true;
    }
  }
  return false;
}

unsigned TypeOfValue(const Json& value) {
  if (value.is_null()) return kNull;
  if (value.is_boolean()) return kBoolean;
  if (value.is_object()) return kObject;
  if (value.is_array()) return kArray;
  if (value.is_string()) return kString;
  if (value.is_number_integer()) return kInteger;
  double number = value.get<double>();
  return number == static_cast<double>(static_cast<std::int64_t>(number)) ? kInteger : kFraction;
}

std::optional<unsigned> TypeBitOf(std::string_view name) {
  if (name == "null") return kNull;
  if (name == "boolean") return kBoolean;
  if (name == "object") return kObject;
  if (name == "array") return kArray;
  if (name == "string") return kString;
  if (name == "integer") return kInteger;
  if (name == "number") return kNumber;
  return std::nullopt;
}

std::string ShowTypes(unsigned mask) {
  if (mask == kAnyType) return "any";
  if (mask == 0) return "nothing";
  std::vector<std::string> names;
  static constexpr std::pair<unsigned, const char*> kNames[] = {{kNull, "null"},
                                                                {kBoolean, "boolean"},
                                                                {kObject, "object"},
                                                                {kArray, "array"},
                                                                {kString, "string"}};
  for (const auto& [bit, name] : kNames) {
    if (mask & bit) names.emplace_back(name);
  }
  if ((mask & kNumber) == kNumber) {
    names.emplace_back("number");
  } else if (mask & kInteger) {
    names.emplace_back("integer");
  } else if (mask & kFraction) {
    names.emplace_back("non-integer number");
  }
  if (names.size() == 1) return names[0];
  std::string text = "[";
  for (std::size_t i = 0; i < names.size(); ++i) text += (i ? ", " : "") + names[i];
  return text + "]";
}

// A bound on numbers: minimum/exclusiveMinimum, draft-07 (a number) and
// draft-04 (a boolean beside minimum) forms alike.
struct Bound {
  double value = 0;
  bool exclusive = false;
  std::string keyword;
  Json literal;
};

std::string ShowBound(const std::optional<Bound>& bound, bool lower) {
  if (!bound) return "unbounded";
  std::string op = lower ? (bound->exclusive ? "> " : ">= ") : (bound->exclusive ? "< " : "<= ");
  return op + bound->literal.dump();
}

// One walk over a pair of schemas. A keyword of the wrong JSON type makes
// its schema invalid, said with the keyword's pointer.
class Checker {
 public:
  Checker(const Json& wider_root, const Json& narrower_root, bool wider_is_new)
      : wider_root_(wider_root), narrower_root_(narrower_root), wider_is_new_(wider_is_new) {}

  Outcome Check(const Json& wider_in, const Json& narrower_in, const std::string& pointer,
                int depth) {
    if (depth > kMaxDepth) {
      return Rejected(Where(pointer) + ": cannot prove compatible: nested deeper than " +
                      std::to_string(kMaxDepth));
    }
    const Json* wider = &wider_in;
    const Json* narrower = &narrower_in;
    if (auto bad = Resolve(wider_root_, wider, pointer)) return bad;
    if (auto bad = Resolve(narrower_root_, narrower, pointer)) return bad;
    for (const Json* node : {wider, narrower}) {
      if (!node->is_object() && !node->is_boolean()) {
        return Invalid(Where(pointer) + ": not a schema (an object or a boolean)");
      }
    }
    if (*narrower == false || *wider == true) return std::nullopt;
    // Co-induction: a pair met again (through a recursive $ref) is assumed
    // to hold; a pair that fails ends the whole walk, so no assumption
    // outlives a refutation.
    if (!assumed_.insert({wider, narrower}).second) return std::nullopt;
    if (*wider == *narrower && !HasRef(*wider)) return std::nullopt;
    if (*wider == false) {
      return Rejected(Where(pointer) + ": " +
                      Said("refuses every document now (false)",
                           "refused every document (false); the new schema accepts some"));
    }
    static const Json kEmpty = Json::object();
    const Json& w = *wider;
    const Json& n = narrower->is_boolean() ? kEmpty : *narrower;

    auto narrower_types = TypesOf(n, pointer);
    if (!narrower_types) return narrower_types.error;
    if (*narrower_types.value == 0) return std::nullopt;  // nothing is valid under it
    auto wider_types = TypesOf(w, pointer);
    if (!wider_types) return wider_types.error;
    unsigned n_types = *narrower_types.value;
    unsigned w_types = *wider_types.value;
    if ((n_types & ~w_types) != 0) {
      return Rejected(pointer + "/type: " + Became(ShowTypes(w_types), ShowTypes(n_types)));
    }
    if (auto bad = CheckValues(w, n, pointer)) return bad;
    if (n_types & kObject) {
      if (auto bad = CheckObject(w, n, pointer, depth)) return bad;
    }
    if (n_types & kArray) {
      if (auto bad = CheckArray(w, n, pointer, depth)) return bad;
    }
    if (n_types & kString) {
      if (auto bad = CheckCounts(w, n, pointer, "minLength", "maxLength")) return bad;
      for (const char* keyword : {"pattern", "format"}) {
        if (auto bad = CheckSameOrDropped(w, n, pointer, keyword)) return bad;
      }
    }
    if (n_types & kNumber) {
      if (auto bad = CheckNumbers(w, n, pointer)) return bad;
    }
    return CheckOtherKeywords(w, n, pointer);
  }

 private:
  template <typename T>
  struct Parsed {
    std::optional<T> value;
    Outcome error;
    explicit operator bool() const { return !error; }
  };

  // "old became new", the texts given as the wider's and the narrower's.
  std::string Became(const std::string& wider_text, const std::string& narrower_text) const {
    return wider_is_new_ ? narrower_text + " became " + wider_text
                         : wider_text + " became " + narrower_text;
  }
  std::string Said(std::string_view if_wider_new, std::string_view if_wider_old) const {
    return std::string(wider_is_new_ ? if_wider_new : if_wider_old);
  }

  // Follows a chain of local $refs; siblings of $ref are ignored, as draft-04
  // and draft-07 validators ignore them.
  Outcome Resolve(const Json& root, const Json*& node, const std::string& pointer) const {
    for (int step = 0; node->is_object() && node->contains("$ref"); ++step) {
      const Json& ref = (*node)["$ref"];
      if (!ref.is_string()) return Invalid(pointer + "/$ref: not a string");
      const std::string& text = ref.get_ref<const std::string&>();
      if (text.empty() || text[0] != '#') {
        return Rejected(pointer + "/$ref: cannot prove compatible: keyword $ref ('" + text +
                        "' is not a local reference)");
      }
      if (step == kMaxRefChain) return Invalid(pointer + "/$ref: '" + text + "' loops");
      const Json* target = Follow(root, text.substr(1));
      if (target == nullptr) return Invalid(pointer + "/$ref: '" + text + "' does not resolve");
      node = target;
    }
    return std::nullopt;
  }

  // An RFC 6901 pointer, as a URI fragment (so %-escapes are decoded).
  static const Json* Follow(const Json& root, std::string_view fragment) {
    std::string decoded;
    for (std::size_t i = 0; i < fragment.size(); ++i) {
      if (fragment[i] == '%' && i + 2 < fragment.size() &&
          std::isxdigit(static_cast<unsigned char>(fragment[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(fragment[i + 2]))) {
        decoded +=
            static_cast<char>(std::stoi(std::string(fragment.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        decoded += fragment[i];
      }
    }
    if (decoded.empty()) return &root;
    if (decoded[0] != '/') return nullptr;
    const Json* node = &root;
    std::size_t start = 1;
    while (true) {
      std::size_t end = decoded.find('/', start);
      std::string token = decoded.substr(start, end == std::string::npos ? end : end - start);
      std::string key;
      for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] == '~' && i + 1 < token.size() &&
            (token[i + 1] == '0' || token[i + 1] == '1')) {
          key += token[i + 1] == '0' ? '~' : '/';
          ++i;
        } else {
          key += token[i];
        }
      }
      if (node->is_object()) {
        auto it = node->find(key);
        if (it == node->end()) return nullptr;
        node = &*it;
      } else if (node->is_array()) {
        if (key.empty() || key.find_first_not_of("0123456789") != std::string::npos ||
            key.size() > 9 || std::stoul(key) >= node->size()) {
          return nullptr;
        }
        node = &(*node)[std::stoul(key)];
      } else {
        return nullptr;
      }
      if (end == std::string::npos) return node;
      start = end + 1;
    }
  }

  // The JSON types a schema admits: its `type`, narrowed by enum and const.
  static Parsed<unsigned> TypesOf(const Json& node, const std::string& pointer) {
    unsigned mask = kAnyType;
    if (auto it = node.find("type"); it != node.end()) {
      std::vector<Json> names = it->is_array() ? it->get<std::vector<Json>>() : std::vector{*it};
      mask = 0;
      for (const Json& name : names) {
        std::optional<unsigned> bit =
            name.is_string() ? TypeBitOf(name.get_ref<const std::string&>()) : std::nullopt;
        if (!bit) return {std::nullopt, Invalid(pointer + "/type: unknown type " + Show(name))};
        mask |= *bit;
      }
    }
    auto values = ValuesOf(node, pointer);
    if (!values) return {std::nullopt, values.error};
    if (values.value) {
      unsigned of_values = 0;
      for (const Json& value : *values.value) of_values |= TypeOfValue(value);
      mask &= of_values;
    }
    return {mask, std::nullopt};
  }

  // The values enum and const allow (nullopt: no such limit).
  static Parsed<std::vector<Json>> ValuesOf(const Json& node, const std::string& pointer) {
    std::optional<std::vector<Json>> values;
    if (auto it = node.find("enum"); it != node.end()) {
      if (!it->is_array()) return {std::nullopt, Invalid(pointer + "/enum: not an array")};
      values = it->get<std::vector<Json>>();
    }
    if (auto it = node.find("const"); it != node.end()) {
      if (!values) {
        values = std::vector{*it};
      } else {
        std::vector<Json> both;
        for (const Json& value : *values) {
          if (value == *it) both.push_back(value);
        }
        values = std::move(both);
      }
    }
    return {std::move(values), std::nullopt};
  }

  Outcome CheckValues(const Json& w, const Json& n, const std::string& pointer) const {
    auto wider_values = ValuesOf(w, pointer);
    if (!wider_values) return wider_values.error;
    if (!wider_values.value) return std::nullopt;
    std::string where = pointer + (w.contains("enum") ? "/enum" : "/const");
    auto narrower_values = ValuesOf(n, pointer);
    if (!narrower_values) return narrower_values.error;
    if (!narrower_values.value) {
      return Rejected(where + ": " + Became("one of " + Show(*wider_values.value), "any value"));
    }
    for (const Json& value : *narrower_values.value) {
      bool allowed = false;
      for (const Json& wider_value : *wider_values.value) allowed = allowed || wider_value == value;
      if (!allowed) {
        return Rejected(where + ": " + Show(value) +
                        Said(" is no longer allowed", " is allowed now"));
      }
    }
    return std::nullopt;
  }

  static Parsed<std::uint64_t> Count(const Json& node, const char* keyword,
                                     const std::string& pointer) {
    auto it = node.find(keyword);
    if (it == node.end()) return {std::nullopt, std::nullopt};
    if (it->is_number_unsigned()) return {it->get<std::uint64_t>(), std::nullopt};
    if (it->is_number_float() && it->get<double>() >= 0 &&
        it->get<double>() == static_cast<double>(static_cast<std::uint64_t>(it->get<double>()))) {
      return {static_cast<std::uint64_t>(it->get<double>()), std::nullopt};
    }
    return {std::nullopt, Invalid(pointer + "/" + keyword + ": not a non-negative integer")};
  }

  // minLength/maxLength, minItems/maxItems, minProperties/maxProperties.
  Outcome CheckCounts(const Json& w, const Json& n, const std::string& pointer,
                      const char* min_keyword, const char* max_keyword) const {
    auto show = [](const std::optional<std::uint64_t>& count) {
      return count ? std::to_string(*count) : std::string("none");
    };
    auto w_min = Count(w, min_keyword, pointer), n_min = Count(n, min_keyword, pointer);
    auto w_max = Count(w, max_keyword, pointer), n_max = Count(n, max_keyword, pointer);
    for (const auto* parsed : {&w_min, &n_min, &w_max, &n_max}) {
      if (parsed->error) return parsed->error;
    }
    if (w_min.value && *w_min.value > n_min.value.value_or(0)) {
      return Rejected(pointer + "/" + min_keyword + ": " +
                      Became(show(w_min.value), show(n_min.value)));
    }
    if (w_max.value && (!n_max.value || *w_max.value < *n_max.value)) {
      return Rejected(pointer + "/" + max_keyword + ": " +
                      Became(show(w_max.value), show(n_max.value)));
    }
    return std::nullopt;
  }

  // Keywords the walk does not order (a pattern is no subset of another it
  // can prove): the same value, or none in the wider schema.
  Outcome CheckSameOrDropped(const Json& w, const Json& n, const std::string& pointer,
                             const char* keyword) const {
    auto it = w.find(keyword);
    if (it == w.end() || *it == false) return std::nullopt;  // uniqueItems false: none
    auto other = n.find(keyword);
    if (other != n.end() && *other == *it) return std::nullopt;
    return Rejected(pointer + "/" + keyword + ": " +
                    Became(Show(*it), other == n.end() ? "none" : Show(*other)));
  }

  static Parsed<Bound> BoundOf(const Json& node, bool lower, const std::string& pointer) {
    const char* inclusive_keyword = lower ? "minimum" : "maximum";
    const char* exclusive_keyword = lower ? "exclusiveMinimum" : "exclusiveMaximum";
    std::optional<Bound> bound;
    auto tighter = [&](Bound candidate) {
      if (!bound || (lower ? candidate.value > bound->value : candidate.value < bound->value) ||
          (candidate.value == bound->value && candidate.exclusive)) {
        bound = std::move(candidate);
      }
    };
    auto inclusive = node.find(inclusive_keyword);
    auto exclusive = node.find(exclusive_keyword);
    bool draft04_exclusive = exclusive != node.end() && *exclusive == true;
    if (inclusive != node.end()) {
      if (!inclusive->is_number()) {
        return {std::nullopt, Invalid(pointer + "/" + inclusive_keyword + ": not a number")};
      }
      tighter({inclusive->get<double>(), draft04_exclusive,
               draft04_exclusive ? exclusive_keyword : inclusive_keyword, *inclusive});
    }
    if (exclusive != node.end() && !exclusive->is_boolean()) {
      if (!exclusive->is_number()) {
        return {std::nullopt, Invalid(pointer + "/" + exclusive_keyword + ": not a number")};
      }
      tighter({exclusive->get<double>(), true, exclusive_keyword, *exclusive});
    }
    return {std::move(bound), std::nullopt};
  }

  Outcome CheckNumbers(const Json& w, const Json& n, const std::string& pointer) const {
    for (bool lower : {true, false}) {
      auto w_bound = BoundOf(w, lower, pointer);
      if (!w_bound) return w_bound.error;
      auto n_bound = BoundOf(n, lower, pointer);
      if (!n_bound) return n_bound.error;
      if (!w_bound.value) continue;
      const Bound& wb = *w_bound.value;
      bool holds = false;
      if (n_bound.value) {
        const Bound& nb = *n_bound.value;
        bool inside = lower ? wb.value < nb.value : wb.value > nb.value;
        holds = inside || (wb.value == nb.value && (!wb.exclusive || nb.exclusive));
      }
      if (!holds) {
        return Rejected(pointer + "/" + wb.keyword + ": " +
                        Became(ShowBound(w_bound.value, lower), ShowBound(n_bound.value, lower)));
      }
    }
    return CheckSameOrDropped(w, n, pointer, "multipleOf");
  }

  static Parsed<std::vector<std::string>> Required(const Json& node, const std::string& pointer) {
    std::vector<std::string> names;
    auto it = node.find("required");
    if (it == node.end()) return {names, std::nullopt};
    if (!it->is_array()) return {std::nullopt, Invalid(pointer + "/required: not an array")};
    for (const Json& name : *it) {
      if (!name.is_string()) {
        return {std::nullopt, Invalid(pointer + "/required: not an array of strings")};
      }
      names.push_back(name.get<std::string>());
    }
    return {names, std::nullopt};
  }

  Outcome CheckObject(const Json& w, const Json& n, const std::string& pointer, int depth) {
    auto w_required = Required(w, pointer);
    if (!w_required) return w_required.error;
    auto n_required = Required(n, pointer);
    if (!n_required) return n_required.error;
    for (const std::string& name : *w_required.value) {
      bool already = false;
      for (const std::string& other : *n_required.value) already = already || other == name;
      if (!already) {
        return Rejected(pointer + "/required: '" + name + "'" +
                        Said(" is required now", " is no longer required"));
      }
    }
    if (auto bad = CheckCounts(w, n, pointer, "minProperties", "maxProperties")) return bad;

    static const Json kOpen = true;
    static const Json kNoProperties = Json::object();
    const Json& w_props = w.contains("properties") ? w["properties"] : kNoProperties;
    const Json& n_props = n.contains("properties") ? n["properties"] : kNoProperties;
    for (const Json* props : {&w_props, &n_props}) {
      if (!props->is_object()) return Invalid(pointer + "/properties: not an object");
    }
    const Json& w_rest = w.contains("additionalProperties") ? w["additionalProperties"] : kOpen;
    const Json& n_rest = n.contains("additionalProperties") ? n["additionalProperties"] : kOpen;
    if (n.contains("patternProperties") && n_rest != true) {
      // Keys its patterns match escape its additionalProperties.
      return Rejected(pointer +
                      "/patternProperties: cannot prove compatible: keyword patternProperties");
    }

    for (auto it = n_props.begin(); it != n_props.end(); ++it) {
      std::string where = pointer + "/properties/" + Escape(it.key());
      auto listed = w_props.find(it.key());
      if (listed != w_props.end()) {
        if (auto bad = Check(*listed, it.value(), where, depth + 1)) return bad;
        continue;
      }
      if (w_rest == false && it.value() != false) {
        return Rejected(where + ": " +
                        Said("removed from a closed content model (additionalProperties "
                             "false): the old schema allowed it",
                             "added, but the old content model is closed "
                             "(additionalProperties false)"));
      }
      if (auto bad = Check(w_rest, it.value(), where, depth + 1)) return bad;
    }
    if (n_rest == false) return std::nullopt;  // no key beyond its properties
    for (auto it = w_props.begin(); it != w_props.end(); ++it) {
      if (n_props.contains(it.key())) continue;
      std::string where = pointer + "/properties/" + Escape(it.key());
      if (n_rest == true) {
        if (auto bad = Check(it.value(), kOpen, where, depth + 1)) {
          if (bad->invalid) return bad;
          return Rejected(where + ": " +
                          Said("a property the old schema allowed with any value now has a schema",
                               "a property the old schema gave a schema is dropped; the new "
                               "schema's open content model allows it with any value"));
        }
        continue;
      }
      if (auto bad = Check(it.value(), n_rest, where, depth + 1)) return bad;
    }
    if (w_rest == false) {
      auto show = [](const Json& rest) {
        return std::string(rest == true    ? "an open content model"
                           : rest == false ? "a closed content model"
                                           : "a schema for other properties");
      };
      return Rejected(pointer + "/additionalProperties: " + Became(show(w_rest), show(n_rest)));
    }
    return Check(w_rest, n_rest, pointer + "/additionalProperties", depth + 1);
  }

  Outcome CheckArray(const Json& w, const Json& n, const std::string& pointer, int depth) {
    if (auto bad = CheckCounts(w, n, pointer, "minItems", "maxItems")) return bad;
    if (auto bad = CheckSameOrDropped(w, n, pointer, "uniqueItems")) return bad;
    auto w_items = w.find("items");
    if (w_items == w.end()) return std::nullopt;
    if (w_items->is_array()) {
      return Rejected(pointer + "/items: cannot prove compatible: keyword items (tuple form)");
    }
    static const Json kAny = true;
    auto n_items = n.find("items");
    if (n_items == n.end()) return Check(*w_items, kAny, pointer + "/items", depth + 1);
    if (!n_items->is_array()) return Check(*w_items, *n_items, pointer + "/items", depth + 1);
    // A tuple: each position, and what follows them, against the one schema.
    for (std::size_t i = 0; i < n_items->size(); ++i) {
      if (auto bad =
              Check(*w_items, (*n_items)[i], pointer + "/items/" + std::to_string(i), depth + 1)) {
        return bad;
      }
    }
    auto rest = n.find("additionalItems");
    return Check(*w_items, rest == n.end() ? kAny : *rest, pointer + "/additionalItems", depth + 1);
  }

  // Whatever the walk does not model: refused where it appears in the wider
  // schema, unless the narrower holds the same standalone condition.
  static Outcome CheckOtherKeywords(const Json& w, const Json& n, const std::string& pointer) {
    for (auto it = w.begin(); it != w.end(); ++it) {
      const std::string& keyword = it.key();
      if (kAnnotations.contains(keyword) || kModelled.contains(keyword)) continue;
      bool same = kConjunctive.contains(keyword) && !HasRef(it.value());
      // if/then/else mean something only together.
      for (const char* part : keyword == "if" || keyword == "then" || keyword == "else"
                                  ? std::vector<const char*>{"if", "then", "else"}
                                  : std::vector<const char*>{keyword.c_str()}) {
        auto mine = w.find(part);
        auto theirs = n.find(part);
        same = same && (mine == w.end() ? theirs == n.end()
                                        : theirs != n.end() && *theirs == *mine && !HasRef(*mine));
      }
      if (!same) {
        return Rejected(pointer + "/" + Escape(keyword) + ": cannot prove compatible: keyword " +
                        keyword);
      }
    }
    return std::nullopt;
  }

  const Json& wider_root_;
  const Json& narrower_root_;
  bool wider_is_new_;
  std::set<std::pair<const Json*, const Json*>> assumed_;
};

Status ParseSchema(std::string_view text, std::string_view what, Json& schema) {
  schema = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (schema.is_discarded()) return Status::Invalid("schema", std::string(what) + ": not JSON");
  if (!schema.is_object() && !schema.is_boolean()) {
    return Status::Invalid("schema", std::string(what) + ": not a schema (an object or a boolean)");
  }
  return Status::Ok();
}

Status Accepts(std::string_view wider, std::string_view narrower, bool wider_is_new,
               std::string_view wider_name, std::string_view narrower_name) {
  Json wider_schema;
  Json narrower_schema;
  if (Status bad = ParseSchema(wider, wider_name, wider_schema); !bad.ok()) return bad;
  if (Status bad = ParseSchema(narrower, narrower_name, narrower_schema); !bad.ok()) return bad;
  if (wider_schema == narrower_schema) return Status::Ok();
  Checker checker(wider_schema, narrower_schema, wider_is_new);
  Outcome finding = checker.Check(wider_schema, narrower_schema, "", 0);
  if (!finding) return Status::Ok();
  if (finding->invalid) return Status::Invalid("schema", std::move(finding->message));
  return Status::Rejected(std::move(finding->message));
}

}  // namespace

Status CheckAccepts(std::string_view wider, std::string_view narrower) {
  return Accepts(wider, narrower, /*wider_is_new=*/true, "wider", "narrower");
}

Status CheckCompatibility(Compatibility mode, const std::vector<std::string>& previous,
                          const std::vector<std::string>& previous_labels,
                          std::string_view candidate) {
  if (mode == Compatibility::kNone || previous.empty()) return Status::Ok();
  bool transitive = mode == Compatibility::kBackwardTransitive ||
                    mode == Compatibility::kForwardTransitive ||
                    mode == Compatibility::kFullTransitive;
  bool backward = mode != Compatibility::kForward && mode != Compatibility::kForwardTransitive;
  bool forward = mode != Compatibility::kBackward && mode != Compatibility::kBackwardTransitive;
  // Newest first: a break against the last version is the one to name.
  std::size_t last = previous.size() - 1;
  std::size_t first = transitive ? 0 : last;
  for (std::size_t i = last + 1; i-- > first;) {
    std::string label =
        i < previous_labels.size() ? previous_labels[i] : "version " + std::to_string(i + 1);
    for (bool backward_check : {true, false}) {
      if (backward_check ? !backward : !forward) continue;
      Status status = backward_check
                          ? Accepts(candidate, previous[i], true, "the new schema", label)
                          : Accepts(previous[i], candidate, false, label, "the new schema");
      if (status.code() == ErrorCode::kRejected) {
        return Status::Rejected(std::string(backward_check ? "backward" : "forward") + ": breaks " +
                                label + ": " + status.message());
      }
      if (!status.ok()) return status;
    }
  }
  return Status::Ok();
}

}  // namespace indelible::schemas
