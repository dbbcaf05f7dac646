// Maps keyed by SQL text, looked up with a string_view: the statement
// caches and the {name} expansions are consulted for every statement a
// projection runs, which should not allocate a key each time.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace indelible::projections {

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

template <class Value>
using TextMap = std::unordered_map<std::string, Value, TextHash, std::equal_to<>>;

}  // namespace indelible::projections
