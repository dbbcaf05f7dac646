// The C++ client (include/indelible/client.h) against the real `indelible
// serve` on a free port, a fresh store per test. No stand-in for the server:
// what the client maps and resumes is what the server really says.
#include "indelible/client.h"
// Every public header must compile beside the others (the client once
// declared a Subscription of its own next to subscription.h's).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "indelible/subscription.h"
#include "testutil/server_process.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

using std::chrono::milliseconds;

EventData Event(std::string type, std::string data = "{}", std::string id = "") {
  EventData event;
  event.type = std::move(type);
  event.data = std::move(data);
  if (!id.empty()) event.id = *EventId::Parse(id);
  return event;
}

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<testutil::ServerProcess>(
        INDELIBLE_PATH, std::vector<std::string>{"serve", "--store", "file:" + tmp_.Sub("data")});
    ASSERT_TRUE(server_->Start()) << "the server did not start: " << server_->output();
    auto client = Client::Connect(server_->url());
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(*client);
  }

  // Appends `n` events of type T to `stream`, one append each.
  void AppendSome(std::string_view stream, int n) {
    for (int i = 0; i < n; ++i) {
      auto r = client_->Append(stream, Expected::any(), {Event("T", std::to_string(i))});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }

  testutil::TempDir tmp_;
  std::unique_ptr<testutil::ServerProcess> server_;
  std::unique_ptr<Client> client_;
};

TEST_F(ClientTest, ConflictsCarryTheActualVersion) {
  auto first = client_->Append("acc-1", Expected::no_stream(), {Event("Opened")});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->last_version, StreamVersion(0));
  EXPECT_EQ(first->position, Position(1));
  EXPECT_EQ(first->first_position, Position(1));

  auto again = client_->Append("acc-1", Expected::no_stream(), {Event("Opened")});
  ASSERT_EQ(again.status().code(), ErrorCode::kConflict) << again.status().ToString();
  EXPECT_EQ(again.status().actual_version(), std::optional<std::int64_t>(0));
  auto stale = client_->Append("acc-1", Expected::exactly(StreamVersion(5)), {Event("X")});
  ASSERT_EQ(stale.status().code(), ErrorCode::kConflict) << stale.status().ToString();
  EXPECT_EQ(stale.status().actual_version(), std::optional<std::int64_t>(0));
  EXPECT_FALSE(stale.status().message().empty());
  auto missing = client_->Append("nobody", Expected::exists(), {Event("X")});
  ASSERT_EQ(missing.status().code(), ErrorCode::kConflict) << missing.status().ToString();
  EXPECT_EQ(missing.status().actual_version(), std::nullopt);

  auto two = client_->Append("acc-1", Expected::exactly(StreamVersion(0)),
                             {Event("A"), Event("B"), Event("C")});
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->first_version, StreamVersion(1));
  EXPECT_EQ(two->last_version, StreamVersion(3));
  EXPECT_EQ(two->first_position, Position(2));
  EXPECT_EQ(two->position, Position(4));

  auto deleted = client_->Delete("acc-1", Expected::exactly(StreamVersion(3)));
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted->last_version, StreamVersion(4));
  auto read = client_->ReadStream("acc-1");
  EXPECT_EQ(read.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(read.status().deleted());
  auto head = client_->Head("acc-1");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_TRUE(head->deleted);
  EXPECT_EQ(head->version, StreamVersion(4));
  auto exists = client_->Append("acc-1", Expected::exists(), {Event("X")});
  EXPECT_EQ(exists.status().code(), ErrorCode::kConflict) << exists.status().ToString();
}

TEST_F(ClientTest, AnIdempotentRetryAnswersTheOriginalResult) {
  const std::vector<EventData> events = {Event("A", "1", "0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a11"),
                                         Event("B", "2", "0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a12")};
  auto first = client_->Append("s", Expected::no_stream(), events);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  AppendSome("other", 1);
  auto retry = client_->Append("s", Expected::no_stream(), events);
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_EQ(retry->stream, first->stream);
  EXPECT_EQ(retry->first_version, first->first_version);
  EXPECT_EQ(retry->last_version, first->last_version);
  EXPECT_EQ(retry->first_position, first->first_position);
  EXPECT_EQ(retry->position, first->position);
  auto head = client_->Head("s");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->version, StreamVersion(1));  // nothing written twice
  // Only some of the ids: a conflict, not a retry.
  auto partial = client_->Append("s", Expected::any(), {events[0], Event("C")});
  EXPECT_EQ(partial.status().code(), ErrorCode::kConflict) << partial.status().ToString();
}

TEST_F(ClientTest, ReadsPageAndFilterAndKeepTheStoredBytes) {
  const std::string stream = "BANK_ACCOUNT/1 \xc3\xa9?#%";
  const std::string data = R"({"s":"q\"uote\\","n":[1,2,{"k":null}],"u":"é"})";
  auto appended = client_->Append(stream, Expected::no_stream(), {Event("Opened", data)});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->stream, stream);
  AppendSome(stream, 4);
  AppendSome("user-1", 2);

  auto page = client_->ReadStream(stream, ReadStreamOptions{Direction::kForward, {}, 2, false});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->events.size(), 2u);
  EXPECT_EQ(page->events[0].data, data);
  EXPECT_EQ(page->events[0].stream, stream);
  EXPECT_EQ(page->next_version, StreamVersion(2));
  EXPECT_EQ(page->last_version, StreamVersion(4));
  auto back = client_->ReadStream(
      stream, ReadStreamOptions{Direction::kBackward, StreamVersion(1), 10, false});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->events.size(), 2u);
  EXPECT_EQ(back->events[0].version, StreamVersion(1));
  EXPECT_EQ(back->next_version, std::nullopt);

  ReadAllOptions users;
  users.filter.categories = {"user"};
  auto all = client_->ReadAll(users);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->events.size(), 2u);
  EXPECT_EQ(all->events[0].position, Position(6));
  EXPECT_EQ(all->next, Position(8));

  // Through the Store interface, cursors page (500 at a time) past the first page.
  auto store = OpenRemoteStore(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::vector<EventData> many;
  for (int i = 0; i < 1000; ++i) many.push_back(Event("Bulk", std::to_string(i)));
  ASSERT_TRUE((*store)->Append("bulk", Expected::no_stream(), std::move(many)).ok());
  ASSERT_TRUE((*store)->Append("bulk", Expected::any(), {Event("Bulk", "1000")}).ok());
  auto events = ReadStreamEvents(**store, "bulk");
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->size(), 1001u);
  EXPECT_EQ(events->back().data, "1000");
  ReadAllOptions bulk;
  bulk.filter.types = {"Bulk"};
  bulk.from = Position(3);
  bulk.limit = 700;
  auto cursor = (*store)->ReadAll(bulk);
  ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
  std::size_t n = 0;
  for (; (*cursor)->Valid(); (*cursor)->Next()) ++n;
  EXPECT_TRUE((*cursor)->status().ok()) << (*cursor)->status().ToString();
  EXPECT_EQ(n, 700u);
  EXPECT_EQ((*cursor)->next_position(), Position(8 + 700));
}

TEST_F(ClientTest, ReadAllLongPollsUntilACommit) {
  AppendSome("s", 1);
  const auto start = std::chrono::steady_clock::now();
  auto empty = client_->ReadAll(ReadAllOptions{Position(2), 10, {}}, milliseconds(300));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->events.empty());
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(250));

  auto waiting = std::async(std::launch::async, [&] {
    return client_->ReadAll(ReadAllOptions{Position(2), 10, {}}, milliseconds(20000));
  });
  std::this_thread::sleep_for(milliseconds(200));
  AppendSome("s", 1);  // a second connection from the pool, while the first waits
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  auto page = waiting.get();
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->events.size(), 1u);
  EXPECT_EQ(page->events[0].position, Position(2));

  auto store = OpenRemoteStore(server_->url());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->LastPosition(), Position(2));
  EXPECT_EQ((*store)->WaitForCommit(Position(1), milliseconds(10)), Position(2));
}

TEST_F(ClientTest, ASubscriptionResumesWithLastEventIdWithoutGapOrDuplicate) {
  AppendSome("a-1", 3);
  AppendSome("b-1", 2);
  auto sub = client_->SubscribeAll();
  ASSERT_TRUE(sub.ok()) << sub.status().ToString();
  std::vector<std::uint64_t> seen;
  auto take = [&](RemoteSubscription& s, std::size_t count) {
    while (seen.size() < count) {
      auto next = s.Next(milliseconds(5000));
      ASSERT_TRUE(next.ok()) << next.status().ToString();
      ASSERT_TRUE(next->has_value()) << "no event within 5 s after " << seen.size();
      seen.push_back((*next)->position.value());
    }
  };
  take(**sub, 3);
  (*sub)->Disconnect();
  AppendSome("a-1", 2);  // while nobody listens
  take(**sub, 7);
  EXPECT_EQ((*sub)->reconnects(), 1u);
  auto idle = (*sub)->Next(milliseconds(300));  // caught up: nothing more
  ASSERT_TRUE(idle.ok());
  EXPECT_FALSE(idle->has_value());
  EXPECT_TRUE((*sub)->caught_up());
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(100));
    AppendSome("b-1", 1);
  });
  take(**sub, 8);  // live
  writer.join();
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ((*sub)->last_position(), Position(8));

  // A new subscription resuming after a stored position, filtered.
  SubscribeOptions resume;
  resume.after = Position(3);
  resume.filter.categories = {"a"};
  auto later = client_->SubscribeAll(resume);
  ASSERT_TRUE(later.ok());
  seen.clear();
  take(**later, 2);
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{6, 7}));

  // A stream subscription: ids are positions there too.
  auto stream = client_->SubscribeStream("b-1");
  ASSERT_TRUE(stream.ok());
  seen.clear();
  take(**stream, 2);
  (*stream)->Disconnect();
  take(**stream, 3);
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{4, 5, 8}));
}

TEST_F(ClientTest, ASubscriptionFromTheEndSeesOnlyNewEvents) {
  AppendSome("s", 2);
  SubscribeOptions options;
  options.from_end = true;
  auto sub = client_->SubscribeStream("s", options);
  ASSERT_TRUE(sub.ok());
  auto nothing = (*sub)->Next(milliseconds(300));  // connects; pins the end at 2
  ASSERT_TRUE(nothing.ok()) << nothing.status().ToString();
  EXPECT_FALSE(nothing->has_value());
  (*sub)->Disconnect();
  AppendSome("s", 1);  // while disconnected: still after the pinned end
  auto next = (*sub)->Next(milliseconds(5000));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_TRUE(next->has_value());
  EXPECT_EQ((*next)->position, Position(3));
  EXPECT_EQ((*next)->version, StreamVersion(2));
}

TEST_F(ClientTest, TheRemoteStoreCommitsSeveralStreamsWithStateRecords) {
  auto store = OpenRemoteStore(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  // Two streams and a state record: one POST /commits, all or nothing.
  std::vector<AppendRequest> two;
  two.push_back(AppendRequest{"a", Expected::no_stream(), {Event("T"), Event("U")}});
  two.back().state = StateUpdate{R"({"n":2})", 3};
  two.push_back(AppendRequest{"b", Expected::any(), {Event("T")}});
  for (AppendRequest& append : two)
    for (EventData& event : append.events) event.id = EventId::Random();  // kept for the retry
  auto both = (*store)->Commit(two);
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  ASSERT_EQ(both->appends.size(), 2u);
  EXPECT_EQ(both->appends[0].last_version, StreamVersion(1));
  EXPECT_EQ(both->appends[1].stream, "b");
  EXPECT_EQ(both->position, Position(3));
  // The same ids again: an idempotent retry, nothing written.
  auto again = (*store)->Commit(two);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->appends[0].replayed && again->appends[1].replayed);
  EXPECT_EQ((*store)->LastPosition(), Position(3));

  auto state = (*store)->ReadState("a");
  ASSERT_TRUE(state.ok() && state->has_value()) << state.status().ToString();
  EXPECT_EQ((*state)->data, R"({"n":2})");
  EXPECT_EQ((*state)->schema, 3u);
  EXPECT_EQ((*state)->version, StreamVersion(1));
  auto none = (*store)->ReadState("b");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());
  // A record that is not JSON travels as base64 and comes back byte for byte.
  std::vector<AppendRequest> binary;
  binary.push_back(AppendRequest{"b", Expected::exactly(StreamVersion(0)), {}});
  binary.back().state = StateUpdate{std::string("\x00\xff raw", 6), 1};
  ASSERT_TRUE((*store)->Commit(binary).ok());
  auto raw = (*store)->ReadState("b");
  ASSERT_TRUE(raw.ok() && raw->has_value());
  EXPECT_EQ((*raw)->data, std::string("\x00\xff raw", 6));

  // The second stream's expectation fails: a conflict naming it, nothing
  // written to the first.
  std::vector<AppendRequest> stale;
  stale.push_back(AppendRequest{"a", Expected::any(), {Event("T")}});
  stale.push_back(AppendRequest{"b", Expected::exactly(StreamVersion(7)), {Event("T")}});
  auto conflict = (*store)->Commit(std::move(stale));
  EXPECT_EQ(conflict.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(conflict.status().stream(), "b");
  EXPECT_EQ(conflict.status().actual_version(), 0);
  EXPECT_EQ((*store)->LastPosition(), Position(3));

  // The listing, paged.
  ListStreamsOptions first_page;
  first_page.limit = 1;
  auto page = (*store)->ListStreams(first_page);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->streams.size(), 1u);
  EXPECT_EQ(page->streams[0].stream, "a");
  ASSERT_TRUE(page->next.has_value());
  first_page.after = *page->next;
  auto rest = (*store)->ListStreams(first_page);
  ASSERT_TRUE(rest.ok() && rest->streams.size() == 1u);
  EXPECT_EQ(rest->streams[0].stream, "b");
  EXPECT_FALSE(rest->streams[0].last) << "the newest event only when asked";
  // With `last`: each stream's newest event, as a backward read gives it.
  ListStreamsOptions with_last;
  with_last.last = true;
  auto listed = (*store)->ListStreams(with_last);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  for (const StreamInfo& info : listed->streams) {
    ReadStreamOptions backward;
    backward.direction = Direction::kBackward;
    backward.limit = 1;
    auto newest = ReadStreamEvents(**store, info.stream, backward);
    ASSERT_TRUE(newest.ok() && newest->size() == 1u) << info.stream;
    ASSERT_TRUE(info.last) << info.stream;
    EXPECT_EQ(info.last->id, newest->front().id) << info.stream;
    EXPECT_EQ(info.last->type, newest->front().type) << info.stream;
    EXPECT_EQ(info.last->version, info.version) << info.stream;
    EXPECT_EQ(info.last->position, newest->front().position) << info.stream;
    EXPECT_EQ(info.last->timestamp_ms, info.last_write_ms) << info.stream;
  }

  // What HTTP still cannot carry is refused, not dropped.
  std::vector<AppendRequest> one;
  one.push_back(AppendRequest{"a", Expected::any(), {Event("T")}});
  CommitOptions keep;
  keep.keep_timestamps = true;
  EXPECT_EQ((*store)->Commit(std::move(one), keep).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ((*store)->Check().code(), ErrorCode::kInvalid);
  // Store::Delete goes through Commit and becomes DELETE.
  auto deleted = (*store)->Delete("a", Expected::exactly(StreamVersion(1)));
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted->last_version, StreamVersion(2));
  auto gone = (*store)->ReadState("a");
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value()) << "a delete drops the state record";
}

TEST_F(ClientTest, FindEventGivesTheEventOfAnIdOverTheServer) {
  const EventData placed = Event("Placed", R"({"n":1})", "5f0c0a4e-1111-4000-8000-000000000001");
  ASSERT_TRUE(client_->Append("order-1", Expected::no_stream(), {Event("Opened"), placed}).ok());
  auto found = client_->FindEvent(placed.id);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->stream, "order-1");
  EXPECT_EQ((*found)->version, StreamVersion(1));
  EXPECT_EQ((*found)->position, Position(2));
  EXPECT_EQ((*found)->data, R"({"n":1})");
  auto none = client_->FindEvent(EventId::Random());
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());
  // The remote store answers the same, so code on a Store runs on a server.
  auto store = OpenRemoteStore(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto through = (*store)->FindEvent(placed.id);
  ASSERT_TRUE(through.ok() && through->has_value()) << through.status().ToString();
  EXPECT_EQ((*through)->type, "Placed");
}

TEST_F(ClientTest, StreamMetadataRoundTripsThroughTheRemoteStore) {
  AppendSome("r", 5);
  auto store = OpenRemoteStore(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();

  auto none = (*store)->ReadStreamMetadata("r");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->version);
  EXPECT_EQ(none->metadata, StreamMetadata{});

  StreamMetadata kept;
  kept.max_count = 2;
  kept.custom = R"({"owner":"billing"})";
  auto written = (*store)->WriteStreamMetadata("r", kept, Expected::no_stream());
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(*written, StreamVersion(0));
  auto read = (*store)->ReadStreamMetadata("r");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->version, StreamVersion(0));
  EXPECT_EQ(read->metadata, kept);
  // The Client says the same as the Store over it.
  auto direct = client_->ReadStreamMetadata("r");
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(direct->metadata, kept);

  // The server applies it: the remote store reads the newest two only.
  auto cursor = (*store)->ReadStream("r");
  ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
  std::vector<std::int64_t> versions;
  for (; (*cursor)->Valid(); (*cursor)->Next())
    versions.push_back((*cursor)->event().version.value());
  ASSERT_TRUE((*cursor)->status().ok()) << (*cursor)->status().ToString();
  EXPECT_EQ(versions, (std::vector<std::int64_t>{3, 4}));

  // Errors as a local store gives them: a conflict with the metadata's
  // version, invalid for a metadata stream's name or a bad custom value.
  auto stale = (*store)->WriteStreamMetadata("r", StreamMetadata{}, Expected::no_stream());
  ASSERT_EQ(stale.status().code(), ErrorCode::kConflict) << stale.status().ToString();
  EXPECT_EQ(stale.status().actual_version(), std::optional<std::int64_t>(0));
  EXPECT_EQ((*store)->ReadStreamMetadata("$$r").status().code(), ErrorCode::kInvalid);
  StreamMetadata bad;
  bad.custom = "[1]";
  auto refused = (*store)->WriteStreamMetadata("r", bad);
  ASSERT_EQ(refused.status().code(), ErrorCode::kInvalid) << refused.status().ToString();
  EXPECT_EQ(refused.status().field(), "custom");
  auto unchanged = client_->ReadStreamMetadata("r");
  ASSERT_TRUE(unchanged.ok()) << unchanged.status().ToString();
  EXPECT_EQ(unchanged->version, StreamVersion(0));

  auto next =
      client_->WriteStreamMetadata("r", StreamMetadata{}, Expected::exactly(StreamVersion(0)));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(*next, StreamVersion(1));
}

// Scavenge and Erase over the server, through the Client and through the
// RemoteStore (whose Store defaults would answer invalid, or commit to a
// `$$` stream the server refuses).
TEST_F(ClientTest, ScavengeAndEraseThroughTheRemoteStore) {
  AppendSome("r", 8);
  AppendSome("gone", 3);
  auto store = OpenRemoteStore(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  StreamMetadata keep;
  keep.max_count = 3;
  ASSERT_TRUE((*store)->WriteStreamMetadata("r", keep).ok());

  bool progressed = false;
  auto report = (*store)->Scavenge([&](std::uint64_t, std::uint64_t) { progressed = true; });
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->streams, 1u);
  EXPECT_EQ(report->events, 5u);
  EXPECT_GT(report->bytes, 0u);
  EXPECT_GT(report->disk_bytes_before, 0u);
  EXPECT_GT(report->disk_bytes_after, 0u);
  EXPECT_FALSE(progressed) << "the server reports no progress";
  auto again = client_->Scavenge();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->events, 0u);
  // Removed, not hidden: with the setting lifted, versions 5..7 are all.
  ASSERT_TRUE((*store)->WriteStreamMetadata("r", StreamMetadata{}).ok());
  auto cursor = (*store)->ReadStream("r");
  ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
  std::vector<std::int64_t> versions;
  for (; (*cursor)->Valid(); (*cursor)->Next())
    versions.push_back((*cursor)->event().version.value());
  ASSERT_TRUE((*cursor)->status().ok()) << (*cursor)->status().ToString();
  EXPECT_EQ(versions, (std::vector<std::int64_t>{5, 6, 7}));

  // Erase: the tombstone's result, then the stream reads as deleted.
  auto stale = (*store)->Erase("gone", Expected::exactly(StreamVersion(1)));
  ASSERT_EQ(stale.status().code(), ErrorCode::kConflict) << stale.status().ToString();
  EXPECT_EQ(stale.status().actual_version(), std::optional<std::int64_t>(2));
  auto erased = (*store)->Erase("gone", Expected::exactly(StreamVersion(2)));
  ASSERT_TRUE(erased.ok()) << erased.status().ToString();
  EXPECT_EQ(erased->stream, "gone");
  EXPECT_EQ(erased->last_version, StreamVersion(3));
  EXPECT_GT(erased->position.value(), 0u);
  auto head = (*store)->Head("gone");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_TRUE(head->deleted);
  EXPECT_EQ((*store)->ReadStream("gone").status().code(), ErrorCode::kNotFound);
  ReadStreamOptions deleted;
  deleted.include_deleted = true;
  auto left = client_->ReadStream("gone", deleted);
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  ASSERT_EQ(left->events.size(), 1u) << "only the tombstone is left";
  EXPECT_EQ(left->events[0].type, kDeletedEventType);
  EXPECT_EQ(left->events[0].data, R"({"erased":true})");

  // Errors as a local store gives them.
  EXPECT_EQ(client_->Erase("never", Expected::any()).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(client_->Erase("r", Expected::no_stream()).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(client_->Erase("$audit", Expected::any()).status().code(), ErrorCode::kInvalid);
}

TEST_F(ClientTest, TransportFailuresAreUnavailable) {
  EXPECT_EQ(Client::Connect("ftp://127.0.0.1:1").status().code(), ErrorCode::kInvalid);
  // https is spoken (client_https_test.cc); nobody listens on port 1.
  EXPECT_EQ(Client::Connect("https://127.0.0.1:1").status().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(Client::Connect("http://127.0.0.1:99999").status().field(), "url");
  auto bad = client_->Append("s", Expected::any(), {Event("T", "{not json")});
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(bad.status().field(), "events[0].data");

  // A server that accepts connections but never answers: the timeout ends it.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(::listen(fd, 8), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  ClientOptions quick;
  quick.timeout = milliseconds(300);
  auto silent =
      Client::Connect("http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)), quick);
  ASSERT_TRUE(silent.ok()) << silent.status().ToString();
  const auto start = std::chrono::steady_clock::now();
  auto head = (*silent)->Head("s");
  EXPECT_EQ(head.status().code(), ErrorCode::kUnavailable) << head.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(15000));
  ::close(fd);

  const std::string url = server_->url();
  server_->Kill();
  EXPECT_EQ(client_->Head("s").status().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(Client::Connect(url).status().code(), ErrorCode::kUnavailable);
}

// Parked events one by one and the members (docs/HTTP.md, "Consumer
// groups") through the client: what ConsumerGroup answers in process.
TEST_F(ClientTest, ParkedEventsAndMembersThroughTheClient) {
  AppendSome("acct-a", 2);  // 1 fails, 2 is parked behind it
  ConsumerGroupOptions options;
  options.policy = FailurePolicy::kPark;
  options.max_attempts = 1;
  ASSERT_TRUE(client_->CreateConsumerGroup("ledger", options).ok());
  auto first = client_->Pull("ledger", "w1", 1, milliseconds(2000));
  ASSERT_TRUE(first.ok() && first->size() == 1u) << first.status().ToString();
  auto status = client_->ConsumerGroupStatus("ledger");
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  ASSERT_EQ(status->members.size(), 1u);
  EXPECT_EQ(status->members[0].consumer, "w1");
  EXPECT_EQ(status->members[0].in_flight, 1u);
  EXPECT_GT(status->members[0].last_pull_ms, 0);
  ASSERT_TRUE(client_->Nack("ledger", (*first)[0].event.position, "broken").ok());
  ASSERT_TRUE(client_->Pull("ledger", "w1", 10).ok());  // parks 2 behind 1

  auto page = client_->ReadParked("ledger");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->events.size(), 2u);
  EXPECT_EQ(page->events[0].state, ParkedState::kPending);
  EXPECT_EQ(page->events[0].copy.stream, "$parked-ledger");
  EXPECT_FALSE(page->next.has_value());
  EXPECT_EQ(client_->RetryParked("ledger", StreamVersion(1)).code(), ErrorCode::kConflict)
      << "1 waits for 0";
  ASSERT_TRUE(client_->SkipParked("ledger", StreamVersion(1)).ok());
  ASSERT_TRUE(client_->RetryParked("ledger", StreamVersion(0)).ok());
  auto again = client_->Pull("ledger", "w1", 10, milliseconds(2000));
  ASSERT_TRUE(again.ok() && again->size() == 1u);
  EXPECT_EQ((*again)[0].parked_version, StreamVersion(0));
  ASSERT_TRUE(client_->Ack("ledger", {(*again)[0].event.position}).ok());
  page = client_->ReadParked("ledger", StreamVersion(1), 1);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->events.size(), 1u);
  EXPECT_EQ(page->events[0].copy.version, StreamVersion(1));
  EXPECT_EQ(client_->SkipParked("ledger", StreamVersion(9)).code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace indelible
