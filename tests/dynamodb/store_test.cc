// The DynamoDB Store (docs/DYNAMODB.md) beyond the conformance suite, which
// runs it too: request counts per append and per entity load, the $all
// indexer across kill -9 and between two processes' stores, and dynalite,
// which has no change stream.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "testutil/child_writer.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

using std::chrono::milliseconds;

class DynamoDbStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = testutil::DynamoDbTestUrl("s", "&index_poll_ms=10");
    ASSERT_FALSE(base_.empty());
  }

  std::unique_ptr<Store> OpenStore(const std::string& extra = "") {
    auto store = Store::Open(base_ + extra);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  static EventData Event(std::string data = "{}") {
    EventData e;
    e.id = EventId::Random();
    e.type = "Tested";
    e.data = std::move(data);
    return e;
  }

  // Waits until the store's $all reaches `count` events.
  static void Settle(Store& store, std::uint64_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (store.LastPosition().value() < count && std::chrono::steady_clock::now() < deadline)
      store.WaitForCommit(store.LastPosition(), milliseconds(200));
    ASSERT_GE(store.LastPosition().value(), count) << "the $all indexer did not catch up";
  }

  // $all holds each (stream, version) once, at positions 1..N, each
  // stream's versions in order; returns the events.
  static std::vector<RecordedEvent> ExpectExactlyOnce(Store& store) {
    auto all = ReadAllEvents(store);
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    if (!all.ok()) return {};
    std::map<std::string, std::int64_t> next_version;
    for (std::size_t i = 0; i < all->size(); ++i) {
      const RecordedEvent& e = (*all)[i];
      EXPECT_EQ(e.position.value(), i + 1);
      EXPECT_EQ(e.version.value(), next_version[e.stream]++) << e.stream;
    }
    EXPECT_TRUE(store.Check().ok()) << store.Check().ToString();
    return *all;
  }

  std::string base_;
};

TEST_F(DynamoDbStoreTest, OneWriteRequestPerAppendAndPerConflict) {
  auto store = OpenStore("&indexer=0");  // no indexer: its requests would count too
  ASSERT_TRUE(store);
  auto requests = [&] { return store->stats().requests; };
  auto before = requests();
  ASSERT_TRUE(store->Append("acct-1", Expected::no_stream(), {Event()}).ok());
  EXPECT_EQ(requests() - before, 1u) << "no_stream on a new stream";
  before = requests();
  auto second = store->Append("acct-1", Expected::exactly(StreamVersion(0)), {Event(), Event()});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(requests() - before, 1u) << "exactly(N) that holds";
  before = requests();
  auto conflict = store->Append("acct-1", Expected::exactly(StreamVersion(0)), {Event()});
  EXPECT_EQ(conflict.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(conflict.status().actual_version(), 2);
  EXPECT_EQ(requests() - before, 1u) << "a conflict reports the version from the failed write";
  before = requests();
  ASSERT_TRUE(store->Append("acct-2", Expected::any(), {Event()}).ok());
  EXPECT_EQ(requests() - before, 1u) << "any on a new stream";
  EXPECT_EQ(store->stats().retries, 0u);
}

TEST_F(DynamoDbStoreTest, ARetryWithAFreshExpectationIsRecognisedWithoutAWrite) {
  // An entity reloads and resends its command's events with the head it
  // found, which the earlier attempt already moved: the expectation holds,
  // but the ids are in the window of the stream's newest appends (the
  // writer's own, or read with the head by another process).
  auto store = OpenStore("&indexer=0");
  ASSERT_TRUE(store);
  const std::vector<EventData> command = {Event(R"({"n":1})"), Event(R"({"n":2})")};
  ASSERT_TRUE(store->Append("acct", Expected::no_stream(), {Event()}).ok());
  auto first = store->Append("acct", Expected::exactly(StreamVersion(0)), command);
  ASSERT_TRUE(first.ok());
  const auto before = store->stats().requests;
  auto again = store->Append("acct", Expected::exactly(first->last_version), command);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->first_version, first->first_version);
  EXPECT_EQ(store->stats().requests - before, 0u) << "the writer's own window";
  auto other = OpenStore("&indexer=0");
  ASSERT_TRUE(other);
  const auto other_before = other->stats().requests;
  auto elsewhere = other->Append("acct", Expected::exactly(first->last_version), command);
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status().ToString();
  EXPECT_TRUE(elsewhere->replayed);
  EXPECT_EQ(other->stats().requests - other_before, 1u) << "the window, read with the head";
  EXPECT_EQ(store->Head("acct")->version.value(), 2) << "nothing written";

  // 40 appends of 40 ids: past the window's 32 appends and 512 ids; then
  // appends of 1,000 events, each an item of its own.
  constexpr int kAppends = 40;
  for (int i = 0; i < kAppends; ++i) {
    std::vector<EventData> many;
    for (int e = 0; e < 40; ++e) many.push_back(Event());
    ASSERT_TRUE(store->Append("acct", Expected::any(), many).ok()) << i;
  }
  auto late = store->Append("acct", Expected::any(), command);
  EXPECT_EQ(store->Head("acct")->version.value(), 2 + kAppends * 40 + (late->replayed ? 0 : 2));
  std::vector<EventData> huge;
  for (int e = 0; e < 1000; ++e) huge.push_back(Event());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(store->Append("acct", Expected::any(), huge).ok()) << i;
}

TEST_F(DynamoDbStoreTest, OneReadRequestPerEntityLoad) {
  auto store = OpenStore("&indexer=0");
  ASSERT_TRUE(store);
  std::vector<AppendRequest> commit(1);
  commit[0].stream = "ledger-1";
  commit[0].expected = Expected::no_stream();
  commit[0].events = {Event(R"({"n":0})"), Event(R"({"n":1})")};
  commit[0].state = StateUpdate{"state@1", 3};
  ASSERT_TRUE(store->Commit(commit).ok());
  ASSERT_TRUE(
      store->Append("ledger-1", Expected::exactly(StreamVersion(1)), {Event(R"({"n":2})")}).ok());

  const auto before = store->stats().requests;
  auto loaded = store->ReadStateAndEvents("ledger-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_TRUE(loaded->state.has_value());
  EXPECT_EQ(loaded->state->data, "state@1");
  EXPECT_EQ(loaded->state->version.value(), 1);
  std::vector<std::int64_t> versions;
  for (auto& c = *loaded->events; c.Valid(); c.Next())
    versions.push_back(c.event().version.value());
  EXPECT_TRUE(loaded->events->status().ok());
  EXPECT_EQ(versions, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(store->stats().requests - before, 1u) << "state and the events after it: one read";

  EXPECT_EQ(store->ReadStateAndEvents("never").status().code(), ErrorCode::kNotFound);
  ASSERT_TRUE(store->Delete("ledger-1").ok());
  auto deleted = store->ReadStateAndEvents("ledger-1");
  EXPECT_EQ(deleted.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(deleted.status().deleted());
}

// Capacity units, counted from the answers (ReturnConsumedCapacity), are
// what DynamoDB bills. Each append is an item of its own (append_item.h),
// billed on its own size: a 200-byte event costs one write unit, on a young
// stream and on a long-lived one alike (the earlier layout's tip cost 11 to
// 16), and a refused write (a conflict) is estimated by the sizing rules.
TEST_F(DynamoDbStoreTest, CapacityUnitsAreCountedAndAnAppendCostsOneUnitWhateverItsStream) {
  auto store = OpenStore("&indexer=0");
  ASSERT_TRUE(store);
  const std::string payload = "{\"memo\":\"" + std::string(180, 'x') + "\"}";
  auto append_range = [&](int from, int to) {
    const StoreStats before = store->stats();
    for (int v = from; v < to; ++v) {
      auto r = store->Append(
          "long-1", v == 0 ? Expected::no_stream() : Expected::exactly(StreamVersion(v - 1)),
          {Event(payload)});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }
    const StoreStats after = store->stats();
    return std::pair{after.write_units - before.write_units, after.requests - before.requests};
  };
  const auto [young_units, young_requests] = append_range(0, 48);
  EXPECT_EQ(young_units, 49.0) << "one unit an append, and one for the listing index's entry "
                                  "of the new stream (version 0's item carries its key)";
  EXPECT_EQ(young_requests, 48u) << "one request an append";
  (void)append_range(48, 200);
  const auto [old_units, old_requests] = append_range(200, 248);
  EXPECT_EQ(old_units, 48.0) << "the same at 200 appends a stream";
  EXPECT_EQ(old_requests, 48u);

  // A conflict is refused by its condition: DynamoDB reports nothing for
  // it, the client estimates what AWS bills (the item in the way).
  auto stale = store->Append("long-1", Expected::exactly(StreamVersion(3)), {Event(payload)});
  EXPECT_EQ(stale.status().code(), ErrorCode::kConflict);
  StoreStats stats = store->stats();
  double estimated = 0;
  for (const auto& op : stats.operations)
    if (op.caller == "store") estimated += op.estimated_write_units;
  EXPECT_EQ(estimated, 0.0) << "refused before writing: the cache knew the head";
  auto other = OpenStore("&indexer=0");  // knows nothing: bets, and is refused
  ASSERT_TRUE(other);
  auto refused_puts = [&] {
    std::pair<std::uint64_t, double> sum{0, 0};
    for (const auto& op : other->stats().operations)
      if (op.caller == "store" && op.operation == "PutItem")
        sum = {sum.first + op.condition_failures, sum.second + op.estimated_write_units};
    return sum;
  };
  const auto refused_before = refused_puts();  // opening writes the index's state if missing
  ASSERT_TRUE(other->Append("long-1", Expected::any(), {Event(payload)}).ok());
  const auto refused_after = refused_puts();
  EXPECT_EQ(refused_after.first - refused_before.first, 1u) << "the bet on version 0";
  EXPECT_EQ(refused_after.second - refused_before.second, 1.0)
      << "billed on the item in the way, one unit";

  const double read_before = store->stats().read_units;
  auto events = ReadStreamEvents(*store, "long-1");
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->size(), 249u);
  EXPECT_GT(store->stats().read_units, read_before);
}

TEST_F(DynamoDbStoreTest, IndexerKilledMidWriteLosesAndRepeatsNothing) {
  std::string output;
  testutil::ChildWriter child(std::string(DYNAMODB_CRASH_WRITER),
                              {base_ + "&index_lease_ms=500", "7"});
  ASSERT_TRUE(child.ok());
  std::set<std::pair<std::string, std::int64_t>> acknowledged;
  std::string line;
  while (acknowledged.size() < 400 && child.ReadLine(&line)) {
    const auto space = line.find(' ');
    acknowledged.emplace(line.substr(0, space), std::stoll(line.substr(space + 1)));
  }
  ASSERT_GE(acknowledged.size(), 400u) << "the writer stopped early";
  EXPECT_TRUE(child.KillAndWait()) << "killed while it appended and indexed";

  // A new store takes over once the dead indexer's lease ran out, and goes
  // on from the last chunk it wrote.
  auto store = OpenStore("&index_lease_ms=500");
  ASSERT_TRUE(store);
  std::uint64_t total = 0;
  for (int s = 0; s < 7; ++s) {
    auto head = store->Head("crash-" + std::to_string(s));
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    total += static_cast<std::uint64_t>(head->version.value() + 1);
  }
  Settle(*store, total);
  auto all = ExpectExactlyOnce(*store);
  EXPECT_EQ(all.size(), total);
  std::set<std::pair<std::string, std::int64_t>> indexed;
  for (const auto& e : all) indexed.emplace(e.stream, e.version.value());
  for (const auto& a : acknowledged)
    EXPECT_TRUE(indexed.contains(a)) << a.first << " " << a.second << " was acknowledged";
}

TEST_F(DynamoDbStoreTest, TwoStoresShareOneIndexAndTheSurvivorTakesOver) {
  auto first = OpenStore("&index_lease_ms=300");
  auto second = OpenStore("&index_lease_ms=300");
  ASSERT_TRUE(first && second);
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      Store& store = w % 2 == 0 ? *first : *second;
      for (int i = 0; i < 50; ++i)
        EXPECT_TRUE(store.Append("shared-" + std::to_string(w), Expected::any(), {Event()}).ok());
    });
  for (auto& t : writers) t.join();
  Settle(*first, 200);
  Settle(*second, 200);
  first.reset();  // whoever held the lease, the other store goes on
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(second->Append("after", Expected::any(), {Event()}).ok());
  Settle(*second, 220);
  EXPECT_EQ(ExpectExactlyOnce(*second).size(), 220u);

  // A follower (indexer=0) sees the index move without indexing.
  auto follower = OpenStore("&indexer=0");
  ASSERT_TRUE(follower);
  EXPECT_EQ(follower->LastPosition().value(), 220u);
  ASSERT_TRUE(second->Append("after", Expected::any(), {Event()}).ok());
  EXPECT_EQ(follower->WaitForCommit(Position(220), std::chrono::seconds(30)).value(), 221u);
}

TEST_F(DynamoDbStoreTest, DynaliteWritesStreamsButHasNoAll) {
  auto& server = testutil::SharedDynamoDbServer("dynalite");
  ASSERT_FALSE(server.endpoint().empty()) << server.output();
  auto store = Store::Open("dynamodb://127.0.0.1:" + std::to_string(server.port()) +
                           "?region=us-east-1&tls=0&prefix=dynalite_store_");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Append("s-1", Expected::no_stream(), {Event()}).ok());
  auto events = ReadStreamEvents(**store, "s-1");
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->size(), 1u);
  auto all = (*store)->ReadAll();
  EXPECT_EQ(all.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(all.status().message().find("DynamoDB Streams"), std::string::npos)
      << all.status().ToString();
  auto several =
      (*store)->Commit({{"a", Expected::any(), {Event()}}, {"b", Expected::any(), {Event()}}});
  EXPECT_EQ(several.status().code(), ErrorCode::kInvalid) << several.status().ToString();
  EXPECT_EQ((*store)->Head("a").status().code(), ErrorCode::kNotFound) << "nothing written";
}

TEST(DynamoDbStoreUrl, BadUrlsAndMissingCredentialsAreClearErrors) {
  EXPECT_EQ(Store::Open("dynamodb://127.0.0.1:1?region=x&tls=0&indexer=2").status().code(),
            ErrorCode::kInvalid);
  EXPECT_EQ(Store::Open("dynamodb://127.0.0.1:1?tls=0&typo=1").status().code(),
            ErrorCode::kInvalid);
}

}  // namespace
}  // namespace indelible
