#include "storage/dynamodb/append_item.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <map>
#include <set>

#include "core/text.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/batch_get.h"
#include "storage/dynamodb/scavenge.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

EventData DataOf(const RecordedEvent& event) {
  return EventData{event.id,           event.type,     event.schema, event.data,
                   event.content_type, event.metadata, event.tags,   std::nullopt};
}

Status Malformed(std::string_view stream, std::string_view what) {
  return Status::Internal(
      fmt::format("DynamoDB append item of stream '{}' is malformed: {}", Printable(stream), what));
}

}  // namespace

json::object MakeAppendItem(const std::vector<RecordedEvent>& events, std::int64_t life_first) {
  const RecordedEvent& first = events.front();
  json::object item = Envelope(DataOf(first), first.timestamp_ms);
  item[kStreamKey] = S(first.stream);
  item[kVersionKey] = N(first.version.value());
  item[kCountAttribute] = N(static_cast<std::int64_t>(events.size()));
  if (events.size() > 1) {
    json::array more;
    more.reserve(events.size() - 1);
    for (std::size_t i = 1; i < events.size(); ++i)
      more.push_back(json::object{{"M", Envelope(DataOf(events[i]), events[i].timestamp_ms)}});
    item[kMoreAttribute] = json::object{{"L", std::move(more)}};
  }
  if (life_first != 0) item[kLifeAttribute] = N(life_first);
  return item;
}

Result<AppendItem> ParseAppendItem(const json::object& item) {
  auto stream = GetS(item, kStreamKey);
  auto version = GetN(item, kVersionKey);
  if (!stream || !version) return Malformed("?", "no keys");
  // Versions count up from here: keep them far from overflow, and off the
  // tip's and the snapshot items' keys.
  if (*version < 0 || *version >= kTipVersion) return Malformed(*stream, "version");
  AppendItem out;
  out.first = *version;
  auto count = GetN(item, kCountAttribute);
  out.counted = count.has_value();
  const json::array* more = ListOf(Member(item, kMoreAttribute));
  const std::int64_t held = 1 + (more != nullptr ? static_cast<std::int64_t>(more->size()) : 0);
  if (count && *count != held) return Malformed(*stream, "n does not count its events");
  out.life_first = GetN(item, kLifeAttribute).value_or(0);
  if (out.life_first < 0 || out.life_first > out.first) return Malformed(*stream, "f");
  auto add = [&](const json::object& envelope) -> Status {
    RecordedEvent event;
    event.stream = std::string(*stream);
    event.version = StreamVersion(out.first + static_cast<std::int64_t>(out.events.size()));
    if (Status s = ReadEnvelope(envelope, &event); !s.ok()) return s;
    out.events.push_back(std::move(event));
    return Status::Ok();
  };
  if (Status s = add(item); !s.ok()) return s;
  if (more != nullptr)
    for (const auto& element : *more) {
      const json::object* envelope = MapOf(element);
      if (envelope == nullptr) return Malformed(*stream, "more holds a non-map");
      if (Status s = add(*envelope); !s.ok()) return s;
    }
  auto state = ParseStateAttribute(*stream, item);
  if (!state.ok()) return state.status();
  out.state = std::move(*state);
  out.snapshot = ParseSnapshotRef(item, "snap");
  if (auto lk = GetS(item, kListKey)) out.list_key = std::string(*lk);
  return out;
}

Result<std::vector<std::vector<RecordedEvent>>> ReadAppendItems(aws::Client& client,
                                                                const std::string& table,
                                                                const std::vector<AppendRef>& refs,
                                                                std::vector<bool>* removed) {
  if (removed != nullptr) removed->assign(refs.size(), false);
  std::vector<std::vector<RecordedEvent>> out(refs.size());
  std::map<std::pair<std::string, std::int64_t>, std::size_t> wanted;  // key -> index in refs
  for (std::size_t i = 0; i < refs.size(); ++i)
    wanted.emplace(std::pair(refs[i].stream, refs[i].first), i);
  std::vector<bool> done(refs.size(), false);
  for (const bool consistent : {false, true}) {
    std::vector<json::object> keys;
    for (const auto& [key, index] : wanted)
      if (!done[index])
        keys.push_back(json::object{{kStreamKey, S(key.first)}, {kVersionKey, N(key.second)}});
    if (keys.empty()) break;
    BatchGetOptions options;
    options.consistent = consistent;
    auto items = BatchGetItems(client, table, keys, options);
    if (!items.ok()) return items.status();
    for (const auto& item : *items) {
      auto parsed = ParseAppendItem(item);
      if (!parsed.ok()) return parsed.status();
      auto it = wanted.find(std::pair(parsed->events.front().stream, parsed->first));
      if (it == wanted.end()) continue;
      const AppendRef& ref = refs[it->second];
      if (static_cast<std::int64_t>(parsed->events.size()) != ref.count)
        return Status::Internal(
            fmt::format("the $all index refers to {} events at version {} of stream '{}', and its "
                        "item holds {}",
                        ref.count, ref.first, Printable(ref.stream), parsed->events.size()));
      out[it->second] = std::move(parsed->events);
      done[it->second] = true;
    }
  }
  // The same append named twice gets the events twice.
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    if (done[i]) continue;
    auto it = wanted.find(std::pair(refs[i].stream, refs[i].first));
    if (it != wanted.end() && done[it->second]) {
      out[i] = out[it->second];
      continue;
    }
    missing.push_back(i);
  }
  if (missing.empty()) return out;
  // Removed by a scavenge when below its stream's floor; damage otherwise.
  std::map<std::string, std::int64_t> floors;
  if (removed != nullptr) {
    removed->assign(refs.size(), false);
    std::set<std::string> streams;
    for (std::size_t i : missing) streams.insert(refs[i].stream);
    auto read = ReadFloors(client, table, streams);
    if (!read.ok()) return read.status();
    floors = std::move(*read);
  }
  for (std::size_t i : missing) {
    auto floor = floors.find(refs[i].stream);
    if (floor != floors.end() && refs[i].first + refs[i].count <= floor->second) {
      (*removed)[i] = true;
      continue;
    }
    return Status::Internal(
        fmt::format("the $all index refers to version {} of stream '{}', which {} does not hold",
                    refs[i].first, Printable(refs[i].stream), table));
  }
  return out;
}

std::int64_t AppendItemBytes(const std::vector<EventData>& events) {
  std::int64_t bytes = 0;
  for (const auto& e : events) bytes += TipBytes(e);
  return bytes;
}

}  // namespace indelible::dynamodb
