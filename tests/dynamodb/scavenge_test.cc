// Scavenging on DynamoDB (scavenge.h, docs/DYNAMODB.md "Scavenging"), on
// DynamoDB Local, looking at the items themselves: whole append items
// below the cut deleted, the floor item and the listing key where readers
// need them, the bytes reported by DynamoDB's sizing rules, an entity's
// newest state record kept, a scavenge cut short (each of its steps is a
// request of its own) finished by the next with reads sound meanwhile, a
// missing item above the floor still reported as damage, and tag queries
// and a rebuilt $all keeping the kept events' positions.
#include "storage/dynamodb/scavenge.h"

#include <gtest/gtest.h>
#include <indelible/store.h>

#include <boost/json.hpp>
#include <map>

#include "aws/client.h"
#include "aws/credentials.h"
#include "aws/item_size.h"
#include "storage/dynamodb/dynamodb_store.h"
#include "storage/dynamodb/store_url.h"
#include "storage/dynamodb/tip.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

namespace json = boost::json;

class ScavengeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testutil::DynamoDbTestUrl("scv", "&index_poll_ms=10");
    ASSERT_FALSE(url_.empty());
    Reopen();
    auto parsed = dynamodb::ParseStoreUrl(url_);
    auto credentials = aws::LoadCredentials();
    ASSERT_TRUE(parsed.ok() && credentials.ok());
    auto client = aws::Client::Create(dynamodb::ClientOptionsFromUrl(*parsed, *credentials));
    ASSERT_TRUE(client.ok());
    raw_ = std::move(*client);
    table_ = parsed->table_prefix + "events";
  }

  void Reopen() {
    store_.reset();
    auto store = Store::Open(url_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  static std::vector<EventData> Events(int n, const std::vector<std::string>& tags = {}) {
    std::vector<EventData> events;
    for (int i = 0; i < n; ++i) {
      EventData e;
      e.id = EventId::Random();
      e.type = "Tested";
      e.data = R"({"note":"a sentence of some length, as events have"})";
      e.tags = tags;
      events.push_back(std::move(e));
    }
    return events;
  }

  // Appends `appends` appends of `each` events, then waits until $all has them.
  void Write(const std::string& stream, int appends, int each,
             const std::vector<std::string>& tags = {}) {
    for (int i = 0; i < appends; ++i)
      ASSERT_TRUE(store_->Append(stream, Expected::any(), Events(each, tags)).ok());
    Settle();
  }

  void Settle() {
    const std::uint64_t written = store_->stats().events + written_before_;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (store_->LastPosition().value() < written && std::chrono::steady_clock::now() < deadline)
      store_->WaitForCommit(store_->LastPosition(), std::chrono::milliseconds(100));
    ASSERT_GE(store_->LastPosition().value(), written);
  }

  void KeepFrom(const std::string& stream, std::int64_t version) {
    StreamMetadata m;
    m.truncate_before = StreamVersion(version);
    ASSERT_TRUE(store_->WriteStreamMetadata(stream, m).ok());
  }
  void Lift(const std::string& stream) {
    ASSERT_TRUE(store_->WriteStreamMetadata(stream, StreamMetadata{}).ok());
  }

  // The stream's items by sort key, whole.
  std::map<std::int64_t, json::object> Items(const std::string& stream) {
    std::map<std::int64_t, json::object> found;
    auto reply =
        raw_->Call("Query", {{"TableName", table_},
                             {"ConsistentRead", true},
                             {"KeyConditionExpression", "#s = :s"},
                             {"ExpressionAttributeNames", {{"#s", "stream"}}},
                             {"ExpressionAttributeValues", {{":s", dynamodb::S(stream)}}}});
    EXPECT_TRUE(reply.ok()) << reply.status.ToString();
    if (!reply.ok()) return found;
    for (const auto& item : reply.body.at("Items").as_array()) {
      const auto& o = item.as_object();
      found.emplace(std::stoll(std::string(o.at("version").at("N").as_string())), o);
    }
    return found;
  }
  std::vector<std::int64_t> ItemKeys(const std::string& stream) {
    std::vector<std::int64_t> keys;
    for (const auto& [key, item] : Items(stream)) keys.push_back(key);
    return keys;
  }

  void DeleteItem(const std::string& stream, std::int64_t version) {
    auto reply =
        raw_->Call("DeleteItem",
                   {{"TableName", table_},
                    {"Key", {{"stream", dynamodb::S(stream)}, {"version", dynamodb::N(version)}}}});
    ASSERT_TRUE(reply.ok()) << reply.status.ToString();
  }

  std::vector<std::int64_t> Versions(const std::string& stream, ReadStreamOptions options = {}) {
    auto events = ReadStreamEvents(*store_, stream, options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    std::vector<std::int64_t> out;
    if (events.ok())
      for (const auto& e : *events) out.push_back(e.version.value());
    return out;
  }
  // stream -> version -> position, from $all.
  std::map<std::pair<std::string, std::int64_t>, std::uint64_t> Positions() {
    std::map<std::pair<std::string, std::int64_t>, std::uint64_t> out;
    auto all = ReadAllEvents(*store_);
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    if (all.ok())
      for (const auto& e : *all)
        if (!e.stream.starts_with("$")) out[{e.stream, e.version.value()}] = e.position.value();
    return out;
  }

  std::string url_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<aws::Client> raw_;
  std::string table_;
  std::uint64_t written_before_ = 0;
};

std::vector<std::int64_t> Range(std::int64_t from, std::int64_t through) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = from; v <= through; ++v) out.push_back(v);
  return out;
}

TEST_F(ScavengeTest, RemovesWholeItemsBelowTheCutAndLeavesAFloorAndTheListingKey) {
  Write("sv-a", 10, 3);  // items at 0, 3, ..., 27
  std::uint64_t expected_bytes = 0;
  for (const auto& [key, item] : Items("sv-a"))
    if (key < 21) expected_bytes += aws::ItemSize(item);
  StreamMetadata keep;
  keep.max_count = 8;  // hides 0..21; the item at 21 holds 21..23 and stays
  ASSERT_TRUE(store_->WriteStreamMetadata("sv-a", keep).ok());

  auto report = store_->Scavenge();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->streams, 1u);
  EXPECT_EQ(report->events, 21u);
  EXPECT_EQ(report->bytes, expected_bytes);

  auto items = Items("sv-a");
  std::vector<std::int64_t> keys;
  for (const auto& [key, item] : items) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::int64_t>{dynamodb::kFloorVersion, 21, 24, 27}));
  EXPECT_EQ(items[dynamodb::kFloorVersion].at("sf").at("N").as_string(), "21");
  ASSERT_TRUE(items[21].contains("lk")) << "the listing key moved to the first kept item";
  EXPECT_EQ(items[21].at("lk").at("S").as_string(), dynamodb::kListValue);
  ListStreamsOptions list;
  list.prefix = "sv-a";
  auto listed = store_->ListStreams(list);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->streams.size(), 1u);
  EXPECT_EQ(listed->streams[0].version.value(), 29);

  Lift("sv-a");
  EXPECT_EQ(Versions("sv-a"), Range(21, 29));
  EXPECT_TRUE(store_->Check().ok()) << store_->Check().ToString();
  auto again = store_->Scavenge();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->events, 0u);
}

// Cost is a feature: a removed item of up to 1 KB is one write unit (a
// delete is billed on the item's size), plus, per stream, one for the floor,
// one for moving the listing key and one for each of the listing index's
// writes (the entry the key makes, the entry that leaves with its item).
TEST_F(ScavengeTest, EachSmallItemRemovedCostsOneWriteUnit) {
  Write("sv-w", 40, 1);  // items of about 200 bytes
  for (const auto& [key, item] : Items("sv-w")) ASSERT_LT(aws::ItemSize(item), 1024u);
  StreamMetadata keep;
  keep.max_count = 1;
  ASSERT_TRUE(store_->WriteStreamMetadata("sv-w", keep).ok());
  auto units = [&](const std::string& operation) {
    double sum = 0;
    for (const auto& op : store_->stats().operations)
      if (op.caller == "store" && op.operation == operation) sum += op.write_units;
    return sum;
  };
  const double deletes = units("BatchWriteItem"), puts = units("PutItem"),
               updates = units("UpdateItem");
  auto report = store_->Scavenge();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->events, 39u);
  // Version 0's item carries the listing index's key: its entry leaves
  // with it, one index write more.
  EXPECT_DOUBLE_EQ(units("BatchWriteItem") - deletes, 39.0 + 1.0) << "one unit per item";
  EXPECT_DOUBLE_EQ(units("PutItem") - puts, 1.0) << "the floor";
  EXPECT_GE(units("UpdateItem") - updates, 1.0) << "the listing key";
  EXPECT_LE(units("UpdateItem") - updates, 2.0) << "the listing key and its index entry";
}

// An entity loads its newest state record and the events after it: the
// item holding the record stays, with every item after it, whatever the
// cut (the events before it go).
TEST_F(ScavengeTest, AnEntitysNewestStateRecordStaysWithTheItemsAfterIt) {
  for (int v = 0; v < 20; ++v) {
    std::vector<AppendRequest> commit(1);
    commit[0].stream = "sv-e";
    commit[0].expected = v == 0 ? Expected::no_stream() : Expected::exactly(StreamVersion(v - 1));
    commit[0].events = Events(1);
    if (v == 3 || v == 5) commit[0].state = StateUpdate{"state-at-" + std::to_string(v), 1};
    ASSERT_TRUE(store_->Commit(std::move(commit)).ok());
  }
  Settle();
  StreamMetadata keep;
  keep.max_count = 2;
  ASSERT_TRUE(store_->WriteStreamMetadata("sv-e", keep).ok());
  auto report = store_->Scavenge();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->events, 5u);
  auto keys = ItemKeys("sv-e");
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys.front(), dynamodb::kFloorVersion);
  EXPECT_EQ(std::vector<std::int64_t>(keys.begin() + 1, keys.end()), Range(5, 19));
  auto state = store_->ReadState("sv-e");
  ASSERT_TRUE(state.ok() && *state) << state.status().ToString();
  EXPECT_EQ((*state)->data, "state-at-5");
  EXPECT_EQ((*state)->version.value(), 5);
}

// Each step is a request of its own, so a scavenge that dies leaves the
// floor written and some items below it not yet deleted. Reads are sound
// meanwhile (what is left below the floor is read, the rest stepped over)
// and the next scavenge deletes the rest.
TEST_F(ScavengeTest, AScavengeCutShortIsFinishedByTheNextAndReadsMeanwhile) {
  Write("sv-c", 20, 1);
  Write("sv-other", 3, 1);
  const auto positions = Positions();
  auto put = raw_->Call("PutItem", {{"TableName", table_},
                                    {"Item",
                                     {{"stream", dynamodb::S("sv-c")},
                                      {"version", dynamodb::N(dynamodb::kFloorVersion)},
                                      {"sf", dynamodb::N(10)}}}});
  ASSERT_TRUE(put.ok()) << put.status.ToString();
  for (std::int64_t v = 3; v < 10; ++v) DeleteItem("sv-c", v);

  std::vector<std::int64_t> expected = {0, 1, 2};
  for (std::int64_t v = 10; v < 20; ++v) expected.push_back(v);
  EXPECT_EQ(Versions("sv-c"), expected);
  ReadStreamOptions from_five;
  from_five.from = StreamVersion(5);
  EXPECT_EQ(Versions("sv-c", from_five), Range(10, 19));
  ReadStreamOptions backward;
  backward.direction = Direction::kBackward;
  backward.from = StreamVersion(12);
  EXPECT_EQ(Versions("sv-c", backward), (std::vector<std::int64_t>{12, 11, 10, 2, 1, 0}));
  for (const auto& [key, position] : Positions()) EXPECT_EQ(position, positions.at(key));
  EXPECT_EQ(Positions().size(), positions.size() - 7);
  EXPECT_TRUE(store_->Check().ok()) << store_->Check().ToString();

  KeepFrom("sv-c", 10);
  auto report = store_->Scavenge();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->events, 3u);
  auto keys = ItemKeys("sv-c");
  EXPECT_EQ(keys.front(), dynamodb::kFloorVersion);
  EXPECT_EQ(keys[1], 10);
  ListStreamsOptions list;
  list.prefix = "sv-c";
  auto listed = store_->ListStreams(list);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->streams.size(), 1u) << "the listing key moved with the last removal";
  Lift("sv-c");
  EXPECT_EQ(Versions("sv-c"), Range(10, 19));
  EXPECT_TRUE(store_->Check().ok()) << store_->Check().ToString();
}

// The floor tells a removal from damage: an item missing above it (or in a
// stream without one) is still an internal error, on $all and stream reads.
TEST_F(ScavengeTest, AMissingItemAboveTheFloorIsStillDamage) {
  Write("sv-d", 5, 1);
  DeleteItem("sv-d", 2);
  auto all = ReadAllEvents(*store_);
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), ErrorCode::kInternal);
  auto read = ReadStreamEvents(*store_, "sv-d");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), ErrorCode::kInternal);
  EXPECT_FALSE(store_->Check().ok());
}

// Tag queries step over removed events, and a rebuild of $all after a
// scavenge keeps every position (the removed ones as removed), so
// consumers' checkpoints stay where they were.
TEST_F(ScavengeTest, TagQueriesAndARebuiltIndexKeepThePositionsAroundRemovedEvents) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(store_->Append("sv-t", Expected::any(), Events(1, {"sv:tag"})).ok());
    ASSERT_TRUE(store_->Append("sv-u", Expected::any(), Events(1)).ok());
  }
  Settle();
  const auto before = Positions();
  KeepFrom("sv-t", 6);
  auto report = store_->Scavenge();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->events, 6u);
  Lift("sv-t");

  Query tagged;
  tagged.items.push_back(QueryItem{{}, {"sv:tag"}});
  auto queried = ReadQueryEvents(*store_, tagged);
  ASSERT_TRUE(queried.ok()) << queried.status().ToString();
  std::vector<std::int64_t> versions;
  for (const auto& e : *queried) {
    versions.push_back(e.version.value());
    EXPECT_EQ(e.position.value(), before.at({"sv-t", e.version.value()}));
  }
  EXPECT_EQ(versions, Range(6, 9));

  Settle();
  const auto kept = Positions();
  written_before_ += store_->stats().events;
  store_.reset();  // hands the index's lease back
  auto rebuilt = dynamodb::RebuildDynamoDbIndex(url_, {});
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  EXPECT_EQ(rebuilt->added, 0u);
  Reopen();
  EXPECT_EQ(Positions(), kept);
  EXPECT_TRUE(store_->Check().ok()) << store_->Check().ToString();

  // From nothing (every chunk gone): each stream's events from its floor,
  // and a second rebuild keeps all of that.
  written_before_ += store_->stats().events;
  store_.reset();
  const std::string all_table = table_.substr(0, table_.size() - 6) + "all";
  auto scan = raw_->Call("Scan", {{"TableName", all_table}, {"ConsistentRead", true}});
  ASSERT_TRUE(scan.ok()) << scan.status.ToString();
  for (const auto& item : scan.body.at("Items").as_array()) {
    const auto& o = item.as_object();
    if (std::stoll(std::string(o.at("block").at("N").as_string())) < 0) continue;
    auto deleted = raw_->Call(
        "DeleteItem", {{"TableName", all_table},
                       {"Key", {{"block", o.at("block")}, {"position", o.at("position")}}}});
    ASSERT_TRUE(deleted.ok()) << deleted.status.ToString();
  }
  auto from_nothing = dynamodb::RebuildDynamoDbIndex(url_, {});
  ASSERT_TRUE(from_nothing.ok()) << from_nothing.status().ToString();
  EXPECT_EQ(from_nothing->kept, 0u);
  auto second = dynamodb::RebuildDynamoDbIndex(url_, {});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->added, 0u) << "a stream indexed from its floor is whole";
  Reopen();
  written_before_ = store_->LastPosition().value();
  std::vector<std::int64_t> indexed;
  for (const auto& [key, position] : Positions())
    if (key.first == "sv-t") indexed.push_back(key.second);
  EXPECT_EQ(indexed, Range(6, 9));
  EXPECT_TRUE(store_->Check().ok()) << store_->Check().ToString();

  // The rebuild copied the events into its chunks: a scavenge takes the
  // copies of what it removes out of them too.
  auto read = ReadStreamEvents(*store_, "sv-t");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 4u);
  const std::string gone_id = (*read)[0].id.ToString(), kept_id = (*read)[2].id.ToString();
  auto chunks_holding = [&](const std::string& text) {
    int n = 0;
    auto all = raw_->Call("Scan", {{"TableName", all_table}, {"ConsistentRead", true}});
    EXPECT_TRUE(all.ok()) << all.status.ToString();
    for (const auto& item : all.body.at("Items").as_array())
      if (json::serialize(item).find(text) != std::string::npos) ++n;
    return n;
  };
  ASSERT_EQ(chunks_holding(gone_id), 1);
  const auto positioned = Positions();
  KeepFrom("sv-t", 8);
  auto trimmed = store_->Scavenge();
  ASSERT_TRUE(trimmed.ok()) << trimmed.status().ToString();
  EXPECT_EQ(trimmed->events, 2u);
  EXPECT_EQ(chunks_holding(gone_id), 0) << "the copy left the index";
  EXPECT_EQ(chunks_holding(kept_id), 1);
  Lift("sv-t");
  for (const auto& [key, position] : Positions()) EXPECT_EQ(position, positioned.at(key));
  EXPECT_FALSE(Positions().contains({"sv-t", 7}));
  EXPECT_TRUE(Positions().contains({"sv-t", 8}));
  EXPECT_TRUE(store_->Check().ok()) << store_->Check().ToString();
}

}  // namespace
}  // namespace indelible
