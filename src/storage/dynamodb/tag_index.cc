// The tag index's items (tag_index.h): the counters' and pages' keys, a
// page's packing, and the reads of them. The pages are written with the
// $all chunks (all_index.cc, AllIndex::WriteChunk).
#include "storage/dynamodb/tag_index.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "core/event_json.h"
#include "core/text.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/batch_get.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {
namespace json = boost::json;

std::string TagPartition(std::string_view tag) {
  return std::string(kTagPartitionPrefix) + std::string(tag);
}

bool IsTagPartition(std::string_view stream) { return stream.starts_with(kTagPartitionPrefix); }

namespace {

constexpr std::string_view kTagEntries = "r";
constexpr std::string_view kTagLastCount = "k";
constexpr std::string_view kTagEntryCount = "m";

void PutText(std::string& out, std::string_view text) {
  PutVarint(out, text.size());
  out += text;
}

std::optional<std::string> GetText(std::string_view& in) {
  auto length = GetVarint(in);
  if (!length || *length > in.size()) return std::nullopt;
  std::string text(in.substr(0, *length));
  in.remove_prefix(*length);
  return text;
}

Status MalformedPage(std::string_view tag, std::string_view what) {
  return Status::Internal(
      fmt::format("the tag index page of tag '{}' is malformed: {}", Printable(tag), what));
}

json::object TagKey(std::string_view tag, std::int64_t version) {
  return {{kStreamKey, S(TagPartition(tag))}, {kVersionKey, N(version)}};
}

Result<std::vector<json::object>> TagQuery(aws::Client& client, const std::string& table,
                                           std::string_view tag, std::string_view condition,
                                           std::int64_t bound, bool forward, int limit) {
  return QueryItems(
      client,
      {{"TableName", table},
       {"ConsistentRead", true},
       {"KeyConditionExpression", fmt::format("#s = :s AND {}", condition)},
       {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
       {"ExpressionAttributeValues",
        condition.find(":one") == std::string_view::npos
            ? json::object{{":s", S(TagPartition(tag))}, {":b", N(bound)}}
            : json::object{{":s", S(TagPartition(tag))}, {":b", N(bound)}, {":one", N(1)}}},
       {"ScanIndexForward", forward},
       {"Limit", limit}},
      nullptr);
}

}  // namespace

json::object TagPageItem(const TagPage& page) {
  std::string packed;
  for (const TagEntry& e : page.entries) {
    PutVarint(packed, static_cast<std::uint64_t>(e.position - page.position));
    PutText(packed, e.stream);
    PutVarint(packed, static_cast<std::uint64_t>(e.append_first));
    PutVarint(packed, static_cast<std::uint64_t>(e.offset));
    PutText(packed, e.type);
  }
  json::object item = TagKey(page.tag, page.position);
  item[kTagEntries] = json::object{{"B", Base64Encode(packed)}};
  item[kTagLastCount] = N(page.k());
  item[kTagEntryCount] = N(static_cast<std::int64_t>(page.entries.size()));
  return item;
}

Result<TagPage> ParseTagPage(std::string_view tag, const json::object& item) {
  TagPage page;
  page.tag = std::string(tag);
  auto position = GetN(item, kVersionKey);
  auto k = GetN(item, kTagLastCount);
  auto m = GetN(item, kTagEntryCount);
  auto packed = AttributeText(item, kTagEntries, "B");
  if (!position || *position < 1 || !k || !m || !packed) return MalformedPage(tag, "attributes");
  auto raw = Base64Decode(*packed);
  if (!raw) return MalformedPage(tag, "r is not base64");
  std::string_view in = *raw;
  while (!in.empty()) {
    TagEntry e;
    auto delta = GetVarint(in);
    auto stream = GetText(in);
    auto first = GetVarint(in);
    auto offset = GetVarint(in);
    auto type = GetText(in);
    if (!delta || !stream || !first || !offset || !type) return MalformedPage(tag, "r");
    e.position = *position + static_cast<std::int64_t>(*delta);
    e.stream = std::move(*stream);
    e.append_first = static_cast<std::int64_t>(*first);
    e.offset = static_cast<std::int64_t>(*offset);
    e.type = std::move(*type);
    page.entries.push_back(std::move(e));
  }
  if (static_cast<std::int64_t>(page.entries.size()) != *m || *k < *m)
    return MalformedPage(tag, "m or k does not count its entries");
  page.position = *position;
  for (std::size_t i = 0; i < page.entries.size(); ++i)
    page.entries[i].k = *k - *m + static_cast<std::int64_t>(i) + 1;
  return page;
}

Result<std::map<std::string, std::int64_t>> TagIndex::Counters(
    const std::vector<std::string>& tags) {
  std::map<std::string, std::int64_t> counts;
  std::vector<json::object> keys;
  for (const auto& tag : tags)
    if (counts.emplace(tag, 0).second) keys.push_back(TagKey(tag, kTagCounterVersion));
  if (keys.empty()) return counts;
  auto items = BatchGetItems(client_, events_table_, keys);
  if (!items.ok()) return items.status();
  for (const auto& item : *items) {
    auto stream = GetS(item, kStreamKey);
    if (!stream || !IsTagPartition(*stream)) continue;
    counts[std::string(stream->substr(kTagPartitionPrefix.size()))] =
        GetN(item, kTagCounterAttribute).value_or(0);
  }
  return counts;
}

Result<std::optional<TagPage>> TagIndex::PageAtOrBefore(std::string_view tag,
                                                        std::int64_t position) {
  if (position < 1) return std::optional<TagPage>();
  auto items = TagQuery(client_, events_table_, tag, "#v BETWEEN :one AND :b", position, false, 1);
  if (!items.ok()) return items.status();
  if (items->empty()) return std::optional<TagPage>();
  auto page = ParseTagPage(tag, items->front());
  if (!page.ok()) return page.status();
  return std::optional<TagPage>(std::move(*page));
}

Result<std::int64_t> TagIndex::CountThrough(std::string_view tag, std::int64_t position) {
  auto page = PageAtOrBefore(tag, position);
  if (!page.ok()) return page.status();
  if (!*page) return std::int64_t{0};
  std::int64_t k = 0;
  for (const TagEntry& e : (*page)->entries)
    if (e.position <= position) k = e.k;
  if (k == 0 && !(*page)->entries.empty())
    k = (*page)->entries.front().k - 1;  // every entry past `position`: those before them
  return k;
}

Result<std::vector<TagPage>> TagIndex::Pages(std::string_view tag, std::int64_t from, bool forward,
                                             int limit) {
  auto items =
      forward ? TagQuery(client_, events_table_, tag, "#v >= :b", std::max<std::int64_t>(from, 1),
                         true, limit)
              : TagQuery(client_, events_table_, tag, "#v BETWEEN :one AND :b", from, false, limit);
  if (!items.ok()) return items.status();
  std::vector<TagPage> pages;
  for (const auto& item : *items) {
    auto page = ParseTagPage(tag, item);
    if (!page.ok()) return page.status();
    pages.push_back(std::move(*page));
  }
  return pages;
}

}  // namespace indelible::dynamodb
