// The $all index on DynamoDB Local (all_index.h, indexer.h; docs/DYNAMODB.md
// "$all"): chunks of references read back across a block boundary and from
// the middle of a chunk; indexers racing for the same chunk; an indexer
// killed between a chunk and its checkpoint; an index of the earlier layout
// continued by chunks; what indexing costs in write units; and how often an
// idle indexer asks the change stream.
#include "storage/dynamodb/all_index.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "aws/client.h"
#include "aws/credentials.h"
#include "core/clock.h"
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/indexer.h"
#include "storage/dynamodb/store_url.h"
#include "storage/dynamodb/tables.h"
#include "storage/dynamodb/tip.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

namespace json = boost::json;
using dynamodb::AllIndex;
using dynamodb::Indexer;
using dynamodb::IndexerOptions;
using std::chrono::milliseconds;

class AllIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string url = testutil::DynamoDbTestUrl("ai");
    ASSERT_FALSE(url.empty());
    prefix_ = url.substr(url.find("&prefix=") + 8);
    auto parsed = dynamodb::ParseStoreUrl(url);
    auto credentials = aws::LoadCredentials();
    ASSERT_TRUE(parsed.ok() && credentials.ok());
    options_ = dynamodb::ClientOptionsFromUrl(*parsed, *credentials);
    client_ = NewClient();
    streams_ = NewClient("DynamoDBStreams_20120810.");
    ASSERT_TRUE(client_ && streams_);
    dynamodb::TableSpec events;
    events.name = prefix_ + "events";
    events.hash_key = std::string(dynamodb::kStreamKey);
    events.range_key = std::string(dynamodb::kVersionKey);
    events.change_stream = true;
    auto arn = dynamodb::CreateOrCheckTable(*client_, events);
    ASSERT_TRUE(arn.ok()) << arn.status().ToString();
    ASSERT_FALSE(arn->empty()) << "DynamoDB Local keeps change streams";
    arn_ = *arn;
    index_ = std::make_unique<AllIndex>(*client_, prefix_ + "all");
    Status created = index_->CreateOrCheck();
    ASSERT_TRUE(created.ok()) << created.ToString();
  }

  std::unique_ptr<aws::Client> NewClient(const std::string& target_prefix = "") const {
    aws::ClientOptions options = options_;
    if (!target_prefix.empty()) options.target_prefix = target_prefix;
    auto client = aws::Client::Create(options);
    EXPECT_TRUE(client.ok());
    return client.ok() ? std::move(*client) : nullptr;
  }

  IndexerOptions Options(const std::string& owner) const {
    IndexerOptions options;
    options.stream_arn = arn_;
    options.owner = owner;
    options.batch = milliseconds(0);
    return options;
  }

  static RecordedEvent Event(const std::string& stream, std::int64_t version,
                             std::size_t bytes = 200) {
    RecordedEvent e;
    e.id = EventId::Random();
    e.stream = stream;
    e.version = StreamVersion(version);
    e.type = "Tested";
    e.data = "\"" + std::string(bytes - 2, 'x') + "\"";
    e.timestamp_ms = UnixMillisNow();
    return e;
  }

  // Writes an append item of `count` events to the events table, as a
  // commit does; returns its events.
  std::vector<RecordedEvent> Append(const std::string& stream, std::int64_t count = 1,
                                    std::size_t bytes = 200) {
    std::int64_t& next = heads_[stream];
    std::vector<RecordedEvent> events;
    for (std::int64_t i = 0; i < count; ++i) events.push_back(Event(stream, next + i, bytes));
    aws::Reply reply = client_->Call("PutItem", {{"TableName", prefix_ + "events"},
                                                 {"Item", dynamodb::MakeAppendItem(events, 0)}});
    EXPECT_TRUE(reply.ok()) << reply.status.ToString();
    next += count;
    for (const auto& e : events) written_.push_back(e);
    return events;
  }

  // Passes until `indexer` has indexed through `last` (the change stream
  // may hand records over a moment after the write).
  static void IndexThrough(Indexer& indexer, std::uint64_t last) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (indexer.last_position().value() < last && std::chrono::steady_clock::now() < deadline) {
      auto passed = indexer.Pass();
      ASSERT_TRUE(passed.ok()) << passed.status().ToString();
      if (indexer.last_position().value() < last) std::this_thread::sleep_for(milliseconds(20));
    }
    ASSERT_EQ(indexer.last_position().value(), last);
  }

  // $all from 1 is every written event once, in write order (one writer:
  // the change stream keeps it), at positions 1..N.
  void ExpectAllIsWhatWasWritten(std::uint64_t last) {
    auto all = index_->Read(Position(1), Position(last), 100000);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    ASSERT_EQ(all->size(), written_.size());
    for (std::size_t i = 0; i < all->size(); ++i) {
      EXPECT_EQ((*all)[i].position.value(), i + 1);
      EXPECT_EQ((*all)[i].id, written_[i].id) << "position " << i + 1;
      EXPECT_EQ((*all)[i].stream, written_[i].stream);
      EXPECT_EQ((*all)[i].version, written_[i].version);
      EXPECT_EQ((*all)[i].data, written_[i].data);
    }
  }

  std::string prefix_;
  aws::ClientOptions options_;
  std::unique_ptr<aws::Client> client_;
  std::unique_ptr<aws::Client> streams_;
  std::string arn_;
  std::unique_ptr<AllIndex> index_;
  std::map<std::string, std::int64_t> heads_;
  std::vector<RecordedEvent> written_;
};

TEST_F(AllIndexTest, ChunksReadBackAcrossABlockBoundaryAndFromTheMiddleOfAChunk) {
  // Three chunks around the first block boundary (65,536): references to
  // appends of 1 and 3 events, one chunk straddling the boundary, and
  // inline events in the next block.
  constexpr std::int64_t kStart = 65530;
  std::vector<RecordedEvent> expected;
  auto refer = [&](dynamodb::Chunk& chunk, const std::string& stream, std::int64_t count) {
    auto events = Append(stream, count);
    chunk.entries.push_back(dynamodb::ChunkEntry{
        dynamodb::AppendRef{stream, events.front().version.value(), count}, false});
    chunk.count += count;
    for (auto& e : events) expected.push_back(e);
  };
  dynamodb::Chunk a;
  a.position = kStart;
  refer(a, "a", 1);
  refer(a, "b", 3);
  dynamodb::Chunk b;
  b.position = a.position + a.count;  // 65534 .. 65538: across the boundary
  refer(b, "a", 2);
  refer(b, "c", 3);
  dynamodb::Chunk c;
  c.position = b.position + b.count;
  for (int i = 0; i < 2; ++i) {
    RecordedEvent e = Event("d", i, 300);
    c.inline_events.push_back(e);
    expected.push_back(e);
  }
  c.entries.push_back(dynamodb::ChunkEntry{dynamodb::AppendRef{"d", 0, 2}, true});
  c.count = 2;
  for (const auto* chunk : {&a, &b, &c}) ASSERT_TRUE(index_->WriteChunk(*chunk).ok());
  // A chunk is written once: a second writer at the same place is refused.
  EXPECT_EQ(index_->WriteChunk(a).code(), ErrorCode::kConflict);

  const std::int64_t end = c.position + c.count;  // 65541
  for (std::int64_t from = kStart; from < end; ++from) {
    for (std::int64_t through : {from, std::min(end - 1, from + 2), end - 1}) {
      auto read = index_->Read(Position(static_cast<std::uint64_t>(from)),
                               Position(static_cast<std::uint64_t>(through)), 1000);
      ASSERT_TRUE(read.ok()) << from << ".." << through << ": " << read.status().ToString();
      ASSERT_EQ(static_cast<std::int64_t>(read->size()), through - from + 1);
      for (std::size_t i = 0; i < read->size(); ++i) {
        const RecordedEvent& want = expected[static_cast<std::size_t>(from - kStart) + i];
        EXPECT_EQ((*read)[i].position.value(), static_cast<std::uint64_t>(from) + i);
        EXPECT_EQ((*read)[i].id, want.id) << "from " << from << ", event " << i;
        EXPECT_EQ((*read)[i].stream, want.stream);
        EXPECT_EQ((*read)[i].version, want.version);
      }
    }
  }
  // A limit smaller than the range, from the middle of the straddling chunk.
  auto limited = index_->Read(Position(65535), Position(65540), 3);
  ASSERT_TRUE(limited.ok()) << limited.status().ToString();
  ASSERT_EQ(limited->size(), 3u);
  EXPECT_EQ(limited->back().position.value(), 65537u);
  // A filtered read does not fetch the appends of streams it cannot match:
  // their events come back bare, and the filter skips them.
  AllFilter only_c;
  only_c.stream_prefixes = {"c"};
  only_c.types = {"Tested"};
  const auto units_before = client_->counters().read_units;
  auto filtered = index_->Read(Position(kStart), Position(end - 1), 1000, &only_c);
  ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
  ASSERT_EQ(filtered->size(), expected.size());
  std::size_t matched = 0;
  for (std::size_t i = 0; i < filtered->size(); ++i) {
    const RecordedEvent& e = (*filtered)[i];
    EXPECT_EQ(e.position.value(), static_cast<std::uint64_t>(kStart) + i);
    EXPECT_EQ(e.stream, expected[i].stream);
    EXPECT_EQ(e.version, expected[i].version);
    const bool match = only_c.Matches(e.stream, e.type);
    EXPECT_EQ(match, expected[i].stream == "c") << i;
    if (match) {
      EXPECT_EQ(e.data, expected[i].data);
    }
    matched += match ? 1 : 0;
  }
  EXPECT_EQ(matched, 3u);
  EXPECT_GT(client_->counters().read_units, units_before);

  // Past the chain's end is a gap, not an empty answer.
  EXPECT_EQ(index_->Read(Position(65536), Position(65545), 100).status().code(),
            ErrorCode::kInternal);

  // The chain from its first chunk: what a loading indexer applies.
  dynamodb::IndexerState state;
  state.next = kStart;
  auto followed = index_->Follow(&state);
  ASSERT_TRUE(followed.ok()) << followed.status().ToString();
  EXPECT_EQ(*followed, 3u);
  EXPECT_EQ(state.next, end);
}

TEST_F(AllIndexTest, IndexersRacingForTheSameChunkIndexEachEventOnce) {
  // Two indexers that both believe they hold the lease (one took it over
  // after the other's ran out while it was idle): they read the same
  // records and compute the same chunk; one writes it, the other is refused,
  // reloads and follows.
  IndexerOptions a_options = Options("a");
  IndexerOptions b_options = Options("b");
  a_options.lease = b_options.lease = milliseconds(300);
  Indexer a(*streams_, *index_, a_options);
  Indexer b(*streams_, *index_, b_options);
  ASSERT_TRUE(a.Prime().ok());
  Append("s", 2);
  IndexThrough(a, 2);
  std::this_thread::sleep_for(milliseconds(400));  // a's lease runs out
  ASSERT_TRUE(b.Prime().ok());
  ASSERT_TRUE(b.Pass().ok());  // takes the lease over
  EXPECT_TRUE(b.stats().owner);
  EXPECT_EQ(b.last_position().value(), 2u);

  for (int i = 0; i < 20; ++i) Append("s" + std::to_string(i % 3));
  IndexThrough(a, 22);   // a still believes it holds the lease
  auto lost = b.Pass();  // the same records, the same place: refused
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_EQ(*lost, 0u);
  EXPECT_EQ(b.stats().races_lost, 1u);
  EXPECT_FALSE(b.stats().owner);
  EXPECT_EQ(b.last_position().value(), 22u) << "the loser follows the winner's chunk";
  EXPECT_TRUE(b.status().ok());

  // Both at once, again and again, with leases that run out in between: of
  // every chunk one copy; the events both wrote add up to what was written.
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 7; ++i) Append("r" + std::to_string(i % 4));
    std::this_thread::sleep_for(milliseconds(round % 2 == 0 ? 350 : 0));
    const auto want = written_.size();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((a.last_position().value() < want || b.last_position().value() < want) &&
           std::chrono::steady_clock::now() < deadline) {
      std::thread other([&] { EXPECT_TRUE(b.Pass().ok()); });
      EXPECT_TRUE(a.Pass().ok());
      other.join();
    }
    ASSERT_EQ(a.last_position().value(), want);
    ASSERT_EQ(b.last_position().value(), want);
  }
  EXPECT_EQ(a.stats().events + b.stats().events, written_.size()) << "nothing indexed twice";
  ExpectAllIsWhatWasWritten(written_.size());
}

TEST_F(AllIndexTest, AnIndexerKilledAfterAChunkAndBeforeItsCheckpointIsResumedExactly) {
  std::uint64_t first_part = 0;
  {
    IndexerOptions options = Options("killed");
    options.lease = milliseconds(300);
    options.checkpoint_every = std::chrono::hours(1);
    options.checkpoint_chunks = 1000;
    Indexer killed(*streams_, *index_, options);
    ASSERT_TRUE(killed.Prime().ok());
    for (int i = 0; i < 120; ++i) Append("killed-indexer-stream-" + std::to_string(i % 5));
    first_part = written_.size();
    IndexThrough(killed, first_part);
    EXPECT_GT(killed.stats().chunks, 1u);
    // Never started: the destructor writes nothing, as after kill -9.
  }
  auto stored = index_->LoadState();
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(stored->checkpoint_next, 1) << "the checkpoint is the lease's only; the chunks follow";
  EXPECT_EQ(stored->next, static_cast<std::int64_t>(first_part + 1));

  for (int i = 0; i < 30; ++i) Append("killed-indexer-stream-" + std::to_string(i % 5));
  std::this_thread::sleep_for(milliseconds(400));  // the dead indexer's lease runs out
  IndexerOptions options = Options("next");
  Indexer next(*streams_, *index_, options);
  ASSERT_TRUE(next.Prime().ok());
  EXPECT_EQ(next.last_position().value(), first_part) << "the chunks after the checkpoint count";
  IndexThrough(next, written_.size());
  EXPECT_EQ(next.stats().events, written_.size() - first_part) << "nothing repeated";
  ExpectAllIsWhatWasWritten(written_.size());

  // Stop writes what it holds and a checkpoint that hands the lease back.
  next.Start();
  next.Stop();
  auto after = index_->LoadState();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->checkpoint_next, static_cast<std::int64_t>(written_.size() + 1));
  EXPECT_EQ(after->lease_until, 0);
}

TEST_F(AllIndexTest, AnIndexOfTheEarlierLayoutReadsOnAsOneAllWithTheChunksAfterIt) {
  // What the current release leaves: one whole event per index item, and
  // its state document (rev in the JSON, no format).
  for (std::int64_t p = 1; p <= 3; ++p) {
    RecordedEvent e = Event("old", p - 1);
    json::object item = dynamodb::EventItem(e);
    item["block"] = dynamodb::N(0);
    item["position"] = dynamodb::N(p);
    ASSERT_TRUE(client_->Call("PutItem", {{"TableName", prefix_ + "all"}, {"Item", item}}).ok());
    written_.push_back(e);
  }
  json::object state{{"block", dynamodb::N(-1)},
                     {"position", dynamodb::N(0)},
                     {"rev", dynamodb::N(7)},
                     {"state", dynamodb::S(R"({"rev":7,"next":4,"arn":"","owner":"old",)"
                                           R"("lease_until":0,"rebuilding":false,"shards":{}})")}};
  ASSERT_TRUE(client_->Call("PutItem", {{"TableName", prefix_ + "all"}, {"Item", state}}).ok());

  Indexer indexer(*streams_, *index_, Options("new"));
  ASSERT_TRUE(indexer.Prime().ok());
  EXPECT_EQ(indexer.last_position().value(), 3u);
  Append("new", 2);
  Append("old", 1);
  IndexThrough(indexer, 6);
  ExpectAllIsWhatWasWritten(6);
  // The checkpoint is in this release's format now: the earlier release's
  // indexer refuses it rather than write over a chunk.
  auto stored = index_->LoadState();
  ASSERT_TRUE(stored.ok());
  EXPECT_FALSE(stored->earlier_format);
  EXPECT_EQ(stored->owner, "new");
  aws::Reply raw = client_->Call(
      "GetItem", {{"TableName", prefix_ + "all"},
                  {"Key", {{"block", dynamodb::N(-1)}, {"position", dynamodb::N(0)}}}});
  ASSERT_TRUE(raw.ok());
  const auto text = dynamodb::GetS(raw.body.at("Item").as_object(), "state");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->find("\"rev\""), std::string_view::npos) << *text;
}

TEST_F(AllIndexTest, IndexingSingleEventAppendsCostsAFractionOfAWriteUnitEach) {
  constexpr int kAppends = 300;
  // A backlog (an indexer that starts behind): one pass reads it all.
  auto index_client = NewClient();
  AllIndex index(*index_client, prefix_ + "all");
  {
    Indexer indexer(*streams_, index, Options("backlog"));
    ASSERT_TRUE(indexer.Prime().ok());
    for (int i = 0; i < kAppends; ++i) Append("ledger-" + std::to_string(i % 16));
    IndexThrough(indexer, kAppends);
    indexer.Start();
    indexer.Stop();  // its checkpoint counts too
  }
  const double backlog = index_client->counters().write_units / kAppends;
  EXPECT_GT(backlog, 0.0) << "DynamoDB Local reports consumed capacity";
  EXPECT_LT(backlog, 0.1) << backlog << " write units per event";

  // Appends as they come, one writer at DynamoDB Local's pace, indexed by a
  // running indexer that batches 100 ms of them to a chunk.
  auto live_client = NewClient();
  AllIndex live(*live_client, prefix_ + "all");
  IndexerOptions options = Options("live");
  options.batch = milliseconds(100);
  options.poll_interval = milliseconds(10);
  Indexer indexer(*streams_, live, options);
  ASSERT_TRUE(indexer.Prime().ok());
  indexer.Start();
  for (int i = 0; i < kAppends; ++i) {
    Append("ledger-" + std::to_string(i % 16));
    indexer.Nudge();
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (indexer.last_position().value() < written_.size() &&
         std::chrono::steady_clock::now() < deadline)
    indexer.WaitFor(indexer.last_position(), milliseconds(200));
  ASSERT_EQ(indexer.last_position().value(), written_.size());
  indexer.Stop();
  const double running = live_client->counters().write_units / kAppends;
  std::printf("write units per event: %.3f (backlog), %.3f (running, %llu chunks)\n", backlog,
              running, static_cast<unsigned long long>(indexer.stats().chunks));
  EXPECT_LT(running, 0.5) << running << " write units per event";
  ExpectAllIsWhatWasWritten(written_.size());
}

TEST_F(AllIndexTest, AnIdleIndexerAsksTheChangeStreamAboutOnceASecond) {
  IndexerOptions options = Options("idle");
  options.poll_interval = milliseconds(50);
  options.idle_poll_max = milliseconds(1000);
  Indexer indexer(*streams_, *index_, options);
  ASSERT_TRUE(indexer.Prime().ok());
  Append("wake");
  indexer.Start();
  ASSERT_EQ(indexer.WaitFor(Position(0), std::chrono::seconds(10)).value(), 1u);
  const auto before = indexer.stats();
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const auto idle = indexer.stats();
  // 50, 100, 200, 400, 800 ms, then once a second: about 8 in 4 s (80 at
  // the first interval), and nothing written while nothing moves.
  EXPECT_LE(idle.get_records - before.get_records, 10u);
  EXPECT_GE(idle.get_records - before.get_records, 3u);
  EXPECT_EQ(idle.writes, before.writes);
  // A commit in this process nudges it: indexed at once, not a second later.
  const auto nudged_at = std::chrono::steady_clock::now();
  Append("wake");
  indexer.Nudge();
  ASSERT_EQ(indexer.WaitFor(Position(1), std::chrono::seconds(10)).value(), 2u);
  EXPECT_LT(std::chrono::steady_clock::now() - nudged_at, milliseconds(900));
  indexer.Stop();
}

}  // namespace
}  // namespace indelible
