#include "storage/dynamodb/all_index.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/tables.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

constexpr std::string_view kBlockKey = "block";
constexpr std::string_view kPositionKey = "position";

json::object Key(std::int64_t block, std::int64_t position) {
  return {{kBlockKey, N(block)}, {kPositionKey, N(position)}};
}
json::object StateKey() { return Key(-1, 0); }

std::int64_t BlockOf(std::int64_t position) { return position >> kBlockBits; }

std::string StateJson(const IndexerState& state) {
  json::object shards;
  for (const auto& [id, p] : state.shards)
    shards[id] = json::object{{"seq", p.sequence}, {"part", p.part}, {"done", p.done}};
  return json::serialize(json::object{{"rev", state.rev},
                                      {"next", state.next},
                                      {"arn", state.stream_arn},
                                      {"owner", state.owner},
                                      {"lease_until", state.lease_until},
                                      {"rebuilding", state.rebuilding},
                                      {"shards", std::move(shards)}});
}

// The state document, read without json's throwing accessors: it comes
// from the server.
Result<IndexerState> ParseState(std::string_view text) {
  auto bad = [&](std::string_view what) {
    return Status::Internal(
        fmt::format("the $all indexer's state is malformed ({}): {}", what, text.substr(0, 200)));
  };
  boost::system::error_code ec;
  json::value doc = json::parse(text, ec);
  if (ec || !doc.is_object()) return bad("not a JSON object");
  const json::object& o = doc.get_object();
  auto int_of = [&](std::string_view name) -> std::optional<std::int64_t> {
    const auto* v = o.if_contains(name);
    if (v == nullptr || !v->is_int64()) return std::nullopt;
    return v->get_int64();
  };
  auto str_of = [&](const json::object& from, std::string_view name) -> std::string {
    const auto* v = from.if_contains(name);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  IndexerState state;
  auto rev = int_of("rev");
  auto next = int_of("next");
  auto lease = int_of("lease_until");
  if (!rev || !next || *next < 1) return bad("rev or next");
  state.rev = *rev;
  state.next = *next;
  state.lease_until = lease.value_or(0);
  state.stream_arn = str_of(o, "arn");
  state.owner = str_of(o, "owner");
  const auto* rebuilding = o.if_contains("rebuilding");
  state.rebuilding = rebuilding != nullptr && rebuilding->is_bool() && rebuilding->get_bool();
  const auto* shards = o.if_contains("shards");
  if (shards == nullptr || !shards->is_object()) return bad("shards");
  for (const auto& [id, value] : shards->get_object()) {
    if (!value.is_object()) return bad("a shard");
    const json::object& p = value.get_object();
    ShardProgress progress;
    progress.sequence = str_of(p, "seq");
    const auto* part = p.if_contains("part");
    const auto* done = p.if_contains("done");
    if (part == nullptr || !part->is_int64() || done == nullptr || !done->is_bool())
      return bad("a shard's part or done");
    progress.part = part->get_int64();
    progress.done = done->get_bool();
    state.shards.emplace(std::string(id), std::move(progress));
  }
  return state;
}

json::object StatePut(const std::string& table, const IndexerState& state) {
  json::object item = StateKey();
  item["state"] = S(StateJson(state));
  item["rev"] = N(state.rev);
  return {{"TableName", table}, {"Item", std::move(item)}};
}

}  // namespace

AllIndex::AllIndex(aws::Client& client, std::string table)
    : client_(client), table_(std::move(table)) {}

Status AllIndex::CreateOrCheck() {
  TableSpec spec;
  spec.name = table_;
  spec.hash_key = kBlockKey;
  spec.hash_type = 'N';
  spec.range_key = kPositionKey;
  auto created = CreateOrCheckTable(client_, spec);
  if (!created.ok()) return created.status();
  json::object put = StatePut(table_, IndexerState{});
  put["ConditionExpression"] = "attribute_not_exists(#r)";
  put["ExpressionAttributeNames"] = json::object{{"#r", "rev"}};
  aws::Reply reply = client_.Call("PutItem", put);
  if (reply.ok() || reply.status.code() == ErrorCode::kConflict) return Status::Ok();  // exists
  return reply.status;
}

Result<IndexerState> AllIndex::LoadState() {
  aws::Reply reply = client_.Call(
      "GetItem", {{"TableName", table_}, {"Key", StateKey()}, {"ConsistentRead", true}});
  if (!reply.ok()) return reply.status;
  const auto* item = reply.body.if_contains("Item");
  const json::value* state = nullptr;
  if (item != nullptr && item->is_object()) {
    const auto* attr = item->get_object().if_contains("state");
    if (attr != nullptr && attr->is_object()) state = attr->get_object().if_contains("S");
  }
  if (state == nullptr || !state->is_string())
    return Status::Internal(fmt::format(
        "table {} has no $all indexer state (block -1, position 0); was it made by indelible?",
        table_));
  return ParseState(state->get_string());
}

Status AllIndex::Write(const IndexerState& before, const IndexerState& after,
                       const std::vector<RecordedEvent>& events) {
  json::array items;
  for (const RecordedEvent& event : events) {
    json::object item = EventItem(event);
    const auto position = static_cast<std::int64_t>(event.position.value());
    item[kBlockKey] = N(BlockOf(position));
    item[kPositionKey] = N(position);
    items.push_back(json::object{{"Put", json::object{{"TableName", table_}, {"Item", item}}}});
  }
  json::object put = StatePut(table_, after);
  put["ConditionExpression"] = "#r = :r";
  put["ExpressionAttributeNames"] = json::object{{"#r", "rev"}};
  put["ExpressionAttributeValues"] = json::object{{":r", N(before.rev)}};
  if (events.empty()) return client_.Call("PutItem", put).status;
  items.push_back(json::object{{"Put", std::move(put)}});
  return client_.Call("TransactWriteItems", {{"TransactItems", std::move(items)}}).status;
}

Result<std::vector<RecordedEvent>> AllIndex::QueryBlock(std::int64_t from, std::int64_t to,
                                                        std::size_t limit) {
  std::vector<RecordedEvent> events;
  json::object request{
      {"TableName", table_},
      {"ConsistentRead", true},
      {"KeyConditionExpression", "#b = :b AND #p BETWEEN :from AND :to"},
      {"ExpressionAttributeNames", {{"#b", kBlockKey}, {"#p", kPositionKey}}},
      {"ExpressionAttributeValues", {{":b", N(BlockOf(from))}, {":from", N(from)}, {":to", N(to)}}},
      {"Limit", static_cast<std::int64_t>(std::min<std::size_t>(limit, 1000))}};
  aws::Reply reply = client_.Call("Query", request);
  if (!reply.ok()) return reply.status;
  const auto* items = reply.body.if_contains("Items");
  if (items == nullptr || !items->is_array())
    return Status::Internal("a Query of $all answered without Items");
  for (const auto& value : items->get_array()) {
    if (!value.is_object()) return Status::Internal("a Query of $all answered a non-object");
    auto event = ParseEventItem(value.get_object());
    if (!event.ok()) return event.status();
    const std::int64_t position = GetN(value.get_object(), kPositionKey).value_or(0);
    event->position = Position(static_cast<std::uint64_t>(position));
    events.push_back(std::move(*event));
  }
  return events;
}

Result<std::vector<RecordedEvent>> AllIndex::Read(Position from, Position through,
                                                  std::size_t limit) {
  std::vector<RecordedEvent> events;
  auto at = static_cast<std::int64_t>(std::max<std::uint64_t>(from.value(), 1));
  const auto last = static_cast<std::int64_t>(through.value());
  while (at <= last && events.size() < limit) {
    const std::int64_t block_last = std::min(last, ((BlockOf(at) + 1) << kBlockBits) - 1);
    auto page = QueryBlock(at, block_last, limit - events.size());
    if (!page.ok()) return page.status();
    // Positions are written in transactions that end at the state's next,
    // so every position up to `through` exists: a gap is damage.
    if (page->empty())
      return Status::Internal(
          fmt::format("$all index in table {}: position {} is missing", table_, at));
    for (RecordedEvent& event : *page) {
      if (event.position.value() != static_cast<std::uint64_t>(at))
        return Status::Internal(
            fmt::format("$all index in table {}: position {} is missing (found {})", table_, at,
                        event.position.value()));
      events.push_back(std::move(event));
      ++at;
    }
  }
  return events;
}

Result<std::vector<RecordedEvent>> AllIndex::ReadAsStored(Position from, std::size_t limit) {
  std::vector<RecordedEvent> events;
  auto at = static_cast<std::int64_t>(std::max<std::uint64_t>(from.value(), 1));
  while (events.size() < limit) {
    const std::int64_t block_last = ((BlockOf(at) + 1) << kBlockBits) - 1;
    auto page = QueryBlock(at, block_last, limit - events.size());
    if (!page.ok()) return page.status();
    if (page->empty()) break;
    at = static_cast<std::int64_t>(page->back().position.value()) + 1;
    for (RecordedEvent& event : *page) events.push_back(std::move(event));
  }
  return events;
}

Status AllIndex::Remove(const std::vector<Position>& positions) {
  for (std::size_t i = 0; i < positions.size(); i += 25) {
    json::array deletes;
    for (std::size_t j = i; j < std::min(positions.size(), i + 25); ++j) {
      const auto position = static_cast<std::int64_t>(positions[j].value());
      deletes.push_back(
          json::object{{"DeleteRequest", {{"Key", Key(BlockOf(position), position)}}}});
    }
    if (Status s = BatchWrite(client_, table_, std::move(deletes)); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace indelible::dynamodb
