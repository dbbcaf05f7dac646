#include "storage/dynamodb/stream_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <map>

#include "aws/errors.h"
#include "core/clock.h"
#include "core/text.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/tables.h"
#include "store/decide.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

// Rounds of "write, fail, learn the actual tip, write again" before giving
// up; only `any` appends racing on one stream take more than two.
constexpr int kMaxRounds = 64;

json::object TipKey(std::string_view stream) {
  return {{kStreamKey, S(stream)}, {kVersionKey, N(kTipVersion)}};
}

}  // namespace

// One append's part of a commit: what the writer believes of the tip.
struct StreamTable::Write {
  AppendRequest* append = nullptr;
  std::optional<StreamHead> head;  // nullopt: no tip
  bool observed = false;           // head was read, not guessed
  bool keep_timestamps = false;    // import: the events' own timestamps
  bool state_in_items = false;     // the state record goes to snapshot items
  std::optional<AppendResult> replayed;

  std::int64_t first_version() const { return head ? head->version.value() + 1 : 0; }

  // The conditional UpdateItem that appends the events (and the state
  // record) to the tip if the tip is still as `head` says.
  json::object Update(const std::string& table, std::int64_t now) const {
    const StreamHead next = store::Advance(head, *append, Position(0));
    json::object names{{"#h", "head"}, {"#d", "deleted"}};
    json::object values;
    std::string set;
    std::string tail;
    if (!append->events.empty()) {
      const std::int64_t first = first_version();
      json::array envelopes;
      std::int64_t bytes = 0;
      std::int64_t written = now;  // the last event's timestamp
      for (const auto& event : append->events) {
        const std::int64_t at = keep_timestamps && event.timestamp_ms ? *event.timestamp_ms : now;
        envelopes.push_back(json::object{{"M", Envelope(event, at)}});
        bytes += TipBytes(event);
        written = at;
      }
      names["#a"] = AppendAttribute(first);
      names["#b"] = "bytes";
      names["#c"] = "count";
      values[":h"] = N(next.version.value());
      values[":d"] = json::object{{"BOOL", next.deleted}};
      values[":a"] = json::object{{"M", json::object{{"b", N(bytes)}, {"e", {{"L", envelopes}}}}}};
      values[":b"] = N(bytes);
      values[":one"] = N(1);
      // The first id of every append the tip still knows (held, or in the
      // retry window): a retry sent with a fresh expectation, which the
      // head alone would let through, fails on it and is answered from
      // ALL_OLD like any other retry.
      names["#fi"] = "firsts";
      values[":fi"] = json::object{{"SS", json::array{append->events[0].id.ToString()}}};
      values[":fid"] = S(append->events[0].id.ToString());
      names["#w"] = kWrittenAttribute;
      values[":w"] = N(written);
      set = "SET #h = :h, #d = :d, #a = :a, #w = :w";
      tail = " ADD #b :b, #c :one, #fi :fi";
      // `first` changes only when a life starts (new stream, or after a
      // tombstone); a live append need not know it.
      if (!head || head->deleted) {
        names["#f"] = "first";
        values[":f"] = N(next.first_version.value());
        set += ", #f = :f";
      }
    }
    // The state record: in the tip, or in snapshot items that the commit's
    // transaction writes (state_in_items); a delete removes it (store.h).
    // Either way `prev` takes the snapshot the tip named before, so that
    // the writer marks it superseded (MarkSuperseded).
    const bool tombstone = next.deleted && !append->events.empty();
    std::vector<std::string> removes;
    if (append->state || tombstone) {
      auto add_set = [&](std::string_view action) {
        set += set.empty() ? "SET " : ", ";
        set += action;
      };
      names["#st"] = "state";
      names["#sn"] = "snap";
      names["#pv"] = "prev";
      values[":nosnap"] = SnapshotRefAttribute({});
      add_set("#pv = if_not_exists(#sn, :nosnap)");
      if (tombstone) {
        removes = {"#st", "#sn"};
      } else if (state_in_items) {
        values[":sn"] = SnapshotRefAttribute({next.version.value(), SnapshotParts()});
        add_set("#sn = :sn");
        removes = {"#st"};
      } else {
        values[":st"] = StateAttribute(*append->state, next.version.value());
        add_set("#st = :st");
        removes = {"#sn"};
      }
    }
    if (!head) {
      // A new stream: its tip joins the listing index (the one index write
      // a stream costs; later appends leave the index's keys alone).
      names["#lk"] = kListKey;
      values[":lk"] = S(kListValue);
      set += set.empty() ? "SET " : ", ";
      set += "#lk = :lk";
    }
    for (std::size_t i = 0; i < removes.size(); ++i)
      tail += (i == 0 ? " REMOVE " : ", ") + removes[i];
    std::string condition = "attribute_not_exists(#h)";
    if (head) {
      condition = "#h = :eh AND #d = :ed";
      values[":eh"] = N(head->version.value());
      values[":ed"] = json::object{{"BOOL", head->deleted}};
      if (!append->events.empty()) condition += " AND NOT contains(#fi, :fid)";
    } else {
      values.erase(":fid");  // a tip that does not exist knows no ids
    }
    return {{"TableName", table},
            {"Key", TipKey(append->stream)},
            {"UpdateExpression", set + tail},
            {"ConditionExpression", condition},
            {"ExpressionAttributeNames", std::move(names)},
            {"ExpressionAttributeValues", std::move(values)},
            {"ReturnValuesOnConditionCheckFailure", "ALL_OLD"}};
  }

  // Writes (or removes) the state record: a state, or a tombstone.
  bool TouchesState() const {
    return append->state || (!append->events.empty() && store::IsTombstoneAppend(*append));
  }

  std::int64_t SnapshotParts() const {
    const auto bytes = static_cast<std::int64_t>(append->state->data.size());
    return std::max<std::int64_t>(1, (bytes + kSnapshotPartBytes - 1) / kSnapshotPartBytes);
  }

  // The Puts of the snapshot items, for the commit's transaction.
  std::vector<json::object> SnapshotPuts(const std::string& table) const {
    std::vector<json::object> puts;
    if (!state_in_items) return puts;
    const std::int64_t version = store::Advance(head, *append, Position(0)).version.value();
    for (auto& item : SnapshotItems(append->stream, *append->state, version))
      puts.push_back(json::object{{"Put", {{"TableName", table}, {"Item", std::move(item)}}}});
    return puts;
  }

  AppendResult Result() const {
    if (append->events.empty()) return store::StateOnlyResult(*append, *head);
    const auto first = first_version();
    const auto count = static_cast<std::int64_t>(append->events.size());
    return AppendResult{append->stream, StreamVersion(first), StreamVersion(first + count - 1),
                        Position(0),    Position(0),          false};
  }

  // Learns the actual tip (nullopt: none) from a failed write. Returns ok to
  // write again, the original result of a retry (replayed), or the conflict.
  Status Learn(const std::optional<Tip>& tip) {
    observed = true;
    head.reset();
    if (tip) {
      auto retry = store::ClassifyRetry(*append, KnownIds(*tip, *append));
      if (!retry.ok()) return retry.status();
      if (*retry) {
        replayed = **retry;
        // KnownIds put first version + 1 in the positions to tell appends
        // apart; DynamoDB positions come later, from the indexer.
        replayed->first_position = replayed->position = Position(0);
        return Status::Ok();
      }
      head = tip->head;
    }
    return store::CheckExpectation(*append, head);
  }
};

StreamTable::StreamTable(aws::Client& client, StreamTableOptions options)
    : client_(client), options_(std::move(options)) {}

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

Result<CommitResult> StreamTable::Commit(std::vector<AppendRequest> appends,
                                         const CommitOptions& options) {
  std::vector<Write> writes(appends.size());
  bool any_state_in_items = false;
  for (std::size_t i = 0; i < appends.size(); ++i) {
    AppendRequest& append = appends[i];
    if (append.state && static_cast<std::int64_t>(append.state->data.size()) >
                            kSnapshotPartsMax * kSnapshotPartBytes)
      return Status::TooLarge(
          "state", fmt::format("a state record of {} bytes is more than the {} DynamoDB snapshot "
                               "items hold",
                               append.state->data.size(), kSnapshotPartsMax * kSnapshotPartBytes));
    std::int64_t bytes = 0;
    for (const auto& e : append.events) bytes += TipBytes(e);
    if (bytes > options_.max_append_bytes)
      return Status::TooLarge("events", fmt::format("an append of {} bytes is more than the {} "
                                                    "a DynamoDB tip item takes (for now)",
                                                    bytes, options_.max_append_bytes));
    writes[i].append = &append;
    writes[i].keep_timestamps = options.keep_timestamps;
    // A record past what the tip holds beside its events goes to snapshot
    // items, written in the same transaction as the tip.
    writes[i].state_in_items =
        append.state &&
        static_cast<std::int64_t>(append.state->data.size()) > options_.max_state_bytes;
    any_state_in_items = any_state_in_items || writes[i].state_in_items;
    // The guess that makes the common case one request: exactly(N) is
    // believed, no_stream and any bet on a new stream. exists cannot bet
    // (a new stream would be created), so it reads the tip first, and so
    // does a delete (a tombstone on a missing stream is not_found).
    // So does exactly(N) past any version a stream can reach (a probe that
    // only asks whether the append was written already, as entities send).
    const bool impossible_version =
        append.expected.kind() == Expected::Kind::kExactly &&
        append.expected.version().value() >=
            kTipVersion - 1 - static_cast<std::int64_t>(options_.limits.max_append_events);
    const bool must_read =
        append.expected.kind() == Expected::Kind::kExists || impossible_version ||
        (store::IsTombstoneAppend(append) && append.expected.kind() != Expected::Kind::kExactly);
    switch (must_read ? Expected::Kind::kExists : append.expected.kind()) {
      case Expected::Kind::kExactly:
        writes[i].head = StreamHead{append.expected.version(), Position(0), false, {}};
        break;
      case Expected::Kind::kExists: {
        auto tip = ReadTip(append.stream);
        if (!tip.ok() && tip.status().code() != ErrorCode::kNotFound) return tip.status();
        if (Status s = writes[i].Learn(tip.ok() ? std::optional(*tip) : std::nullopt); !s.ok())
          return s;
        break;
      }
      default:
        break;
    }
  }

  bool moved_for_size = false;
  for (int round = 0; round < kMaxRounds; ++round) {
    std::vector<Write*> pending;
    for (auto& w : writes)
      if (!w.replayed) pending.push_back(&w);
    if (pending.size() != writes.size() && !pending.empty()) {
      auto retried = std::find_if(writes.begin(), writes.end(),
                                  [](const Write& w) { return w.replayed.has_value(); });
      return store::MixedRetryConflict(*retried->append);
    }
    if (pending.empty()) {
      CommitResult result;
      for (auto& w : writes) result.appends.push_back(*w.replayed);
      return result;
    }

    const std::int64_t now = UnixMillisNow();
    aws::Reply reply;
    const bool single_update = writes.size() == 1 && !any_state_in_items;
    std::vector<Write*> update_of_item;  // the transaction's items: whose Update (or null)
    if (single_update) {
      json::object update = writes[0].Update(options_.table, now);
      // The tip's size comes back with the write: no read to decide a move.
      update["ReturnValues"] = "UPDATED_NEW";
      reply = client_.Call("UpdateItem", update);
    } else {
      json::array items;
      for (auto& w : writes) {
        items.push_back(json::object{{"Update", w.Update(options_.table, now)}});
        update_of_item.push_back(&w);
        for (auto& put : w.SnapshotPuts(options_.table)) {
          items.push_back(std::move(put));
          update_of_item.push_back(nullptr);
        }
      }
      reply = client_.Call("TransactWriteItems", {{"TransactItems", std::move(items)}});
      if (reply.error_type == "UnknownOperationException")
        return aws::Annotate(
            reply.status, any_state_in_items
                              ? fmt::format("a state record past {} bytes is written as snapshot "
                                            "items with TransactWriteItems (DynamoDB, DynamoDB "
                                            "Local); this endpoint (dynalite?) has no transactions",
                                            options_.max_state_bytes)
                              : "a commit to several streams needs TransactWriteItems (DynamoDB, "
                                "DynamoDB Local); this endpoint (dynalite?) has no transactions");
    }

    if (reply.ok()) {
      CommitResult result;
      for (auto& w : writes) result.appends.push_back(w.Result());
      AfterCommit(writes, single_update ? reply.body.if_contains("Attributes") : nullptr);
      return result;
    }

    if (reply.status.code() == ErrorCode::kTooLarge && !moved_for_size) {
      // The tip outgrew an item (a move was missed, or transactions, which
      // return no sizes, grew it): move its events out and write again.
      moved_for_size = true;
      for (auto& w : writes) {
        auto moved = MoveOutOfTip(w.append->stream);
        if (!moved.ok() && moved.status().code() != ErrorCode::kNotFound) return moved.status();
      }
      continue;
    }
    if (reply.status.code() != ErrorCode::kConflict) return reply.status;

    // Which writes failed their condition, with the actual tips (ALL_OLD).
    std::vector<aws::CancellationReason> reasons;  // owns the transaction's items
    std::vector<std::pair<Write*, const json::object*>> failed;
    if (single_update) {
      const auto* item = reply.body.if_contains("Item");
      failed.emplace_back(&writes[0],
                          item != nullptr && item->is_object() ? &item->get_object() : nullptr);
    } else {
      reasons = aws::CancellationReasons(reply.body);
      for (std::size_t i = 0; i < reasons.size() && i < update_of_item.size(); ++i)
        if (reasons[i].code == "ConditionalCheckFailed" && update_of_item[i] != nullptr)
          failed.emplace_back(update_of_item[i], &reasons[i].item);
      if (failed.empty()) return reply.status;
    }
    for (auto& [w, item] : failed) {
      std::optional<Tip> tip;
      if (item != nullptr && !item->empty()) {
        auto parsed = ParseTip(w->append->stream, *item);
        if (!parsed.ok()) return parsed.status();
        tip = std::move(*parsed);
      } else {
        // No Item: the tip is missing, or the endpoint ignores ALL_OLD
        // (dynalite). One read tells which.
        auto read = ReadTip(w->append->stream);
        if (!read.ok() && read.status().code() != ErrorCode::kNotFound) return read.status();
        if (read.ok()) tip = std::move(*read);
      }
      if (Status s = w->Learn(tip); !s.ok()) return s;
    }
  }
  return Status::Unavailable(
      fmt::format("{} rounds of conflicting writers on the same streams; "
                  "try again",
                  kMaxRounds));
}

void StreamTable::AfterCommit(std::vector<Write>& writes, const json::value* attributes) {
  for (auto& w : writes) {
    json::object read;
    const json::object* attrs = nullptr;
    if (attributes != nullptr && attributes->is_object()) {
      attrs = &attributes->get_object();
    } else if (w.TouchesState() || writes.size() == 1) {
      aws::Reply reply = client_.Call(
          "GetItem",
          {{"TableName", options_.table},
           {"Key", TipKey(w.append->stream)},
           {"ConsistentRead", true},
           {"ProjectionExpression", "#b, #c, #pv"},
           {"ExpressionAttributeNames", {{"#b", "bytes"}, {"#c", "count"}, {"#pv", "prev"}}}});
      const auto* item = reply.ok() ? reply.body.if_contains("Item") : nullptr;
      if (item != nullptr && item->is_object()) {
        read = item->get_object();
        attrs = &read;
      }
    }
    if (attrs == nullptr) continue;
    // Multi-stream commits learn of a tip too large from the write that
    // fails (Commit moves then); a single append moves as soon as it grew.
    if (writes.size() == 1 && (GetN(*attrs, "bytes").value_or(0) > options_.spill_bytes ||
                               GetN(*attrs, "count").value_or(0) > options_.spill_appends))
      (void)MoveOutOfTip(w.append->stream);
    if (!w.TouchesState()) continue;
    auto prev = ParseSnapshotRef(*attrs, "prev");
    if (!prev || prev->version < 0) continue;
    // A state rewritten at the same version into snapshot items overwrote
    // the same keys: only parts past the new count are left over.
    const std::int64_t version = store::Advance(w.head, *w.append, Position(0)).version.value();
    const std::int64_t from_part =
        w.state_in_items && prev->version == version ? w.SnapshotParts() : 0;
    MarkSuperseded(w.append->stream, *prev, from_part);
  }
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

Result<StreamHead> StreamTable::Head(std::string_view stream) {
  aws::Reply reply = client_.Call(
      "GetItem",
      {{"TableName", options_.table},
       {"Key", TipKey(stream)},
       {"ConsistentRead", true},
       {"ProjectionExpression", "#h, #f, #d"},
       {"ExpressionAttributeNames", {{"#h", "head"}, {"#f", "first"}, {"#d", "deleted"}}}});
  if (!reply.ok()) return reply.status;
  const auto* item = reply.body.if_contains("Item");
  if (item == nullptr || !item->is_object())
    return Status::NotFound(fmt::format("stream '{}' does not exist", Printable(stream)));
  auto tip = ParseTip(stream, item->get_object());
  if (!tip.ok()) return tip.status();
  return StreamHead{tip->head.version, Position(0), tip->head.deleted, tip->head.first_version};
}

Result<std::optional<StateRecord>> StreamTable::ReadState(std::string_view stream) {
  aws::Reply reply = client_.Call(
      "GetItem",
      {{"TableName", options_.table},
       {"Key", TipKey(stream)},
       {"ConsistentRead", true},
       {"ProjectionExpression", "#h, #f, #d, #st, #sn"},
       {"ExpressionAttributeNames",
        {{"#h", "head"}, {"#f", "first"}, {"#d", "deleted"}, {"#st", "state"}, {"#sn", "snap"}}}});
  if (!reply.ok()) return reply.status;
  const auto* item = reply.body.if_contains("Item");
  if (item == nullptr || !item->is_object()) return std::optional<StateRecord>();
  auto tip = ParseTip(stream, item->get_object());
  if (!tip.ok()) return tip.status();
  if (Status s = LoadSnapshot(stream, *tip); !s.ok()) return s;
  return std::move(tip->state);
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

Result<std::vector<RecordedEvent>> StreamTable::ReadStream(std::string_view stream,
                                                           StreamVersion from, std::size_t limit,
                                                           std::optional<StreamHead>* head) {
  if (head != nullptr) head->reset();
  if (limit == 0) return std::vector<RecordedEvent>();
  const std::int64_t start = from.value();
  // A Query is not a snapshot: a move that runs while it reads could put
  // events in items behind it and drop them from the tip before it gets
  // there. Versions have no gaps, so a gap is seen and the Query repeated.
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::map<std::int64_t, RecordedEvent> events;  // by version: a moved event counts once
    std::optional<Tip> tip;
    // Events [start, start + n) already in hand without a gap.
    auto contiguous = [&] {
      std::size_t n = 0;
      for (auto it = events.find(start);
           it != events.end() && it->first == start + static_cast<std::int64_t>(n); ++it)
        ++n;
      return n;
    };
    json::object request{{"TableName", options_.table},
                         {"ConsistentRead", true},
                         {"KeyConditionExpression", "#s = :s AND #v >= :from"},
                         {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
                         {"ExpressionAttributeValues", {{":s", S(stream)}, {":from", N(start)}}}};
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
        auto event = ParseEventItem(item);
        if (!event.ok()) return event.status();
        events.emplace(event->version.value(), std::move(*event));
      }
      const auto* next = reply.body.if_contains("LastEvaluatedKey");
      if (next == nullptr || tip || contiguous() >= limit) break;
      request["ExclusiveStartKey"] = *next;
    }
    if (head != nullptr && tip)
      head->emplace(
          StreamHead{tip->head.version, Position(0), tip->head.deleted, tip->head.first_version});
    if (!tip && contiguous() >= limit) {
      tip.emplace();  // enough events from items alone; the tip is not needed
      tip->head.version = StreamVersion(start + static_cast<std::int64_t>(limit) - 1);
    } else if (!tip) {
      if (events.empty())
        return Status::NotFound(fmt::format("stream '{}' does not exist", Printable(stream)));
      continue;  // items without a tip cannot be: read again
    }
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
  return Status::Internal(fmt::format(
      "stream '{}': versions missing after 5 reads (a corrupt table?)", Printable(stream)));
}

}  // namespace indelible::dynamodb
