#include "storage/dynamodb/stream_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <map>

#include "aws/errors.h"
#include "core/clock.h"
#include "core/text.h"
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/scavenge.h"
#include "storage/dynamodb/tables.h"
#include "store/decide.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

json::object TipKey(std::string_view stream) {
  return {{kStreamKey, S(stream)}, {kVersionKey, N(kTipVersion)}};
}

}  // namespace

StreamTable::StreamTable(aws::Client& client, StreamTableOptions options)
    : client_(client), options_(std::move(options)), cache_(options_.head_cache_streams) {}

TableSpec StreamTable::Spec() const {
  return TableSpec{
      options_.table,
      std::string(kStreamKey),
      'S',
      std::string(kVersionKey),
      'N',
      /*change_stream=*/true,
      /*ttl_attribute=*/std::string(kExpiresAttribute),
      TableSpec::Index{std::string(kListIndex), std::string(kListKey), std::string(kStreamKey)},
      [this] { return AddListKeys().status(); }};
}

Status StreamTable::CreateOrCheck() { return CreateOrCheckTable(client_, Spec()).status(); }

Result<AppendResult> StreamTable::Append(std::string stream, Expected expected,
                                         std::vector<EventData> events) {
  std::vector<AppendRequest> appends(1);
  appends[0].stream = std::move(stream);
  appends[0].expected = expected;
  appends[0].events = std::move(events);
  auto result = Commit(std::move(appends));
  if (!result.ok()) return result.status();
  return std::move(result->appends[0]);
}

void StreamTable::MarkSuperseded(std::string_view stream, SnapshotRef ref, std::int64_t from_part) {
  const std::int64_t expires = UnixMillisNow() / 1000 + options_.snapshot_grace.count();
  for (std::int64_t part = from_part; part < ref.parts; ++part)
    (void)client_.Call(
        "UpdateItem",
        {{"TableName", options_.table},
         {"Key", {{kStreamKey, S(stream)}, {kVersionKey, N(SnapshotKey(ref.version, part))}}},
         {"UpdateExpression", "SET #e = :e"},
         {"ConditionExpression", "attribute_exists(#s)"},  // not a new item, if it is gone
         {"ExpressionAttributeNames", {{"#e", kExpiresAttribute}, {"#s", kStreamKey}}},
         {"ExpressionAttributeValues", {{":e", N(expires)}}}});
}

Status StreamTable::LoadSnapshot(std::string_view stream, Tip& tip) {
  if (tip.state || !tip.snapshot || tip.snapshot->parts < 1) return Status::Ok();
  const SnapshotRef ref = *tip.snapshot;
  json::object request{{"TableName", options_.table},
                       {"ConsistentRead", true},
                       {"KeyConditionExpression", "#s = :s AND #v BETWEEN :lo AND :hi"},
                       {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
                       {"ExpressionAttributeValues",
                        {{":s", S(stream)},
                         {":lo", N(SnapshotKey(ref.version, ref.parts - 1))},
                         {":hi", N(SnapshotKey(ref.version, 0))}}}};
  json::array items;
  for (;;) {
    aws::Reply reply = client_.Call("Query", request);
    if (!reply.ok()) return reply.status;
    const auto* page = reply.body.if_contains("Items");
    if (page == nullptr || !page->is_array())
      return Status::Internal("a Query of snapshot items answered without Items");
    for (const auto& item : page->get_array()) items.push_back(item);
    const auto* next = reply.body.if_contains("LastEvaluatedKey");
    if (next == nullptr) break;
    request["ExclusiveStartKey"] = *next;
  }
  auto record = ParseSnapshotItems(stream, ref, items);
  if (!record.ok()) return record.status();
  tip.state = std::move(*record);
  return Status::Ok();
}

Result<Tip> StreamTable::ReadTip(std::string_view stream) {
  aws::Reply reply = client_.Call(
      "GetItem",
      {{"TableName", options_.table}, {"Key", TipKey(stream)}, {"ConsistentRead", true}});
  if (!reply.ok()) return reply.status;
  const auto* item = reply.body.if_contains("Item");
  if (item == nullptr || !item->is_object())
    return Status::NotFound(fmt::format("stream '{}' does not exist", Printable(stream)));
  return ParseTip(stream, item->get_object());
}

Result<std::vector<json::object>> StreamTable::NewestItems(std::string_view stream,
                                                           std::size_t limit) {
  // Versions >= 0: the snapshot items (below 0) are not the stream's.
  json::object request{{"TableName", options_.table},
                       {"ConsistentRead", true},
                       {"ScanIndexForward", false},
                       {"Limit", limit},
                       {"KeyConditionExpression", "#s = :s AND #v >= :zero"},
                       {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
                       {"ExpressionAttributeValues", {{":s", S(stream)}, {":zero", N(0)}}}};
  aws::Reply reply = client_.Call("Query", request);
  if (!reply.ok()) return reply.status;
  const auto* items = reply.body.if_contains("Items");
  if (items == nullptr || !items->is_array())
    return Status::Internal("a Query answered without Items");
  std::vector<json::object> out;
  for (const auto& value : items->get_array()) {
    if (!value.is_object()) return Status::Internal("a Query answered a non-object item");
    out.push_back(value.get_object());
  }
  return out;
}

namespace {

StreamHead HeadOf(const AppendItem& newest) {
  return StreamHead{StreamVersion(newest.last()), Position(0),
                    newest.events.back().type == kDeletedEventType,
                    StreamVersion(newest.life_first)};
}

}  // namespace

Result<StreamView> StreamTable::ViewOf(std::string_view stream,
                                       const std::vector<json::object>& items) {
  StreamView view;
  if (items.empty()) return view;
  view.exists = true;
  if (GetN(items.front(), kVersionKey) == kTipVersion) {
    auto tip = ParseTip(stream, items.front());
    if (!tip.ok()) return tip.status();
    view.legacy = true;
    view.head =
        StreamHead{tip->head.version, Position(0), tip->head.deleted, tip->head.first_version};
    return view;
  }
  bool record_seen = false;
  for (const auto& item : items) {  // newest first
    auto parsed = ParseAppendItem(item);
    if (!parsed.ok()) return parsed.status();
    if (view.window.empty()) {
      view.head = HeadOf(*parsed);
      view.last_first = parsed->first;
    }
    WindowAppend append{parsed->first, {}};
    for (const auto& e : parsed->events) append.ids.push_back(e.id);
    view.window.push_back(std::move(append));
    if (!record_seen && (parsed->state || parsed->snapshot)) {
      record_seen = true;
      view.snapshot = parsed->state ? std::nullopt : parsed->snapshot;
    }
  }
  std::reverse(view.window.begin(), view.window.end());  // newest last
  TrimWindow(view.window);
  return view;
}

void StreamTable::TrimWindow(std::vector<WindowAppend>& window) const {
  // The newest appends that fit both bounds; an append of more ids than
  // the window holds is not kept at all.
  std::size_t kept = 0, ids = 0;
  while (kept < window.size() && kept < options_.retry_window_appends &&
         ids + window[window.size() - 1 - kept].ids.size() <= options_.retry_window_ids) {
    ids += window[window.size() - 1 - kept].ids.size();
    ++kept;
  }
  window.erase(window.begin(), window.end() - static_cast<std::ptrdiff_t>(kept));
}

Result<StreamView> StreamTable::Observe(std::string_view stream) {
  auto items = NewestItems(stream, std::max<std::size_t>(1, options_.retry_window_appends));
  if (!items.ok()) return items.status();
  auto view = ViewOf(stream, *items);
  if (view.ok()) cache_.Put(std::string(stream), *view);
  return view;
}

Result<StreamHead> StreamTable::Head(std::string_view stream) {
  auto items = NewestItems(stream, 1);
  if (!items.ok()) return items.status();
  auto view = ViewOf(stream, *items);
  if (!view.ok()) return view.status();
  if (!view->exists)
    return Status::NotFound(fmt::format("stream '{}' does not exist", Printable(stream)));
  return view->head;
}

Result<std::optional<StateRecord>> StreamTable::LoadSnapshot(std::string_view stream,
                                                             SnapshotRef ref) {
  Tip holder;
  holder.snapshot = ref;
  if (Status s = LoadSnapshot(stream, holder); !s.ok()) return s;
  return std::move(holder.state);
}

Result<StreamTable::EntityLoad> StreamTable::LoadEntity(std::string_view stream) {
  EntityLoad load;
  // Newest first, a few items at a time: the record is usually in the
  // newest item or close to it, and a Query is billed on what it reads.
  std::size_t page = 8;
  json::object request{{"TableName", options_.table},
                       {"ConsistentRead", true},
                       {"ScanIndexForward", false},
                       {"KeyConditionExpression", "#s = :s AND #v >= :zero"},
                       {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
                       {"ExpressionAttributeValues", {{":s", S(stream)}, {":zero", N(0)}}}};
  std::vector<RecordedEvent> newest_first;
  bool any = false;
  std::optional<SnapshotRef> snapshot;
  for (;;) {
    request["Limit"] = page;
    aws::Reply reply = client_.Call("Query", request);
    if (!reply.ok()) return reply.status;
    const auto* items = reply.body.if_contains("Items");
    if (items == nullptr || !items->is_array())
      return Status::Internal("a Query answered without Items");
    for (const auto& value : items->get_array()) {
      if (!value.is_object()) return Status::Internal("a Query answered a non-object item");
      const json::object& item = value.get_object();
      if (!any && GetN(item, kVersionKey) == kTipVersion) {
        // The earlier layout: the tip has the head, the record and the
        // newest events; the caller reads whatever it no longer holds.
        auto tip = ParseTip(stream, item);
        if (!tip.ok()) return tip.status();
        if (Status s = LoadSnapshot(stream, *tip); !s.ok()) return s;
        load.head =
            StreamHead{tip->head.version, Position(0), tip->head.deleted, tip->head.first_version};
        const std::int64_t low = tip->head.first_version.value();
        const std::int64_t high = tip->head.version.value();
        load.events_from =
            std::max(low, tip->state ? tip->state->version.value() + 1 : std::int64_t{0});
        load.state = std::move(tip->state);
        load.complete = load.events_from > high ||
                        (!tip->appends.empty() && tip->appends[0].first <= load.events_from);
        if (load.complete)
          for (auto& append : tip->appends)
            for (auto& event : append.events)
              if (event.version.value() >= load.events_from)
                load.events.push_back(std::move(event));
        return load;
      }
      auto parsed = ParseAppendItem(item);
      if (!parsed.ok()) return parsed.status();
      if (!any) {
        any = true;
        load.head = HeadOf(*parsed);
      }
      const std::int64_t life = load.head.first_version.value();
      if (parsed->last() < life) break;  // an earlier life: its record is not this one's
      if (parsed->state || parsed->snapshot) {
        if (parsed->state) {
          load.state = std::move(parsed->state);
        } else {
          snapshot = parsed->snapshot;
        }
        const std::int64_t covered = load.state ? load.state->version.value() : snapshot->version;
        for (auto it = parsed->events.rbegin(); it != parsed->events.rend(); ++it)
          if (it->version.value() > covered) newest_first.push_back(std::move(*it));
        load.complete = true;
        break;
      }
      for (auto it = parsed->events.rbegin(); it != parsed->events.rend(); ++it)
        if (it->version.value() >= life) newest_first.push_back(std::move(*it));
      if (parsed->first <= life) {
        load.complete = true;
        break;
      }
    }
    const auto* next = reply.body.if_contains("LastEvaluatedKey");
    if (load.complete || next == nullptr) break;
    request["ExclusiveStartKey"] = *next;
    page = std::min<std::size_t>(page * 4, 1000);
  }
  if (!any) return Status::NotFound(fmt::format("stream '{}' does not exist", Printable(stream)));
  if (load.head.deleted) {
    // A delete removes the record (store.h); the events are not the
    // caller's either.
    load.state.reset();
    snapshot.reset();
    newest_first.clear();
  }
  if (snapshot) {
    auto record = LoadSnapshot(stream, *snapshot);
    if (!record.ok()) return record.status();
    load.state = std::move(*record);
    if (!load.state) {
      // Its parts are gone (an expired snapshot): the entity replays, so
      // the events before the record are read by the caller.
      newest_first.clear();
      load.complete = false;
    }
  }
  std::reverse(newest_first.begin(), newest_first.end());
  load.events_from = load.state ? load.state->version.value() + 1 : load.head.first_version.value();
  if (load.complete) load.events = std::move(newest_first);
  return load;
}

Result<std::optional<StateRecord>> StreamTable::ReadState(std::string_view stream) {
  auto load = LoadEntity(stream);
  if (!load.ok() && load.status().code() == ErrorCode::kNotFound)
    return std::optional<StateRecord>();
  if (!load.ok()) return load.status();
  return std::move(load->state);
}

Result<std::optional<std::int64_t>> StreamTable::Floor(std::string_view stream) {
  return ReadFloor(client_, options_.table, stream);
}

Result<std::vector<RecordedEvent>> StreamTable::ReadStream(std::string_view stream,
                                                           StreamVersion from, std::size_t limit,
                                                           std::optional<StreamHead>* head) {
  if (head != nullptr) head->reset();
  if (limit == 0) return std::vector<RecordedEvent>();
  std::int64_t start = from.value();
  // A scavenge's floor (scavenge.h), read the first time the read meets a
  // version it lacks: below it, versions are removed, not missing.
  std::optional<std::int64_t> floor;
  bool floor_read = false;
  auto removed = [&](std::int64_t version) -> Result<bool> {
    if (!floor_read) {
      auto read = Floor(stream);
      if (!read.ok()) return read.status();
      floor = *read;
      floor_read = true;
    }
    return floor && version < *floor;
  };
  // A Query is not a snapshot: a tip's move (the earlier layout) that runs
  // while it reads could put events in items behind it and drop them from
  // the tip before it gets there. Versions have no gaps, so a gap is seen
  // and the Query repeated.
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::map<std::int64_t, RecordedEvent> events;  // by version: a moved event counts once
    std::optional<Tip> tip;
    std::optional<StreamHead> last_head;  // the newest item's, when the Query reached it
    bool covered_start = false;           // an item holding `start` was read
    auto contiguous = [&] {
      std::size_t n = 0;
      for (auto it = events.find(start);
           it != events.end() && it->first == start + static_cast<std::int64_t>(n); ++it)
        ++n;
      return n;
    };
    auto take = [&](AppendItem& item) {
      if (item.first <= start && item.last() >= start) covered_start = true;
      for (auto& e : item.events)
        if (e.version.value() >= start) events.emplace(e.version.value(), std::move(e));
    };
    json::object request{{"TableName", options_.table},
                         {"ConsistentRead", true},
                         {"Limit", std::min<std::size_t>(limit + 1, 1000)},
                         {"KeyConditionExpression", "#s = :s AND #v >= :from"},
                         {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
                         {"ExpressionAttributeValues", {{":s", S(stream)}, {":from", N(start)}}}};
    bool reached_end = false;
    for (;;) {
      aws::Reply reply = client_.Call("Query", request);
      if (!reply.ok()) return reply.status;
      const auto* items = reply.body.if_contains("Items");
      if (items == nullptr || !items->is_array())
        return Status::Internal("a Query answered without Items: " + json::serialize(reply.body));
      for (const auto& value : items->get_array()) {
        if (!value.is_object())
          return Status::Internal("a Query answered an item that is not an object");
        const json::object& item = value.get_object();
        if (GetN(item, kVersionKey) == kTipVersion) {
          auto parsed = ParseTip(stream, item);
          if (!parsed.ok()) return parsed.status();
          tip = std::move(*parsed);
          continue;
        }
        auto parsed = ParseAppendItem(item);
        if (!parsed.ok()) return parsed.status();
        last_head = HeadOf(*parsed);
        take(*parsed);
      }
      const auto* next = reply.body.if_contains("LastEvaluatedKey");
      if (next == nullptr) {
        reached_end = true;
        break;
      }
      if (tip || contiguous() >= limit) break;
      request["ExclusiveStartKey"] = *next;
    }
    if (!covered_start && !tip) {
      // `start` is inside an append that began before it (or past the
      // head): the newest item before it tells.
      json::object probe{{"TableName", options_.table},
                         {"ConsistentRead", true},
                         {"ScanIndexForward", false},
                         {"Limit", 1},
                         {"KeyConditionExpression", "#s = :s AND #v BETWEEN :zero AND :before"},
                         {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
                         {"ExpressionAttributeValues",
                          {{":s", S(stream)}, {":zero", N(0)}, {":before", N(start - 1)}}}};
      if (start > 0) {
        aws::Reply reply = client_.Call("Query", probe);
        if (!reply.ok()) return reply.status;
        const auto* items = reply.body.if_contains("Items");
        if (items != nullptr && items->is_array() && !items->get_array().empty() &&
            items->get_array()[0].is_object()) {
          auto parsed = ParseAppendItem(items->get_array()[0].get_object());
          if (!parsed.ok()) return parsed.status();
          if (!last_head) last_head = HeadOf(*parsed);
          take(*parsed);
          covered_start = true;
        }
      }
    }
    if (tip) {
      if (head != nullptr)
        head->emplace(
            StreamHead{tip->head.version, Position(0), tip->head.deleted, tip->head.first_version});
      for (const auto& append : tip->appends)
        for (const auto& event : append.events)
          if (event.version.value() >= start) events.emplace(event.version.value(), event);
      const auto wanted = static_cast<std::size_t>(
          std::max<std::int64_t>(0, std::min<std::int64_t>(tip->head.version.value() - start + 1,
                                                           static_cast<std::int64_t>(limit))));
      if (contiguous() < wanted) continue;
      std::vector<RecordedEvent> out;
      for (auto it = events.find(start); out.size() < wanted; ++it)
        out.push_back(std::move(it->second));
      return out;
    }
    if (!last_head)
      return Status::NotFound(fmt::format("stream '{}' does not exist", Printable(stream)));
    if (contiguous() == 0 && start <= last_head->version.value()) {
      // Nothing at `start`: removed (the read starts at the floor), or
      // a move of the earlier layout ran under the Query (read again).
      auto gone = removed(start);
      if (!gone.ok()) return gone.status();
      if (*gone) {
        start = *floor;
        continue;
      }
    }
    if (reached_end && head != nullptr) head->emplace(*last_head);
    const std::int64_t high =
        reached_end ? last_head->version.value() : start + static_cast<std::int64_t>(limit) - 1;
    const auto wanted = static_cast<std::size_t>(std::max<std::int64_t>(
        0, std::min<std::int64_t>(high - start + 1, static_cast<std::int64_t>(limit))));
    if (contiguous() < wanted) {
      // Items a scavenge has not removed yet, below a gap it made: they
      // are the page, and the next read starts at the floor.
      auto gone = contiguous() > 0 ? removed(start + static_cast<std::int64_t>(contiguous()))
                                   : Result<bool>(false);
      if (!gone.ok()) return gone.status();
      if (*gone || (!reached_end && contiguous() > 0)) {
        // Pages ended before `limit`: what is in hand is the page.
        std::vector<RecordedEvent> out;
        for (auto it = events.find(start);
             it != events.end() && it->first == start + static_cast<std::int64_t>(out.size()); ++it)
          out.push_back(std::move(it->second));
        return out;
      }
      continue;
    }
    std::vector<RecordedEvent> out;
    for (auto it = events.find(start); out.size() < wanted; ++it)
      out.push_back(std::move(it->second));
    return out;
  }
  return Status::Internal(fmt::format(
      "stream '{}': versions missing after 5 reads (a corrupt table?)", Printable(stream)));
}

}  // namespace indelible::dynamodb
