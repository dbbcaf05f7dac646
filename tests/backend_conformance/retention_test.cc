// Stream metadata and retention at read time (stream_metadata.h,
// docs/RETENTION.md) on every backend: the metadata's own version and
// expectations, and what maxCount, truncateBefore and maxAge hide from
// every read path at once (stream reads both ways, $all, queries,
// subscriptions, FindEvent, entity loads) while appends go on numbering.
#include <indelible/subscription.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "backend_conformance/conformance.h"
#include "core/clock.h"
#include "testutil/files_holding.h"

namespace indelible::conformance {
namespace {

TEST_P(ConformanceTest, StreamMetadataHasItsOwnVersionAndExpectations) {
  auto none = store().ReadStreamMetadata("meta-1");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->version);
  EXPECT_EQ(none->metadata, StreamMetadata{});

  StreamMetadata first = KeepLast(10);
  first.custom = R"({"owner":"billing"})";
  auto v0 = store().WriteStreamMetadata("meta-1", first, Expected::no_stream());
  ASSERT_TRUE(v0.ok()) << v0.status().ToString();
  EXPECT_EQ(v0->value(), 0);
  auto read = store().ReadStreamMetadata("meta-1");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_TRUE(read->version);
  EXPECT_EQ(read->version->value(), 0);
  EXPECT_EQ(read->metadata, first);

  StreamMetadata second;
  second.truncate_before = StreamVersion(3);
  auto v1 = store().WriteStreamMetadata("meta-1", second, Expected::exactly(StreamVersion(0)));
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ(v1->value(), 1);

  auto stale = store().WriteStreamMetadata("meta-1", first, Expected::exactly(StreamVersion(0)));
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(stale.status().actual_version(), 1);
  auto again = store().WriteStreamMetadata("meta-1", first, Expected::no_stream());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(store().ReadStreamMetadata("meta-1")->metadata, second);

  // The stream it describes need not exist; it does not come into being.
  EXPECT_EQ(store().Head("meta-1").status().code(), ErrorCode::kNotFound);
}

TEST_P(ConformanceTest, StreamMetadataRefusesBadInputAndWritesNothing) {
  StreamMetadata bad;
  bad.custom = "[1,2]";
  auto not_object = store().WriteStreamMetadata("meta-2", bad);
  ASSERT_FALSE(not_object.ok());
  EXPECT_EQ(not_object.status().code(), ErrorCode::kInvalid);
  auto of_metadata = store().WriteStreamMetadata("$$meta-2", StreamMetadata{});
  ASSERT_FALSE(of_metadata.ok());
  EXPECT_EQ(of_metadata.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(store().ReadStreamMetadata("$$meta-2").status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(store().WriteStreamMetadata("", StreamMetadata{}).status().code(), ErrorCode::kInvalid);
  StreamMetadata zero;
  zero.max_count = 0;
  EXPECT_EQ(store().WriteStreamMetadata("meta-2", zero).status().code(), ErrorCode::kInvalid);
  EXPECT_FALSE(store().ReadStreamMetadata("meta-2")->version);
  // A user cannot write a metadata stream as a stream.
  auto direct = store().Append("$$meta-2", Expected::any(), Events(1, "$metadata"));
  EXPECT_EQ(direct.status().code(), ErrorCode::kInvalid);
}

TEST_P(ConformanceTest, MaxCountHidesOlderEventsFromEveryReadAtOnce) {
  const AppendResult first = Put("kept-a", 20);
  Put("other-a", 5);
  auto hidden_id = Read("kept-a").front().id;
  ASSERT_TRUE(store().WriteStreamMetadata("kept-a", KeepLast(3)).ok());
  Settle();

  EXPECT_EQ(VersionsOf(Read("kept-a")), (std::vector<std::int64_t>{17, 18, 19}));
  ReadStreamOptions backward;
  backward.direction = Direction::kBackward;
  backward.limit = 2;
  EXPECT_EQ(VersionsOf(Read("kept-a", backward)), (std::vector<std::int64_t>{19, 18}));
  backward.limit = 10;
  EXPECT_EQ(VersionsOf(Read("kept-a", backward)), (std::vector<std::int64_t>{19, 18, 17}));
  ReadStreamOptions page;
  page.from = StreamVersion(5);
  page.limit = 2;
  EXPECT_EQ(VersionsOf(Read("kept-a", page)), (std::vector<std::int64_t>{17, 18}));

  const auto all = All();
  EXPECT_EQ(VersionsOf(all, "kept-a"), (std::vector<std::int64_t>{17, 18, 19}));
  EXPECT_EQ(VersionsOf(all, "other-a").size(), 5u);
  ReadAllOptions two;
  two.limit = 2;
  EXPECT_EQ(All(two).size(), 2u) << "the limit counts the events returned";

  if (store().traits().ids_unique_across_streams) {
    auto found = store().FindEvent(hidden_id);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_FALSE(*found);
  }
  // The head is untouched and appends go on numbering; the window moves.
  EXPECT_EQ(store().Head("kept-a")->version.value(), 19);
  Put("kept-a", 2);
  EXPECT_EQ(VersionsOf(Read("kept-a")), (std::vector<std::int64_t>{19, 20, 21}));
  EXPECT_EQ(VersionsOf(All(), "kept-a"), (std::vector<std::int64_t>{19, 20, 21}));

  // Lifting the setting shows everything again: nothing was removed yet.
  ASSERT_TRUE(store().WriteStreamMetadata("kept-a", StreamMetadata{}).ok());
  EXPECT_EQ(Read("kept-a").size(), 22u);
  (void)first;
}

TEST_P(ConformanceTest, TruncateBeforeHidesLowerVersionsInReadsQueriesAndSubscriptions) {
  std::vector<EventData> tagged = Events(10);
  for (auto& e : tagged) e.tags = {"case:t"};
  ASSERT_TRUE(store().Append("trunc-a", Expected::no_stream(), tagged).ok());
  Settle();
  StreamMetadata metadata;
  metadata.truncate_before = StreamVersion(7);
  ASSERT_TRUE(store().WriteStreamMetadata("trunc-a", metadata).ok());
  Settle();

  EXPECT_EQ(VersionsOf(Read("trunc-a")), (std::vector<std::int64_t>{7, 8, 9}));
  Query query;
  query.items.push_back(QueryItem{{}, {"case:t"}});
  auto queried = ReadQueryEvents(store(), query);
  ASSERT_TRUE(queried.ok()) << queried.status().ToString();
  EXPECT_EQ(VersionsOf(*queried), (std::vector<std::int64_t>{7, 8, 9}));

  Subscription sub(store(), {});
  std::vector<RecordedEvent> delivered;
  for (int i = 0; i < 50; ++i) {
    auto batch = sub.Next(std::chrono::milliseconds(200));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (auto& e : batch->events) delivered.push_back(std::move(e));
    if (batch->caught_up) break;
  }
  EXPECT_EQ(VersionsOf(delivered, "trunc-a"), (std::vector<std::int64_t>{7, 8, 9}));

  SubscriptionOptions one;
  one.stream = "trunc-a";
  Subscription stream_sub(store(), one);
  std::vector<RecordedEvent> of_stream;
  for (int i = 0; i < 50; ++i) {
    auto batch = stream_sub.Next(std::chrono::milliseconds(200));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (auto& e : batch->events) of_stream.push_back(std::move(e));
    if (batch->caught_up) break;
  }
  EXPECT_EQ(VersionsOf(of_stream), (std::vector<std::int64_t>{7, 8, 9}));

  // An entity load sees the same events.
  auto loaded = store().ReadStateAndEvents("trunc-a");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  std::vector<std::int64_t> loaded_versions;
  for (; loaded->events->Valid(); loaded->events->Next())
    loaded_versions.push_back(loaded->events->event().version.value());
  EXPECT_EQ(loaded_versions, (std::vector<std::int64_t>{7, 8, 9}));
}

TEST_P(ConformanceTest, MaxAgeHidesEventsOlderThanItByTheirCommitTime) {
  const std::int64_t now = UnixMillisNow();
  std::vector<EventData> events = Events(4);
  events[0].timestamp_ms = now - 3 * 3600 * 1000;
  events[1].timestamp_ms = now - 2 * 3600 * 1000;
  events[2].timestamp_ms = now - 60 * 1000;
  events[3].timestamp_ms = now;
  CommitOptions keep;
  keep.keep_timestamps = true;
  std::vector<AppendRequest> appends;
  appends.push_back(AppendRequest{"aged-a", Expected::no_stream(), events});
  ASSERT_TRUE(store().Commit(std::move(appends), keep).ok());
  Settle();
  StreamMetadata hour;
  hour.max_age = std::chrono::seconds(3600);
  ASSERT_TRUE(store().WriteStreamMetadata("aged-a", hour).ok());
  Settle();

  EXPECT_EQ(VersionsOf(Read("aged-a")), (std::vector<std::int64_t>{2, 3}));
  ReadStreamOptions one;
  one.limit = 1;
  EXPECT_EQ(VersionsOf(Read("aged-a", one)), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(VersionsOf(All(), "aged-a"), (std::vector<std::int64_t>{2, 3}));
}

TEST_P(ConformanceTest, ConcurrentMetadataWritersEachWinOneVersion) {
  constexpr int kThreads = 6;
  constexpr int kTries = 10;
  std::atomic<int> won{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kTries; ++i) {
        auto current = store().ReadStreamMetadata("raced-a");
        if (!current.ok()) continue;
        const Expected expected =
            current->version ? Expected::exactly(*current->version) : Expected::no_stream();
        StreamMetadata next = KeepLast(static_cast<std::uint64_t>(t * 100 + i + 1));
        if (store().WriteStreamMetadata("raced-a", next, expected).ok()) ++won;
      }
    });
  }
  for (auto& w : writers) w.join();
  auto final = store().ReadStreamMetadata("raced-a");
  ASSERT_TRUE(final.ok());
  ASSERT_TRUE(final->version);
  EXPECT_EQ(final->version->value() + 1, won.load()) << "every success took exactly one version";
}

// Reads racing retention changes and appends: each read applies one set of
// settings (the one in force when it started), never a torn one, and
// nothing fails. Under ThreadSanitizer in CI (the tsan stage).
TEST_P(ConformanceTest, ConcurrentReadsWhileRetentionChanges) {
  Put("moving-a", 40);
  ASSERT_TRUE(store().WriteStreamMetadata("moving-a", KeepLast(30)).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    for (std::uint64_t n = 1; !stop; n = n % 30 + 1)
      if (!store().WriteStreamMetadata("moving-a", KeepLast(n)).ok()) ++failures;
  });
  threads.emplace_back([&] {
    while (!stop)
      if (!store().Append("moving-a", Expected::any(), Events(1)).ok()) ++failures;
  });
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      while (!stop) {
        auto events = ReadStreamEvents(store(), "moving-a");
        if (!events.ok()) {
          ADD_FAILURE() << events.status().ToString();
          ++failures;
        } else if (events->empty() || events->size() > 30) {
          ADD_FAILURE() << events->size() << " events read";
          ++failures;
        }
        auto all = ReadAllEvents(store());
        if (!all.ok()) {
          ADD_FAILURE() << all.status().ToString();
          ++failures;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  stop = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_P(DurableTest, RetentionSurvivesAReopen) {
  Put("durable-kept", 6);
  ASSERT_TRUE(store().WriteStreamMetadata("durable-kept", KeepLast(2)).ok());
  Open();
  EXPECT_EQ(VersionsOf(Read("durable-kept")), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(VersionsOf(All(), "durable-kept"), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(store().ReadStreamMetadata("durable-kept")->metadata, KeepLast(2));
}

// A store that other processes write too (DynamoDB; an embedded follower
// of a writer's folder) takes in their metadata writes when its copy is
// older than StoreOptions::metadata_refresh. A memory store has no second
// process.
TEST_P(ConformanceTest, AnotherProcessSeesRetentionWithinTheRefreshInterval) {
  if (GetParam().name == "memory") return;
  Put("shared-kept", 6);
  StoreOptions quick;
  quick.metadata_refresh = std::chrono::milliseconds(0);
  quick.follower = GetParam().name == "embedded";
  auto other = Store::Open(Url(), quick);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  ASSERT_TRUE(store().WriteStreamMetadata("shared-kept", KeepLast(2)).ok());
  std::vector<std::int64_t> seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    (*other)->WaitForCommit(Position(0), std::chrono::milliseconds(150));  // a follower catches up
    auto read = ReadStreamEvents(**other, "shared-kept");
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    seen = VersionsOf(*read);
    if (seen.size() == 2) break;
  }
  EXPECT_EQ(seen, (std::vector<std::int64_t>{4, 5}));
}

// A reader asks the head where the stream starts now: past what the
// stream's retention hides, whatever the setting.
TEST_P(ConformanceTest, HeadSaysWhereAReadOfARetainedStreamStarts) {
  Put("head-r", 10);
  EXPECT_EQ(store().Head("head-r")->first_version.value(), 0);
  ASSERT_TRUE(store().WriteStreamMetadata("head-r", KeepLast(3)).ok());
  auto head = store().Head("head-r");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->first_version.value(), 7);
  EXPECT_EQ(head->version.value(), 9);
  StreamMetadata past;
  past.truncate_before = StreamVersion(100);
  ASSERT_TRUE(store().WriteStreamMetadata("head-r", past).ok());
  EXPECT_EQ(store().Head("head-r")->first_version.value(), 10) << "nothing is read";
  StreamMetadata young;
  young.max_age = std::chrono::seconds(3600);
  ASSERT_TRUE(store().WriteStreamMetadata("head-r", young).ok());
  EXPECT_EQ(store().Head("head-r")->first_version.value(), 0);
  ASSERT_TRUE(store().WriteStreamMetadata("head-r", StreamMetadata{}).ok());
  EXPECT_EQ(store().Head("head-r")->first_version.value(), 0);
}

using testutil::FilesHolding;

std::string FolderOf(const std::string& url) { return url.substr(std::string("file:").size()); }

TEST_P(ConformanceTest, ScavengeIsRefusedWhereTheBackendCannotRemoveEvents) {
  if (GetParam().name != "memory") return;  // scavenge_test.cc
  Put("refused-a", 5);
  ASSERT_TRUE(store().WriteStreamMetadata("refused-a", KeepLast(2)).ok());
  auto report = store().Scavenge();
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), ErrorCode::kInvalid);
  ASSERT_TRUE(store().WriteStreamMetadata("refused-a", StreamMetadata{}).ok());
  EXPECT_EQ(Read("refused-a").size(), 5u) << "nothing was removed";
}

// The issue's test: maxCount 10 on a stream of 1,000 leaves 10 readable at
// once, and after a scavenge the other 990 are gone from every file of the
// folder, their index entries with them (Check), while the stream goes on.
TEST_P(DurableTest, ScavengeRemovesHiddenEventsFromEveryFile) {
  const std::string marker = "forget-me-" + EventId::Random().ToString();
  std::vector<EventData> events;
  for (int i = 0; i < 1000; ++i) {
    EventData e = Event("Noted", "{\"note\":\"" + (i < 990 ? marker : std::string("kept")) + "-" +
                                     std::to_string(i) + "\"}");
    if (i % 2 == 0) e.tags = {"parity:even"};
    events.push_back(std::move(e));
  }
  const EventId first_id = events.front().id;
  for (int at = 0; at < 1000; at += 100) {
    std::vector<EventData> part(events.begin() + at, events.begin() + at + 100);
    ASSERT_TRUE(store().Append("trim-a", Expected::any(), part).ok());
  }
  Put("keep-a", 100);
  ASSERT_TRUE(store().WriteStreamMetadata("trim-a", KeepLast(10)).ok());
  EXPECT_EQ(Read("trim-a").size(), 10u);

  std::uint64_t last_done = 0, last_total = 0;
  auto report = store().Scavenge([&](std::uint64_t done, std::uint64_t total) {
    last_done = done;
    last_total = total;
  });
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->streams, 1u);
  EXPECT_EQ(report->events, 990u);
  EXPECT_GT(report->bytes, 990u * 60);
  EXPECT_GT(report->disk_bytes_before, 0u);
  EXPECT_GT(report->disk_bytes_after, 0u);
  EXPECT_EQ(last_done, last_total);
  EXPECT_EQ(last_total, 1u);
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
  EXPECT_EQ(FilesHolding(FolderOf(Url()), marker), std::vector<std::string>{});

  EXPECT_EQ(VersionsOf(Read("trim-a")).front(), 990);
  EXPECT_EQ(VersionsOf(All(), "keep-a").size(), 100u);
  // Lifted, the setting shows what is left: reads start at the first kept
  // version, both ways, from anywhere below it.
  ASSERT_TRUE(store().WriteStreamMetadata("trim-a", StreamMetadata{}).ok());
  const auto kept = VersionsOf(Read("trim-a"));
  ASSERT_EQ(kept.size(), 10u);
  EXPECT_EQ(kept.front(), 990);
  ReadStreamOptions from_low;
  from_low.from = StreamVersion(5);
  from_low.limit = 3;
  EXPECT_EQ(VersionsOf(Read("trim-a", from_low)), (std::vector<std::int64_t>{990, 991, 992}));
  ReadStreamOptions backward;
  backward.direction = Direction::kBackward;
  EXPECT_EQ(VersionsOf(Read("trim-a", backward)).back(), 990);
  EXPECT_EQ(VersionsOf(All(), "trim-a").size(), 10u);
  Query even;
  even.items.push_back(QueryItem{{}, {"parity:even"}});
  auto queried = ReadQueryEvents(store(), even);
  ASSERT_TRUE(queried.ok()) << queried.status().ToString();
  EXPECT_EQ(VersionsOf(*queried, "trim-a"), (std::vector<std::int64_t>{990, 992, 994, 996, 998}));
  auto found = store().FindEvent(first_id);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_FALSE(*found);
  // The stream goes on numbering; the store reopens sound.
  EXPECT_EQ(Put("trim-a").last_version.value(), 1000);
  Open();
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
  EXPECT_EQ(Read("trim-a").size(), 11u);
  auto again = store().Scavenge();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->events, 0u) << "nothing is hidden any more";
}

TEST_P(DurableTest, ScavengeKeepsAStreamsLastEventAndFollowsMaxAge) {
  Put("tb-a", 5);
  StreamMetadata all_of_it;
  all_of_it.truncate_before = StreamVersion(1000);
  ASSERT_TRUE(store().WriteStreamMetadata("tb-a", all_of_it).ok());

  const std::int64_t now = UnixMillisNow();
  std::vector<EventData> aged = Events(6);
  for (int i = 0; i < 6; ++i) aged[i].timestamp_ms = now - (i < 4 ? 7200 * 1000 : 0);
  CommitOptions keep;
  keep.keep_timestamps = true;
  std::vector<AppendRequest> appends;
  appends.push_back(AppendRequest{"age-a", Expected::no_stream(), aged});
  ASSERT_TRUE(store().Commit(std::move(appends), keep).ok());
  StreamMetadata hour;
  hour.max_age = std::chrono::seconds(3600);
  ASSERT_TRUE(store().WriteStreamMetadata("age-a", hour).ok());

  auto report = store().Scavenge();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->events, 4u + 4u);
  EXPECT_EQ(report->streams, 2u);
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
  EXPECT_TRUE(Read("tb-a").empty()) << "hidden, though its bytes stay";
  EXPECT_EQ(VersionsOf(Read("age-a")), (std::vector<std::int64_t>{4, 5}));
  ASSERT_TRUE(store().WriteStreamMetadata("tb-a", StreamMetadata{}).ok());
  EXPECT_EQ(VersionsOf(Read("tb-a")), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(store().Head("tb-a")->version.value(), 4);
}

// A hard delete: the tombstone alone is left to read, in $all too, so read
// models learn of it; the stream may start again.
TEST_P(ConformanceTest, EraseLeavesOnlyItsTombstoneOnEveryReadPath) {
  std::vector<EventData> events = Events(5);
  for (auto& e : events) e.tags = {"erase:me"};
  const EventId erased_id = events.front().id;
  ASSERT_TRUE(store().Append("erase-a", Expected::no_stream(), events).ok());
  Put("erase-b", 2);
  Settle();
  auto erased = store().Erase("erase-a");
  ASSERT_TRUE(erased.ok()) << erased.status().ToString();
  EXPECT_EQ(erased->last_version.value(), 5);
  Settle();

  auto read = store().ReadStream("erase-a");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(read.status().deleted());
  ReadStreamOptions audit;
  audit.include_deleted = true;
  const auto left = Read("erase-a", audit);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].type, kDeletedEventType);
  EXPECT_EQ(left[0].data, R"({"erased":true})");
  const auto all = All();
  EXPECT_EQ(VersionsOf(all, "erase-a"), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(VersionsOf(all, "erase-b").size(), 2u);
  Query tagged;
  tagged.items.push_back(QueryItem{{}, {"erase:me"}});
  EXPECT_TRUE(ReadQueryEvents(store(), tagged)->empty());
  if (store().traits().ids_unique_across_streams) {
    auto found = store().FindEvent(erased_id);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_FALSE(*found);
  }
  EXPECT_TRUE(store().Head("erase-a")->deleted);
  EXPECT_EQ(store().ReadStreamMetadata("erase-a")->metadata.truncate_before, StreamVersion(5));

  // It may start again, numbering on; its new events are read.
  ASSERT_TRUE(store().Append("erase-a", Expected::any(), Events(1)).ok());
  EXPECT_EQ(VersionsOf(Read("erase-a")), (std::vector<std::int64_t>{6}));
}

// A stream soft-deleted first (the usual order: delete, then a request to
// be forgotten) is erased too: its tombstone stays, its events go.
TEST_P(ConformanceTest, EraseOfASoftDeletedStreamHidesItsEvents) {
  Put("erase-e", 4);
  ASSERT_TRUE(store().Delete("erase-e").ok());
  Settle();
  auto erased = store().Erase("erase-e");
  ASSERT_TRUE(erased.ok()) << erased.status().ToString();
  EXPECT_EQ(erased->last_version.value(), 4);
  EXPECT_TRUE(erased->replayed) << "the tombstone was there already";
  ReadStreamOptions audit;
  audit.include_deleted = true;
  EXPECT_EQ(VersionsOf(Read("erase-e", audit)), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(VersionsOf(All(), "erase-e"), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(store().Erase("erase-e", Expected::exactly(StreamVersion(3))).status().code(),
            ErrorCode::kConflict);
}

TEST_P(ConformanceTest, EraseChecksItsExpectationAndRefusesBadInput) {
  EXPECT_EQ(store().Erase("never-was").status().code(), ErrorCode::kNotFound);
  Put("erase-c", 3);
  auto wrong = store().Erase("erase-c", Expected::exactly(StreamVersion(1)));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(wrong.status().actual_version(), 2);
  EXPECT_EQ(store().Erase("erase-c", Expected::no_stream()).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(store().Erase("$audit").status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(Read("erase-c").size(), 3u) << "nothing was erased";
  auto right = store().Erase("erase-c", Expected::exactly(StreamVersion(2)));
  ASSERT_TRUE(right.ok()) << right.status().ToString();
  EXPECT_EQ(right->last_version.value(), 3);
}

// Erased bytes leave the folder: the records at once, the bytes at the
// next scavenge's compaction.
TEST_P(DurableTest, ErasedEventsLeaveEveryFileAfterTheNextScavenge) {
  const std::string marker = "erase-marker-" + EventId::Random().ToString();
  std::vector<EventData> events;
  for (int i = 0; i < 50; ++i) events.push_back(Event("Said", "{\"s\":\"" + marker + "\"}"));
  ASSERT_TRUE(store().Append("erase-d", Expected::no_stream(), events).ok());
  ASSERT_TRUE(store().Erase("erase-d").ok());
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
  auto report = store().Scavenge();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(FilesHolding(FolderOf(Url()), marker), std::vector<std::string>{});
  Open();
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
  EXPECT_EQ(VersionsOf(All(), "erase-d"), (std::vector<std::int64_t>{50}));
}

}  // namespace
}  // namespace indelible::conformance
