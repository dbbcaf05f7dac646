// Operation: the Store calls of a DynamoDB store, in requests.
//   Commit      one UpdateItem on the tip (one stream) or one
//               TransactWriteItems (several); see stream_table.h
//   ReadStream  one Query (stream from `from` up to its tip), plus a GetItem
//               of the head when the Query stopped before the tip
//   Head        one GetItem; ReadState one GetItem
//   ListStreams a page: one Query of the listing index, one BatchGetItem
//               of the tips per 100 streams
//   ReadAll     Queries of the $all table, a page at a time
//   checkpoints one request each on <prefix>checkpoints
// Positions come from the indexer (indexer.h): AppendResult and stream
// reads carry position 0, $all reads the indexed positions.
#include "storage/dynamodb/dynamodb_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <random>
#include <thread>
#include <tuple>

#include "aws/client.h"
#include "core/clock.h"
#include "core/event_json.h"
#include "core/mutex.h"
#include "core/text.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/cursors.h"
#include "storage/dynamodb/deploy.h"
#include "storage/dynamodb/indexer.h"
#include "storage/dynamodb/scavenge.h"
#include "storage/dynamodb/store_url.h"
#include "storage/dynamodb/stream_table.h"
#include "storage/dynamodb/tables.h"
#include "storage/dynamodb/tag_index.h"
#include "storage/dynamodb/tip.h"
#include "store/commit_queue.h"
#include "store/parallel_commits.h"
#include "store/records.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

constexpr std::string_view kNameKey = kCheckpointNameKey;

// The change stream's endpoint: AWS serves it on a host of its own
// (streams.dynamodb.REGION.amazonaws.com); emulators on the same one.
net::Endpoint StreamsEndpoint(const net::Endpoint& endpoint) {
  if (!endpoint.host.starts_with("dynamodb.") || !endpoint.host.ends_with(".amazonaws.com"))
    return endpoint;
  auto streams = net::MakeEndpoint(endpoint.tls, "streams." + endpoint.host, endpoint.port, "url");
  return streams.ok() ? *streams : endpoint;
}

// The layout marker's value for append items (docs/DYNAMODB.md).
constexpr std::int64_t kAppendItemsLayout = 2;

Status MarkLayout(aws::Client& client, const std::string& all_table) {
  return client
      .Call("PutItem",
            {{"TableName", all_table},
             {"Item", {{"block", N(-2)}, {"position", N(0)}, {"layout", N(kAppendItemsLayout)}}}})
      .status;
}

// One client's counters of an operation added to the store's: the indexer's
// two clients (its writes, its change stream) are both "index".
void AddOperation(std::vector<StoreOperationStats>& into, std::string_view caller,
                  const aws::OperationCounters& op) {
  auto it = std::find_if(into.begin(), into.end(), [&](const StoreOperationStats& s) {
    return s.caller == caller && s.operation == op.operation;
  });
  if (it == into.end()) {
    StoreOperationStats added;
    added.caller = std::string(caller);
    added.operation = op.operation;
    into.push_back(std::move(added));
    it = into.end() - 1;
  }
  it->calls += op.calls;
  it->read_units += op.read_units;
  it->write_units += op.write_units;
  it->condition_failures += op.condition_failures;
  it->estimated_write_units += op.estimated_write_units;
}

std::string RandomOwner() {
  std::random_device device;
  return fmt::format("{:016x}", (static_cast<std::uint64_t>(device()) << 32) | device());
}

class DynamoDbStore final : public Store {
 public:
  DynamoDbStore(StoreOptions options, std::unique_ptr<aws::Client> client,
                std::unique_ptr<aws::Client> index_client, std::unique_ptr<aws::Client> streams,
                const StoreUrl& url)
      : Store(options.limits),
        options_(std::move(options)),
        client_(std::move(client)),
        index_client_(std::move(index_client)),
        streams_(std::move(streams)),
        events_(*client_, TableOptions(url, options_)),
        all_(*client_, url.table_prefix + "all", url.table_prefix + "events"),
        index_writer_(*index_client_, url.table_prefix + "all", url.table_prefix + "events"),
        checkpoints_table_(url.table_prefix + "checkpoints"),
        parallel_(url.commit_threads,
                  [this](std::vector<AppendRequest> appends, const CommitOptions& commit_options) {
                    return CommitValidated(std::move(appends), commit_options);
                  }),
        async_([this](std::vector<CommitRequest> commits) {
          return parallel_.CommitEach(std::move(commits));
        }) {}

  ~DynamoDbStore() override {
    if (indexer_) indexer_->Stop();
  }

  Status Open(const StoreUrl& url) {
    // Made if missing, or only checked with create_tables=0 (deploy.h).
    auto arn = SetUpStoreTables(*client_, events_, all_, url);
    if (!arn.ok()) return arn.status();
    auto legacy = MayHoldTips(url);
    if (!legacy.ok()) return legacy.status();
    events_.set_legacy_tips_possible(*legacy);
    if (arn->empty()) {
      // dynalite: streams work, $all cannot be built. Say so where it is used.
      no_index_ = Status::Invalid(
          "store", fmt::format("$all on DynamoDB is built from the table's change stream, and "
                               "the endpoint {} keeps none (dynalite has no DynamoDB Streams): "
                               "use DynamoDB or DynamoDB Local",
                               client_->options().endpoint.url));
      return Status::Ok();
    }
    IndexerOptions indexer_options;
    indexer_options.stream_arn = *arn;
    indexer_options.owner = RandomOwner();
    indexer_options.poll_interval = url.index_poll;
    indexer_options.lease = url.index_lease;
    indexer_options.batch = url.index_batch;
    indexer_options.follow_only = !url.indexer;
    indexer_ = std::make_unique<Indexer>(*streams_, index_writer_, std::move(indexer_options));
    follower_ = !url.indexer;
    if (Status s = indexer_->Prime(); !s.ok()) return s;
    if (!follower_) indexer_->Start();
    return Status::Ok();
  }

  Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                       const CommitOptions& options) override {
    std::vector<std::size_t> sizes;
    for (const auto& a : appends) sizes.push_back(a.events.size());
    auto result = events_.Commit(std::move(appends), options);
    if (result.ok()) {
      bool wrote = false;
      for (std::size_t i = 0; i < result->appends.size() && i < sizes.size(); ++i) {
        if (result->appends[i].replayed || sizes[i] == 0) continue;
        wrote = true;
        events_written_.fetch_add(sizes[i]);
        if (indexer_) {
          const AppendResult& a = result->appends[i];
          indexer_->Committed(a.stream, a.first_version.value(), a.last_version.value(),
                              UnixMillisNow());
        }
      }
      if (wrote) commits_.fetch_add(1);
      if (wrote && indexer_ && !follower_) indexer_->Nudge();
    }
    return result;
  }

  // Each commit is a round trip of its own: a batch runs on several
  // connections at once (parallel_commits.h), so a server gathering many
  // clients' appends is not bound by one request's latency.
  std::vector<Result<CommitResult>> CommitEachValidated(
      std::vector<CommitRequest> commits) override {
    return parallel_.CommitEach(std::move(commits));
  }

  // A server's appends: queued, then committed in batches as CommitEach's,
  // off the caller's thread (commit_queue.h).
  void CommitAsyncValidated(CommitRequest commit, CommitCallback done) override {
    async_.Submit(std::move(commit), std::move(done));
  }

  Result<StreamHead> Head(std::string_view stream) override {
    if (Status valid = ValidateStreamName(stream, /*allow_reserved=*/true); !valid.ok())
      return valid;
    return events_.Head(stream);
  }

  Result<std::optional<StateRecord>> ReadState(std::string_view stream) override {
    if (Status valid = ValidateStreamName(stream, /*allow_reserved=*/true); !valid.ok())
      return valid;
    return events_.ReadState(stream);
  }

  // Converts every stream that still has a tip to append items, then marks
  // the table as holding none (StreamTable::ConvertStream; online).
  Result<std::size_t> UpgradeLayout(const std::function<void(std::size_t, std::size_t)>& progress) {
    auto tips = events_.ListTips();
    if (!tips.ok()) return tips.status();
    std::size_t done = 0;
    for (const auto& stream : *tips) {
      auto converted = events_.ConvertStream(stream);
      if (!converted.ok()) return converted.status();
      ++done;
      if (progress) progress(done, tips->size());
    }
    if (Status s = MarkLayout(*client_, all_.table()); !s.ok()) return s;
    events_.set_legacy_tips_possible(false);
    return done;
  }

  // The newest items, read newest first until the state record: one Query
  // when the record is recent (an entity writes it every N events).
  Result<StateAndEvents> ReadStateAndEvents(std::string_view stream) override {
    if (Status valid = ValidateStreamName(stream, /*allow_reserved=*/true); !valid.ok())
      return valid;
    auto load = events_.LoadEntity(stream);
    if (!load.ok()) return load.status();
    if (load->head.deleted)
      return Status::NotFound(fmt::format("stream '{}' is deleted", Printable(stream)), true);
    const std::int64_t low = load->head.first_version.value();
    const std::int64_t high = load->head.version.value();
    const std::int64_t from = load->events_from;
    std::vector<RecordedEvent> held;
    if (load->complete) held = std::move(load->events);
    ReadStreamOptions read;
    read.from = StreamVersion(from);
    // Events the load did not meet are read by the cursor: one Query more.
    return StateAndEvents{
        std::move(load->state),
        MakeStreamCursor(events_, std::string(stream), read, from, low, high, std::move(held))};
  }

  Result<std::unique_ptr<StreamCursor>> ReadStream(std::string_view stream,
                                                   const ReadStreamOptions& options) override {
    if (Status valid = ValidateStreamName(stream, /*allow_reserved=*/true); !valid.ok())
      return valid;
    const bool forward = options.direction == Direction::kForward;
    std::vector<RecordedEvent> first_page;
    std::optional<StreamHead> head;
    if (forward && options.limit > 0) {
      // The common case in one Query: the events from `from` and the tip.
      const std::int64_t from = options.from ? std::max<std::int64_t>(options.from->value(), 0) : 0;
      auto events = events_.ReadStream(stream, StreamVersion(from),
                                       std::min<std::size_t>(options.limit, 1000), &head);
      if (!events.ok()) return events.status();
      first_page = std::move(*events);
    }
    if (!head) {
      auto read = events_.Head(stream);
      if (!read.ok()) return read.status();
      head = *read;
    }
    auto plan = store::PlanStreamRead(stream, *head, options);
    if (!plan.ok()) return plan.status();
    return MakeStreamCursor(events_, std::string(stream), options, plan->from, plan->low,
                            plan->high, std::move(first_page));
  }

  // One Query of the listing index and one BatchGetItem of the tips (per
  // 100 streams); StreamTable::ListStreams. On a table that got the index
  // when this version first opened it, unavailable until DynamoDB has
  // built it (one DescribeTable per listing until then).
  Result<std::vector<StreamInfo>> ListStreamRange(std::string_view prefix, std::string_view after,
                                                  std::size_t limit) override {
    if (!list_index_active_.load(std::memory_order_acquire)) {
      auto status = IndexStatus(*client_, events_.table(), std::string(kListIndex));
      if (!status.ok()) return status.status();
      if (*status != "ACTIVE")
        return Status::Unavailable(fmt::format(
            "the stream listing's index {} on table {} is {}: DynamoDB builds it on a table made "
            "before it (docs/DYNAMODB.md, \"Listing streams\"); list again when it is ACTIVE",
            kListIndex, events_.table(), status->empty() ? "missing" : *status));
      list_index_active_.store(true, std::memory_order_release);
    }
    return events_.ListStreams(prefix, after, limit);
  }

  Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options) override {
    if (!no_index_.ok()) return no_index_;
    return MakeAllCursor(all_, options, LastPosition());
  }

  // Items with tags read the tag index, items of types alone scan $all
  // (docs/DYNAMODB.md, "Tags, queries and conditional appends").
  Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                               const ReadQueryOptions& options) override {
    if (Status s = ValidateQuery(query); !s.ok()) return s;
    if (!no_index_.ok()) return no_index_;
    return MakeQueryCursor(all_, tags_, query, options, LastPosition());
  }

  Position LastPosition() const override {
    if (!indexer_) return Position(0);
    if (follower_) Follow();
    return indexer_->last_position();
  }

  Position WaitForCommit(Position after, std::chrono::milliseconds timeout) override {
    if (!indexer_) return Position(0);
    if (!follower_) return indexer_->WaitFor(after, timeout);
    // A follower reads the index's state until it moves.
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      Follow();
      const Position last = indexer_->last_position();
      if (last > after || std::chrono::steady_clock::now() >= deadline) return last;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  Status SaveRecord(std::string_view name, std::string_view value) override {
    if (Status s = store::ValidateRecord(name, value); !s.ok()) return s;
    return client_
        ->Call("PutItem", {{"TableName", checkpoints_table_},
                           {"Item", {{kNameKey, S(name)}, {"value", S(Base64Encode(value))}}}})
        .status;
  }

  Result<std::optional<std::string>> LoadRecord(std::string_view name) override {
    if (Status s = store::ValidateRecordName(name); !s.ok()) return s;
    aws::Reply reply = client_->Call("GetItem", {{"TableName", checkpoints_table_},
                                                 {"Key", {{kNameKey, S(name)}}},
                                                 {"ConsistentRead", true}});
    if (!reply.ok()) return reply.status;
    const auto* item = reply.body.if_contains("Item");
    if (item == nullptr || !item->is_object()) return std::optional<std::string>();
    return CheckpointValue(item->get_object());
  }

  Result<std::vector<std::pair<std::string, std::string>>> ListRecords(
      std::string_view prefix) override {
    std::vector<std::pair<std::string, std::string>> found;
    json::object request{{"TableName", checkpoints_table_}, {"ConsistentRead", true}};
    if (!prefix.empty()) {
      request["FilterExpression"] = "begins_with(#n, :p)";
      request["ExpressionAttributeNames"] = json::object{{"#n", kNameKey}};
      request["ExpressionAttributeValues"] = json::object{{":p", S(prefix)}};
    }
    for (;;) {
      aws::Reply reply = client_->Call("Scan", request);
      if (!reply.ok()) return reply.status;
      const auto* items = reply.body.if_contains("Items");
      if (items == nullptr || !items->is_array())
        return Status::Internal("a Scan of " + checkpoints_table_ + " answered without Items");
      for (const auto& item : items->get_array()) {
        if (!item.is_object()) continue;
        auto name = GetS(item.get_object(), kNameKey);
        if (!name) continue;
        auto value = CheckpointValue(item.get_object());
        if (!value.ok()) return value.status();
        found.emplace_back(std::string(*name), std::move(**value));
      }
      const auto* next = reply.body.if_contains("LastEvaluatedKey");
      if (next == nullptr) break;
      request["ExclusiveStartKey"] = *next;
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  Status DeleteRecord(std::string_view name) override {
    if (Status s = store::ValidateRecordName(name); !s.ok()) return s;
    return client_
        ->Call("DeleteItem", {{"TableName", checkpoints_table_}, {"Key", {{kNameKey, S(name)}}}})
        .status;
  }

  StoreTraits traits() const override {
    StoreTraits traits;
    traits.positions_at_commit = false;
    traits.ids_unique_across_streams = false;
    traits.local_reads = false;
    return traits;
  }

  StoreStats stats() const override {
    StoreStats stats;
    stats.commits = commits_.load();
    stats.events = events_written_.load();
    for (const aws::Client* client : {client_.get(), index_client_.get(), streams_.get()}) {
      const aws::ClientCounters c = client->counters();
      const bool own = client == client_.get();
      (own ? stats.requests : stats.index_requests) += c.requests;
      stats.retries += c.retries;
      stats.throttles += c.throttles;
      stats.retry_quota_refusals += c.quota_refusals;
      stats.deadline_failures += c.deadline_failures;
      if (own) {
        stats.read_units = c.read_units;
        stats.write_units = c.write_units;
      } else {
        stats.index_units += c.read_units + c.write_units;  // the streams client reports none
      }
      for (const aws::OperationCounters& op : c.operations) {
        if (client == streams_.get() && op.operation == "GetRecords") stats.index_polls += op.calls;
        AddOperation(stats.operations, own ? "store" : "index", op);
      }
    }
    std::sort(stats.operations.begin(), stats.operations.end(),
              [](const StoreOperationStats& a, const StoreOperationStats& b) {
                return std::tie(a.caller, a.operation) < std::tie(b.caller, b.operation);
              });
    if (indexer_) stats.index_lag_ms = indexer_->stats().lag_ms;
    return stats;
  }

  // The indexer's report; a follower reads the index's state first (at
  // most every 20 ms), as LastPosition does.
  std::optional<IndexHealth> IndexerHealth() const override {
    if (!indexer_) return std::nullopt;
    if (follower_) Follow();
    return indexer_->Health();
  }

  // Deletes the append items below each cut (scavenge.h), then the
  // copies of their events a rebuild put in $all chunks. The compaction is
  // DynamoDB's own: nothing to ask for.
  Result<ScavengeReport> RemoveEvents(const std::vector<ScavengeCut>& cuts,
                                      const ProgressFn& progress, Compaction) override {
    ScavengeReport report;
    std::map<std::string, std::int64_t> floors;
    std::uint64_t done = 0;
    for (const ScavengeCut& cut : cuts) {
      auto removed = RemoveStreamItems(*client_, events_, cut);
      if (!removed.ok()) return removed.status();
      if (removed->events > 0) {
        ++report.streams;
        floors[cut.stream] = removed->floor;
      }
      report.events += removed->events;
      report.bytes += removed->bytes;
      if (progress) progress(++done, cuts.size());
    }
    if (!floors.empty() && no_index_.ok())
      if (auto dropped = all_.DropInline(floors); !dropped.ok()) return dropped.status();
    return report;
  }

  Status Check(const ProgressFn& progress) override {
    // $all: every position from 1 to the last is there, in order.
    if (!no_index_.ok()) return Status::Ok();
    // A page at a time from the index itself, so that positions a
    // scavenge removed count as there (all_index.h, kRemovedEventType).
    const Position last = LastPosition();
    std::uint64_t seen = 0;
    while (seen < last.value()) {
      auto page = all_.Read(Position(seen + 1), last, 1000);
      if (!page.ok()) return page.status();
      if (page->empty()) break;
      for (const RecordedEvent& event : *page)
        if (event.position.value() != ++seen)
          return Status::Internal(fmt::format("$all: position {} is missing", seen));
      if (progress) progress(seen, last.value());
    }
    if (seen != last.value())
      return Status::Internal(
          fmt::format("$all holds {} events, its indexer says {}", seen, last.value()));
    if (progress) progress(seen, last.value());
    return Status::Ok();
  }

 private:
  // Whether the events table may hold tips of the earlier layout: it was
  // written before append items (no layout marker) and has items. A new,
  // empty table gets the marker at once. The marker is an item of the $all
  // table (block -2), which the index never reads.
  Result<bool> MayHoldTips(const StoreUrl& url) {
    const std::string table = url.table_prefix + "all";
    const json::object key{{"block", N(-2)}, {"position", N(0)}};
    aws::Reply got =
        client_->Call("GetItem", {{"TableName", table}, {"Key", key}, {"ConsistentRead", true}});
    if (!got.ok()) return got.status;
    const auto* item = got.body.if_contains("Item");
    if (item != nullptr && item->is_object() &&
        GetN(item->get_object(), "layout").value_or(0) >= kAppendItemsLayout)
      return false;
    aws::Reply scan = client_->Call(
        "Scan", {{"TableName", events_.table()}, {"Limit", 1}, {"ConsistentRead", true}});
    if (!scan.ok()) return scan.status;
    const auto* items = scan.body.if_contains("Items");
    const bool empty = items != nullptr && items->is_array() && items->get_array().empty() &&
                       scan.body.if_contains("LastEvaluatedKey") == nullptr;
    if (!empty) return true;
    if (Status s = MarkLayout(*client_, table); !s.ok()) return s;
    return false;
  }

  static StreamTableOptions TableOptions(const StoreUrl& url, const StoreOptions& options) {
    StreamTableOptions table;
    table.table = url.table_prefix + "events";
    table.spill_appends = url.tip_appends;
    table.spill_bytes = url.tip_bytes;
    table.limits = options.limits;
    table.head_cache_streams = url.head_cache;
    return table;
  }

  Result<std::optional<std::string>> CheckpointValue(const json::object& item) const {
    auto s = GetS(item, "value");
    if (!s) return Status::Internal("a checkpoint item in " + checkpoints_table_ + " has no value");
    auto decoded = Base64Decode(*s);
    if (!decoded)
      return Status::Internal("a checkpoint item in " + checkpoints_table_ + " is not base64");
    return std::optional<std::string>(std::move(*decoded));
  }

  // A follower's view of the index: the state, read at most every 20 ms.
  void Follow() const {
    MutexLock lock(&follow_mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - followed_at_ < std::chrono::milliseconds(20)) return;
    followed_at_ = now;
    (void)indexer_->Pass();  // a follower's pass reads the state only
  }

  const StoreOptions options_;
  std::unique_ptr<aws::Client> client_;        // the Store's calls
  std::unique_ptr<aws::Client> index_client_;  // the indexer's writes and state reads
  std::unique_ptr<aws::Client> streams_;       // the indexer's change-stream reads
  StreamTable events_;
  AllIndex all_;
  AllIndex index_writer_;  // the same table, through index_client_
  TagIndex tags_ = all_.tags();
  const std::string checkpoints_table_;
  std::unique_ptr<Indexer> indexer_;
  bool follower_ = false;
  Status no_index_;
  std::atomic<bool> list_index_active_{false};  // seen ACTIVE once: stays so
  std::atomic<std::uint64_t> commits_{0};
  std::atomic<std::uint64_t> events_written_{0};
  mutable Mutex follow_mu_;
  mutable std::chrono::steady_clock::time_point followed_at_ GUARDED_BY(follow_mu_){};
  // Last: their threads call Commit, so they stop before the rest goes (the
  // queue first: it calls parallel_).
  store::ParallelCommits parallel_;
  store::CommitQueue async_;
};

}  // namespace

namespace {

// The three clients of a store: its own calls, the indexer's writes, and
// the change stream's (on a host of its own on AWS).
struct Clients {
  std::unique_ptr<aws::Client> store;
  std::unique_ptr<aws::Client> index;
  std::unique_ptr<aws::Client> streams;
};

Result<Clients> MakeClients(const StoreUrl& url, const aws::EnvLookup& env) {
  // One provider for the three clients: one refresh thread, one set of
  // temporary credentials.
  aws::ChainOptions chain;
  chain.env = env;
  chain.region = url.region;
  auto credentials = aws::DefaultCredentialsChain(chain);
  if (!credentials.ok()) return credentials.status();
  aws::ClientOptions client_options = ClientOptionsFromUrl(url, *credentials);
  auto client = aws::Client::Create(client_options);
  if (!client.ok()) return client.status();
  // The indexer's work has no caller waiting on it: it retries on its own
  // schedule rather than against a deadline.
  client_options.retry.deadline.reset();
  auto index_client = aws::Client::Create(client_options);
  if (!index_client.ok()) return index_client.status();
  client_options.endpoint = StreamsEndpoint(client_options.endpoint);
  client_options.target_prefix = "DynamoDBStreams_20120810.";
  auto streams = aws::Client::Create(client_options);
  if (!streams.ok()) return streams.status();
  return Clients{std::move(*client), std::move(*index_client), std::move(*streams)};
}

}  // namespace

Result<std::unique_ptr<Store>> OpenDynamoDbStore(std::string_view url, const StoreOptions& options,
                                                 const aws::EnvLookup& env) {
  auto parsed = ParseStoreUrl(url, env);
  if (!parsed.ok()) return parsed.status();
  auto clients = MakeClients(*parsed, env);
  if (!clients.ok()) return clients.status();
  auto store =
      std::make_unique<DynamoDbStore>(options, std::move(clients->store), std::move(clients->index),
                                      std::move(clients->streams), *parsed);
  if (Status s = store->Open(*parsed); !s.ok()) return s;
  return std::unique_ptr<Store>(std::move(store));
}

Result<std::size_t> UpgradeDynamoDbLayout(
    std::string_view url, const std::function<void(std::size_t, std::size_t)>& progress,
    const aws::EnvLookup& env) {
  auto parsed = ParseStoreUrl(url, env);
  if (!parsed.ok()) return parsed.status();
  parsed->indexer = false;  // a short-lived process: the servers index
  auto clients = MakeClients(*parsed, env);
  if (!clients.ok()) return clients.status();
  auto store = std::make_unique<DynamoDbStore>(StoreOptions{}, std::move(clients->store),
                                               std::move(clients->index),
                                               std::move(clients->streams), *parsed);
  if (Status s = store->Open(*parsed); !s.ok()) return s;
  return store->UpgradeLayout(progress);
}

Result<RebuildReport> RebuildDynamoDbIndex(std::string_view url, const RebuildOptions& options,
                                           const aws::EnvLookup& env) {
  auto parsed = ParseStoreUrl(url, env);
  if (!parsed.ok()) return parsed.status();
  auto clients = MakeClients(*parsed, env);
  if (!clients.ok()) return clients.status();
  StreamTableOptions table;
  table.table = parsed->table_prefix + "events";
  StreamTable events(*clients->store, table);
  AllIndex index(*clients->index, parsed->table_prefix + "all", parsed->table_prefix + "events");
  auto arn = SetUpStoreTables(*clients->store, events, index, *parsed);
  if (!arn.ok()) return arn.status();
  if (arn->empty())
    return Status::Invalid("store", fmt::format("the endpoint {} keeps no change stream (dynalite "
                                                "has no DynamoDB Streams): there is no $all to "
                                                "rebuild",
                                                clients->store->options().endpoint.url));
  return RebuildIndex(events, index, *clients->streams, *arn, options);
}

Result<std::vector<TableReport>> CreateDynamoDbTables(std::string_view url,
                                                      const CreateTablesOptions& options,
                                                      const aws::EnvLookup& env) {
  auto parsed = ParseStoreUrl(url, env);
  if (!parsed.ok()) return parsed.status();
  auto clients = MakeClients(*parsed, env);
  if (!clients.ok()) return clients.status();
  return CreateStoreTables(*clients->store, *parsed, options);
}

}  // namespace indelible::dynamodb
