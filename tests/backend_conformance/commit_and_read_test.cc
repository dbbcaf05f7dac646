// Atomic commits, stream reads and $all with its filters.
#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

TEST_P(ConformanceTest, OneFailingExpectationWritesNothingOnAnyStream) {
  Put("atom-b");
  const Position before = store().LastPosition();
  auto result = store().Commit(
      {{"atom-a", Expected::no_stream(), Events(2)}, {"atom-b", Expected::no_stream(), Events(1)}});
  EXPECT_EQ(result.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(result.status().actual_version(), 0);
  EXPECT_EQ(store().LastPosition(), before);
  EXPECT_EQ(store().Head("atom-a").status().code(), ErrorCode::kNotFound);
}

TEST_P(ConformanceTest, ACommitsEventsAreContiguousInPositionOrder) {
  Put("before");
  auto result =
      store().Commit({{"c-a", Expected::any(), Events(2)}, {"c-b", Expected::any(), Events(3)}});
  ASSERT_TRUE(result.ok());
  if (positions_at_commit()) {
    EXPECT_EQ(result->appends[0].first_position.value(), 2u);
    EXPECT_EQ(result->appends[0].position.value(), 3u);
    EXPECT_EQ(result->appends[1].first_position.value(), 4u);
    EXPECT_EQ(result->position.value(), 6u);
  } else {
    EXPECT_EQ(result->position.value(), 0u);
  }
  auto all = All();
  ASSERT_EQ(all.size(), 6u);
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].position.value(), i + 1);
  // Each stream's events in version order in $all (contiguous where
  // positions are assigned at commit; DynamoDB indexes a commit's streams
  // one after the other, docs/DYNAMODB.md).
  for (const std::string stream : {"c-a", "c-b"}) {
    std::int64_t version = 0;
    for (const auto& e : all) {
      if (e.stream == stream) {
        EXPECT_EQ(e.version.value(), version++);
      }
    }
  }
  EXPECT_EQ(store()
                .Commit({{"dup", Expected::any(), Events(1)}, {"dup", Expected::any(), Events(1)}})
                .status()
                .code(),
            ErrorCode::kInvalid);
}

TEST_P(ConformanceTest, ReadStreamForwardBackwardFromAndLimit) {
  Put("r", 5);
  Put("other", 1);
  Put("r", 5);
  auto all = Read("r");
  ASSERT_EQ(all.size(), 10u);
  for (int v = 0; v < 10; ++v) EXPECT_EQ(all[v].version.value(), v);
  // After "other"; stream reads carry positions only where they are
  // assigned at commit (DynamoDB: $all alone has them).
  EXPECT_EQ(all[5].position.value(), positions_at_commit() ? 7u : 0u);

  ReadStreamOptions from;
  from.from = StreamVersion(3);
  from.limit = 4;
  auto page = store().ReadStream("r", from);
  ASSERT_TRUE(page.ok());
  std::vector<std::int64_t> versions;
  for (; (*page)->Valid(); (*page)->Next()) versions.push_back((*page)->event().version.value());
  EXPECT_EQ(versions, (std::vector<std::int64_t>{3, 4, 5, 6}));
  EXPECT_EQ((*page)->next_version(), StreamVersion(7));

  ReadStreamOptions back;
  back.direction = Direction::kBackward;
  back.from = StreamVersion(6);
  back.limit = 3;
  auto b = Read("r", back);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].version.value(), 6);
  EXPECT_EQ(b[2].version.value(), 4);
  back.from.reset();
  back.limit = SIZE_MAX;
  EXPECT_EQ(Read("r", back).front().version.value(), 9);

  // Where a cursor goes on, typed: the next version in its direction, and
  // none once a backward read has passed version 0.
  ReadStreamOptions to_start;
  to_start.direction = Direction::kBackward;
  to_start.from = StreamVersion(1);
  auto start = store().ReadStream("r", to_start);
  ASSERT_TRUE(start.ok()) << start.status().ToString();
  std::size_t passed = 0;
  for (; (*start)->Valid(); (*start)->Next()) ++passed;
  EXPECT_EQ(passed, 2u);
  EXPECT_EQ((*start)->next_version(), std::nullopt) << "backward past version 0";
  ReadStreamOptions middle;
  middle.direction = Direction::kBackward;
  middle.from = StreamVersion(5);
  middle.limit = 2;
  auto part = store().ReadStream("r", middle);
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  for (; (*part)->Valid(); (*part)->Next()) {
  }
  EXPECT_EQ((*part)->next_version(), StreamVersion(3));
  EXPECT_EQ(store().ReadStream("missing").status().code(), ErrorCode::kNotFound);
}

TEST_P(ConformanceTest, EventsComeBackAsWritten) {
  EventData e = Event("Shaped", R"({"a":[1,2,{"b":null}]})");
  e.schema = "V2";
  e.metadata = R"({"user":"ann","correlationId":"c-1"})";
  EventData raw = Event("Raw");
  raw.content_type = "application/octet-stream";
  raw.data = std::string("\x00\x01\xff binary", 10);
  ASSERT_TRUE(store().Append("shape", Expected::any(), {e, raw}).ok());
  auto events = Read("shape");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].id, e.id);
  EXPECT_EQ(events[0].data, e.data);
  EXPECT_EQ(events[0].schema, "V2");
  EXPECT_EQ(events[0].metadata, e.metadata);
  EXPECT_EQ(events[0].content_type, "application/json");
  EXPECT_GT(events[0].timestamp_ms, 1600000000000);
  EXPECT_EQ(events[1].data, raw.data);
  EXPECT_EQ(events[1].content_type, "application/octet-stream");
}

TEST_P(ConformanceTest, AllInPositionOrderWithFromLimitAndFilters) {
  ASSERT_TRUE(
      store().Append("account-1", Expected::any(), {Event("Opened"), Event("Deposited")}).ok());
  ASSERT_TRUE(store().Append("BANK/7", Expected::any(), {Event("Opened")}).ok());
  ASSERT_TRUE(store().Append("account-2", Expected::any(), {Event("Deposited")}).ok());
  ASSERT_TRUE(store().Append("accounting", Expected::any(), {Event("Deposited")}).ok());

  auto all = All();
  ASSERT_EQ(all.size(), 5u);
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].position.value(), i + 1);

  ReadAllOptions paged;
  paged.from = Position(2);
  paged.limit = 2;
  auto cursor = store().ReadAll(paged);
  ASSERT_TRUE(cursor.ok());
  std::vector<std::uint64_t> positions;
  for (; (*cursor)->Valid(); (*cursor)->Next())
    positions.push_back((*cursor)->event().position.value());
  EXPECT_EQ(positions, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ((*cursor)->next_position(), Position(4));

  ReadAllOptions category;
  category.filter.categories = {"account"};
  auto accounts = All(category);
  ASSERT_EQ(accounts.size(), 3u);  // not "accounting", not BANK/7
  category.filter.categories = {"BANK"};
  EXPECT_EQ(All(category).size(), 1u);

  ReadAllOptions prefix;
  prefix.filter.stream_prefixes = {"account"};
  EXPECT_EQ(All(prefix).size(), 4u);

  ReadAllOptions types;
  types.filter.types = {"Deposited"};
  types.filter.categories = {"account"};
  auto deposits = All(types);
  ASSERT_EQ(deposits.size(), 2u);
  EXPECT_EQ(deposits[1].stream, "account-2");

  // next_position moves past filtered-out events.
  ReadAllOptions opened;
  opened.filter.types = {"Opened"};
  opened.limit = 1;
  opened.from = Position(2);
  auto c = store().ReadAll(opened);
  ASSERT_TRUE((*c)->Valid());
  EXPECT_EQ((*c)->event().position.value(), 3u);
  (*c)->Next();
  EXPECT_FALSE((*c)->Valid());
  EXPECT_EQ((*c)->next_position(), Position(4));
}

TEST_P(ConformanceTest, ACursorDoesNotSeeLaterCommits) {
  Put("snap", 3);
  Settle();
  auto all = store().ReadAll();
  auto stream = store().ReadStream("snap");
  ASSERT_TRUE(all.ok() && stream.ok());
  Put("snap", 3);
  Settle();
  int n = 0;
  for (; (*all)->Valid(); (*all)->Next()) ++n;
  EXPECT_EQ(n, 3);
  n = 0;
  for (; (*stream)->Valid(); (*stream)->Next()) ++n;
  EXPECT_EQ(n, 3);
}

TEST_P(ConformanceTest, WaitForCommitWakesOnACommitAndTimesOutOtherwise) {
  Put("w");
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(store().WaitForCommit(Position(1), std::chrono::milliseconds(50)).value(), 1u);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(45));
  EXPECT_EQ(store().WaitForCommit(Position(0), std::chrono::seconds(5)).value(), 1u);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Put("w");
  });
  EXPECT_EQ(store().WaitForCommit(Position(1), std::chrono::seconds(30)).value(), 2u);
  writer.join();
}

}  // namespace
}  // namespace indelible::conformance
