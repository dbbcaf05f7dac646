// Crypto-shredding (docs/RETENTION.md) on every backend: events that
// declare a subject are stored sealed and read back as written on every
// path; once the subject is shredded they read as redacted on every path,
// at once here and within the refresh in another process; master keys
// rotate; bad input is refused with nothing written.
#include <indelible/schemas.h>
#include <indelible/subscription.h>

#include <thread>

#include "backend_conformance/conformance.h"
#include "core/random_bytes.h"

namespace indelible::conformance {
namespace {

std::string NewKey() {
  std::string key(32, '\0');
  RandomBytes(reinterpret_cast<std::uint8_t*>(key.data()), key.size());
  return key;
}

StoreOptions Keyed(std::vector<std::string> keys) {
  StoreOptions options;
  options.master_keys = std::move(keys);
  options.sealed_metadata_fields = {"ip"};
  return options;
}

EventData Personal(const std::string& subject, const std::string& marker) {
  EventData e;
  e.id = EventId::Random();
  e.type = "Registered";
  e.data = R"({"name":")" + marker + R"("})";
  e.metadata = R"({"ip":")" + marker + R"(-ip","correlation":"c-1"})";
  e.tags = {"kind:person", std::string(kSubjectTagPrefix) + subject};
  return e;
}

// Every event of the subject's stream as each read path hands it out:
// stream reads both ways, $all, a query by tag, a subscription and an
// entity load (FindEvent where the backend keeps ids).
std::vector<RecordedEvent> EveryPath(Store& store, const std::string& stream,
                                     bool positions_at_commit) {
  std::vector<RecordedEvent> seen;
  auto forward = ReadStreamEvents(store, stream, {});
  EXPECT_TRUE(forward.ok()) << forward.status().ToString();
  if (forward.ok()) seen.insert(seen.end(), forward->begin(), forward->end());
  ReadStreamOptions back;
  back.direction = Direction::kBackward;
  auto backward = ReadStreamEvents(store, stream, back);
  EXPECT_TRUE(backward.ok());
  if (backward.ok()) seen.insert(seen.end(), backward->begin(), backward->end());
  auto all = ReadAllEvents(store, {});
  EXPECT_TRUE(all.ok());
  if (all.ok())
    for (auto& e : *all)
      if (e.stream == stream) seen.push_back(e);
  Query query;
  query.items.push_back(QueryItem{{}, {"kind:person"}});
  auto queried = ReadQueryEvents(store, query);
  EXPECT_TRUE(queried.ok()) << queried.status().ToString();
  if (queried.ok())
    for (auto& e : *queried)
      if (e.stream == stream) seen.push_back(e);
  SubscriptionOptions of_stream;
  of_stream.stream = stream;
  Subscription sub(store, of_stream);
  for (int i = 0; i < 50; ++i) {
    auto batch = sub.Next(std::chrono::milliseconds(200));
    EXPECT_TRUE(batch.ok());
    if (!batch.ok()) break;
    seen.insert(seen.end(), batch->events.begin(), batch->events.end());
    if (batch->caught_up) break;
  }
  auto loaded = store.ReadStateAndEvents(stream);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  if (loaded.ok())
    for (; loaded->events->Valid(); loaded->events->Next())
      seen.push_back(loaded->events->event().ToOwned());
  if (positions_at_commit && forward.ok() && !forward->empty()) {
    auto found = store.FindEvent(forward->front().id);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    if (found.ok() && found->has_value()) seen.push_back(**found);
  }
  return seen;
}

class ShreddingTest : public ConformanceTest {
 protected:
  void SetUp() override {
    ConformanceTest::SetUp();
    master_ = NewKey();
    Open(Keyed({master_}));
  }
  std::string master_;
};

TEST_P(ShreddingTest, SealedEventsReadAsWrittenOnEveryPathAndAreStoredAsCiphertext) {
  const std::string marker = "marker-" + EventId::Random().ToString();
  ASSERT_TRUE(store()
                  .Append("person-1", Expected::no_stream(),
                          {Personal("user-1", marker), Personal("user-1", marker + "-b")})
                  .ok());
  ASSERT_TRUE(store().Append("plain-1", Expected::any(), Events(1)).ok());
  Settle();

  const auto seen = EveryPath(store(), "person-1", positions_at_commit());
  ASSERT_GE(seen.size(), 12u);
  for (const RecordedEvent& e : seen) {
    EXPECT_EQ(e.content_type, kJsonContentType);
    EXPECT_TRUE(e.data.starts_with(R"({"name":")" + marker)) << e.data;
    EXPECT_NE(e.metadata.find(R"("ip":")" + marker), std::string::npos) << e.metadata;
    EXPECT_NE(e.metadata.find("c-1"), std::string::npos) << e.metadata;
    EXPECT_EQ(e.tags, (std::vector<std::string>{"kind:person", "subject:user-1"}));
  }

  // As stored: ciphertext, the sealed metadata field gone, the others kept.
  ReadAllOptions raw;
  raw.raw = true;
  for (const RecordedEvent& e : All(raw)) {
    if (e.stream == "plain-1") {
      EXPECT_EQ(e.content_type, kJsonContentType);
      continue;
    }
    EXPECT_EQ(e.content_type, kSealedContentType);
    EXPECT_EQ(e.data.find(marker), std::string::npos);
    EXPECT_EQ(e.metadata, R"({"correlation":"c-1"})");
  }
}

TEST_P(ShreddingTest, AShreddedSubjectReadsAsRedactedOnEveryPathAtOnce) {
  const std::string marker = "marker-" + EventId::Random().ToString();
  ASSERT_TRUE(store().Append("person-2", Expected::no_stream(), {Personal("user-2", marker)}).ok());
  ASSERT_TRUE(
      store().Append("person-3", Expected::no_stream(), {Personal("user-3", marker + "-3")}).ok());
  Settle();
  ASSERT_EQ(Read("person-2").at(0).data, R"({"name":")" + marker + R"("})");

  auto report = store().ShredSubject("user-2");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->subject, "user-2");
  EXPECT_EQ(report->keys, 1u);

  const auto seen = EveryPath(store(), "person-2", positions_at_commit());
  ASSERT_GE(seen.size(), 6u);
  for (const RecordedEvent& e : seen) {
    EXPECT_EQ(e.data, kRedactedData);
    EXPECT_EQ(e.content_type, kJsonContentType);
    EXPECT_EQ(e.metadata, R"({"correlation":"c-1"})") << "the sealed field is gone";
    EXPECT_EQ(e.type, "Registered") << "the envelope stays";
  }
  ReadStreamOptions raw;
  raw.raw = true;
  EXPECT_EQ(Read("person-2", raw).at(0).data, kRedactedData);
  // Another subject is untouched.
  EXPECT_EQ(Read("person-3").at(0).data, R"({"name":")" + marker + R"(-3"})");

  // Shredding again finds no key; the subject's next event gets a new one.
  EXPECT_EQ(store().ShredSubject("user-2")->keys, 0u);
  ASSERT_TRUE(store().Append("person-2", Expected::any(), {Personal("user-2", "later")}).ok());
  auto events = Read("person-2");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, kRedactedData);
  EXPECT_EQ(events[1].data, R"({"name":"later"})");
}

TEST_P(ShreddingTest, BadSubjectsAreRefusedAndWriteNothing) {
  EventData two = Personal("user-4", "x");
  two.tags.push_back("subject:user-5");
  auto refused = store().Append("person-4", Expected::any(), {two});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalid);
  auto long_one =
      store().Append("person-4", Expected::any(), {Personal(std::string(121, 'u'), "x")});
  ASSERT_FALSE(long_one.ok());
  EXPECT_EQ(long_one.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(store().Head("person-4").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store().ShredSubject("").status().code(), ErrorCode::kInvalid);

  // Without a master key, an event that declares a subject is refused
  // rather than stored in the clear, and shredding is impossible.
  Open(StoreOptions{});
  auto unkeyed = store().Append("person-4", Expected::any(), {Personal("user-4", "x")});
  ASSERT_FALSE(unkeyed.ok());
  EXPECT_EQ(unkeyed.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(unkeyed.status().message().find("master key"), std::string::npos);
  EXPECT_EQ(store().Head("person-4").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store().ShredSubject("user-4").status().code(), ErrorCode::kInvalid);
  auto bad_key = Store::Open(Url(), Keyed({"short"}));
  ASSERT_FALSE(bad_key.ok());
  EXPECT_EQ(bad_key.status().code(), ErrorCode::kInvalid);
}

TEST_P(ShreddingTest, CommitEachSealsEachCommitAndRefusesABadOneAlone) {
  EventData two = Personal("user-11", "x");
  two.tags.push_back("subject:user-12");
  std::vector<CommitRequest> commits(3);
  commits[0].appends.push_back(
      AppendRequest{"each-1", Expected::any(), {Personal("user-11", "a")}});
  commits[1].appends.push_back(AppendRequest{"each-2", Expected::any(), {two}});
  commits[2].appends.push_back(AppendRequest{"each-3", Expected::any(), Events(1)});
  auto results = store().CommitEach(std::move(commits));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok()) << results[0].status().ToString();
  ASSERT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].status().code(), ErrorCode::kInvalid);
  EXPECT_TRUE(results[2].ok()) << results[2].status().ToString();
  Settle();
  EXPECT_EQ(Read("each-1").at(0).data, R"({"name":"a"})");
  ReadStreamOptions raw;
  raw.raw = true;
  EXPECT_EQ(Read("each-1", raw).at(0).content_type, kSealedContentType);
  EXPECT_EQ(store().Head("each-2").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(Read("each-3").size(), 1u);
}

TEST_P(ShreddingTest, ConcurrentFirstEventsOfOneSubjectAllStayReadable) {
  constexpr int kWriters = 8;
  std::vector<std::thread> writers;
  std::atomic<int> failed{0};
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 5; ++i)
        if (!store()
                 .Append("race-" + std::to_string(w), Expected::any(),
                         {Personal("user-race", "w" + std::to_string(w) + "-" + std::to_string(i))})
                 .ok())
          ++failed;
    });
  for (auto& t : writers) t.join();
  ASSERT_EQ(failed.load(), 0);
  Settle();
  int read = 0;
  for (const RecordedEvent& e : All()) {
    if (!e.stream.starts_with("race-")) continue;
    ++read;
    EXPECT_TRUE(e.data.starts_with(R"({"name":"w)")) << e.data;
  }
  EXPECT_EQ(read, kWriters * 5);
  EXPECT_GE(store().ShredSubject("user-race")->keys, 1u);
  for (const RecordedEvent& e : All())
    if (e.stream.starts_with("race-")) {
      EXPECT_EQ(e.data, kRedactedData);
    }
}

TEST_P(ShreddingTest, AnotherProcessSeesTheShredWithinTheRefreshInterval) {
  if (GetParam().name == "memory") return;
  ASSERT_TRUE(store().Append("person-6", Expected::any(), {Personal("user-6", "six")}).ok());
  Settle();
  StoreOptions quick = Keyed({master_});
  quick.metadata_refresh = std::chrono::milliseconds(100);
  quick.follower = GetParam().name == "embedded";
  auto other = Store::Open(Url(), quick);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  (*other)->WaitForCommit(Position(0), std::chrono::milliseconds(150));
  auto before = ReadStreamEvents(**other, "person-6");
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_EQ(before->at(0).data, R"({"name":"six"})");
  ASSERT_TRUE(store().ShredSubject("user-6").ok());
  std::string data;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    (*other)->WaitForCommit(Position(0), std::chrono::milliseconds(150));
    auto read = ReadStreamEvents(**other, "person-6");
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    data = read->at(0).data;
    if (data == kRedactedData) break;
  }
  EXPECT_EQ(data, kRedactedData);
}

TEST_P(ShreddingTest, ParkedCopiesAreSealedWithTheirOriginalsSubject) {
  // A consumer group parks a copy of the event it gave up on: the copy is
  // personal data too, and goes with its original's subject.
  ASSERT_TRUE(store().Append("person-7", Expected::any(), {Personal("user-7", "seven")}).ok());
  Settle();
  auto original = Read("person-7").at(0);
  EventData copy;
  copy.id = EventId::Random();
  copy.type = original.type;
  copy.data = original.data;
  copy.metadata =
      R"({"$parked":{"group":"g","tags":["kind:person","subject:user-7"]},"metadata":{}})";
  CommitOptions reserved;
  reserved.allow_reserved = true;
  std::vector<AppendRequest> appends;
  appends.push_back(AppendRequest{"$parked-g", Expected::any(), {copy}});
  ASSERT_TRUE(store().Commit(std::move(appends), reserved).ok());
  Settle();
  ReadStreamOptions raw;
  raw.raw = true;
  EXPECT_EQ(Read("$parked-g", raw).at(0).content_type, kSealedContentType);
  EXPECT_EQ(Read("$parked-g").at(0).data, R"({"name":"seven"})");
  ASSERT_TRUE(store().ShredSubject("user-7").ok());
  EXPECT_EQ(Read("$parked-g").at(0).data, kRedactedData);
}

TEST_P(ShreddingTest, StateRecordsOfASubjectAreSealedAndReadAsAbsentOnceShredded) {
  const std::string marker = "state-" + EventId::Random().ToString();
  std::vector<AppendRequest> appends;
  appends.push_back(AppendRequest{"person-9",
                                  Expected::no_stream(),
                                  {Personal("user-9", marker)},
                                  StateUpdate{R"({"name":")" + marker + R"("})", 3}});
  ASSERT_TRUE(store().Commit(std::move(appends)).ok());
  // A state-only append (an entity recalculated) is sealed with the
  // subject of the stream's last event.
  appends.clear();
  appends.push_back(AppendRequest{"person-9",
                                  Expected::exactly(StreamVersion(0)),
                                  {},
                                  StateUpdate{R"({"name":")" + marker + R"(-2"})", 4}});
  ASSERT_TRUE(store().Commit(std::move(appends)).ok());
  Settle();
  auto state = store().ReadState("person-9");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  ASSERT_TRUE(state->has_value());
  EXPECT_EQ((*state)->data, R"({"name":")" + marker + R"(-2"})");
  EXPECT_EQ((*state)->schema, 4u);
  if (GetParam().name != "memory") {
    // As stored: sealed (read by a store without the key).
    StoreOptions keyless;
    keyless.follower = GetParam().name == "embedded";
    auto bare = Store::Open(Url(), keyless);
    ASSERT_TRUE(bare.ok()) << bare.status().ToString();
    auto stored = (*bare)->ReadState("person-9");
    ASSERT_TRUE(stored.ok() && stored->has_value());
    EXPECT_EQ((*stored)->data.find(marker), std::string::npos);
  }

  ASSERT_TRUE(store().ShredSubject("user-9").ok());
  auto gone = store().ReadState("person-9");
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_FALSE(gone->has_value());
  // An entity load then starts from the first event, redacted.
  auto loaded = store().ReadStateAndEvents("person-9");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_FALSE(loaded->state.has_value());
  std::vector<std::string> data;
  for (; loaded->events->Valid(); loaded->events->Next())
    data.emplace_back(loaded->events->event().data);
  EXPECT_EQ(data, (std::vector<std::string>{std::string(kRedactedData)}));
}

TEST_P(ShreddingTest, UpcastersLeaveTheRedactedMarkerAsItIs) {
  auto wrapped = SchemaStore::Wrap(store(), SchemaOptions{});
  ASSERT_TRUE(wrapped.ok()) << wrapped.status().ToString();
  Schemas& schemas = (*wrapped)->schemas();
  ASSERT_TRUE(schemas.SetTypeSettings("Registered", {.compatibility = Compatibility::kNone}).ok());
  ASSERT_TRUE(schemas.Register("Registered", "V1", R"({"type":"object"})").ok());
  ASSERT_TRUE(schemas.Register("Registered", "V2", R"({"type":"object"})").ok());
  ASSERT_TRUE(schemas
                  .AddUpcaster(DeclarativeUpcaster{
                      .type = "Registered", .from = "V1", .to = "V2", .defaults = R"({"/v":2})"})
                  .ok());
  EventData event = Personal("user-10", "ten");
  event.schema = "V1";
  ASSERT_TRUE((*wrapped)->Append("person-10", Expected::no_stream(), {event}).ok());
  Settle();
  auto before = ReadStreamEvents(**wrapped, "person-10");
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(before->at(0).data, R"({"name":"ten","v":2})");
  ASSERT_TRUE(store().ShredSubject("user-10").ok());
  auto after = ReadStreamEvents(**wrapped, "person-10");
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->at(0).data, kRedactedData);
}

TEST_P(ShreddingTest, MasterKeysRotate) {
  if (!GetParam().durable && GetParam().name == "memory") return;  // nothing to reopen
  ASSERT_TRUE(store().Append("person-8", Expected::any(), {Personal("user-8", "eight")}).ok());
  Settle();
  const std::string next = NewKey();
  // The new key first, the old one after it: both unwrap.
  Open(Keyed({next, master_}));
  EXPECT_EQ(Read("person-8").at(0).data, R"({"name":"eight"})");
  auto rewrapped = store().RewrapSubjectKeys();
  ASSERT_TRUE(rewrapped.ok()) << rewrapped.status().ToString();
  EXPECT_EQ(*rewrapped, 2u) << "the key of its id and the subject's pointer";
  EXPECT_EQ(*store().RewrapSubjectKeys(), 0u) << "nothing left under the old key";
  // The old key retired: still readable.
  Open(Keyed({next}));
  EXPECT_EQ(Read("person-8").at(0).data, R"({"name":"eight"})");
  // A store given neither finds the key's master missing: an error naming
  // it, not a redacted event (the key is not deleted, only not given).
  Open(Keyed({NewKey()}));
  auto lost = ReadStreamEvents(store(), "person-8", {});
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(lost.status().message().find("master key"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Backends, ShreddingTest,
                         ::testing::Values(Backend{"memory", false}, Backend{"embedded", true},
                                           Backend{"dynamodb", false}),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace indelible::conformance
