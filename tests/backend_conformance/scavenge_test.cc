// Scavenging where the backend removes events (embedded and DynamoDB;
// docs/RETENTION.md): what retention hides is removed for good, every read
// path steps over the removed versions and positions, and writers go on.
// The memory backend refuses (retention_test.cc). What is particular to a
// backend is tested beside it: the embedded folder's bytes in
// retention_test.cc's DurableTests, DynamoDB's items in
// tests/dynamodb/scavenge_test.cc.
#include <atomic>
#include <map>
#include <thread>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

bool Removes(const Backend& backend) { return backend.name != "memory"; }

std::vector<std::int64_t> Range(std::int64_t from, std::int64_t through) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = from; v <= through; ++v) out.push_back(v);
  return out;
}

// maxCount 10 on a stream of 1,000 (in appends of 20 events), beside a
// stream without retention: the scavenge removes what is hidden (whole
// appends on DynamoDB, whose items hold an append each: 980 events; every
// one on the embedded engine: 990), and with the setting lifted every
// read shows what is left, from wherever it starts.
TEST_P(ConformanceTest, ScavengeRemovesWhatRetentionHidesAndEveryReadStepsOverIt) {
  if (!Removes(GetParam())) return;  // ScavengeIsRefusedWhereTheBackendCannotRemoveEvents
  for (int at = 0; at < 1000; at += 20) {
    std::vector<EventData> part = Events(20, "Noted");
    for (std::size_t i = 0; i < part.size(); ++i)
      if ((at + static_cast<int>(i)) % 2 == 0) part[i].tags = {"parity:even"};
    ASSERT_TRUE(store().Append("sc-a", Expected::any(), part).ok());
    if (at % 100 == 0) {
      ASSERT_TRUE(store().Append("sc-b", Expected::any(), Events(3)).ok());
    }
  }
  Settle();
  const auto before = All();
  ASSERT_EQ(before.size(), 1030u);
  ASSERT_TRUE(store().WriteStreamMetadata("sc-a", KeepLast(10)).ok());

  std::uint64_t last_done = 0, last_total = 0;
  auto report = store().Scavenge([&](std::uint64_t done, std::uint64_t total) {
    last_done = done;
    last_total = total;
  });
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->streams, 1u);
  EXPECT_GE(report->events, 980u);
  EXPECT_LE(report->events, 990u);
  EXPECT_GT(report->bytes, report->events * 30);
  EXPECT_EQ(last_done, 1u);
  EXPECT_EQ(last_total, 1u);
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
  EXPECT_EQ(VersionsOf(Read("sc-a")), Range(990, 999)) << "retention still hides the rest";

  ASSERT_TRUE(store().WriteStreamMetadata("sc-a", StreamMetadata{}).ok());
  const auto first = static_cast<std::int64_t>(report->events);
  EXPECT_EQ(VersionsOf(Read("sc-a")), Range(first, 999));
  ReadStreamOptions from_low;
  from_low.from = StreamVersion(5);
  from_low.limit = 3;
  EXPECT_EQ(VersionsOf(Read("sc-a", from_low)), Range(first, first + 2));
  ReadStreamOptions backward;
  backward.direction = Direction::kBackward;
  EXPECT_EQ(VersionsOf(Read("sc-a", backward)).back(), first);
  ReadStreamOptions backward_low = backward;
  backward_low.from = StreamVersion(first - 1);
  EXPECT_TRUE(Read("sc-a", backward_low).empty());
  auto head = store().Head("sc-a");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->version.value(), 999);

  // $all: the other stream whole, the kept events at their old positions,
  // in a page of any size.
  const auto after = All();
  EXPECT_EQ(VersionsOf(after, "sc-b").size(), 30u);
  EXPECT_EQ(VersionsOf(after, "sc-a"), Range(first, 999));
  std::map<std::string, std::uint64_t> position_of;
  for (const auto& e : before)
    position_of[e.stream + "/" + std::to_string(e.version.value())] = e.position.value();
  for (const auto& e : after) {
    if (e.stream.starts_with("$$")) continue;  // the settings written since
    EXPECT_EQ(e.position.value(), position_of[e.stream + "/" + std::to_string(e.version.value())])
        << e.stream << " " << e.version.value();
  }
  ReadAllOptions small;
  small.limit = 7;
  auto page = store().ReadAll(small);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  std::size_t seen = 0;
  for (; (*page)->Valid(); (*page)->Next()) ++seen;
  ASSERT_TRUE((*page)->status().ok()) << (*page)->status().ToString();
  EXPECT_EQ(seen, 7u);
  Query even;
  even.items.push_back(QueryItem{{}, {"parity:even"}});
  auto queried = ReadQueryEvents(store(), even);
  ASSERT_TRUE(queried.ok()) << queried.status().ToString();
  std::vector<std::int64_t> evens;
  for (std::int64_t v = first; v <= 999; ++v)
    if (v % 2 == 0) evens.push_back(v);
  EXPECT_EQ(VersionsOf(*queried, "sc-a"), evens);
  ListStreamsOptions list;
  list.prefix = "sc-a";
  auto listed = store().ListStreams(list);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->streams.size(), 1u);
  EXPECT_EQ(listed->streams[0].version.value(), 999);

  // The stream goes on numbering; nothing is left to scavenge.
  auto next = store().Append("sc-a", Expected::exactly(StreamVersion(999)), Events(1));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->last_version.value(), 1000);
  Settle();
  EXPECT_EQ(VersionsOf(All(), "sc-a").back(), 1000);
  auto again = store().Scavenge();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->events, 0u);
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
}

// Writers append to the stream being scavenged and to others all through
// it: every acknowledged event at or past the cut is read after it, in
// order, and $all holds each once.
TEST_P(ConformanceTest, ConcurrentAppendsDuringAScavengeLoseNothingPastTheCut) {
  if (!Removes(GetParam())) return;
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(store().Append("race-s", Expected::any(), Events(10)).ok());
  ASSERT_TRUE(store().WriteStreamMetadata("race-s", KeepLast(5)).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> acked_other{0};
  std::vector<std::thread> writers;
  std::vector<std::vector<std::int64_t>> acked(3);
  for (int w = 0; w < 3; ++w)
    writers.emplace_back([&, w] {
      while (!stop.load()) {
        auto r = store().Append(w == 0 ? "race-s" : "race-o-" + std::to_string(w), Expected::any(),
                                Events(1));
        if (!r.ok()) continue;
        if (w == 0)
          acked[0].push_back(r->last_version.value());
        else
          acked_other.fetch_add(1);
      }
    });
  auto report = store().Scavenge();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop = true;
  for (auto& t : writers) t.join();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_GE(report->events, 150u);

  ASSERT_TRUE(store().WriteStreamMetadata("race-s", StreamMetadata{}).ok());
  const auto kept = VersionsOf(Read("race-s"));
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept, Range(kept.front(), kept.back())) << "contiguous from the first kept";
  EXPECT_GE(kept.size(), 5u) << "maxCount's events at least";
  if (!acked[0].empty()) {
    EXPECT_EQ(kept.back(), acked[0].back());
  }
  Settle();
  const auto all = All();
  EXPECT_EQ(VersionsOf(all, "race-s"), kept);
  int others = 0;
  for (const auto& e : all)
    if (e.stream.starts_with("race-o-")) ++others;
  EXPECT_EQ(others, acked_other.load());
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
}

// An erasure removes the stream's events at once where the backend can:
// with its setting lifted, an audit read finds the tombstone alone.
TEST_P(ConformanceTest, EraseRemovesTheEventsWhereTheBackendCan) {
  if (!Removes(GetParam())) return;
  ASSERT_TRUE(store().Append("erase-r", Expected::no_stream(), Events(30)).ok());
  ASSERT_TRUE(store().Append("erase-r", Expected::any(), Events(1)).ok());
  ASSERT_TRUE(store().Erase("erase-r").ok());
  ASSERT_TRUE(store().WriteStreamMetadata("erase-r", StreamMetadata{}).ok());
  ReadStreamOptions audit;
  audit.include_deleted = true;
  EXPECT_EQ(VersionsOf(Read("erase-r", audit)), (std::vector<std::int64_t>{31}));
  EXPECT_EQ(VersionsOf(All(), "erase-r"), (std::vector<std::int64_t>{31}));
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
}

// An import of a stream whose first versions were removed before its
// export starts it where the export does (CommitOptions::start_version):
// it reads, lists and goes on as a scavenged stream does.
TEST_P(ConformanceTest, AnImportStartsAStreamPastItsRemovedVersions) {
  std::vector<AppendRequest> one;
  one.push_back(AppendRequest{"start-a", Expected::no_stream(), Events(3)});
  CommitOptions at_five;
  at_five.start_version = StreamVersion(5);
  auto started = store().Commit(one, at_five);
  if (!Removes(GetParam())) {
    ASSERT_FALSE(started.ok());
    EXPECT_EQ(started.status().code(), ErrorCode::kInvalid);
    EXPECT_EQ(store().Head("start-a").status().code(), ErrorCode::kNotFound) << "nothing written";
    return;
  }
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  EXPECT_EQ(started->appends[0].first_version.value(), 5);
  EXPECT_EQ(started->appends[0].last_version.value(), 7);
  EXPECT_EQ(VersionsOf(Read("start-a")), Range(5, 7));
  ReadStreamOptions backward;
  backward.direction = Direction::kBackward;
  EXPECT_EQ(VersionsOf(Read("start-a", backward)), (std::vector<std::int64_t>{7, 6, 5}));
  EXPECT_EQ(VersionsOf(All(), "start-a"), Range(5, 7));
  ListStreamsOptions list;
  list.prefix = "start-a";
  auto listed = store().ListStreams(list);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->streams.size(), 1u);
  EXPECT_EQ(listed->streams[0].version.value(), 7);
  // An idempotent retry answers the first result; a stream that exists
  // cannot be started again.
  auto retried = store().Commit(one, at_five);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_TRUE(retried->appends[0].replayed);
  std::vector<AppendRequest> other;
  other.push_back(AppendRequest{"start-a", Expected::no_stream(), Events(1)});
  EXPECT_EQ(store().Commit(other, at_five).status().code(), ErrorCode::kConflict);
  EXPECT_TRUE(store().Append("start-a", Expected::exactly(StreamVersion(7)), Events(1)).ok());
  EXPECT_EQ(VersionsOf(Read("start-a")), Range(5, 8));
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();

  // Only one append that expects no stream.
  std::vector<AppendRequest> any;
  any.push_back(AppendRequest{"start-b", Expected::any(), Events(1)});
  EXPECT_EQ(store().Commit(any, at_five).status().code(), ErrorCode::kInvalid);
  std::vector<AppendRequest> two;
  two.push_back(AppendRequest{"start-b", Expected::no_stream(), Events(1)});
  two.push_back(AppendRequest{"start-c", Expected::no_stream(), Events(1)});
  EXPECT_EQ(store().Commit(two, at_five).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(store().Head("start-b").status().code(), ErrorCode::kNotFound) << "nothing written";
}

}  // namespace
}  // namespace indelible::conformance
