// StreamTable::Commit on append items (docs/DYNAMODB.md, "Append items"):
// each append is an item of its own, put at the stream's next version on
// condition that nothing is there. What the writer believes the head to be
// comes from the HeadCache, or from one Query of the stream's newest items
// (Observe); a write that fails its condition shows the item in the way
// (ALL_OLD), which is either the append itself (a retry: its original
// result) or another writer's, after which the writer reads the stream
// again and decides anew.
#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "aws/errors.h"
#include "core/clock.h"
#include "core/text.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/scavenge.h"
#include "storage/dynamodb/stream_table.h"
#include "storage/dynamodb/tag_index.h"
#include "store/decide.h"
#include "store/query.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

// Rounds of "write, fail, read the stream, write again" before giving up;
// only writers racing on one stream take more than two.
constexpr int kMaxRounds = 64;

json::object ItemKey(std::string_view stream, std::int64_t version) {
  return {{kStreamKey, S(stream)}, {kVersionKey, N(version)}};
}

}  // namespace

// One append's part of a commit.
struct StreamTable::Write {
  AppendRequest* append = nullptr;
  bool keep_timestamps = false;  // import: the events' own timestamps
  std::int64_t start = 0;        // a new stream's first version (CommitOptions::start_version)
  bool state_in_items = false;   // the state record goes to snapshot items
  // What the writer believes of the stream; nullopt: to be read.
  std::optional<StreamView> view;
  bool observed = false;  // view was read during this commit, not taken from the cache
  std::optional<AppendResult> replayed;
  std::optional<StreamHead> head;  // from view: nullopt for a new stream

  bool state_only() const { return append->events.empty(); }
  std::int64_t first_version() const { return head ? head->version.value() + 1 : start; }
  StreamHead Next() const { return store::Advance(head, *append, Position(0), start); }

  std::int64_t SnapshotParts() const {
    const auto bytes = static_cast<std::int64_t>(append->state->data.size());
    return std::max<std::int64_t>(1, (bytes + kSnapshotPartBytes - 1) / kSnapshotPartBytes);
  }

  // The state attribute of the item that carries the record: {name, value}.
  std::optional<std::pair<std::string_view, json::object>> StateAttr() const {
    if (!append->state) return std::nullopt;
    const std::int64_t version = Next().version.value();
    if (state_in_items)
      return std::pair(std::string_view("snap"), SnapshotRefAttribute({version, SnapshotParts()}));
    return std::pair(std::string_view("state"), StateAttribute(*append->state, version));
  }

  // The append item, put on condition that no item has its key.
  json::object Put(const std::string& table, std::int64_t now) const {
    std::vector<RecordedEvent> events;
    events.reserve(append->events.size());
    std::int64_t version = first_version();
    for (const auto& e : append->events) {
      RecordedEvent r;
      r.stream = append->stream;
      r.version = StreamVersion(version++);
      r.id = e.id;
      r.type = e.type;
      r.schema = e.schema;
      r.data = e.data;
      r.content_type = e.content_type;
      r.metadata = e.metadata;
      r.tags = e.tags;
      r.timestamp_ms = keep_timestamps && e.timestamp_ms ? *e.timestamp_ms : now;
      events.push_back(std::move(r));
    }
    json::object item = MakeAppendItem(events, Next().first_version.value());
    // A new stream's first item (version 0's, or an import's first past
    // it) joins the listing index: the one index write a stream costs
    // (later items carry no index key).
    if (!head) item[kListKey] = S(kListValue);
    if (auto state = StateAttr()) item[state->first] = std::move(state->second);
    return {{"TableName", table},
            {"Item", std::move(item)},
            {"ConditionExpression", "attribute_not_exists(#v)"},
            {"ExpressionAttributeNames", {{"#v", kVersionKey}}},
            {"ReturnValuesOnConditionCheckFailure", "ALL_OLD"}};
  }

  // A state-only append: the record goes on the newest item, on condition
  // that no append came after it (a ConditionCheck of the next version's
  // key in the same transaction).
  std::vector<json::object> StateOnly(const std::string& table) const {
    auto state = StateAttr();
    const char* other = state->first == "snap" ? "state" : "snap";
    json::object check{{"TableName", table},
                       {"Key", ItemKey(append->stream, head->version.value() + 1)},
                       {"ConditionExpression", "attribute_not_exists(#v)"},
                       {"ExpressionAttributeNames", {{"#v", kVersionKey}}}};
    json::object update{{"TableName", table},
                        {"Key", ItemKey(append->stream, view->last_first)},
                        {"UpdateExpression", "SET #st = :st REMOVE #other"},
                        {"ConditionExpression", "attribute_exists(#v)"},
                        {"ExpressionAttributeNames",
                         {{"#v", kVersionKey}, {"#st", state->first}, {"#other", other}}},
                        {"ExpressionAttributeValues", {{":st", std::move(state->second)}}}};
    return {json::object{{"ConditionCheck", std::move(check)}},
            json::object{{"Update", std::move(update)}}};
  }

  // The Puts of the snapshot items, for the commit's transaction.
  std::vector<json::object> SnapshotPuts(const std::string& table) const {
    std::vector<json::object> puts;
    if (!state_in_items) return puts;
    for (auto& item : SnapshotItems(append->stream, *append->state, Next().version.value()))
      puts.push_back(json::object{{"Put", {{"TableName", table}, {"Item", std::move(item)}}}});
    return puts;
  }

  AppendResult Outcome() const {
    if (state_only()) return store::StateOnlyResult(*append, *head);
    const auto first = first_version();
    const auto count = static_cast<std::int64_t>(append->events.size());
    return AppendResult{append->stream, StreamVersion(first), StreamVersion(first + count - 1),
                        Position(0),    Position(0),          false};
  }

  // Whether these appends hold this one, written before (an idempotent
  // retry): sets `replayed` and returns true; a conflict if only some ids
  // are known, or known from different appends.
  Result<bool> IsOwn(const std::vector<WindowAppend>& appends) {
    std::vector<std::optional<store::IdRecord>> known;
    for (const auto& e : append->events) {
      std::optional<store::IdRecord> record;
      for (const auto& a : appends)
        if (std::find(a.ids.begin(), a.ids.end(), e.id) != a.ids.end()) {
          record.emplace();
          record->stream = append->stream;
          // ClassifyRetry tells appends apart by their first position; on
          // DynamoDB positions come later, so the first version + 1 stands in.
          record->append_first_position = Position(static_cast<std::uint64_t>(a.first) + 1);
          record->append_first_version = StreamVersion(a.first);
          record->append_count = static_cast<std::uint32_t>(a.ids.size());
        }
      known.push_back(std::move(record));
    }
    auto retry = store::ClassifyRetry(*append, known);
    if (!retry.ok()) return retry.status();
    if (!*retry) return false;
    replayed = **retry;
    replayed->first_position = replayed->position = Position(0);
    return true;
  }

  Result<bool> IsOwn(const AppendItem& item) {
    WindowAppend stored{item.first, {}};
    for (const auto& e : item.events) stored.ids.push_back(e.id);
    return IsOwn(std::vector<WindowAppend>{std::move(stored)});
  }
};

// A commit's counters: per tag, what its events add (0: none) and, when
// the condition names the tag, the count the counter must still hold.
struct StreamTable::TagWrites {
  struct Counter {
    std::int64_t add = 0;
    std::optional<std::int64_t> expect;
    std::vector<std::string> types;  // the condition item's (empty: any type)
  };
  std::map<std::string, Counter> counters;
  std::int64_t after = 0;  // the condition's position (0: none given)

  bool conditioned() const {
    return std::any_of(counters.begin(), counters.end(),
                       [](const auto& c) { return c.second.expect.has_value(); });
  }

  // The counter items for the commit's transaction.
  std::vector<json::object> Items(const std::string& table) const {
    std::vector<json::object> items;
    for (const auto& [tag, counter] : counters) {
      json::object op{
          {"TableName", table},
          {"Key", {{kStreamKey, S(TagPartition(tag))}, {kVersionKey, N(kTagCounterVersion)}}}};
      json::object names{{"#c", kTagCounterAttribute}};
      json::object values;
      if (counter.expect) {
        op["ConditionExpression"] = *counter.expect == 0 ? "attribute_not_exists(#c)" : "#c = :k";
        if (*counter.expect != 0) values[":k"] = N(*counter.expect);
        op["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD";
      }
      if (counter.add > 0) {
        op["UpdateExpression"] = "ADD #c :n";
        values[":n"] = N(counter.add);
      }
      op["ExpressionAttributeNames"] = std::move(names);
      if (!values.empty()) op["ExpressionAttributeValues"] = std::move(values);
      items.push_back(json::object{{counter.add > 0 ? "Update" : "ConditionCheck", std::move(op)}});
    }
    return items;
  }
};

Result<StreamTable::TagWrites> StreamTable::PlanTags(const std::vector<AppendRequest>& appends,
                                                     const CommitOptions& options) {
  TagWrites plan;
  for (const auto& append : appends)
    for (const auto& event : append.events)
      for (const auto& tag : event.tags) ++plan.counters[tag].add;
  if (!options.condition) return plan;
  const AppendCondition& condition = *options.condition;
  const Query& query = condition.fail_if_events_match;
  // Positions come after the commit here: the condition is checked on the
  // tags' counters, so every item needs a tag.
  if (query.matches_all())
    return Status::Invalid(
        "condition.failIfEventsMatch",
        "on DynamoDB a condition is checked on its tags' counters, and a query without items has "
        "no tag: name a tag in every item (docs/DYNAMODB.md)");
  for (std::size_t i = 0; i < query.items.size(); ++i)
    if (query.items[i].tags.empty())
      return Status::Invalid(
          fmt::format("condition.failIfEventsMatch.items[{}]", i),
          "on DynamoDB a condition is checked on its tags' counters, and this item has types "
          "only: name a tag in every item (docs/DYNAMODB.md)");
  TagIndex index(client_, options_.table);
  // One tag stands for an item (every event it matches carries it): the
  // rarest, which the fewest unrelated events will move.
  std::vector<std::string> named;
  for (const auto& item : query.items)
    if (item.tags.size() > 1) named.insert(named.end(), item.tags.begin(), item.tags.end());
  std::map<std::string, std::int64_t> counts;
  if (!named.empty()) {
    auto read = index.Counters(named);
    if (!read.ok()) return read.status();
    counts = std::move(*read);
  }
  plan.after = condition.after ? static_cast<std::int64_t>(condition.after->value()) : 0;
  for (const auto& item : query.items) {
    const std::string* chosen = &item.tags.front();
    for (const auto& tag : item.tags)
      if (counts[tag] < counts[*chosen]) chosen = &tag;
    TagWrites::Counter& counter = plan.counters[*chosen];
    if (counter.expect) {
      // Two items on one tag: the check is the same; the position search
      // takes any type if either does.
      if (counter.types.empty() || item.types.empty()) {
        counter.types.clear();
      } else {
        counter.types.insert(counter.types.end(), item.types.begin(), item.types.end());
      }
      continue;
    }
    counter.types = item.types;
    if (plan.after == 0) {
      counter.expect = 0;
    } else {
      auto k = index.CountThrough(*chosen, plan.after);
      if (!k.ok()) return k.status();
      counter.expect = *k;
    }
  }
  return plan;
}

Position StreamTable::ConditionPosition(const TagWrites& tags, std::int64_t after) {
  // The event that broke the condition may not be indexed yet: the index
  // is waited for, briefly, until it lists as many events of the tag as
  // its counter held when the check failed. Failures only.
  TagIndex index(client_, options_.table);
  std::vector<std::string> names;
  for (const auto& [tag, counter] : tags.counters)
    if (counter.expect) names.push_back(tag);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (;;) {
    auto counts = index.Counters(names);
    std::optional<std::int64_t> best;      // the first event of a condition type
    std::optional<std::int64_t> any_type;  // the first event of a condition tag
    bool complete = counts.ok();
    for (const auto& tag : names) {
      if (!counts.ok()) break;
      const TagWrites::Counter& counter = tags.counters.at(tag);
      auto start = index.PageAtOrBefore(tag, after + 1);
      std::int64_t from = start.ok() && *start ? (*start)->position : after + 1;
      std::int64_t indexed = 0;
      for (int reads = 0; reads < 8; ++reads) {
        auto pages = index.Pages(tag, from, true, 4);
        if (!pages.ok() || pages->empty()) break;
        for (const TagPage& page : *pages) {
          indexed = page.k();
          for (const TagEntry& entry : page.entries) {
            if (entry.position <= after) continue;
            if (!any_type || entry.position < *any_type) any_type = entry.position;
            const bool typed = counter.types.empty() ||
                               std::find(counter.types.begin(), counter.types.end(), entry.type) !=
                                   counter.types.end();
            if (typed && (!best || entry.position < *best)) best = entry.position;
          }
        }
        from = pages->back().position + 1;
        if (best) break;
      }
      if (indexed == 0) {
        auto k = index.CountThrough(tag, after);
        indexed = k.ok() ? *k : 0;
      }
      if (!best && indexed < counts->at(tag)) complete = false;
    }
    if (best) return Position(static_cast<std::uint64_t>(*best));
    if (complete || std::chrono::steady_clock::now() >= deadline)
      return Position(static_cast<std::uint64_t>(any_type.value_or(after + 1)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Result<std::optional<AppendItem>> StreamTable::GetAppend(std::string_view stream,
                                                         std::int64_t first) {
  aws::Reply reply = client_.Call(
      "GetItem",
      {{"TableName", options_.table}, {"Key", ItemKey(stream, first)}, {"ConsistentRead", true}});
  if (!reply.ok()) return reply.status;
  const auto* item = reply.body.if_contains("Item");
  if (item == nullptr || !item->is_object()) return std::optional<AppendItem>();
  auto parsed = ParseAppendItem(item->get_object());
  if (!parsed.ok()) return parsed.status();
  return std::optional<AppendItem>(std::move(*parsed));
}

Status StreamTable::Refresh(Write& w) {
  // A stream that still has a tip is converted first: this release writes
  // append items only.
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto view = Observe(w.append->stream);
    if (!view.ok()) return view.status();
    if (!view->legacy) {
      w.view = std::move(*view);
      w.observed = true;
      return Status::Ok();
    }
    auto converted = ConvertStream(w.append->stream);
    if (!converted.ok()) return converted.status();
  }
  return Status::Unavailable(fmt::format(
      "stream '{}' kept its tip through three conversions: a writer of an earlier release "
      "is still writing it (upgrade every process)",
      Printable(w.append->stream)));
}

Result<CommitResult> StreamTable::Commit(std::vector<AppendRequest> appends,
                                         const CommitOptions& options) {
  std::vector<Write> writes(appends.size());
  bool any_transaction = appends.size() > 1;
  for (std::size_t i = 0; i < appends.size(); ++i) {
    AppendRequest& append = appends[i];
    if (IsTagPartition(append.stream))
      return Status::Invalid("stream", fmt::format("'{}': streams named {}... hold the tag index "
                                                   "on DynamoDB",
                                                   Printable(append.stream), kTagPartitionPrefix));
    if (append.state && static_cast<std::int64_t>(append.state->data.size()) >
                            kSnapshotPartsMax * kSnapshotPartBytes)
      return Status::TooLarge(
          "state", fmt::format("a state record of {} bytes is more than the {} DynamoDB snapshot "
                               "items hold",
                               append.state->data.size(), kSnapshotPartsMax * kSnapshotPartBytes));
    const std::int64_t bytes = AppendItemBytes(append.events);
    if (bytes > options_.max_append_bytes)
      return Status::TooLarge("events", fmt::format("an append of {} bytes is more than the {} "
                                                    "a DynamoDB append item takes (for now)",
                                                    bytes, options_.max_append_bytes));
    Write& w = writes[i];
    w.append = &append;
    w.keep_timestamps = options.keep_timestamps;
    w.start = options.start_version.value_or(StreamVersion(0)).value();
    // A record past what an item holds beside its events goes to snapshot
    // items, written in the same transaction.
    w.state_in_items = append.state && static_cast<std::int64_t>(append.state->data.size()) >
                                           options_.max_state_bytes;
    if (w.state_in_items || append.events.empty()) any_transaction = true;
    w.view = cache_.Get(append.stream);
    // The bet that makes a new stream one request: no_stream and any
    // (not a tombstone) on a stream this process knows nothing of. Not on a
    // table that may still hold tips (a stream whose first events are in
    // its tip has no item at version 0 to refuse the bet).
    const auto kind = append.expected.kind();
    // An import that starts a stream past 0 reads the stream first (an
    // item at its first version proves nothing about those below), and
    // gives it the floor a scavenge would have left (scavenge.h), so that
    // readers step over the versions below. The floor only rises, and
    // means nothing while the items below it exist: harmless when the
    // commit then fails.
    if (w.start > 0) {
      w.view.reset();
      json::object floor{{kStreamKey, S(append.stream)},
                         {kVersionKey, N(kFloorVersion)},
                         {kFloorAttribute, N(w.start)}};
      aws::Reply put = client_.Call(
          "PutItem", {{"TableName", options_.table},
                      {"Item", std::move(floor)},
                      {"ConditionExpression", "attribute_not_exists(#v) OR #f < :f"},
                      {"ExpressionAttributeNames", {{"#v", kVersionKey}, {"#f", kFloorAttribute}}},
                      {"ExpressionAttributeValues", {{":f", N(w.start)}}}});
      if (!put.ok() && put.status.code() != ErrorCode::kConflict) return put.status;
    }
    if (!w.view && w.start == 0 && !options_.legacy_tips_possible &&
        !store::IsTombstoneAppend(append) && !append.events.empty() &&
        (kind == Expected::Kind::kNoStream || kind == Expected::Kind::kAny))
      w.view = StreamView{};
  }

  auto tags = PlanTags(appends, options);
  if (!tags.ok()) return tags.status();
  std::vector<json::object> counter_items = tags->Items(options_.table);
  if (!counter_items.empty()) {
    any_transaction = true;
    std::size_t items = counter_items.size();
    for (const auto& w : writes)
      items += (w.state_only() ? 2 : 1) + (w.state_in_items ? w.SnapshotParts() : 0);
    if (items > kMaxTransactItems)
      return Status::Invalid(
          "events", fmt::format("a commit on DynamoDB is one transaction of at most {} items: its "
                                "appends, snapshot parts and one counter per tag its events "
                                "carry or its condition names; this one needs {}",
                                kMaxTransactItems, items));
  }
  std::minstd_rand jitter(std::random_device{}());

  for (int round = 0; round < kMaxRounds; ++round) {
    bool again = false;
    for (auto& w : writes) {
      if (w.replayed) continue;
      if (!w.view)
        if (Status s = Refresh(w); !s.ok()) return s;
      w.head = w.view->exists ? std::optional(w.view->head) : std::nullopt;
      // A retry (of all or part of an append), recognised by its ids among
      // the newest appends'.
      if (!w.append->events.empty()) {
        auto own = w.IsOwn(w.view->window);
        if (!own.ok()) return own.status();
        if (*own) continue;
      }
      Status expected = store::CheckExpectation(*w.append, w.head, w.start > 0);
      if (expected.ok()) continue;
      // The cache may be behind: what the stream holds decides.
      if (!w.observed && expected.code() == ErrorCode::kConflict) {
        w.view.reset();
        again = true;
        continue;
      }
      return expected;
    }
    if (again) continue;

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
    std::vector<Write*> owner_of_item;  // the transaction's items: whose (null: snapshot parts)
    std::size_t counters_from = 0;      // the tags' counters follow the appends' items
    if (!any_transaction) {
      reply = client_.Call("PutItem", writes[0].Put(options_.table, now));
    } else {
      json::array items;
      for (auto& w : writes) {
        if (w.state_only()) {
          for (auto& op : w.StateOnly(options_.table)) {
            items.push_back(std::move(op));
            owner_of_item.push_back(&w);
          }
        } else {
          items.push_back(json::object{{"Put", w.Put(options_.table, now)}});
          owner_of_item.push_back(&w);
        }
        for (auto& put : w.SnapshotPuts(options_.table)) {
          items.push_back(std::move(put));
          owner_of_item.push_back(nullptr);
        }
      }
      counters_from = items.size();
      for (const auto& counter : counter_items) items.push_back(counter);
      reply = client_.Call("TransactWriteItems", {{"TransactItems", std::move(items)}});
      if (reply.error_type == "UnknownOperationException") {
        const bool record_in_items = std::any_of(writes.begin(), writes.end(),
                                                 [](const Write& w) { return w.state_in_items; });
        const bool record_alone = std::any_of(writes.begin(), writes.end(),
                                              [](const Write& w) { return w.state_only(); });
        return aws::Annotate(
            reply.status,
            record_in_items
                ? fmt::format("a state record past {} bytes is written as snapshot items with "
                              "TransactWriteItems (DynamoDB, DynamoDB Local); this endpoint "
                              "(dynalite?) has no transactions",
                              options_.max_state_bytes)
            : record_alone ? std::string("a state record without events is written with "
                                         "TransactWriteItems (DynamoDB, DynamoDB Local); this "
                                         "endpoint (dynalite?) has no transactions")
                           : std::string("a commit to several streams needs TransactWriteItems "
                                         "(DynamoDB, DynamoDB Local); this endpoint (dynalite?) "
                                         "has no transactions"));
      }
    }

    if (reply.ok()) {
      CommitResult result;
      for (auto& w : writes) result.appends.push_back(w.Outcome());
      for (auto& w : writes) Remember(w);
      return result;
    }
    std::vector<aws::CancellationReason> reasons;  // owns the transaction's items
    if (any_transaction && reply.error_type == "TransactionCanceledException")
      reasons = aws::CancellationReasons(reply.body);
    if (reply.status.code() != ErrorCode::kConflict) {
      // Another transaction held a counter (commits of one tag at once):
      // nothing was written; again after a short random wait.
      const bool raced = std::any_of(reasons.begin(), reasons.end(),
                                     [](const auto& r) { return r.code == "TransactionConflict"; });
      if (!raced) return reply.status;
      std::this_thread::sleep_for(std::chrono::milliseconds(1 + jitter() % (5 + 5 * round)));
      continue;
    }

    // Which writes failed their condition, with the item in the way.
    std::vector<std::pair<Write*, const json::object*>> failed;
    bool condition_failed = false;
    if (!any_transaction) {
      const auto* item = reply.body.if_contains("Item");
      failed.emplace_back(&writes[0],
                          item != nullptr && item->is_object() ? &item->get_object() : nullptr);
    } else {
      for (std::size_t i = 0; i < reasons.size() && i < owner_of_item.size(); ++i)
        if (reasons[i].code == "ConditionalCheckFailed" && owner_of_item[i] != nullptr)
          failed.emplace_back(owner_of_item[i], &reasons[i].item);
      for (std::size_t i = counters_from; i < reasons.size(); ++i)
        condition_failed |= reasons[i].code == "ConditionalCheckFailed";
      // A refused append is decided first (a retry, an expectation); the
      // condition only when the appends themselves would go in.
      if (failed.empty() && condition_failed)
        return store::ConditionFailed(ConditionPosition(*tags, tags->after));
      if (failed.empty()) return reply.status;
    }
    for (auto& [w, item] : failed) {
      std::optional<AppendItem> there;
      if (!w->state_only()) {
        if (item != nullptr && !item->empty()) {
          auto parsed = ParseAppendItem(*item);
          if (!parsed.ok()) return parsed.status();
          there = std::move(*parsed);
        } else {
          // No Item: the endpoint ignores ALL_OLD (dynalite). One read.
          auto read = GetAppend(w->append->stream, w->first_version());
          if (!read.ok()) return read.status();
          there = std::move(*read);
        }
      }
      if (there) {
        auto own = w->IsOwn(*there);
        if (!own.ok()) return own.status();
        if (*own) continue;
      }
      w->view.reset();  // another writer's: read the stream again
    }
  }
  return Status::Unavailable(
      fmt::format("{} rounds of conflicting writers on the same streams; try again", kMaxRounds));
}

void StreamTable::Remember(Write& w) {
  StreamView view = w.view ? *w.view : StreamView{};
  const std::optional<SnapshotRef> superseded = view.snapshot;
  view.exists = true;
  view.legacy = false;
  view.head = w.Next();
  view.head.position = Position(0);  // positions come from the indexer
  if (!w.state_only()) {
    view.last_first = w.first_version();
    WindowAppend written{w.first_version(), {}};
    for (const auto& e : w.append->events) written.ids.push_back(e.id);
    view.window.push_back(std::move(written));
    TrimWindow(view.window);
  }
  const bool tombstone = !w.state_only() && store::IsTombstoneAppend(*w.append);
  if (w.append->state || tombstone) {
    view.snapshot = w.state_in_items
                        ? std::optional(SnapshotRef{view.head.version.value(), w.SnapshotParts()})
                        : std::nullopt;
    // The snapshot this record replaced, if the writer knew of one, gets
    // its TTL. A record rewritten at the same version into snapshot items
    // overwrote the same keys: only parts past the new count are left over.
    if (superseded && superseded->version >= 0) {
      const std::int64_t from_part =
          w.state_in_items && superseded->version == view.head.version.value() ? w.SnapshotParts()
                                                                               : 0;
      MarkSuperseded(w.append->stream, *superseded, from_part);
    }
  }
  cache_.Put(w.append->stream, view);
}

}  // namespace indelible::dynamodb
