// Crypto-shredding's acceptance test on the embedded engine
// (docs/RETENTION.md): a subject's events carry a unique marker in their
// data and in a sealed metadata field; the subject is shredded, the store
// scavenged (a flush and a full compaction), and then the marker is
// nowhere: in no byte of the data folder's files, on no read path (stream
// reads both ways and raw, $all, a query by tag, FindEvent, an entity
// load, subscriptions, a consumer group, a parked copy), in no row or byte
// of a rebuilt projection. The subject's wrapped keys leave the files too.
// Controls keep each search honest: a plain event's marker, stored in the
// clear, and another subject's key are found where they are.
//
// DynamoDB Local: shredding_dynamodb_test.cc; the server and CLI:
// shredding_server_test.cc.
#include <indelible/consumer_group.h>
#include <indelible/projection.h>
#include <indelible/read_store.h>
#include <indelible/subscription.h>

#include <chrono>
#include <cstdio>
#include <map>

#include "integration/shredding_fixture.h"
#include "testutil/temp_dir.h"

namespace indelible::shredding_test {
namespace {

using std::chrono::milliseconds;
using Files = std::vector<std::string>;

class ShreddingMarkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    master_key_ = NewMasterKey();
    Open();
  }

  void Open() {
    store_.reset();
    auto opened = Store::Open("file:" + Folder(), KeyedOptions(master_key_));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }

  std::string Folder() const { return dir_.Sub("data"); }
  Store& store() { return *store_; }

  // Writes the cast's events and returns their ids by stream, in order.
  std::map<std::string, std::vector<EventId>> Write() {
    std::vector<AppendRequest> appends = cast_.Appends();
    std::map<std::string, std::vector<EventId>> ids;
    for (const AppendRequest& append : appends)
      for (const EventData& e : append.events) ids[append.stream].push_back(e.id);
    auto committed = store().Commit(std::move(appends));
    EXPECT_TRUE(committed.ok()) << committed.status().ToString();
    return ids;
  }

  // A scavenge that surely flushes and compacts every family: a stream of
  // its own with `maxCount: 1` gives it events to remove.
  void ScavengeWithRemovals() {
    const std::string filler = "filler-" + std::to_string(fillers_++);
    ASSERT_TRUE(store().Append(filler, Expected::no_stream(), {Filler(), Filler(), Filler()}).ok());
    StreamMetadata keep_one;
    keep_one.max_count = 1;
    ASSERT_TRUE(store().WriteStreamMetadata(filler, keep_one).ok());
    auto report = store().Scavenge();
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->events, 2u) << "the scavenge removed the filler's hidden events";
  }

  static EventData Filler() {
    EventData e;
    e.id = EventId::Random();
    e.type = "filled";
    e.data = "{}";
    return e;
  }

  std::vector<RecordedEvent> Stream(const std::string& stream, ReadStreamOptions options = {}) {
    auto events = ReadStreamEvents(store(), stream, options);
    EXPECT_TRUE(events.ok()) << stream << ": " << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }

  std::vector<RecordedEvent> All(ReadAllOptions options = {}) {
    auto events = ReadAllEvents(store(), options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }

  std::vector<RecordedEvent> Tagged(const std::string& tag) {
    Query query;
    query.items.push_back(QueryItem{{}, {tag}});
    auto events = ReadQueryEvents(store(), query);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }

  // Every event of $all (or of `stream`) through a Subscription, to its
  // caught-up batch.
  std::vector<RecordedEvent> Subscribed(const std::string& stream = "") {
    SubscriptionOptions options;
    options.stream = stream;
    Subscription subscription(store(), options);
    std::vector<RecordedEvent> out;
    for (int pages = 0; pages < 100; ++pages) {
      auto batch = subscription.Next(milliseconds(1000));
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok()) break;
      out.insert(out.end(), batch->events.begin(), batch->events.end());
      if (batch->caught_up) return out;
    }
    ADD_FAILURE() << "the subscription did not catch up";
    return out;
  }

  // Every user event through a new consumer group, each acknowledged.
  std::vector<RecordedEvent> Pulled() {
    const std::string name = "reader-" + std::to_string(groups_++);
    EXPECT_TRUE(ConsumerGroup::Create(store(), name, {}).ok());
    auto group = ConsumerGroup::Open(store(), name);
    EXPECT_TRUE(group.ok()) << group.status().ToString();
    std::vector<RecordedEvent> out;
    if (!group.ok()) return out;
    std::size_t of_cast = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (of_cast < Cast::kEvents && std::chrono::steady_clock::now() < deadline) {
      auto batch = (*group)->Pull("tester", 1000, milliseconds(500));
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok()) break;
      for (const Delivery& d : *batch) {
        out.push_back(d.event);
        if (!d.event.stream.starts_with("$") && !d.event.stream.starts_with("filler-")) ++of_cast;
        EXPECT_TRUE((*group)->Ack(d.event.position).ok());
      }
    }
    EXPECT_EQ(of_cast, Cast::kEvents) << "the group did not deliver every event";
    return out;
  }

  // Every read path of the embedded store, each checked by CheckEvents:
  // the subject's events redacted once `shredded`, the others as written.
  void ExpectEveryReadPath(const std::map<std::string, std::vector<EventId>>& ids, bool shredded) {
    const auto expect_all = [&](const std::vector<RecordedEvent>& events, const char* path) {
      SCOPED_TRACE(path);
      const Tally tally = CheckEvents(events, cast_, shredded);
      EXPECT_EQ(tally.subject, Cast::kSubjectEvents);
      EXPECT_EQ(tally.other, Cast::kOtherEvents);
      EXPECT_EQ(tally.plain, Cast::kPlainEvents);
    };
    const auto expect_subject = [&](const std::vector<RecordedEvent>& events, std::size_t n,
                                    const char* path) {
      SCOPED_TRACE(path);
      const Tally tally = CheckEvents(events, cast_, shredded);
      EXPECT_EQ(tally.subject, n);
      EXPECT_EQ(tally.other + tally.plain, 0u);
    };
    ReadStreamOptions backward;
    backward.direction = Direction::kBackward;
    for (const std::string& stream : {cast_.Person(), cast_.Note()}) {
      const std::size_t n = stream == cast_.Person() ? 3 : 1;
      expect_subject(Stream(stream), n, "ReadStream");
      expect_subject(Stream(stream, backward), n, "ReadStream backward");
      expect_subject(Subscribed(stream), n, "a stream subscription");
      auto loaded = store().ReadStateAndEvents(stream);
      ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
      std::vector<RecordedEvent> events;
      for (; loaded->events->Valid(); loaded->events->Next())
        events.push_back(loaded->events->event().ToOwned());
      EXPECT_TRUE(loaded->events->status().ok());
      expect_subject(events, n, "ReadStateAndEvents");
    }
    expect_all(All(), "ReadAll");
    expect_subject(Tagged(SubjectTag(cast_.subject)), Cast::kSubjectEvents, "ReadQuery by tag");
    {
      SCOPED_TRACE("ReadQuery of another tag");
      const Tally people = CheckEvents(Tagged("kind:person"), cast_, shredded);
      EXPECT_EQ(people.subject, 3u);
      EXPECT_EQ(people.other, Cast::kOtherEvents);
    }
    expect_all(Subscribed(), "a $all subscription");
    expect_all(Pulled(), "a consumer group");
    std::vector<RecordedEvent> found;
    for (const auto& [stream, of_stream] : ids)
      for (const EventId& id : of_stream) {
        auto event = store().FindEvent(id);
        ASSERT_TRUE(event.ok()) << event.status().ToString();
        ASSERT_TRUE(event->has_value()) << id.ToString();
        found.push_back(**event);
      }
    expect_all(found, "FindEvent");

    // As stored: the subject's ciphertext before (the sealed field gone
    // from the metadata), redacted after; the others as written.
    ReadStreamOptions raw_stream;
    raw_stream.raw = true;
    ReadAllOptions raw_all;
    raw_all.raw = true;
    std::vector<RecordedEvent> raw = All(raw_all);
    for (const std::string& stream : {cast_.Person(), cast_.Note()})
      for (const RecordedEvent& e : Stream(stream, raw_stream)) raw.push_back(e);
    std::size_t sealed = 0;
    for (const RecordedEvent& e : raw) {
      if (!cast_.OfSubject(e.stream) && e.stream != cast_.OtherPerson()) continue;
      ++sealed;
      if (shredded && cast_.OfSubject(e.stream)) {
        EXPECT_TRUE(IsRedacted(e, cast_)) << "raw";
        continue;
      }
      EXPECT_EQ(e.content_type, kSealedContentType) << e.stream;
      EXPECT_EQ(e.data.find(cast_.marker), std::string::npos) << e.stream;
      EXPECT_EQ(e.data.find(cast_.other_marker), std::string::npos) << e.stream;
      EXPECT_EQ(e.metadata.find(kSealedField), std::string::npos) << e.stream << e.metadata;
    }
    EXPECT_EQ(sealed, 2 * Cast::kSubjectEvents + Cast::kOtherEvents);
  }

  testutil::TempDir dir_;
  std::string master_key_;
  std::unique_ptr<Store> store_;
  Cast cast_;
  int fillers_ = 0;
  int groups_ = 0;
};

// The test, on the embedded engine.
TEST_F(ShreddingMarkerTest, AfterAShredAndAScavengeTheMarkerIsInNoFileAndOnNoReadPath) {
  const auto ids = Write();
  ExpectEveryReadPath(ids, /*shredded=*/false);

  // At rest the marker was never in the clear: not in the write-ahead log
  // the commit went to, nor in the tables a compaction wrote. The plain
  // events' marker is (the search finds what is there), and so are the
  // subject's wrapped keys.
  EXPECT_EQ(FilesHolding(Folder(), cast_.marker), Files{}) << "in the write-ahead log";
  EXPECT_NE(FilesHolding(Folder(), cast_.plain_marker), Files{});
  ASSERT_NO_FATAL_FAILURE(ScavengeWithRemovals());
  EXPECT_EQ(FilesHolding(Folder(), cast_.marker), Files{}) << "in the compacted tables";
  EXPECT_EQ(FilesHolding(Folder(), cast_.other_marker), Files{});
  EXPECT_NE(FilesHolding(Folder(), cast_.plain_marker), Files{}) << "the control";

  const std::vector<KeyRecord> keys = KeyRecordsOf(store(), cast_.subject);
  ASSERT_EQ(keys.size(), 2u) << "the subject's pointer and its key of an id";
  EXPECT_EQ(keys[0].wrapped, keys[1].wrapped) << "the pointer holds the same wrapped key";
  const std::vector<KeyRecord> other_keys = KeyRecordsOf(store(), cast_.other);
  ASSERT_EQ(other_keys.size(), 2u);
  for (const KeyRecord& key : keys) EXPECT_NE(FilesHolding(Folder(), key.wrapped), Files{});

  auto shredded = store().ShredSubject(cast_.subject);
  ASSERT_TRUE(shredded.ok()) << shredded.status().ToString();
  EXPECT_EQ(shredded->subject, cast_.subject);
  EXPECT_EQ(shredded->keys, 1u);
  EXPECT_TRUE(KeyRecordsOf(store(), cast_.subject).empty());
  EXPECT_EQ(KeyRecordsOf(store(), cast_.other).size(), 2u) << "another subject keeps its keys";

  // Reads are redacted at once, before any scavenge.
  EXPECT_EQ(CheckEvents(All(), cast_, /*shredded=*/true).subject, Cast::kSubjectEvents);

  auto scavenged = store().Scavenge();
  ASSERT_TRUE(scavenged.ok()) << scavenged.status().ToString();
  EXPECT_EQ(FilesHolding(Folder(), cast_.marker), Files{});
  for (const KeyRecord& key : keys) {
    EXPECT_EQ(FilesHolding(Folder(), key.value), Files{}) << key.name;
    EXPECT_EQ(FilesHolding(Folder(), key.wrapped), Files{}) << key.name;
  }
  // The controls: the other subject's key and the plain marker stay where
  // the same compaction put them.
  for (const KeyRecord& key : other_keys)
    EXPECT_NE(FilesHolding(Folder(), key.wrapped), Files{}) << key.name;
  EXPECT_NE(FilesHolding(Folder(), cast_.plain_marker), Files{});

  ExpectEveryReadPath(ids, /*shredded=*/true);
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();

  // A new process (the store reopened) reads the same; reading wrote no
  // marker back anywhere.
  Open();
  ExpectEveryReadPath(ids, /*shredded=*/true);
  store_.reset();
  EXPECT_EQ(FilesHolding(Folder(), cast_.marker), Files{});
}

// A consumer group that gives up on an event parks a copy of it in
// `$parked-<group>`: the copy is the subject's personal data too, so it is
// sealed with the original's subject (its sealed metadata field included)
// and shredded with it.
TEST_F(ShreddingMarkerTest, AParkedCopyKeepsTheMarkerSealedAndGoesWithTheShred) {
  ConsumerGroupOptions parking;
  parking.policy = FailurePolicy::kPark;
  parking.max_attempts = 1;
  parking.filter.categories = {"person"};
  ASSERT_TRUE(ConsumerGroup::Create(store(), "mailer", parking).ok());
  Write();
  auto group = ConsumerGroup::Open(store(), "mailer");
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  // The subject's events are nacked (and parked at once, the later ones
  // of its stream behind the first), the other subject's acked.
  std::size_t acked = 0;
  const auto parked_count = [&]() -> std::size_t {
    auto head = store().Head("$parked-mailer");
    return head.ok() ? static_cast<std::size_t>(head->version.value() + 1) : 0;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while ((acked < Cast::kOtherEvents || parked_count() < 3) &&
         std::chrono::steady_clock::now() < deadline) {
    auto batch = (*group)->Pull("mailer-1", 100, milliseconds(500));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    bool nacked = false;  // a nack takes back the later events of its stream in the batch
    for (const Delivery& d : *batch) {
      if (d.event.stream == cast_.Person()) {
        if (!nacked) {
          ASSERT_TRUE((*group)->Nack(d.event.position, "the mail bounced").ok());
        }
        nacked = true;
      } else {
        ASSERT_TRUE((*group)->Ack(d.event.position).ok());
        ++acked;
      }
    }
  }
  ASSERT_TRUE((*group)->Flush().ok());
  group->reset();

  const std::vector<RecordedEvent> parked = Stream("$parked-mailer");
  ASSERT_EQ(parked.size(), 3u) << "the subject's 3 events of its person stream are parked";
  for (const RecordedEvent& copy : parked) {
    EXPECT_NE(copy.data.find(cast_.marker), std::string::npos) << "it reads as its original";
    EXPECT_NE(copy.metadata.find(cast_.marker), std::string::npos) << copy.metadata;
  }
  ReadStreamOptions raw;
  raw.raw = true;
  for (const RecordedEvent& copy : Stream("$parked-mailer", raw)) {
    EXPECT_EQ(copy.content_type, kSealedContentType);
    EXPECT_EQ(copy.data.find(cast_.marker), std::string::npos);
    EXPECT_EQ(copy.metadata.find(cast_.marker), std::string::npos)
        << "a parked copy stores its original's sealed metadata field in the clear: "
        << copy.metadata;
  }
  ASSERT_NO_FATAL_FAILURE(ScavengeWithRemovals());
  EXPECT_EQ(FilesHolding(Folder(), cast_.marker), Files{}) << "before the shred";

  ASSERT_TRUE(store().ShredSubject(cast_.subject).ok());
  ASSERT_TRUE(store().Scavenge().ok());
  for (const RecordedEvent& copy : Stream("$parked-mailer")) {
    EXPECT_EQ(copy.data, kRedactedData);
    EXPECT_EQ(copy.metadata.find(cast_.marker), std::string::npos)
        << "a shredded parked copy still reads its original's sealed field: " << copy.metadata;
  }
  EXPECT_EQ(FilesHolding(Folder(), cast_.marker), Files{}) << "after the shred";
}

// A consumer group reads ahead of its consumers (its window) and keeps
// what it handed out until it is acknowledged: events it read before the
// shred, delivered (or delivered again) after it, must read as redacted too.
TEST_F(ShreddingMarkerTest, AConsumerGroupDeliversRedactedWhatItReadBeforeTheShred) {
  ConsumerGroupOptions options;
  options.filter.categories = {"person", "note"};
  options.initial_backoff = milliseconds(1);
  options.max_backoff = milliseconds(1);
  ASSERT_TRUE(ConsumerGroup::Create(store(), "mailer", options).ok());
  Write();
  auto group = ConsumerGroup::Open(store(), "mailer");
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  // One delivery, as written; the group has read its window by then.
  auto first = (*group)->Pull("mailer-1", 1, milliseconds(5000));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->size(), 1u);
  ASSERT_EQ(first->front().event.stream, cast_.Person());
  ASSERT_TRUE(IsOpened(first->front().event, cast_.marker));

  ASSERT_TRUE(store().ShredSubject(cast_.subject).ok());
  // The one in flight comes again after a nack; the rest for the first time.
  ASSERT_TRUE((*group)->Nack(first->front().event.position, "try again").ok());
  std::vector<RecordedEvent> delivered;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (delivered.size() < Cast::kSubjectEvents + Cast::kOtherEvents &&
         std::chrono::steady_clock::now() < deadline) {
    auto batch = (*group)->Pull("mailer-1", 100, milliseconds(500));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (const Delivery& d : *batch) {
      delivered.push_back(d.event);
      ASSERT_TRUE((*group)->Ack(d.event.position).ok());
    }
  }
  const Tally tally = CheckEvents(delivered, cast_, /*shredded=*/true);
  EXPECT_EQ(tally.subject, Cast::kSubjectEvents);
  EXPECT_EQ(tally.other, Cast::kOtherEvents);
}

// A projection that copies each event's data and metadata into SQLite
// holds the marker until it is rebuilt after the shred; then the rebuilt
// copy holds it in no row and no byte (the rebuild checkpoints the
// write-ahead log, and deletes securely).
TEST_F(ShreddingMarkerTest, ARebuiltProjectionHoldsTheMarkerInNoRowAndNoByte) {
  Write();
  const std::string read_folder = dir_.Sub("read");
  std::filesystem::create_directories(read_folder);
  const std::string read_url = "sqlite:" + read_folder + "/people.db";
  Projection copies;
  copies.name = "copies";
  copies.tables = {"copies"};
  copies.setup = [](ProjectionTransaction& tx) {
    return tx.Execute(
        "CREATE TABLE {copies} (position BIGINT PRIMARY KEY, stream TEXT, content_type TEXT, "
        "data TEXT, metadata TEXT)");
  };
  copies.apply = [](ProjectionTransaction& tx, const RecordedEvent& e) {
    return tx.Execute("INSERT INTO {copies} VALUES ($1, $2, $3, $4, $5)",
                      {static_cast<std::int64_t>(e.position.value()), e.stream, e.content_type,
                       e.data, e.metadata});
  };
  auto runner = ProjectionRunner::Open(store(), read_url, copies);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  auto applied = (*runner)->CatchUp();
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  ASSERT_EQ(*applied, Cast::kEvents);

  auto db = ReadStore::Open(read_url);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  // The rows, as events again (what the projection copied of them).
  const auto rows = [&] {
    std::vector<RecordedEvent> out;
    auto selected =
        (*db)->Query("SELECT position, stream, content_type, data, metadata FROM copies");
    EXPECT_TRUE(selected.ok()) << selected.status().ToString();
    if (!selected.ok()) return out;
    for (const SqlRow& row : *selected) {
      RecordedEvent e;
      e.position = Position(static_cast<std::uint64_t>(SqlInt(row[0])));
      e.stream = SqlText(row[1]);
      e.content_type = SqlText(row[2]);
      e.data = SqlText(row[3]);
      e.metadata = SqlText(row[4]);
      if (cast_.OfSubject(e.stream)) e.tags.push_back(SubjectTag(cast_.subject));
      out.push_back(std::move(e));
    }
    return out;
  };
  const auto holding_rows = [&](const std::string& needle) {
    auto counted = (*db)->Query(
        "SELECT COUNT(*) FROM copies WHERE instr(data, $1) > 0 OR instr(metadata, $1) > 0",
        {needle});
    EXPECT_TRUE(counted.ok()) << counted.status().ToString();
    return counted.ok() ? SqlInt(counted->front()[0]) : -1;
  };
  {
    SCOPED_TRACE("before the shred");
    const Tally tally = CheckEvents(rows(), cast_, /*shredded=*/false);
    EXPECT_EQ(tally.subject, Cast::kSubjectEvents);
    EXPECT_EQ(holding_rows(cast_.marker), static_cast<std::int64_t>(Cast::kSubjectEvents));
    EXPECT_NE(FilesHolding(read_folder, cast_.marker), Files{}) << "the read model holds it";
  }

  ASSERT_TRUE(store().ShredSubject(cast_.subject).ok());
  ASSERT_TRUE(store().Scavenge().ok());
  ASSERT_TRUE((*runner)->Rebuild().ok());
  auto status = (*runner)->status();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->generation, 2) << "a new copy";
  {
    SCOPED_TRACE("rebuilt after the shred");
    const Tally tally = CheckEvents(rows(), cast_, /*shredded=*/true);
    EXPECT_EQ(tally.subject, Cast::kSubjectEvents);
    EXPECT_EQ(tally.other, Cast::kOtherEvents);
    EXPECT_EQ(tally.plain, Cast::kPlainEvents);
    EXPECT_EQ(holding_rows(cast_.marker), 0);
    EXPECT_EQ(holding_rows(cast_.other_marker), static_cast<std::int64_t>(Cast::kOtherEvents));
  }
  // Bytes: the rebuild ends with a truncating checkpoint of SQLite's
  // write-ahead log, and the read store deletes securely, so the dropped
  // copy's rows are overwritten: the marker is in no byte of the read store.
  EXPECT_EQ(FilesHolding(read_folder, cast_.marker), Files{});
  EXPECT_NE(FilesHolding(read_folder, cast_.plain_marker), Files{}) << "the control";
  EXPECT_EQ(holding_rows(cast_.other_marker), static_cast<std::int64_t>(Cast::kOtherEvents));
}

}  // namespace
}  // namespace indelible::shredding_test
