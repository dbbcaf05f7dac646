#include "indelible/query.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"

namespace indelible {
namespace {

bool HasTag(std::span<const std::string> sorted, std::string_view tag) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), tag,
                             [](const std::string& a, std::string_view b) { return a < b; });
  return it != sorted.end() && *it == tag;
}

Status ValidateTag(std::string_view tag, const std::string& field) {
  if (tag.empty()) return Status::Invalid(field, "a tag is empty");
  if (tag.size() > kMaxTagBytes)
    return Status::Invalid(
        field, fmt::format("tag is {} bytes; the limit is {}", tag.size(), kMaxTagBytes));
  if (!IsValidUtf8(tag) || HasControlCharacter(tag))
    return Status::Invalid(field, "a tag must be UTF-8 without control characters");
  return Status::Ok();
}

}  // namespace

bool QueryItem::Matches(std::string_view type, std::span<const std::string> event_tags) const {
  if (!types.empty() && std::find(types.begin(), types.end(), type) == types.end()) return false;
  if (tags.size() > event_tags.size()) return false;
  return std::all_of(tags.begin(), tags.end(),
                     [&](const std::string& tag) { return HasTag(event_tags, tag); });
}

bool Query::Matches(std::string_view type, std::span<const std::string> event_tags) const {
  if (items.empty()) return true;
  return std::any_of(items.begin(), items.end(),
                     [&](const QueryItem& item) { return item.Matches(type, event_tags); });
}

Status ValidateQuery(const Query& query, std::string_view field) {
  if (query.items.size() > kMaxQueryItems)
    return Status::Invalid(
        fmt::format("{}.items", field),
        fmt::format("a query has {} items; the limit is {}", query.items.size(), kMaxQueryItems));
  for (std::size_t i = 0; i < query.items.size(); ++i) {
    const QueryItem& item = query.items[i];
    const std::string at = fmt::format("{}.items[{}]", field, i);
    if (item.types.empty() && item.tags.empty())
      return Status::Invalid(at,
                             "a query item needs at least one type or tag; a query with no "
                             "items matches every event");
    if (item.types.size() > kMaxQueryItemEntries || item.tags.size() > kMaxQueryItemEntries)
      return Status::Invalid(at, fmt::format("a query item lists at most {} types and {} tags",
                                             kMaxQueryItemEntries, kMaxQueryItemEntries));
    for (std::size_t t = 0; t < item.types.size(); ++t) {
      const std::string& type = item.types[t];
      if (type.empty() || type.size() > 256 || !IsValidUtf8(type) || HasControlCharacter(type))
        return Status::Invalid(fmt::format("{}.types[{}]", at, t),
                               "an event type is 1 to 256 bytes of UTF-8 without control "
                               "characters");
    }
    for (std::size_t t = 0; t < item.tags.size(); ++t)
      if (Status s = ValidateTag(item.tags[t], fmt::format("{}.tags[{}]", at, t)); !s.ok())
        return s;
  }
  return Status::Ok();
}

Status NormalizeTags(std::vector<std::string>& tags, std::string_view field) {
  if (tags.empty()) return Status::Ok();
  if (tags.size() > kMaxEventTags)
    return Status::Invalid(std::string(field), fmt::format("an event has {} tags; the limit is {}",
                                                           tags.size(), kMaxEventTags));
  for (std::size_t t = 0; t < tags.size(); ++t)
    if (Status s = ValidateTag(tags[t], fmt::format("{}[{}]", field, t)); !s.ok()) return s;
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return Status::Ok();
}

}  // namespace indelible
