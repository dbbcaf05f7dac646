// Store::ListStreams on every backend: names in bytewise order, a page at a
// time (limit, next), by prefix, by category and both, from `after`; what a
// listed stream shows (last version, position, deleted, the last event's
// timestamp); `$` streams; and the options refused.
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> Names(const StreamList& list) {
  std::vector<std::string> names;
  for (const auto& info : list.streams) names.push_back(info.stream);
  return names;
}

// One listing, whole: `options` (its `after` as the start), a page of
// `limit` at a time chained by `next`. Checks each page against the limit:
// every page but the last is full and names a `next`, the last names none.
std::vector<std::string> AllPages(Store& store, ListStreamsOptions options, std::size_t limit) {
  options.limit = limit;
  std::vector<std::string> names;
  for (int page = 0; page < 1000; ++page) {
    auto list = store.ListStreams(options);
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    if (!list.ok()) break;
    EXPECT_LE(list->streams.size(), limit);
    for (auto& name : Names(*list)) names.push_back(std::move(name));
    if (!list->next) break;
    EXPECT_EQ(list->streams.size(), limit) << "a page with a next page is full";
    EXPECT_EQ(*list->next, list->streams.back().stream) << "next is the page's last name";
    options.after = *list->next;
  }
  return names;
}

std::vector<std::string> List(Store& store, ListStreamsOptions options) {
  auto list = store.ListStreams(options);
  EXPECT_TRUE(list.ok()) << list.status().ToString();
  return list.ok() ? Names(*list) : std::vector<std::string>{};
}

const StreamInfo* Find(const StreamList& list, const std::string& stream) {
  for (const auto& info : list.streams)
    if (info.stream == stream) return &info;
  return nullptr;
}

// One event appended to each stream (no wait for $all: a listing needs none).
void Make(Store& store, const std::vector<std::string>& streams) {
  for (const auto& stream : streams) {
    EventData event;
    event.id = EventId::Random();
    event.type = "Tested";
    event.data = "{}";
    auto r = store.Append(stream, Expected::any(), {event});
    ASSERT_TRUE(r.ok()) << stream << ": " << r.status().ToString();
  }
}

}  // namespace

TEST_P(ConformanceTest, ListStreamsAnEmptyStoreListsNothing) {
  for (ListStreamsOptions options :
       {ListStreamsOptions{}, ListStreamsOptions{"a", "", "", 1},
        ListStreamsOptions{"", "C", "", 5}, ListStreamsOptions{"", "", "m", 1000}}) {
    auto list = store().ListStreams(options);
    ASSERT_TRUE(list.ok()) << list.status().ToString();
    EXPECT_TRUE(list->streams.empty());
    EXPECT_FALSE(list->next.has_value());
  }
}

TEST_P(ConformanceTest, ListStreamsPagesInBytewiseOrderWithoutGapsOrDuplicates) {
  // '-' < '.' < '/' < digits < upper case < '_' < lower case < '~' < UTF-8
  // multi-byte sequences (bytes from 0xc2): bytewise, not by locale.
  std::vector<std::string> streams = {"b", "a",  "a-1", "a/2",      "a.b",  "ab",  "A",  "B-1",
                                      "0", "~x", "_u",  "\xc3\xa4", "a-10", "a-2", "zz", "Zebra"};
  Make(store(), streams);
  std::sort(streams.begin(), streams.end());  // std::string compares bytes as unsigned
  for (std::size_t limit : {1u, 2u, 3u, 1000u}) {
    EXPECT_EQ(AllPages(store(), {}, limit), streams) << "limit " << limit;
  }
  // A page of exactly what is left names no next page.
  auto list = store().ListStreams({"", "", streams[streams.size() - 3], 2});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(Names(*list), (std::vector<std::string>{streams.end() - 2, streams.end()}));
  EXPECT_FALSE(list->next.has_value());
}

TEST_P(ConformanceTest, ListStreamsByPrefixCategoryAndAfter) {
  Make(store(), {"C", "C-x", "C/y", "Cx-1", "C.z", "C-a-b", "D-1", "B", "C-x-2"});
  using V = std::vector<std::string>;
  // Prefix: names that start with it, whatever their category.
  EXPECT_EQ(List(store(), {"C-", "", "", 100}), (V{"C-a-b", "C-x", "C-x-2"}));
  EXPECT_EQ(List(store(), {"C", "", "", 100}),
            (V{"C", "C-a-b", "C-x", "C-x-2", "C.z", "C/y", "Cx-1"}));
  EXPECT_EQ(List(store(), {"E", "", "", 100}), V{});
  // Category: C itself, C-..., C/...; not Cx-1 (category Cx) nor C.z.
  const V category_c = {"C", "C-a-b", "C-x", "C-x-2", "C/y"};
  EXPECT_EQ(List(store(), {"", "C", "", 100}), category_c);
  for (std::size_t limit : {1u, 2u, 3u, 1000u})
    EXPECT_EQ(AllPages(store(), {"", "C", "", 0}, limit), category_c) << "limit " << limit;
  EXPECT_EQ(List(store(), {"", "Cx", "", 100}), V{"Cx-1"});
  EXPECT_EQ(List(store(), {"", "C.z", "", 100}), V{"C.z"});
  EXPECT_EQ(List(store(), {"", "E", "", 100}), V{});
  // Category and prefix together.
  EXPECT_EQ(List(store(), {"C-", "C", "", 100}), (V{"C-a-b", "C-x", "C-x-2"}));
  EXPECT_EQ(List(store(), {"C-x", "C", "", 100}), (V{"C-x", "C-x-2"}));
  EXPECT_EQ(List(store(), {"C/", "C", "", 100}), V{"C/y"});
  EXPECT_EQ(List(store(), {"C", "C", "", 100}), category_c);
  EXPECT_EQ(List(store(), {"Cx", "C", "", 100}), V{});
  EXPECT_EQ(List(store(), {"D", "C", "", 100}), V{});
  // After: strictly after it, whether it names a stream or not.
  EXPECT_EQ(List(store(), {"", "", "C-a-b", 100}),
            (V{"C-x", "C-x-2", "C.z", "C/y", "Cx-1", "D-1"}));
  EXPECT_EQ(List(store(), {"", "", "C-m", 2}), (V{"C-x", "C-x-2"}));
  EXPECT_EQ(List(store(), {"", "C", "C", 100}), (V{"C-a-b", "C-x", "C-x-2", "C/y"}));
  EXPECT_EQ(List(store(), {"", "C", "C-x-2", 100}), V{"C/y"});
  EXPECT_EQ(List(store(), {"C-", "", "C-x", 100}), V{"C-x-2"});
  EXPECT_EQ(List(store(), {"C-", "", "A", 100}), (V{"C-a-b", "C-x", "C-x-2"}));
  EXPECT_EQ(List(store(), {"C-", "", "C.", 100}), V{});
  EXPECT_EQ(List(store(), {"", "", "D-1", 100}), V{});
  EXPECT_EQ(List(store(), {"", "", "zzz", 100}), V{});
  EXPECT_EQ(AllPages(store(), {"", "", "C/y", 0}, 1), (V{"Cx-1", "D-1"}));
}

TEST_P(ConformanceTest, ListStreamsShowsEachStreamsHeadDeletedFlagAndLastWrite) {
  const std::int64_t before = NowMs();
  auto live = store().Append("acct-1", Expected::no_stream(), Events(3));
  const std::int64_t after = NowMs();
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  auto gone = store().Append("gone-1", Expected::no_stream(), Events(2));
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  const std::int64_t before_delete = NowMs();
  auto tombstone = store().Delete("gone-1");
  const std::int64_t after_delete = NowMs();
  ASSERT_TRUE(tombstone.ok()) << tombstone.status().ToString();
  CommitOptions internal;
  internal.allow_reserved = true;
  auto system = store().Commit({{"$sys-1", Expected::any(), Events(1)}}, internal);
  ASSERT_TRUE(system.ok()) << system.status().ToString();

  auto list = store().ListStreams();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(Names(*list), (std::vector<std::string>{"$sys-1", "acct-1", "gone-1"}));
  EXPECT_FALSE(list->next.has_value());

  const StreamInfo* acct = Find(*list, "acct-1");
  ASSERT_NE(acct, nullptr);
  EXPECT_EQ(acct->version.value(), 2);
  EXPECT_FALSE(acct->deleted);
  EXPECT_GE(acct->last_write_ms, before);
  EXPECT_LE(acct->last_write_ms, after);
  auto head = store().Head("acct-1");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(acct->position.value(), head->position.value());
  // Where the commit knows positions, the last event's; elsewhere (DynamoDB:
  // $all is built later) 0, as the append reported.
  EXPECT_EQ(acct->position.value(), live->position.value());
  if (positions_at_commit()) {
    EXPECT_GT(acct->position.value(), 0u);
  }

  const StreamInfo* deleted = Find(*list, "gone-1");
  ASSERT_NE(deleted, nullptr);
  EXPECT_TRUE(deleted->deleted);
  EXPECT_EQ(deleted->version.value(), 2) << "the tombstone's version";
  EXPECT_EQ(deleted->version.value(), tombstone->last_version.value());
  EXPECT_EQ(deleted->position.value(), tombstone->position.value());
  EXPECT_GE(deleted->last_write_ms, before_delete) << "the tombstone's timestamp";
  EXPECT_LE(deleted->last_write_ms, after_delete);

  const StreamInfo* reserved = Find(*list, "$sys-1");
  ASSERT_NE(reserved, nullptr);
  EXPECT_EQ(reserved->version.value(), 0);
  EXPECT_FALSE(reserved->deleted);

  // A later append moves them; a stream restarted after its tombstone is
  // live again, its versions going on.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::int64_t before_more = NowMs();
  auto more = store().Append("acct-1", Expected::exactly(StreamVersion(2)), Events(2));
  auto restarted = store().Append("gone-1", Expected::no_stream(), Events(1));
  const std::int64_t after_more = NowMs();
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  list = store().ListStreams({"", "", "$sys-1", 10});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(Names(*list), (std::vector<std::string>{"acct-1", "gone-1"}));
  EXPECT_EQ(list->streams[0].version.value(), 4);
  EXPECT_EQ(list->streams[0].position.value(), more->position.value());
  EXPECT_GE(list->streams[0].last_write_ms, before_more);
  EXPECT_LE(list->streams[0].last_write_ms, after_more);
  EXPECT_FALSE(list->streams[1].deleted);
  EXPECT_EQ(list->streams[1].version.value(), 3);
  EXPECT_GE(list->streams[1].last_write_ms, before_more);
}

TEST_P(ConformanceTest, ListStreamsRefusesAnInvalidCategoryAndALimitOfZero) {
  Make(store(), {"a-b", "a"});
  for (ListStreamsOptions options :
       {ListStreamsOptions{"", "a-b", "", 10}, ListStreamsOptions{"", "a/b", "", 10},
        ListStreamsOptions{"", "-", "", 10}, ListStreamsOptions{"", "", "", 0},
        ListStreamsOptions{"a", "a", "", 0}}) {
    auto list = store().ListStreams(options);
    ASSERT_FALSE(list.ok()) << "category '" << options.category << "' limit " << options.limit;
    EXPECT_EQ(list.status().code(), ErrorCode::kInvalid) << list.status().ToString();
  }
}

}  // namespace indelible::conformance
