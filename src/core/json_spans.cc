#include "core/json_spans.h"

#include <cstring>

namespace indelible {
namespace {

void SkipSpace(std::string_view s, std::size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
}

// REQUIRES: s[i] == '"'. Leaves i past the closing quote.
bool SkipString(std::string_view s, std::size_t& i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      ++i;
      return true;
    }
  }
  return false;
}

// Leaves i past one value starting at s[i].
bool SkipValue(std::string_view s, std::size_t& i) {
  if (i >= s.size()) return false;
  if (s[i] == '"') return SkipString(s, i);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        if (!SkipString(s, i)) return false;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) {
        ++i;
        return true;
      }
      ++i;
    }
    return false;
  }
  const std::size_t start = i;  // a number, true, false or null
  while (i < s.size() && std::strchr(",}] \t\r\n", s[i]) == nullptr) ++i;
  return i > start;
}

// Calls visit(raw_value_or_key, ...) for each member/element of the object
// or array at s[0] (after spaces); false if malformed or visit says stop.
template <class Visit>
bool Walk(std::string_view s, char open, char close, bool members, Visit visit) {
  std::size_t i = 0;
  SkipSpace(s, i);
  if (i >= s.size() || s[i] != open) return false;
  ++i;
  SkipSpace(s, i);
  if (i < s.size() && s[i] == close) return true;
  while (i < s.size()) {
    std::string_view key;
    if (members) {
      if (s[i] != '"') return false;
      const std::size_t key_start = i;
      if (!SkipString(s, i)) return false;
      key = s.substr(key_start + 1, i - key_start - 2);
      SkipSpace(s, i);
      if (i >= s.size() || s[i] != ':') return false;
      ++i;
      SkipSpace(s, i);
    }
    const std::size_t value_start = i;
    if (!SkipValue(s, i)) return false;
    if (!visit(key, s.substr(value_start, i - value_start))) return true;
    SkipSpace(s, i);
    if (i < s.size() && s[i] == close) return true;
    if (i >= s.size() || s[i] != ',') return false;
    ++i;
    SkipSpace(s, i);
  }
  return false;
}

}  // namespace

std::optional<std::string_view> RawMember(std::string_view object, std::string_view key) {
  std::optional<std::string_view> found;
  const bool ok = Walk(object, '{', '}', true, [&](std::string_view k, std::string_view value) {
    if (k != key) return true;
    found = value;
    return false;
  });
  if (!ok) return std::nullopt;
  return found;
}

std::optional<std::vector<std::string_view>> RawElements(std::string_view array) {
  std::vector<std::string_view> elements;
  const bool ok = Walk(array, '[', ']', false, [&](std::string_view, std::string_view value) {
    elements.push_back(value);
    return true;
  });
  if (!ok) return std::nullopt;
  return elements;
}

std::optional<std::vector<std::pair<std::string_view, std::string_view>>> RawMembers(
    std::string_view object) {
  std::vector<std::pair<std::string_view, std::string_view>> members;
  const bool ok = Walk(object, '{', '}', true, [&](std::string_view key, std::string_view value) {
    members.emplace_back(key, value);
    return true;
  });
  if (!ok) return std::nullopt;
  return members;
}

std::string CompactJson(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (c == '"') {
      const std::size_t start = i;
      if (!SkipString(json, i)) i = json.size();  // not valid JSON: keep the rest
      out.append(json.substr(start, i - start));
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') out.push_back(c);
    ++i;
  }
  return out;
}

}  // namespace indelible
