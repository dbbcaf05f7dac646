// Tags, query reads and conditional appends on DynamoDB Local
// (tag_index.h; docs/DYNAMODB.md, "Tags, queries and conditional appends"):
// tags stored and returned by every read path; the tag index the indexer
// writes with its chunks; query reads forward and backward; conditions
// that hold and fail; writers racing for one user name and for a course's
// seats; an indexer stopped before a chunk; the write units of tagged
// appends.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "aws/client.h"
#include "aws/credentials.h"
#include "aws/item_size.h"
#include "core/clock.h"
#include "indelible/store.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/dynamodb_store.h"
#include "storage/dynamodb/indexer.h"
#include "storage/dynamodb/store_url.h"
#include "storage/dynamodb/stream_table.h"
#include "storage/dynamodb/tables.h"
#include "storage/dynamodb/tag_index.h"
#include "storage/dynamodb/tip.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

EventData Tagged(std::string type, std::vector<std::string> tags, std::string data = "{}") {
  EventData e;
  e.id = EventId::Random();
  e.type = std::move(type);
  e.data = std::move(data);
  e.tags = std::move(tags);
  std::sort(e.tags.begin(), e.tags.end());
  return e;
}

class TagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testutil::DynamoDbTestUrl("tg", "&index_poll_ms=10&index_batch_ms=20");
    ASSERT_FALSE(url_.empty());
    prefix_ = url_.substr(url_.find("&prefix=") + 8);
    prefix_ = prefix_.substr(0, prefix_.find('&'));
    auto parsed = dynamodb::ParseStoreUrl(url_);
    auto credentials = aws::LoadCredentials();
    ASSERT_TRUE(parsed.ok() && credentials.ok());
    auto client = aws::Client::Create(dynamodb::ClientOptionsFromUrl(*parsed, *credentials));
    ASSERT_TRUE(client.ok());
    client_ = std::move(*client);
  }

  std::unique_ptr<Store> Open(const std::string& extra = "") {
    auto store = dynamodb::OpenDynamoDbStore(url_ + extra, StoreOptions{});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  static void Settle(Store& store, std::uint64_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (store.LastPosition().value() < count && std::chrono::steady_clock::now() < deadline)
      store.WaitForCommit(store.LastPosition(), milliseconds(100));
    ASSERT_GE(store.LastPosition().value(), count) << "the $all indexer did not catch up";
  }

  std::vector<RecordedEvent> Query_(Store& store, const Query& query,
                                    ReadQueryOptions options = {}) {
    auto events = ReadQueryEvents(store, query, options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }

  static std::vector<std::uint64_t> Positions(const std::vector<RecordedEvent>& events) {
    std::vector<std::uint64_t> out;
    for (const auto& e : events) out.push_back(e.position.value());
    return out;
  }

  dynamodb::TagIndex Tags() { return dynamodb::TagIndex(*client_, prefix_ + "events"); }

  std::string url_;
  std::string prefix_;
  std::unique_ptr<aws::Client> client_;
};

TEST_F(TagsTest, TagsAreStoredAndReturnedByEveryReadPath) {
  auto store = Open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store
                  ->Append("user-1", Expected::no_stream(),
                           {Tagged("Registered", {"user:1", "username:alice"}),
                            Tagged("Renamed", {}), Tagged("Verified", {"user:1"})})
                  .ok());
  auto read = ReadStreamEvents(*store, "user-1");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].tags, (std::vector<std::string>{"user:1", "username:alice"}));
  EXPECT_TRUE((*read)[1].tags.empty());
  EXPECT_EQ((*read)[2].tags, std::vector<std::string>{"user:1"});
  auto loaded = store->ReadStateAndEvents("user-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_TRUE(loaded->events->Valid());
  EXPECT_EQ(loaded->events->event().tags.size(), 2u) << "the entity load";
  Settle(*store, 3);
  auto all = ReadAllEvents(*store);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].tags, (std::vector<std::string>{"user:1", "username:alice"}));
  EXPECT_EQ((*all)[2].tags, std::vector<std::string>{"user:1"});
  // Not a stream: neither listed nor writable.
  auto listed = store->ListStreams();
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->streams.size(), 1u);
  EXPECT_EQ(listed->streams[0].stream, "user-1");
  CommitOptions reserved;
  reserved.allow_reserved = true;
  auto refused = store->Commit({{"$tag:user:1", Expected::any(), {Tagged("X", {})}}}, reserved);
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalid) << refused.status().ToString();
}

TEST_F(TagsTest, TheIndexerWritesEachTagsEventsWithTheirRunningCount) {
  auto store = Open();
  ASSERT_TRUE(store);
  // Positions 1..6; course:c1 at 1, 3, 4, 6; student:s2 at 3 and 5.
  ASSERT_TRUE(
      store->Append("a", Expected::any(), {Tagged("Enrolled", {"course:c1", "student:s1"})}).ok());
  ASSERT_TRUE(store->Append("b", Expected::any(), {Tagged("Other", {})}).ok());
  Settle(*store, 2);
  ASSERT_TRUE(store
                  ->Append("c", Expected::any(),
                           {Tagged("Enrolled", {"course:c1", "student:s2"}),
                            Tagged("Confirmed", {"course:c1"})})
                  .ok());
  Settle(*store, 4);
  ASSERT_TRUE(store->Append("d", Expected::any(), {Tagged("Left", {"student:s2"})}).ok());
  ASSERT_TRUE(store->Append("e", Expected::any(), {Tagged("Enrolled", {"course:c1"})}).ok());
  Settle(*store, 6);

  auto tags = Tags();
  auto counters = tags.Counters({"course:c1", "student:s2", "nothing"});
  ASSERT_TRUE(counters.ok()) << counters.status().ToString();
  EXPECT_EQ(counters->at("course:c1"), 4);
  EXPECT_EQ(counters->at("student:s2"), 2);
  EXPECT_EQ(counters->at("nothing"), 0);
  auto pages = tags.Pages("course:c1", 1, true, 100);
  ASSERT_TRUE(pages.ok()) << pages.status().ToString();
  std::vector<dynamodb::TagEntry> entries;
  for (const auto& page : *pages)
    for (const auto& e : page.entries) entries.push_back(e);
  ASSERT_EQ(entries.size(), 4u);
  const std::vector<std::int64_t> positions{1, 3, 4, 6};
  const std::vector<std::string> types{"Enrolled", "Enrolled", "Confirmed", "Enrolled"};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(entries[i].position, positions[i]);
    EXPECT_EQ(entries[i].k, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(entries[i].type, types[i]);
  }
  EXPECT_EQ(entries[2].stream, "c");
  EXPECT_EQ(entries[2].append_first, 0);
  EXPECT_EQ(entries[2].offset, 1);
  EXPECT_GE(pages->size(), 2u) << "pages follow the chunks";
  for (auto [p, k] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {0, 0}, {1, 1}, {2, 1}, {3, 2}, {4, 3}, {5, 3}, {6, 4}, {100, 4}}) {
    auto counted = tags.CountThrough("course:c1", p);
    ASSERT_TRUE(counted.ok());
    EXPECT_EQ(*counted, k) << "K(" << p << ")";
  }
  // $all is unchanged by the tag items: every position once.
  auto all = ReadAllEvents(*store);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Positions(*all), (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
}

TEST_F(TagsTest, QueriesReadForwardAndBackwardAcrossItems) {
  auto store = Open();
  ASSERT_TRUE(store);
  for (int i = 0; i < 12; ++i) {
    std::vector<std::string> t{"course:c" + std::to_string(i % 3)};
    if (i % 2 == 0) t.push_back("student:s" + std::to_string(i % 4));
    ASSERT_TRUE(store
                    ->Append("s" + std::to_string(i % 5), Expected::any(),
                             {Tagged(i % 4 == 3 ? "Left" : "Enrolled", t)})
                    .ok());
  }
  ASSERT_TRUE(store->Append("plain", Expected::any(), {Tagged("Noted", {})}).ok());
  Settle(*store, 13);
  auto all = ReadAllEvents(*store);
  ASSERT_TRUE(all.ok());
  const Query query =
      Query::Of({QueryItem{{"Enrolled"}, {"course:c1"}}, QueryItem{{}, {"course:c0", "student:s0"}},
                 QueryItem{{"Noted"}, {}}});
  std::vector<std::uint64_t> expected;
  for (const auto& e : *all)
    if (query.Matches(e.type, e.tags)) expected.push_back(e.position.value());
  ASSERT_GE(expected.size(), 4u);
  EXPECT_EQ(Positions(Query_(*store, query)), expected);

  ReadQueryOptions backward;
  backward.direction = Direction::kBackward;
  auto reversed = expected;
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_EQ(Positions(Query_(*store, query, backward)), reversed);

  // Pages: from, limit and next_position, both ways.
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    std::vector<std::uint64_t> paged;
    ReadQueryOptions options;
    options.direction = direction;
    options.limit = 2;
    for (int page = 0; page < 20; ++page) {
      auto cursor = store->ReadQuery(query, options);
      ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
      std::size_t got = 0;
      for (; (*cursor)->Valid(); (*cursor)->Next(), ++got)
        paged.push_back((*cursor)->event().position.value());
      ASSERT_TRUE((*cursor)->status().ok()) << (*cursor)->status().ToString();
      options.from = (*cursor)->next_position();
      if (got < 2 || options.from->value() == 0) break;
    }
    EXPECT_EQ(paged, direction == Direction::kForward ? expected : reversed);
  }
  // The events come whole, with their tags.
  auto one = Query_(*store, Query::Of({QueryItem{{}, {"student:s2"}}}));
  ASSERT_FALSE(one.empty());
  for (const auto& e : one) {
    EXPECT_TRUE(std::find(e.tags.begin(), e.tags.end(), "student:s2") != e.tags.end());
    EXPECT_EQ(e.data, "{}");
  }
  EXPECT_TRUE(Query_(*store, Query::Of({QueryItem{{}, {"course:none"}}})).empty());
  EXPECT_EQ(Query_(*store, Query::All()).size(), 13u);
}

TEST_F(TagsTest, AConditionHoldsUntilAMatchingEventIsWrittenAfterItsPosition) {
  auto store = Open();
  ASSERT_TRUE(store);
  const Query taken = Query::Of({QueryItem{{"UsernameClaimed"}, {"username:bob"}}});
  ASSERT_TRUE(store->Append("x", Expected::any(), {Tagged("Other", {"username:bob"})}).ok());
  Settle(*store, 1);
  CommitOptions options;
  options.condition = AppendCondition{taken, Position(1)};
  auto first = store->Commit(
      {{"user-1", Expected::no_stream(), {Tagged("UsernameClaimed", {"username:bob"})}}}, options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // The same condition again: the claim (position 2 once indexed) breaks it.
  auto second = store->Commit(
      {{"user-2", Expected::no_stream(), {Tagged("UsernameClaimed", {"username:bob"})}}}, options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kConflict);
  ASSERT_TRUE(second.status().condition_position().has_value()) << second.status().ToString();
  EXPECT_EQ(*second.status().condition_position(), 2u) << "the claim's position";
  auto head = store->Head("user-2");
  EXPECT_EQ(head.status().code(), ErrorCode::kNotFound) << "nothing written";
  Settle(*store, 2);
  // From position 2 on, it holds again.
  options.condition = AppendCondition{taken, Position(2)};
  auto third =
      store->Commit({{"user-3", Expected::no_stream(), {Tagged("Released", {})}}}, options);
  EXPECT_TRUE(third.ok()) << third.status().ToString();
  // A condition item of types alone cannot be checked here.
  options.condition = AppendCondition{Query::Of({QueryItem{{"UsernameClaimed"}, {}}}), Position(2)};
  auto typed = store->Commit({{"user-4", Expected::any(), {Tagged("X", {})}}}, options);
  EXPECT_EQ(typed.status().code(), ErrorCode::kInvalid) << typed.status().ToString();
  options.condition = AppendCondition{Query::All(), Position(2)};
  EXPECT_EQ(
      store->Commit({{"user-4", Expected::any(), {Tagged("X", {})}}}, options).status().code(),
      ErrorCode::kInvalid);
}

TEST_F(TagsTest, AnIdempotentRetryOfAConditionalCommitAnswersTheFirstResult) {
  auto store = Open("&indexer=0");
  ASSERT_TRUE(store);
  CommitOptions options;
  options.condition = AppendCondition{Query::Of({QueryItem{{}, {"invoice:7"}}}), std::nullopt};
  std::vector<EventData> events{Tagged("InvoiceNumbered", {"invoice:7"})};
  auto first = store->Commit({{"inv-7", Expected::any(), events}}, options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // The same events again: the condition would fail now (its own event), the retry is first.
  auto again = store->Commit({{"inv-7", Expected::any(), events}}, options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->appends[0].replayed);
  // Through another store, which knows nothing of the stream: its put is refused by the item.
  auto other = Open("&indexer=0");
  auto third = other->Commit({{"inv-7", Expected::no_stream(), events}}, options);
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_TRUE(third->appends[0].replayed);
  auto counters = Tags().Counters({"invoice:7"});
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ(counters->at("invoice:7"), 1) << "counted once";
}

TEST_F(TagsTest, ThirtyTwoWritersRacingForOneUserNameExactlyOneWins) {
  auto store = Open();
  ASSERT_TRUE(store);
  for (int round = 0; round < 3; ++round) {
    const std::string name = "username:n" + std::to_string(round);
    const Query taken = Query::Of({QueryItem{{"UsernameClaimed"}, {name}}});
    // Every writer read the same thing: nothing claimed as of the end of $all.
    const Position seen = store->LastPosition();
    std::atomic<int> won{0}, refused{0}, other{0};
    std::vector<std::thread> writers;
    for (int w = 0; w < 32; ++w)
      writers.emplace_back([&, w] {
        CommitOptions options;
        options.condition = AppendCondition{taken, seen};
        auto result = store->Commit({{"user-" + std::to_string(round) + "-" + std::to_string(w),
                                      Expected::no_stream(),
                                      {Tagged("UsernameClaimed", {name})}}},
                                    options);
        if (result.ok())
          ++won;
        else if (result.status().condition_position())
          ++refused;
        else
          ++other;
      });
    for (auto& t : writers) t.join();
    EXPECT_EQ(won.load(), 1) << "round " << round;
    EXPECT_EQ(refused.load(), 31) << "round " << round;
    EXPECT_EQ(other.load(), 0);
    auto counters = Tags().Counters({name});
    ASSERT_TRUE(counters.ok());
    EXPECT_EQ(counters->at(name), 1);
  }
}

TEST_F(TagsTest, FiftyEnrolmentsAgainstTenSeatsEnrolExactlyTen) {
  auto store = Open();
  ASSERT_TRUE(store);
  const Query course = Query::Of({QueryItem{{"Enrolled"}, {"course:c9"}}});
  std::atomic<int> enrolled{0};
  std::vector<std::thread> students;
  for (int s = 0; s < 50; ++s)
    students.emplace_back([&, s] {
      for (int attempt = 0; attempt < 200; ++attempt) {
        // Read what the rule depends on, decide, append on that condition.
        auto cursor = store->ReadQuery(course);
        if (!cursor.ok()) continue;
        std::size_t seats = 0;
        for (; (*cursor)->Valid(); (*cursor)->Next()) ++seats;
        if (!(*cursor)->status().ok()) continue;
        const Position next = (*cursor)->next_position();
        if (seats >= 10) return;
        CommitOptions options;
        options.condition = AppendCondition{course, Position(next.value() - 1)};
        auto result =
            store->Commit({{"student-" + std::to_string(s),
                            Expected::no_stream(),
                            {Tagged("Enrolled", {"course:c9", "student:" + std::to_string(s)})}}},
                          options);
        if (result.ok()) {
          ++enrolled;
          return;
        }
        EXPECT_TRUE(result.status().condition_position()) << result.status().ToString();
        std::this_thread::sleep_for(milliseconds(5 + s % 7));
      }
    });
  for (auto& t : students) t.join();
  EXPECT_EQ(enrolled.load(), 10);
  auto counters = Tags().Counters({"course:c9"});
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ(counters->at("course:c9"), 10);
  Settle(*store, 10);
  EXPECT_EQ(Query_(*store, course).size(), 10u);
}

// The Indexer alone, on tables of its own: a crash before a chunk (the
// hook) leaves nothing of it; the next lease holder writes the chunk and
// its tag pages once, with counts that go on from the stored ones.
TEST_F(TagsTest, AnIndexerStoppedBeforeAChunkLeavesACorrectTagIndex) {
  auto store = Open("&indexer=0");  // the tables; its writes count the tags
  ASSERT_TRUE(store);
  auto parsed = dynamodb::ParseStoreUrl(url_);
  auto credentials = aws::LoadCredentials();
  auto streams_options = dynamodb::ClientOptionsFromUrl(*parsed, *credentials);
  streams_options.target_prefix = "DynamoDBStreams_20120810.";
  auto streams = aws::Client::Create(streams_options);
  ASSERT_TRUE(streams.ok());
  auto described = client_->Call("DescribeTable", {{"TableName", prefix_ + "events"}});
  ASSERT_TRUE(described.ok());
  const std::string arn(described.body.at("Table").at("LatestStreamArn").as_string());
  dynamodb::AllIndex index(*client_, prefix_ + "all");

  auto options = [&](const std::string& owner) {
    dynamodb::IndexerOptions o;
    o.stream_arn = arn;
    o.owner = owner;
    o.batch = milliseconds(0);
    o.lease = milliseconds(300);
    return o;
  };
  auto pass_until = [&](dynamodb::Indexer& indexer, std::uint64_t last, bool expect_ok) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (indexer.last_position().value() < last && std::chrono::steady_clock::now() < deadline) {
      auto passed = indexer.Pass();
      if (expect_ok) {
        ASSERT_TRUE(passed.ok()) << passed.status().ToString();
      }
      if (!passed.ok()) return;
      std::this_thread::sleep_for(milliseconds(20));
    }
  };
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(store
                    ->Append("t" + std::to_string(i), Expected::any(),
                             {Tagged("Tested", {"tag:a", "tag:b"})})
                    .ok());
  {
    dynamodb::Indexer first(*streams.value(), index, options("first"));
    ASSERT_TRUE(first.Prime().ok());
    pass_until(first, 3, true);
    ASSERT_EQ(first.last_position().value(), 3u);
  }
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(store
                    ->Append("u" + std::to_string(i), Expected::any(),
                             {Tagged("Tested", {"tag:a"}), Tagged("Tested", {"tag:c"})})
                    .ok());
  std::this_thread::sleep_for(milliseconds(400));  // the first one's lease runs out
  {
    std::atomic<int> stopped{0};
    auto crashing = options("crashing");
    crashing.before_chunk_write = [&](const dynamodb::Chunk&,
                                      const std::vector<dynamodb::TagPage>& pages) {
      EXPECT_FALSE(pages.empty());
      ++stopped;
      return false;
    };
    dynamodb::Indexer crashed(*streams.value(), index, crashing);
    ASSERT_TRUE(crashed.Prime().ok());
    for (int i = 0; i < 5 && stopped.load() == 0; ++i) {
      auto passed = crashed.Pass();
      if (!passed.ok()) break;
      std::this_thread::sleep_for(milliseconds(50));
    }
    ASSERT_GE(stopped.load(), 1);
    EXPECT_EQ(crashed.last_position().value(), 3u) << "nothing past the chunks written";
  }
  std::this_thread::sleep_for(milliseconds(400));
  dynamodb::Indexer next(*streams.value(), index, options("next"));
  ASSERT_TRUE(next.Prime().ok());
  pass_until(next, 11, true);
  ASSERT_EQ(next.last_position().value(), 11u);

  auto tags = Tags();
  for (const auto& [tag, want] :
       std::map<std::string, std::int64_t>{{"tag:a", 7}, {"tag:b", 3}, {"tag:c", 4}}) {
    auto pages = tags.Pages(tag, 1, true, 100);
    ASSERT_TRUE(pages.ok());
    std::vector<std::int64_t> seen;
    std::int64_t k = 0;
    for (const auto& page : *pages)
      for (const auto& e : page.entries) {
        EXPECT_EQ(e.k, ++k) << tag;
        seen.push_back(e.position);
      }
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), want) << tag;
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_EQ(std::set<std::int64_t>(seen.begin(), seen.end()).size(), seen.size()) << "once";
    auto counters = tags.Counters({tag});
    ASSERT_TRUE(counters.ok());
    EXPECT_EQ(counters->at(tag), want) << "the counter agrees with the index";
  }
}

// Write units: an untagged append is still one PutItem billed on its item
// (DynamoDB Local reports exactly that); a tagged one is a transaction,
// which AWS bills 2 units per KB of each item: the append item and each
// tag's counter (about 40 bytes: 1 KB). DynamoDB Local bills a transaction
// as a whole, not per item (4 units for a small event whatever its tags,
// 12 for 1.5 KB; measured), so the rule is reckoned from the stored items'
// sizes and Local's report only bounds it from below.
TEST_F(TagsTest, TaggedAppendsCostTwiceTheirItemsAndTwoUnitsATag) {
  auto store = Open("&indexer=0");  // makes the tables
  ASSERT_TRUE(store);
  dynamodb::StreamTableOptions table_options;
  table_options.table = prefix_ + "events";
  dynamodb::StreamTable table(*client_, table_options);
  auto units_of = [&](const std::string& stream, std::int64_t version) {
    auto reply = client_->Call(
        "GetItem",
        {{"TableName", prefix_ + "events"},
         {"Key", {{"stream", {{"S", stream}}}, {"version", {{"N", std::to_string(version)}}}}},
         {"ConsistentRead", true}});
    EXPECT_TRUE(reply.ok() && reply.body.contains("Item")) << stream << " " << version;
    if (!reply.ok() || !reply.body.contains("Item")) return std::uint64_t{0};
    return aws::WriteUnits(aws::ItemSize(reply.body.at("Item").as_object()));
  };
  const std::string big = "\"" + std::string(1500, 'x') + "\"";
  int n = 0;
  for (const std::string& data : {std::string("{}"), big})
    for (const std::vector<std::string>& tags :
         std::vector<std::vector<std::string>>{{}, {"user:1"}, {"user:1", "course:c1"}}) {
      const std::string stream = "cost-" + std::to_string(n++);
      // Version 0's item also writes the listing index: measure version 1.
      ASSERT_TRUE(table.Append(stream, Expected::no_stream(), {Tagged("E", {})}).ok());
      const double before = client_->counters().write_units;
      ASSERT_TRUE(
          table.Append(stream, Expected::exactly(StreamVersion(0)), {Tagged("E", tags, data)})
              .ok());
      const double reported = client_->counters().write_units - before;
      const std::uint64_t item = units_of(stream, 1);
      ASSERT_EQ(item, data == big ? 2u : 1u);
      if (tags.empty()) {
        EXPECT_EQ(reported, static_cast<double>(item)) << "one PutItem, as before tags";
        continue;
      }
      std::uint64_t by_rules = 2 * item;
      for (const auto& tag : tags) {
        const std::uint64_t counter = units_of("$tag:" + tag, -1);
        EXPECT_EQ(counter, 1u);
        by_rules += 2 * counter;
      }
      EXPECT_EQ(by_rules, 2 * item + 2 * tags.size()) << "docs/DYNAMODB.md's table";
      EXPECT_GE(reported, static_cast<double>(2 * item)) << stream;
    }
}

}  // namespace
}  // namespace indelible
