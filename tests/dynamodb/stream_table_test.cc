// The DynamoDB table layout and append protocol (StreamTable) against real
// servers started by scripts/dynamodb.sh: DynamoDB Local for the protocol
// (conditions with ALL_OLD, transactions), dynalite where it differs. Request
// counts are read from the Client's counters.
#include "storage/dynamodb/stream_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <map>
#include <set>
#include <thread>

#include "aws/item_size.h"
#include "testutil/dynamodb_server.h"

namespace indelible::dynamodb {
namespace {

namespace json = boost::json;

class StreamTableTest : public ::testing::TestWithParam<std::string> {
 protected:
  static testutil::DynamoDbServer& Server(const std::string& kind) {
    return testutil::SharedDynamoDbServer(kind);
  }

  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    ASSERT_FALSE(Server(GetParam()).endpoint().empty())
        << "the " << GetParam() << " server did not start:\n"
        << Server(GetParam()).output();
    aws::ClientOptions o;
    o.endpoint = *net::ParseUrl(Server(GetParam()).endpoint());
    o.region = "us-east-1";
    o.credentials = {"AKIDTEST", "secret", "", "test"};
    auto client = aws::Client::Create(o);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(*client);
    options_.table = "ib_" + name + "_events";
    options_.legacy_tips_possible = false;  // a new table: no tips of the earlier layout
  }

  // Made on first use, so that a test can change options_ first.
  StreamTable& table() {
    if (!table_) {
      table_ = std::make_unique<StreamTable>(*client_, options_);
      Status s = table_->CreateOrCheck();
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    return *table_;
  }

  static EventData Event(std::string type, std::string data = R"({"n":1})") {
    EventData e;
    e.id = EventId::Random();
    e.type = std::move(type);
    e.data = std::move(data);
    return e;
  }
  std::uint64_t Requests() const { return client_->counters().requests; }

  // Every item of the stream's partition, raw (event items and the tip).
  std::vector<json::object> Items(const std::string& stream) {
    aws::Reply r =
        client_->Call("Query", {{"TableName", options_.table},
                                {"ConsistentRead", true},
                                {"KeyConditionExpression", "#s = :s"},
                                {"ExpressionAttributeNames", {{"#s", "stream"}}},
                                {"ExpressionAttributeValues", {{":s", {{"S", stream}}}}}});
    EXPECT_TRUE(r.ok()) << r.status.ToString();
    std::vector<json::object> out;
    for (auto& v : r.body.at("Items").as_array()) out.push_back(v.as_object());
    return out;
  }

  // Reads the whole stream and checks versions 0..n-1, each once.
  std::vector<RecordedEvent> ReadAllOnce(const std::string& stream, std::size_t n) {
    auto events = table().ReadStream(stream, StreamVersion(0), 100000);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    if (!events.ok()) return {};
    EXPECT_EQ(events->size(), n);
    std::set<EventId> ids;
    for (std::size_t i = 0; i < events->size(); ++i) {
      EXPECT_EQ((*events)[i].version.value(), static_cast<std::int64_t>(i));
      EXPECT_TRUE(ids.insert((*events)[i].id).second) << "event id seen twice";
    }
    return std::move(*events);
  }

  std::unique_ptr<aws::Client> client_;
  StreamTableOptions options_;
  std::unique_ptr<StreamTable> table_;
};

class OnLocal : public StreamTableTest {};
class OnBoth : public StreamTableTest {};

TEST_P(OnBoth, AppendReadHeadRoundTrip) {
  std::vector<EventData> first{Event("Opened"), Event("Deposited", R"({"amount":5})"),
                               Event("Renamed")};
  first[1].schema = "V2";
  first[1].metadata = R"({"user":"ann"})";
  first[2].content_type = "application/octet-stream";
  first[2].data = std::string("\x00\xff\x10 bytes", 9);
  auto a = table().Append("account-1", Expected::no_stream(), first);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->first_version.value(), 0);
  EXPECT_EQ(a->last_version.value(), 2);
  EventData empty = Event("Closed", "");  // no bytes at all: no data attribute
  empty.content_type = "application/octet-stream";
  auto b =
      table().Append("account-1", Expected::exactly(StreamVersion(2)), {Event("Withdrawn"), empty});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->first_version.value(), 3);
  EXPECT_EQ(b->last_version.value(), 4);

  auto events = ReadAllOnce("account-1", 5);
  ASSERT_EQ(events.size(), 5u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(events[i].id, first[i].id);
    EXPECT_EQ(events[i].type, first[i].type);
    EXPECT_EQ(events[i].schema, first[i].schema);
    EXPECT_EQ(events[i].data, first[i].data);
    EXPECT_EQ(events[i].content_type, first[i].content_type);
    EXPECT_EQ(events[i].metadata, first[i].metadata);
    EXPECT_GT(events[i].timestamp_ms, 0);
    EXPECT_EQ(events[i].stream, "account-1");
  }
  EXPECT_EQ(events[4].data, "");
  auto middle = table().ReadStream("account-1", StreamVersion(2), 2);
  ASSERT_TRUE(middle.ok()) << middle.status().ToString();
  ASSERT_EQ(middle->size(), 2u);
  EXPECT_EQ((*middle)[0].type, "Renamed");
  EXPECT_EQ((*middle)[1].type, "Withdrawn");

  auto head = table().Head("account-1");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->version.value(), 4);
  EXPECT_FALSE(head->deleted);
  EXPECT_EQ(table().Head("nobody").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(table().ReadStream("nobody", StreamVersion(0), 10).status().code(),
            ErrorCode::kNotFound);
  // A second open checks the table and finds it as it should be.
  EXPECT_TRUE(StreamTable(*client_, options_).CreateOrCheck().ok());
}

// The conflict comes from the failed write itself (ALL_OLD): one request.
TEST_P(OnLocal, ConflictReportsTheActualVersionInOneRequest) {
  ASSERT_TRUE(table().Append("s", Expected::no_stream(), {Event("A"), Event("B")}).ok());
  auto before = Requests();
  auto stale = table().Append("s", Expected::exactly(StreamVersion(0)), {Event("C")});
  EXPECT_EQ(Requests() - before, 1u);
  ASSERT_EQ(stale.status().code(), ErrorCode::kConflict) << stale.status().ToString();
  EXPECT_EQ(stale.status().actual_version(), 1);

  before = Requests();
  auto exists = table().Append("s", Expected::no_stream(), {Event("C")});
  EXPECT_EQ(Requests() - before, 1u);
  ASSERT_EQ(exists.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(exists.status().actual_version(), 1);
  EXPECT_EQ(table().Head("s")->version.value(), 1);
}

// exists cannot bet on a new stream: a writer that does not know the stream
// reads its newest items first, one that does (it wrote it) does not.
// Tombstones and restarts follow decide.h.
TEST_P(OnLocal, ExistsTombstonesAndRestarts) {
  auto missing = table().Append("d", Expected::exists(), {Event("A")});
  ASSERT_EQ(missing.status().code(), ErrorCode::kConflict) << missing.status().ToString();
  EXPECT_EQ(missing.status().actual_version(), std::nullopt);
  ASSERT_TRUE(table().Append("d", Expected::no_stream(), {Event("A")}).ok());
  auto before = Requests();
  ASSERT_TRUE(table().Append("d", Expected::exists(), {Event("B")}).ok());
  EXPECT_EQ(Requests() - before, 1u) << "the head is this writer's own";
  StreamTable other(*client_, options_);  // another process: nothing cached
  before = Requests();
  ASSERT_TRUE(other.Append("d", Expected::exists(), {Event("B2")}).ok());
  EXPECT_EQ(Requests() - before, 2u) << "a Query of the newest items, then the put";
  before = Requests();
  auto stale_cache = table().Append("d", Expected::any(), {Event("B3")});
  ASSERT_TRUE(stale_cache.ok()) << stale_cache.status().ToString();
  EXPECT_EQ(stale_cache->first_version.value(), 3);
  EXPECT_EQ(Requests() - before, 3u) << "a put refused by the other's item, a Query, a put";

  std::vector<AppendRequest> tombstone(1);
  tombstone[0] = {
      "d", Expected::exactly(StreamVersion(3)), {Event(std::string(kDeletedEventType), "{}")}};
  CommitOptions internal;
  internal.allow_reserved = true;  // as Store::Delete does
  auto deleted = table().Commit(tombstone, internal);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(table().Head("d")->deleted);
  auto stale = table().Append("d", Expected::exactly(StreamVersion(4)), {Event("C")});
  ASSERT_EQ(stale.status().code(), ErrorCode::kConflict);
  EXPECT_TRUE(stale.status().deleted());
  auto restarted = table().Append("d", Expected::no_stream(), {Event("C")});
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  EXPECT_EQ(restarted->first_version.value(), 5);
  auto head = table().Head("d");
  EXPECT_FALSE(head->deleted);
  EXPECT_EQ(head->first_version.value(), 5);
  ReadAllOnce("d", 6);
}

TEST_P(OnLocal, OneWriteRequestPerAppend) {
  (void)table();
  auto before = Requests();
  ASSERT_TRUE(table().Append("acct", Expected::no_stream(), {Event("Opened")}).ok());
  EXPECT_EQ(Requests() - before, 1u);
  for (int v = 0; v < 40; ++v) {
    before = Requests();
    auto r = table().Append("acct", Expected::exactly(StreamVersion(v)), {Event("Deposited")});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Requests() - before, 1u) << "append " << v;
  }
  // `any` on a new stream bets on it being new: one request as well.
  before = Requests();
  ASSERT_TRUE(table().Append("fresh", Expected::any(), {Event("Opened")}).ok());
  EXPECT_EQ(Requests() - before, 1u);
  ReadAllOnce("acct", 41);
}

// 32 writers, each appending 5 events with exact expectations, learning the
// actual version from each conflict, while a reader reads.
TEST_P(OnLocal, ThirtyTwoWritersRacingOnOneStream) {
  (void)table();
  constexpr int kWriters = 32, kEach = 5;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  std::vector<std::vector<EventId>> written(kWriters);
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      std::optional<std::int64_t> known;  // last version seen; none: no stream yet
      for (int n = 0; n < kEach;) {
        EventData e = Event("W" + std::to_string(t));
        Expected expected =
            known ? Expected::exactly(StreamVersion(*known)) : Expected::no_stream();
        auto r = table().Append("race", expected, {e});
        if (r.ok()) {
          EXPECT_FALSE(r->replayed);
          written[t].push_back(e.id);
          known = r->last_version.value();
          ++n;
        } else {
          ASSERT_EQ(r.status().code(), ErrorCode::kConflict) << r.status().ToString();
          known = r.status().actual_version();
          ++conflicts;
        }
      }
    });
  }
  // A reader meanwhile: every read is a gap-free prefix, each event once.
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::thread reader([&] {
    while (!done) {
      auto seen = table().ReadStream("race", StreamVersion(0), 100000);
      if (!seen.ok()) {
        ASSERT_EQ(seen.status().code(), ErrorCode::kNotFound) << seen.status().ToString();
        continue;
      }
      std::set<EventId> unique;
      for (std::size_t i = 0; i < seen->size(); ++i) {
        ASSERT_EQ((*seen)[i].version.value(), static_cast<std::int64_t>(i));
        ASSERT_TRUE(unique.insert((*seen)[i].id).second);
      }
      ++reads;
    }
  });
  for (auto& th : threads) th.join();
  done = true;
  reader.join();
  EXPECT_GT(reads.load(), 0);
  auto events = ReadAllOnce("race", kWriters * kEach);
  std::set<EventId> ids;
  for (const auto& e : events) ids.insert(e.id);
  for (const auto& mine : written)
    for (const auto& id : mine) EXPECT_TRUE(ids.count(id)) << "a winner's event is missing";
  EXPECT_GT(conflicts.load(), 0);
  std::cout << "32 writers: " << conflicts.load() << " conflicts, " << reads.load() << " reads, "
            << client_->counters().requests << " requests\n";
}

// A stream of the earlier layout (a tip holding appends; tip.h) whose
// conversion died after writing the event items, before the tip update:
// the events are in items and in the tip; readers see each once; the next
// write converts it and goes on.
TEST_P(OnLocal, AnInterruptedConversionLosesAndDuplicatesNothing) {
  options_.legacy_tips_possible = true;
  (void)table();
  json::array envelopes;
  std::vector<EventId> ids;
  for (int v = 0; v < 3; ++v) {
    EventData e = Event("Old" + std::to_string(v));
    ids.push_back(e.id);
    envelopes.push_back(json::object{{"M", Envelope(e, 1700000000000 + v)}});
  }
  json::object tip{{"stream", S("m")},
                   {"version", N(kTipVersion)},
                   {"head", N(2)},
                   {"first", N(0)},
                   {"deleted", {{"BOOL", false}}},
                   {"a0", {{"M", {{"b", N(600)}, {"e", {{"L", envelopes}}}}}}},
                   {"bytes", N(600)},
                   {"count", N(1)},
                   {"lk", S("streams")},
                   {"state", StateAttribute(StateUpdate{"s2", 1}, 2)}};
  ASSERT_TRUE(client_->Call("PutItem", {{"TableName", options_.table}, {"Item", tip}}).ok());
  ReadAllOnce("m", 3);
  auto half = table().WriteEventItems("m");
  ASSERT_TRUE(half.ok()) << half.status().ToString();
  EXPECT_EQ(*half, 3u);
  EXPECT_EQ(Items("m").size(), 4u);  // 3 event items and the tip, which still has them all
  ReadAllOnce("m", 3);
  auto tail = table().ReadStream("m", StreamVersion(1), 5);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->size(), 2u);

  // The next append converts the stream: the tip goes, its record and
  // listing key stay with the items, and a retry of the old append is known.
  EventData again = Event("Old0");
  again.id = ids[0];
  auto replayed = table().Append("m", Expected::any(), {again});
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  EXPECT_TRUE(replayed->replayed);
  EXPECT_EQ(replayed->first_version.value(), 0);
  ASSERT_TRUE(table().Append("m", Expected::exactly(StreamVersion(2)), {Event("New")}).ok());
  EXPECT_EQ(Items("m").size(), 4u) << "3 event items and the new append's; no tip";
  ReadAllOnce("m", 4);
  auto record = table().ReadState("m");
  ASSERT_TRUE(record.ok() && *record);
  EXPECT_EQ((*record)->data, "s2");
  auto listed = table().ListStreams("", "", 10);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].version.value(), 3);
}

// Every append is an item of its own, billed on its own size by AWS's rules
// (aws/item_size.h): the bill does not grow with the stream.
TEST_P(OnLocal, EachAppendIsAnItemBilledOnItsOwnSize) {
  ASSERT_TRUE(table().Append("big", Expected::no_stream(), {Event("E")}).ok());
  const std::string data = "\"" + std::string(1000, 'x') + "\"";
  for (int v = 0; v < 30; ++v) {
    const double before = client_->counters().write_units;
    ASSERT_TRUE(
        table().Append("big", Expected::exactly(StreamVersion(v)), {Event("E", data)}).ok());
    EXPECT_EQ(client_->counters().write_units - before, 2.0) << "1,000 bytes and the envelope";
  }
  const double before = client_->counters().write_units;
  ASSERT_TRUE(table().Append("big", Expected::exactly(StreamVersion(30)), {Event("E")}).ok());
  EXPECT_EQ(client_->counters().write_units - before, 1.0) << "a small event after 30 large ones";
  auto items = Items("big");
  ASSERT_EQ(items.size(), 32u);
  for (const auto& item : items)
    EXPECT_EQ(aws::WriteUnits(aws::ItemSize(item)),
              item.contains("data") && item.at("data").at("S").as_string().size() > 500 ? 2u : 1u);
  auto events = ReadAllOnce("big", 32);
  EXPECT_EQ(events[30].data, data);
}

// A retry is recognised from the writer's own window of the newest appends
// (no request at all), or, by another process, from the window it reads.
TEST_P(OnLocal, RetriesReturnTheOriginalResult) {
  ASSERT_TRUE(table().Append("r", Expected::no_stream(), {Event("Opened")}).ok());
  std::vector<EventData> batch{Event("A"), Event("B")};
  auto original = table().Append("r", Expected::exactly(StreamVersion(0)), batch);
  ASSERT_TRUE(original.ok()) << original.status().ToString();
  ASSERT_TRUE(table().Append("r", Expected::exactly(StreamVersion(2)), {Event("C")}).ok());

  for (Expected expected : {Expected::exactly(StreamVersion(0)), Expected::any()}) {
    auto before = Requests();
    auto again = table().Append("r", expected, batch);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_TRUE(again->replayed);
    EXPECT_EQ(again->first_version.value(), 1);
    EXPECT_EQ(again->last_version.value(), 2);
    EXPECT_EQ(Requests() - before, 0u) << expected.ToString();
    StreamTable other(*client_, options_);
    before = Requests();
    auto elsewhere = other.Append("r", expected, batch);
    ASSERT_TRUE(elsewhere.ok()) << elsewhere.status().ToString();
    EXPECT_TRUE(elsewhere->replayed);
    // exactly(N) reads the window first; `any` bets on a new stream, and the
    // item in the way sends it to the window.
    EXPECT_EQ(Requests() - before, expected.kind() == Expected::Kind::kAny ? 2u : 1u)
        << expected.ToString();
  }
  ASSERT_TRUE(table().Append("r", Expected::exactly(StreamVersion(3)), {Event("D")}).ok());
  auto later = table().Append("r", Expected::any(), batch);
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_TRUE(later->replayed);
  // Half old, half new ids: a conflict, nothing written.
  auto mixed = table().Append("r", Expected::any(), {batch[0], Event("New")});
  EXPECT_EQ(mixed.status().code(), ErrorCode::kConflict);
  ReadAllOnce("r", 5);
}

TEST_P(OnBoth, CommitsToSeveralStreams) {
  auto make = [&](const char* stream, Expected expected) {
    AppendRequest a;
    a.stream = stream;
    a.expected = expected;
    a.events = {Event("Moved")};
    return a;
  };
  auto commit = table().Commit({make("from", Expected::no_stream()), make("to", Expected::any())});
  if (GetParam() == "dynalite") {
    ASSERT_EQ(commit.status().code(), ErrorCode::kInvalid) << commit.status().ToString();
    EXPECT_NE(commit.status().message().find("TransactWriteItems"), std::string::npos)
        << commit.status().ToString();
    EXPECT_EQ(table().Head("from").status().code(), ErrorCode::kNotFound);
    return;
  }
  ASSERT_TRUE(commit.ok()) << commit.status().ToString();
  ASSERT_EQ(commit->appends.size(), 2u);
  // One stale expectation: a conflict with its actual version, nothing written.
  auto before = Requests();
  auto stale = table().Commit(
      {make("from", Expected::exactly(StreamVersion(0))), make("to", Expected::no_stream())});
  EXPECT_EQ(Requests() - before, 1u);
  ASSERT_EQ(stale.status().code(), ErrorCode::kConflict) << stale.status().ToString();
  EXPECT_EQ(stale.status().actual_version(), 0);
  EXPECT_EQ(table().Head("from")->version.value(), 0);
  ASSERT_TRUE(table()
                  .Commit({make("from", Expected::exactly(StreamVersion(0))),
                           make("to", Expected::exactly(StreamVersion(0)))})
                  .ok());
  ReadAllOnce("to", 2);
}

// Items come from a server: a malformed tip is an internal error naming the
// stream, never an exception out of the parser.
TEST(TipParsing, MalformedTipsAreErrorsNotExceptions) {
  const json::object base =
      json::parse(R"({"stream":{"S":"s"},"version":{"N":"9007199254740991"},"head":{"N":"0"},)"
                  R"("first":{"N":"0"},"deleted":{"BOOL":false}})")
          .as_object();
  ASSERT_TRUE(ParseTip("s", base).ok());
  const char* damaged[] = {
      R"({"recent":{"S":"not a list"}})",
      R"({"recent":{"L":[{"M":{"f":{"N":"1"}}}]}})",
      R"({"recent":{"L":[{"M":{"f":{"N":"1"},"ids":{"L":[{"N":"7"}]}}}]}})",
      R"({"recent":{"L":["not a map"]}})",
      R"({"a0":{"M":{"b":{"N":"10"},"e":{"S":"not a list"}}}})",
      R"({"a0":{"M":{"b":{"N":"10"},"e":{"L":[42]}}}})",
      R"({"deleted":{"S":"no"}})",
  };
  for (const char* extra : damaged) {
    json::object item = base;
    const json::value changes = json::parse(extra);
    for (const auto& [key, value] : changes.as_object()) item[key] = value;
    Result<Tip> tip = Status::Internal("not parsed");
    ASSERT_NO_THROW(tip = ParseTip("s", item)) << extra;
    ASSERT_FALSE(tip.ok()) << extra;
    EXPECT_EQ(tip.status().code(), ErrorCode::kInternal) << extra;
    EXPECT_NE(tip.status().message().find("'s'"), std::string::npos) << tip.status().ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Servers, OnBoth, ::testing::Values("local", "dynalite"),
                         [](const auto& p) { return p.param; });
INSTANTIATE_TEST_SUITE_P(Servers, OnLocal, ::testing::Values("local"),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace indelible::dynamodb
