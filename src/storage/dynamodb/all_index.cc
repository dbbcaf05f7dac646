#include "storage/dynamodb/all_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "aws/errors.h"
#include "aws/item_size.h"
#include "core/event_json.h"
#include "core/text.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/batch_get.h"
#include "storage/dynamodb/tables.h"
#include "storage/dynamodb/tag_index.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

constexpr std::string_view kBlockKey = "block";
constexpr std::string_view kPositionKey = "position";
constexpr std::string_view kChunkCount = "n";
constexpr std::string_view kEntries = "r";
constexpr std::string_view kInline = "e";
constexpr std::string_view kPlaces = "c";
constexpr std::string_view kOwner = "o";
constexpr std::string_view kLeaseUntil = "l";
// The checkpoint's format: the earlier release's had `rev` in its JSON and
// no `format`; its readers refuse this one ("malformed") rather than write
// over chunks.
constexpr std::int64_t kCheckpointFormat = 2;
// Chunks per Query while following the chain.
constexpr std::size_t kChunksPerQuery = 100;

json::object Key(std::int64_t block, std::int64_t position) {
  return {{kBlockKey, N(block)}, {kPositionKey, N(position)}};
}
json::object CheckpointKey() { return Key(-1, 0); }

std::int64_t BlockOf(std::int64_t position) { return position >> kBlockBits; }
std::int64_t BlockEnd(std::int64_t block) { return ((block + 1) << kBlockBits) - 1; }

// A consistent Query of the items of one block at positions [from, to].
json::object BlockRangeQuery(const std::string& table, std::int64_t block, std::int64_t from,
                             std::int64_t to, std::int64_t limit) {
  return {{"TableName", table},
          {"ConsistentRead", true},
          {"KeyConditionExpression", "#b = :b AND #p BETWEEN :from AND :to"},
          {"ExpressionAttributeNames", {{"#b", kBlockKey}, {"#p", kPositionKey}}},
          {"ExpressionAttributeValues", {{":b", N(block)}, {":from", N(from)}, {":to", N(to)}}},
          {"Limit", limit}};
}

std::string PackEntries(const std::vector<ChunkEntry>& entries) {
  std::string out;
  for (const ChunkEntry& e : entries) {
    PutVarint(out, e.ref.stream.size());
    out += e.ref.stream;
    PutVarint(out, static_cast<std::uint64_t>(e.ref.first));
    PutVarint(out, (static_cast<std::uint64_t>(e.ref.count) << 1) | (e.in_chunk ? 1 : 0));
  }
  return out;
}

std::optional<std::vector<ChunkEntry>> UnpackEntries(std::string_view in) {
  std::vector<ChunkEntry> entries;
  while (!in.empty()) {
    auto length = GetVarint(in);
    if (!length || *length > in.size()) return std::nullopt;
    ChunkEntry e;
    e.ref.stream = std::string(in.substr(0, *length));
    in.remove_prefix(*length);
    auto first = GetVarint(in);
    auto count = GetVarint(in);
    if (!first || !count || (*count >> 1) == 0) return std::nullopt;
    e.ref.first = static_cast<std::int64_t>(*first);
    e.ref.count = static_cast<std::int64_t>(*count >> 1);
    e.in_chunk = (*count & 1) != 0;
    entries.push_back(std::move(e));
  }
  return entries;
}

json::object PlacesJson(const std::map<std::string, ShardProgress>& places) {
  json::object out;
  for (const auto& [id, p] : places) {
    json::object place{{"seq", p.sequence}};
    if (p.part != 0) place["part"] = p.part;
    if (p.done) place["done"] = true;
    out[id] = std::move(place);
  }
  return out;
}

std::optional<std::map<std::string, ShardProgress>> ParsePlaces(const json::value& value) {
  if (!value.is_object()) return std::nullopt;
  std::map<std::string, ShardProgress> places;
  for (const auto& [id, v] : value.get_object()) {
    if (!v.is_object()) return std::nullopt;
    const json::object& p = v.get_object();
    ShardProgress progress;
    progress.sequence = StringAt(p, "seq");
    if (const auto* part = p.if_contains("part")) {
      if (!part->is_int64()) return std::nullopt;
      progress.part = part->get_int64();
    }
    if (const auto* done = p.if_contains("done")) {
      if (!done->is_bool()) return std::nullopt;
      progress.done = done->get_bool();
    }
    places.emplace(std::string(id), std::move(progress));
  }
  return places;
}

std::string CheckpointJson(const IndexerState& state) {
  return json::serialize(json::object{{"format", kCheckpointFormat},
                                      {"next", state.next},
                                      {"arn", state.stream_arn},
                                      {"owner", state.owner},
                                      {"lease_until", state.lease_until},
                                      {"rebuilding", state.rebuilding},
                                      {"shards", PlacesJson(state.shards)}});
}

// The checkpoint document, in either release's format, read without
// json's throwing accessors: it comes from the server.
Result<IndexerState> ParseCheckpoint(std::string_view text, std::int64_t rev) {
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
  IndexerState state;
  auto next = int_of("next");
  if (!next || *next < 1) return bad("next");
  state.rev = rev;
  state.next = state.checkpoint_next = *next;
  state.lease_until = int_of("lease_until").value_or(0);
  state.stream_arn = StringAt(o, "arn");
  state.owner = StringAt(o, "owner");
  state.earlier_format = int_of("format").value_or(1) < kCheckpointFormat;
  const auto* rebuilding = o.if_contains("rebuilding");
  state.rebuilding = rebuilding != nullptr && rebuilding->is_bool() && rebuilding->get_bool();
  const auto* shards = o.if_contains("shards");
  auto places = shards != nullptr ? ParsePlaces(*shards) : std::nullopt;
  if (!places) return bad("shards");
  state.shards = std::move(*places);
  return state;
}

Result<Chunk> ParseChunk(const json::object& item, const std::string& table) {
  auto bad = [&](std::string_view what) {
    return Status::Internal(fmt::format("$all index in table {}: the item at position {} is {}",
                                        table, GetN(item, kPositionKey).value_or(-1), what));
  };
  auto position = GetN(item, kPositionKey);
  if (!position || *position < 1) return bad("without a position");
  Chunk chunk;
  chunk.position = *position;
  auto count = GetN(item, kChunkCount);
  if (!count) {
    // The earlier layout: one whole event.
    auto event = ParseEventItem(item);
    if (!event.ok()) return event.status();
    chunk.count = 1;
    chunk.entries.push_back(
        ChunkEntry{AppendRef{event->stream, event->version.value(), 1}, /*in_chunk=*/true});
    chunk.inline_events.push_back(std::move(*event));
    return chunk;
  }
  chunk.count = *count;
  auto packed = AttributeText(item, kEntries, "B");
  auto raw = packed ? Base64Decode(*packed) : std::nullopt;
  auto entries = raw ? UnpackEntries(*raw) : std::nullopt;
  if (!entries) return bad("a chunk without readable entries");
  chunk.entries = std::move(*entries);
  std::int64_t total = 0;
  std::int64_t in_chunk = 0;
  for (const ChunkEntry& e : chunk.entries) {
    total += e.ref.count;
    if (e.in_chunk) in_chunk += e.ref.count;
  }
  if (total != chunk.count || chunk.count < 1) return bad("a chunk whose entries do not add up");
  if (in_chunk > 0) {
    const json::array* events = ListOf(Member(item, kInline));
    if (events == nullptr || static_cast<std::int64_t>(events->size()) != in_chunk)
      return bad("a chunk without its inline events");
    for (const auto& value : *events) {
      const json::object* m = MapOf(value);
      if (m == nullptr) return bad("a chunk with a malformed inline event");
      auto event = ParseEventItem(*m);
      if (!event.ok()) return event.status();
      chunk.inline_events.push_back(std::move(*event));
    }
  }
  if (auto places = GetS(item, kPlaces)) {
    boost::system::error_code ec;
    json::value doc = json::parse(*places, ec);
    auto parsed = ec ? std::nullopt : ParsePlaces(doc);
    if (!parsed) return bad("a chunk with a malformed change-stream place");
    chunk.places = std::move(*parsed);
  }
  chunk.owner = std::string(GetS(item, kOwner).value_or(""));
  chunk.lease_until = GetN(item, kLeaseUntil).value_or(0);
  return chunk;
}

}  // namespace

void PutVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::optional<std::uint64_t> GetVarint(std::string_view& in) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  return std::nullopt;
}

Result<std::vector<json::object>> QueryItems(aws::Client& client, json::object request,
                                             bool* more) {
  aws::Reply reply = client.Call("Query", request);
  if (!reply.ok()) return reply.status;
  const auto* items = reply.body.if_contains("Items");
  if (items == nullptr || !items->is_array())
    return Status::Internal("a Query of $all answered without Items");
  std::vector<json::object> out;
  for (const auto& value : items->get_array()) {
    if (!value.is_object()) return Status::Internal("a Query of $all answered a non-object");
    out.push_back(value.get_object());
  }
  if (more != nullptr) *more = reply.body.if_contains("LastEvaluatedKey") != nullptr;
  return out;
}

void IndexerState::Apply(const Chunk& chunk) {
  next = chunk.end();
  for (const auto& [id, place] : chunk.places) shards[id] = place;
  // An item of the earlier layout names no lease: its writer's is in the
  // checkpoint it wrote with it.
  if (chunk.owner.empty()) return;
  owner = chunk.owner;
  lease_until = chunk.lease_until;
}

AllIndex::AllIndex(aws::Client& client, std::string table, std::string events_table)
    : client_(client), table_(std::move(table)), events_table_(std::move(events_table)) {
  if (events_table_.empty())
    events_table_ =
        (table_.ends_with("all") ? table_.substr(0, table_.size() - 3) : table_) + "events";
}

Status AllIndex::CreateOrCheck() {
  TableSpec spec;
  spec.name = table_;
  spec.hash_key = kBlockKey;
  spec.hash_type = 'N';
  spec.range_key = kPositionKey;
  auto created = CreateOrCheckTable(client_, spec);
  if (!created.ok()) return created.status();
  json::object item = CheckpointKey();
  item["state"] = S(CheckpointJson(IndexerState{}));
  item["rev"] = N(0);
  aws::Reply reply = client_.Call("PutItem", {{"TableName", table_},
                                              {"Item", std::move(item)},
                                              {"ConditionExpression", "attribute_not_exists(#r)"},
                                              {"ExpressionAttributeNames", {{"#r", "rev"}}}});
  if (reply.ok() || reply.status.code() == ErrorCode::kConflict) return Status::Ok();  // exists
  return reply.status;
}

Result<IndexerState> AllIndex::LoadState(const std::function<void(const Chunk&)>& seen) {
  aws::Reply reply = client_.Call(
      "GetItem", {{"TableName", table_}, {"Key", CheckpointKey()}, {"ConsistentRead", true}});
  if (!reply.ok()) return reply.status;
  const auto* item = reply.body.if_contains("Item");
  std::optional<std::string_view> text;
  std::optional<std::int64_t> rev;
  if (item != nullptr && item->is_object()) {
    text = GetS(item->get_object(), "state");
    rev = GetN(item->get_object(), "rev");
  }
  if (!text || !rev)
    return Status::Internal(fmt::format(
        "table {} has no $all indexer state (block -1, position 0); was it made by indelible?",
        table_));
  auto state = ParseCheckpoint(*text, *rev);
  if (!state.ok()) return state.status();
  auto followed = Follow(&*state, seen);
  if (!followed.ok()) return followed.status();
  return state;
}

Result<std::int64_t> AllIndex::ReadRev() {
  aws::Reply reply = client_.Call("GetItem", {{"TableName", table_},
                                              {"Key", CheckpointKey()},
                                              {"ProjectionExpression", "#r"},
                                              {"ExpressionAttributeNames", {{"#r", "rev"}}}});
  if (!reply.ok()) return reply.status;
  const auto* item = reply.body.if_contains("Item");
  std::optional<std::int64_t> rev;
  if (item != nullptr && item->is_object()) rev = GetN(item->get_object(), "rev");
  if (!rev) return Status::Internal("table " + table_ + " has no $all indexer state");
  return *rev;
}

Result<std::size_t> AllIndex::Follow(IndexerState* state,
                                     const std::function<void(const Chunk&)>& seen) {
  std::size_t applied = 0;
  for (;;) {
    auto chunks = ChainFrom(state->next, std::numeric_limits<std::int64_t>::max(), 1000);
    if (!chunks.ok()) return chunks.status();
    for (const Chunk& chunk : *chunks) {
      state->Apply(chunk);
      if (seen) seen(chunk);
    }
    applied += chunks->size();
    if (chunks->size() < 1000) return applied;
  }
}

json::object AllIndex::ChunkItem(const Chunk& chunk) const {
  json::object item = Key(BlockOf(chunk.position), chunk.position);
  item[kChunkCount] = N(chunk.count);
  item[kEntries] = json::object{{"B", Base64Encode(PackEntries(chunk.entries))}};
  if (!chunk.inline_events.empty()) {
    json::array events;
    events.reserve(chunk.inline_events.size());
    for (const RecordedEvent& event : chunk.inline_events)
      events.push_back(json::object{{"M", EventItem(event)}});
    item[kInline] = json::object{{"L", std::move(events)}};
  }
  if (!chunk.places.empty()) item[kPlaces] = S(json::serialize(PlacesJson(chunk.places)));
  if (!chunk.owner.empty()) {
    item[kOwner] = S(chunk.owner);
    item[kLeaseUntil] = N(chunk.lease_until);
  }
  return item;
}

std::int64_t AllIndex::ItemBytes(const json::object& item) {
  return static_cast<std::int64_t>(aws::ItemSize(item));
}

Status AllIndex::WriteChunk(const Chunk& chunk, const std::vector<TagPage>& tag_pages) {
  json::object put{{"TableName", table_},
                   {"Item", ChunkItem(chunk)},
                   {"ConditionExpression", "attribute_not_exists(#p)"},
                   {"ExpressionAttributeNames", {{"#p", kPositionKey}}}};
  if (tag_pages.empty()) return client_.Call("PutItem", put).status;
  // The chunk and its tags' pages in one transaction: a page exists exactly
  // when its chunk does, so no crash or lost race leaves one missing, wrong
  // or twice (docs/DYNAMODB.md, "The tag index").
  if (tag_pages.size() + 1 > kMaxTransactItems)
    return Status::Internal("a $all chunk with more tags than a transaction takes");
  json::array items;
  items.push_back(json::object{{"Put", std::move(put)}});
  for (const TagPage& page : tag_pages)
    items.push_back(
        json::object{{"Put", {{"TableName", events_table_}, {"Item", TagPageItem(page)}}}});
  aws::Reply reply = client_.Call("TransactWriteItems", {{"TransactItems", std::move(items)}});
  if (reply.ok() || reply.status.code() != ErrorCode::kConflict) return reply.status;
  // Only the chunk has a condition: a refusal is a race lost.
  return reply.status;
}

Status AllIndex::WriteCheckpoint(const IndexerState& before, IndexerState* after) {
  after->rev = before.rev + 1;
  after->checkpoint_next = after->next;
  after->earlier_format = false;
  json::object item = CheckpointKey();
  item["state"] = S(CheckpointJson(*after));
  item["rev"] = N(after->rev);
  Status written = client_
                       .Call("PutItem", {{"TableName", table_},
                                         {"Item", std::move(item)},
                                         {"ConditionExpression", "#r = :r"},
                                         {"ExpressionAttributeNames", {{"#r", "rev"}}},
                                         {"ExpressionAttributeValues", {{":r", N(before.rev)}}}})
                       .status;
  if (!written.ok()) after->rev = before.rev;
  return written;
}

Result<std::optional<Chunk>> AllIndex::LastChunkAtOrBefore(std::int64_t block,
                                                           std::int64_t position) {
  auto items = QueryItems(client_,
                          {{"TableName", table_},
                           {"ConsistentRead", true},
                           {"KeyConditionExpression", "#b = :b AND #p <= :p"},
                           {"ExpressionAttributeNames", {{"#b", kBlockKey}, {"#p", kPositionKey}}},
                           {"ExpressionAttributeValues", {{":b", N(block)}, {":p", N(position)}}},
                           {"ScanIndexForward", false},
                           {"Limit", 1}},
                          nullptr);
  if (!items.ok()) return items.status();
  if (items->empty()) return std::optional<Chunk>();
  auto chunk = ParseChunk(items->front(), table_);
  if (!chunk.ok()) return chunk.status();
  return std::optional<Chunk>(std::move(*chunk));
}

Result<std::optional<std::int64_t>> AllIndex::ChunkStart(std::int64_t position) {
  for (std::int64_t block = BlockOf(position);
       block >= std::max<std::int64_t>(0, BlockOf(position) - 1); --block) {
    auto found = LastChunkAtOrBefore(block, position);
    if (!found.ok()) return found.status();
    if (!*found) continue;  // the chunk holding it may have started in the block before
    if ((*found)->end() > position) return std::optional<std::int64_t>((*found)->position);
    return std::optional<std::int64_t>();
  }
  return std::optional<std::int64_t>();
}

Result<std::vector<Chunk>> AllIndex::ChainFrom(std::int64_t next, std::int64_t stop,
                                               std::size_t max_chunks) {
  std::vector<Chunk> chunks;
  while (chunks.size() < max_chunks && next <= stop) {
    const std::int64_t block = BlockOf(next);
    const std::size_t want = std::min(kChunksPerQuery, max_chunks - chunks.size());
    bool more = false;
    auto items = QueryItems(
        client_,
        BlockRangeQuery(table_, block, next, BlockEnd(block), static_cast<std::int64_t>(want)),
        &more);
    if (!items.ok()) return items.status();
    for (const json::object& item : *items) {
      auto chunk = ParseChunk(item, table_);
      if (!chunk.ok()) return chunk.status();
      // Not at the chain's end: an item a cut index left behind, which the
      // chain does not reach (the rebuild removes such items).
      if (chunk->position != next) return chunks;
      next = chunk->end();
      chunks.push_back(std::move(*chunk));
      if (next > stop) return chunks;
    }
    // The chain ends in this block unless the page was cut short or the
    // last chunk reaches into a later block.
    if (!more && items->size() < want && BlockOf(next) == block) break;
    if (items->empty() && BlockOf(next) == block) break;
  }
  return chunks;
}

Result<std::vector<RecordedEvent>> AllIndex::Resolve(const std::vector<Chunk>& chunks,
                                                     std::int64_t from, std::int64_t through,
                                                     const AllFilter* streams) {
  // The filter's stream half: an append is read unless its stream fails it.
  std::optional<AllFilter> by_stream;
  if (streams != nullptr && !(streams->categories.empty() && streams->stream_prefixes.empty()))
    by_stream = AllFilter{streams->categories, streams->stream_prefixes, {}};
  // Each entry overlapping [from, through]: inline events taken at once,
  // references read in one batch, then put together in position order.
  struct Part {
    std::int64_t position;           // of the entry's first event
    std::optional<std::size_t> ref;  // index in refs; nullopt: `events` holds them
    std::vector<RecordedEvent> events;
  };
  std::vector<Part> parts;
  std::vector<AppendRef> refs;
  for (const Chunk& chunk : chunks) {
    std::int64_t position = chunk.position;
    std::size_t inline_at = 0;
    for (const ChunkEntry& entry : chunk.entries) {
      const std::int64_t end = position + entry.ref.count;
      const bool wanted = end > from && position <= through;
      if (entry.in_chunk) {
        if (wanted) {
          Part part{position, std::nullopt, {}};
          for (std::int64_t i = 0; i < entry.ref.count; ++i)
            part.events.push_back(chunk.inline_events[inline_at + static_cast<std::size_t>(i)]);
          parts.push_back(std::move(part));
        }
        inline_at += static_cast<std::size_t>(entry.ref.count);
      } else if (wanted && by_stream && !by_stream->Matches(entry.ref.stream, "")) {
        Part part{position, std::nullopt, {}};
        for (std::int64_t i = 0; i < entry.ref.count; ++i) {
          RecordedEvent skipped;
          skipped.stream = entry.ref.stream;
          skipped.version = StreamVersion(entry.ref.first + i);
          part.events.push_back(std::move(skipped));
        }
        parts.push_back(std::move(part));
      } else if (wanted) {
        parts.push_back(Part{position, refs.size(), {}});
        refs.push_back(entry.ref);
      }
      position = end;
    }
  }
  std::vector<std::vector<RecordedEvent>> fetched;
  if (!refs.empty()) {
    std::vector<bool> removed;
    auto read = ReadAppendItems(client_, events_table_, refs, &removed);
    if (!read.ok()) return read.status();
    fetched = std::move(*read);
    for (std::size_t i = 0; i < refs.size(); ++i) {
      if (!removed[i]) continue;
      for (std::int64_t v = 0; v < refs[i].count; ++v) {
        RecordedEvent gone;
        gone.stream = refs[i].stream;
        gone.version = StreamVersion(refs[i].first + v);
        gone.type = std::string(kRemovedEventType);
        fetched[i].push_back(std::move(gone));
      }
    }
  }
  std::vector<RecordedEvent> events;
  for (Part& part : parts) {
    std::vector<RecordedEvent>& source = part.ref ? fetched[*part.ref] : part.events;
    for (std::size_t i = 0; i < source.size(); ++i) {
      const std::int64_t position = part.position + static_cast<std::int64_t>(i);
      if (position < from || position > through) continue;
      source[i].position = Position(static_cast<std::uint64_t>(position));
      events.push_back(std::move(source[i]));
    }
  }
  return events;
}

Result<std::vector<RecordedEvent>> AllIndex::Read(Position from, Position through,
                                                  std::size_t limit, const AllFilter* streams) {
  const auto at = static_cast<std::int64_t>(std::max<std::uint64_t>(from.value(), 1));
  const std::int64_t last =
      std::min(static_cast<std::int64_t>(through.value()),
               at + static_cast<std::int64_t>(std::min<std::size_t>(limit, 1 << 20)) - 1);
  if (at > last || limit == 0) return std::vector<RecordedEvent>();
  auto missing = [&](std::int64_t position) {
    return Status::Internal(
        fmt::format("$all index in table {}: position {} is missing", table_, position));
  };
  auto start = ChunkStart(at);
  if (!start.ok()) return start.status();
  if (!*start) return missing(at);
  auto chunks = ChainFrom(**start, last, std::numeric_limits<std::size_t>::max());
  if (!chunks.ok()) return chunks.status();
  auto events = Resolve(*chunks, at, last, streams);
  if (!events.ok()) return events.status();
  // Chunks are chained end to start, so every position up to `through`
  // exists: a gap is damage.
  for (std::size_t i = 0; i < events->size(); ++i)
    if ((*events)[i].position.value() != static_cast<std::uint64_t>(at) + i)
      return missing(at + static_cast<std::int64_t>(i));
  if (static_cast<std::int64_t>(events->size()) != last - at + 1)
    return missing(at + static_cast<std::int64_t>(events->size()));
  return events;
}

Result<std::vector<RecordedEvent>> AllIndex::ReadAsStored(Position from, std::size_t limit) {
  const auto at = static_cast<std::int64_t>(std::max<std::uint64_t>(from.value(), 1));
  auto start = ChunkStart(at);
  if (!start.ok()) return start.status();
  std::vector<RecordedEvent> events;
  if (!*start) return events;
  auto chunks = ChainFrom(**start, at + static_cast<std::int64_t>(limit) - 1,
                          std::numeric_limits<std::size_t>::max());
  if (!chunks.ok()) return chunks.status();
  // A chunk at a time: one whose references the table lacks ends what is
  // stored, as far as the rebuild is concerned.
  for (const Chunk& chunk : *chunks) {
    auto resolved = Resolve({chunk}, at, chunk.end() - 1);
    if (!resolved.ok()) {
      if (resolved.status().code() == ErrorCode::kInternal) break;
      return resolved.status();
    }
    for (RecordedEvent& event : *resolved) events.push_back(std::move(event));
  }
  return events;
}

Result<std::uint64_t> AllIndex::RemoveFrom(std::int64_t from, std::int64_t through) {
  std::uint64_t removed = 0;
  for (std::int64_t block = BlockOf(from); block <= BlockOf(through); ++block) {
    for (;;) {
      auto items = QueryItems(
          client_,
          [&] {
            json::object keys_only =
                BlockRangeQuery(table_, block, std::max(from, block << kBlockBits),
                                std::min(through, BlockEnd(block)), 1000);
            keys_only["ProjectionExpression"] = "#b, #p";
            return keys_only;
          }(),
          nullptr);
      if (!items.ok()) return items.status();
      if (items->empty()) break;
      for (std::size_t i = 0; i < items->size(); i += 25) {
        json::array deletes;
        for (std::size_t j = i; j < std::min(items->size(), i + 25); ++j) {
          const std::int64_t position = GetN((*items)[j], kPositionKey).value_or(0);
          deletes.push_back(json::object{{"DeleteRequest", {{"Key", Key(block, position)}}}});
        }
        if (Status s = BatchWrite(client_, table_, std::move(deletes)); !s.ok()) return s;
      }
      removed += items->size();
    }
  }
  return removed;
}

Result<std::uint64_t> AllIndex::DropInline(const std::map<std::string, std::int64_t>& floors) {
  std::uint64_t dropped = 0;
  if (floors.empty()) return dropped;
  // Chunks with inline events, and the earlier layout's whole-event items
  // (no `n`); not the checkpoint and markers (blocks below 0).
  json::object scan{
      {"TableName", table_},
      {"ConsistentRead", true},
      {"FilterExpression", "#b >= :zero AND (attribute_exists(#e) OR attribute_not_exists(#n))"},
      {"ExpressionAttributeNames", {{"#b", kBlockKey}, {"#e", kInline}, {"#n", kChunkCount}}},
      {"ExpressionAttributeValues", {{":zero", N(0)}}}};
  Status scanned = ScanItems(client_, std::move(scan), [&](const json::object& item) -> Status {
    auto chunk = ParseChunk(item, table_);
    if (!chunk.ok()) return chunk.status();
    Chunk rewritten = *chunk;
    rewritten.entries.clear();
    rewritten.inline_events.clear();
    std::size_t inline_at = 0;
    std::uint64_t turned = 0;
    for (ChunkEntry entry : chunk->entries) {
      const auto n = static_cast<std::size_t>(entry.ref.count);
      if (entry.in_chunk) {
        auto floor = floors.find(entry.ref.stream);
        if (floor != floors.end() && entry.ref.first + entry.ref.count <= floor->second) {
          entry.in_chunk = false;  // a reference, read as removed
          turned += n;
        } else {
          for (std::size_t i = 0; i < n; ++i)
            rewritten.inline_events.push_back(chunk->inline_events[inline_at + i]);
        }
        inline_at += n;
      }
      rewritten.entries.push_back(std::move(entry));
    }
    if (turned == 0) return Status::Ok();
    aws::Reply put =
        client_.Call("PutItem", {{"TableName", table_},
                                 {"Item", ChunkItem(rewritten)},
                                 {"ConditionExpression", "attribute_exists(#p)"},
                                 {"ExpressionAttributeNames", {{"#p", kPositionKey}}}});
    if (!put.ok()) return put.status;
    dropped += turned;
    return Status::Ok();
  });
  if (!scanned.ok()) return scanned;
  return dropped;
}

TagIndex AllIndex::tags() const { return TagIndex(client_, events_table_); }

}  // namespace indelible::dynamodb
