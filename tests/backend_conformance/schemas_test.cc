// Event schemas (include/indelible/schemas.h, docs/SCHEMAS.md) on every
// backend: a refused commit writes nothing; registration refuses what its
// compatibility mode forbids; an event written as V1 reads as V3 through
// every read path and as V1 raw; two stores on one backend share the
// registry.
#include <indelible/consumer_group.h>
#include <indelible/entity.h>
#include <indelible/projection.h>
#include <indelible/schemas.h>
#include <indelible/subscription.h>

#include <atomic>
#include <future>
#include <thread>

#include "backend_conformance/conformance.h"

// An entity that keeps the last event it applied, as "<schema> <data>".
struct LastRating {
  std::string last;
};
struct RatingData {
  std::string json;
};
template <>
struct indelible::Codec<LastRating> {
  static std::string Encode(const LastRating& value) {
    return "\"" + std::string(value.last.size(), 'x') + "\"";  // not read back: no snapshots
  }
  static Result<LastRating> Decode(std::string_view) { return LastRating{}; }
};
template <>
struct indelible::Codec<RatingData> {
  static std::string Encode(const RatingData& value) { return value.json; }
  static Result<RatingData> Decode(std::string_view json) { return RatingData{std::string(json)}; }
};

namespace indelible::conformance {
namespace {

using std::chrono::milliseconds;

constexpr char kV1[] =
    R"({"type":"object","properties":{"stars":{"type":"integer","minimum":1,"maximum":5}},)"
    R"("required":["stars"]})";
constexpr char kV2[] =
    R"({"type":"object","properties":{"rating":{"type":"integer","minimum":1,"maximum":5}},)"
    R"("required":["rating"]})";
constexpr char kV3[] =
    R"({"type":"object","properties":{"rating":{"type":"integer","minimum":1,"maximum":5},)"
    R"("scale":{"type":"integer"}},"required":["rating","scale"]})";

EventData Rated(std::string data, std::string schema = "") {
  EventData event;
  event.id = EventId::Random();
  event.type = "Link.Rated";
  event.schema = std::move(schema);
  event.data = std::move(data);
  return event;
}

class SchemaConformanceTest : public ConformanceTest {
 protected:
  std::unique_ptr<SchemaStore> Wrap(std::chrono::milliseconds refresh = milliseconds(1000)) {
    auto wrapped = SchemaStore::Wrap(store(), SchemaOptions{refresh});
    EXPECT_TRUE(wrapped.ok()) << wrapped.status().ToString();
    return wrapped.ok() ? std::move(*wrapped) : nullptr;
  }

  // Link.Rated V1 -> V2 (stars renamed rating) -> V3 (scale defaults to 5),
  // with the compatibility off: each step is a breaking change an upcaster
  // bridges.
  static void RegisterRatedChain(Schemas& schemas) {
    ASSERT_TRUE(
        schemas.SetTypeSettings("Link.Rated", {.compatibility = Compatibility::kNone}).ok());
    ASSERT_TRUE(schemas.Register("Link.Rated", "V1", kV1).ok());
    ASSERT_TRUE(schemas.Register("Link.Rated", "V2", kV2).ok());
    ASSERT_TRUE(schemas.Register("Link.Rated", "V3", kV3).ok());
    Status s = schemas.AddUpcaster(DeclarativeUpcaster{
        .type = "Link.Rated", .from = "V1", .to = "V2", .renames = R"({"/stars":"/rating"})"});
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = schemas.AddUpcaster(DeclarativeUpcaster{
        .type = "Link.Rated", .from = "V2", .to = "V3", .defaults = R"({"/scale":5})"});
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // The event read in V3, and valid under V3.
  static void ExpectV3(Schemas& schemas, std::string_view schema, std::string_view data,
                       const std::string& where) {
    EXPECT_EQ(schema, "V3") << where;
    EXPECT_EQ(data, R"({"rating":4,"scale":5})") << where;
    EventData check = Rated(std::string(data), "V3");
    EXPECT_TRUE(schemas.Validate(check).ok())
        << where << ": " << schemas.Validate(check).ToString();
  }
};

TEST_P(SchemaConformanceTest, AnEnforcedCommitWithOneBadEventWritesNothing) {
  auto store = Wrap();
  ASSERT_TRUE(store);
  Schemas& schemas = store->schemas();
  ASSERT_TRUE(schemas.Register("Link.Rated", "V1", kV1).ok());
  ASSERT_TRUE(schemas.SetTypeSettings("Link.Rated", {.mode = SchemaMode::kEnforce}).ok());
  const Position before = store->LastPosition();

  auto refused = store->Commit({{"link-1", Expected::any(), {Rated(R"({"stars":3})")}},
                                {"link-2", Expected::any(), {Rated(R"({"stars":"many"})")}}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(refused.status().field(), "appends[1].events[0].data/stars");
  EXPECT_NE(refused.status().message().find("/stars"), std::string::npos)
      << refused.status().message();
  EXPECT_EQ(store->Head("link-1").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store->Head("link-2").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store->LastPosition(), before);
  EXPECT_EQ(schemas.stats().refused, 1u);

  // The async and batched paths refuse alike; the good commit beside goes in.
  std::vector<CommitRequest> batch;
  batch.push_back({{{"link-3", Expected::any(), {Rated(R"({"stars":9})")}}}, {}});
  batch.push_back({{{"link-4", Expected::any(), {Rated(R"({"stars":2})")}}}, {}});
  auto results = store->CommitEach(std::move(batch));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status().code(), ErrorCode::kInvalid);
  EXPECT_TRUE(results[1].ok()) << results[1].status().ToString();
  EXPECT_EQ(store->Head("link-3").status().code(), ErrorCode::kNotFound);
  std::promise<Status> async;
  store->CommitAsync({{{"link-5", Expected::any(), {Rated(R"({})")}}}, {}},
                     [&](Result<CommitResult> r) { async.set_value(r.status()); });
  EXPECT_EQ(async.get_future().get().code(), ErrorCode::kInvalid);
  EXPECT_EQ(store->Head("link-5").status().code(), ErrorCode::kNotFound);

  // warn writes it; off checks nothing.
  ASSERT_TRUE(schemas.SetTypeSettings("Link.Rated", {.mode = SchemaMode::kWarn}).ok());
  EXPECT_TRUE(store->Append("link-6", Expected::any(), {Rated(R"({"stars":0})")}).ok());
  EXPECT_EQ(schemas.stats().warned, 1u);
}

TEST_P(SchemaConformanceTest, EventsWithoutALabelAreLabelledWithTheNewestVersion) {
  auto store = Wrap();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->schemas().Register("Link.Rated", "V1", kV1).ok());
  ASSERT_TRUE(store->Append("link-1", Expected::any(), {Rated(R"({"stars":3})")}).ok());
  auto read = ReadStreamEvents(*store, "link-1");
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].schema, "V1");
  // A type with no schema is written as it came.
  EventData other = Rated("{}");
  other.type = "Link.Shared";
  ASSERT_TRUE(store->Append("link-1", Expected::any(), {other}).ok());
  read = ReadStreamEvents(*store, "link-1");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)[1].schema, "");
}

TEST_P(SchemaConformanceTest, ACategoryThatEnforcesRefusesUnregisteredTypes) {
  auto store = Wrap();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->schemas().SetCategorySettings("link", {.mode = SchemaMode::kEnforce}).ok());
  auto refused = store->Append("link-1", Expected::any(), {Rated("{}")});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(refused.status().message().find("has no schema"), std::string::npos);
  EXPECT_TRUE(store->Append("user-1", Expected::any(), {Rated("{}")}).ok()) << "other category";
  ASSERT_TRUE(store->schemas().Register("Link.Rated", "V1", kV1).ok());
  EXPECT_TRUE(store->Append("link-1", Expected::any(), {Rated(R"({"stars":1})")}).ok());
}

TEST_P(SchemaConformanceTest, RegistrationRefusesWhatEachCompatibilityModeForbids) {
  auto store = Wrap();
  ASSERT_TRUE(store);
  Schemas& schemas = store->schemas();
  // A closed object with a string `a`; a version that adds an optional `b`
  // accepts more (backward), one that bounds `a` accepts less (forward).
  const std::string base =
      R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"],)"
      R"("additionalProperties":false})";
  const std::string wider =
      R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},)"
      R"("required":["a"],"additionalProperties":false})";
  const std::string narrower =
      R"({"type":"object","properties":{"a":{"type":"string","maxLength":8}},"required":["a"],)"
      R"("additionalProperties":false})";
  struct Case {
    Compatibility mode;
    bool wider_ok;
    bool narrower_ok;
  };
  for (const Case& c : {Case{Compatibility::kBackward, true, false},
                        Case{Compatibility::kBackwardTransitive, true, false},
                        Case{Compatibility::kForward, false, true},
                        Case{Compatibility::kForwardTransitive, false, true},
                        Case{Compatibility::kFull, false, false},
                        Case{Compatibility::kFullTransitive, false, false},
                        Case{Compatibility::kNone, true, true}}) {
    const std::string type = "Mode." + std::string(ToString(c.mode));
    ASSERT_TRUE(schemas.SetTypeSettings(type, {.compatibility = c.mode}).ok());
    ASSERT_TRUE(schemas.Register(type, "V1", base).ok()) << type;
    auto w = schemas.Register(type, "W", wider);
    EXPECT_EQ(w.ok(), c.wider_ok) << type << ": " << w.status().ToString();
    if (!w.ok()) {
      EXPECT_EQ(w.status().code(), ErrorCode::kRejected) << type;
    }
    EXPECT_EQ(schemas.CheckCompatible(type, narrower).ok(), c.narrower_ok) << type;
  }
  // Transitive modes look past the last version: V2 broke V1 while the
  // type had no compatibility; backward accepts V3 against V2 alone,
  // backward_transitive refuses it against V1.
  const std::string v2 =
      R"({"type":"object","properties":{"a":{"type":"string"},"c":{"type":"number"}},)"
      R"("required":["a","c"],"additionalProperties":false})";
  const std::string v3 =
      R"({"type":"object","properties":{"a":{"type":"string"},"c":{"type":"number"},)"
      R"("d":{"type":"number"}},"required":["a","c"],"additionalProperties":false})";
  ASSERT_TRUE(schemas.SetTypeSettings("Chain", {.compatibility = Compatibility::kNone}).ok());
  ASSERT_TRUE(schemas.Register("Chain", "V1", base).ok());
  ASSERT_TRUE(schemas.Register("Chain", "V2", v2).ok());
  ASSERT_TRUE(schemas.SetTypeSettings("Chain", {.compatibility = Compatibility::kBackward}).ok());
  EXPECT_TRUE(schemas.CheckCompatible("Chain", v3).ok());
  ASSERT_TRUE(
      schemas.SetTypeSettings("Chain", {.compatibility = Compatibility::kBackwardTransitive}).ok());
  Status transitive = schemas.CheckCompatible("Chain", v3);
  EXPECT_EQ(transitive.code(), ErrorCode::kRejected) << transitive.ToString();
  EXPECT_NE(transitive.message().find("V1"), std::string::npos) << transitive.message();

  // A label is never edited: the same schema again is a no-op, another a conflict.
  auto again = schemas.Register("Chain", "V1", base);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(schemas.Register("Chain", "V1", v2).status().code(), ErrorCode::kConflict);
  EXPECT_EQ(schemas.Register("Chain", "V9", "{not json").status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(schemas.Register("$Chain", "V9", "{}").status().code(), ErrorCode::kInvalid);
}

TEST_P(SchemaConformanceTest, AnEventWrittenAsV1ReadsAsV3OnEveryPathAndRawAsV1) {
  auto store = Wrap();
  ASSERT_TRUE(store);
  Schemas& schemas = store->schemas();
  RegisterRatedChain(schemas);
  const EventData written = Rated(R"({"stars":4})", "V1");
  ASSERT_TRUE(store->Append("link-1", Expected::no_stream(), {written}).ok());
  Settle();

  auto stream = ReadStreamEvents(*store, "link-1");
  ASSERT_TRUE(stream.ok());
  ASSERT_EQ(stream->size(), 1u);
  ExpectV3(schemas, (*stream)[0].schema, (*stream)[0].data, "stream read");
  ReadStreamOptions backward;
  backward.direction = Direction::kBackward;
  stream = ReadStreamEvents(*store, "link-1", backward);
  ASSERT_TRUE(stream.ok() && stream->size() == 1u);
  ExpectV3(schemas, (*stream)[0].schema, (*stream)[0].data, "backward stream read");

  ReadAllOptions all_options;
  all_options.filter.categories = {"link"};
  auto all = ReadAllEvents(*store, all_options);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  ExpectV3(schemas, (*all)[0].schema, (*all)[0].data, "$all");

  auto loaded = store->ReadStateAndEvents("link-1");
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE(loaded->events && loaded->events->Valid());
  ExpectV3(schemas, loaded->events->event().schema, loaded->events->event().data, "entity load");

  // The entity loader (Entity<State>::Get), its rule given the upcast event.
  Rules<LastRating> rules{LastRating{}};
  rules.On<RatingData>(
      "Link.Rated",
      [](LastRating state, const RatingData& data, RuleContext& ctx) -> Result<LastRating> {
        state.last = std::string(ctx.event().schema) + " " + data.json;
        return state;
      });
  EntityOptions no_snapshots;
  no_snapshots.snapshots = SnapshotPolicy::None();
  Entity<LastRating> entity(*store, rules, no_snapshots);
  auto entity_state = entity.Get("link-1");
  ASSERT_TRUE(entity_state.ok()) << entity_state.status().ToString();
  EXPECT_EQ(entity_state->state.last, R"(V3 {"rating":4,"scale":5})") << "entity";

  auto found = store->FindEvent(written.id);
  if (found.ok()) {  // DynamoDB keeps no index by id (invalid)
    ASSERT_TRUE(found->has_value());
    ExpectV3(schemas, (**found).schema, (**found).data, "FindEvent");
  }

  SubscriptionOptions subscribe;
  subscribe.filter.categories = {"link"};
  Subscription subscription(*store, subscribe);
  auto batch = subscription.Next(milliseconds(2000));
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->events.size(), 1u);
  ExpectV3(schemas, batch->events[0].schema, batch->events[0].data, "subscription");

  ASSERT_TRUE(ConsumerGroup::Create(*store, "raters", {}).ok());
  auto group = ConsumerGroup::Open(*store, "raters");
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  auto pulled = (*group)->Pull("worker", 10, milliseconds(2000));
  ASSERT_TRUE(pulled.ok());
  std::vector<Delivery> deliveries;
  for (Delivery& d : *pulled)
    if (d.event.stream == "link-1") deliveries.push_back(std::move(d));
  ASSERT_EQ(deliveries.size(), 1u);
  ExpectV3(schemas, deliveries[0].event.schema, deliveries[0].event.data, "consumer group");
  group->reset();

  std::vector<std::string> applied;
  Projection projection;
  projection.name = "ratings";
  projection.filter.categories = {"link"};
  projection.tables = {"ratings"};
  projection.setup = [](ProjectionTransaction& tx) {
    return tx.Execute("CREATE TABLE {ratings} (data TEXT)");
  };
  projection.apply = [&](ProjectionTransaction& tx, const RecordedEvent& e) {
    applied.push_back(e.schema + " " + e.data);
    return tx.Execute("INSERT INTO {ratings} VALUES ($1)", {e.data});
  };
  testutil::TempDir read_dir;
  auto runner =
      ProjectionRunner::Open(*store, "sqlite:" + read_dir.Sub("read.db"), std::move(projection));
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  ASSERT_TRUE((*runner)->CatchUp().ok());
  ASSERT_TRUE((*runner)->Rebuild().ok());
  const std::string v3 = R"(V3 {"rating":4,"scale":5})";
  EXPECT_EQ(applied, (std::vector<std::string>{v3, v3})) << "projection, then its rebuild";
  runner->reset();

  ReadStreamOptions raw;
  raw.raw = true;
  stream = ReadStreamEvents(*store, "link-1", raw);
  ASSERT_TRUE(stream.ok() && stream->size() == 1u);
  EXPECT_EQ((*stream)[0].schema, "V1");
  EXPECT_EQ((*stream)[0].data, R"({"stars":4})");
  all_options.raw = true;
  all = ReadAllEvents(*store, all_options);
  ASSERT_TRUE(all.ok() && all->size() == 1u);
  EXPECT_EQ((*all)[0].data, R"({"stars":4})");
  // The inner store holds the bytes as written.
  stream = ReadStreamEvents(store->inner(), "link-1");
  ASSERT_TRUE(stream.ok() && stream->size() == 1u);
  EXPECT_EQ((*stream)[0].data, R"({"stars":4})");
  EXPECT_GE(schemas.stats().upcast, 8u);
}

TEST_P(SchemaConformanceTest, ACppUpcasterReplacesTheDeclaredStepAndAFailingStepStopsTheChain) {
  auto store = Wrap();
  ASSERT_TRUE(store);
  Schemas& schemas = store->schemas();
  RegisterRatedChain(schemas);
  ASSERT_TRUE(store->Append("link-1", Expected::any(), {Rated(R"({"stars":4})", "V1")}).ok());
  ASSERT_TRUE(schemas
                  .AddUpcaster("Link.Rated", "V1", "V2",
                               [](const EventView& e) -> Result<std::string> {
                                 EXPECT_EQ(e.schema, "V1");
                                 return std::string(R"({"rating":2})");
                               })
                  .ok());
  auto read = ReadStreamEvents(*store, "link-1");
  ASSERT_TRUE(read.ok() && read->size() == 1u);
  EXPECT_EQ((*read)[0].data, R"({"rating":2,"scale":5})");
  EXPECT_EQ((*read)[0].schema, "V3");

  ASSERT_TRUE(schemas
                  .AddUpcaster("Link.Rated", "V1", "V2",
                               [](const EventView&) -> Result<std::string> {
                                 return Status::Invalid("data", "cannot read this one");
                               })
                  .ok());
  read = ReadStreamEvents(*store, "link-1");
  ASSERT_TRUE(read.ok() && read->size() == 1u);
  EXPECT_EQ((*read)[0].schema, "V1") << "left at the version it reached";
  EXPECT_EQ((*read)[0].data, R"({"stars":4})");
  EXPECT_GE(schemas.stats().upcast_failures, 1u);
}

TEST_P(SchemaConformanceTest, TwoStoresShareTheRegistryAndConcurrentRegistrationsPickOne) {
  // Two SchemaStores as two servers: on DynamoDB, two stores opened on the
  // same tables; elsewhere, two wrappers over the one store a folder allows.
  std::unique_ptr<Store> second_inner;
  Store* other = &store();
  if (GetParam().name == "dynamodb") {
    auto opened = Store::Open(Url());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    second_inner = std::move(*opened);
    other = second_inner.get();
  }
  auto a = Wrap(milliseconds(50));
  auto b = SchemaStore::Wrap(*other, SchemaOptions{milliseconds(50)});
  ASSERT_TRUE(a && b.ok());
  ASSERT_TRUE(a->schemas().Register("Link.Rated", "V1", kV1).ok());
  ASSERT_TRUE(a->schemas().SetTypeSettings("Link.Rated", {.mode = SchemaMode::kEnforce}).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    auto type = (*b)->schemas().Find("Link.Rated");
    if (type && type->settings.mode) break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  auto seen = (*b)->schemas().Find("Link.Rated");
  ASSERT_TRUE(seen);
  ASSERT_EQ(seen->versions.size(), 1u);
  EXPECT_EQ(seen->settings.mode, SchemaMode::kEnforce);
  auto refused = (*b)->Append("link-1", Expected::any(), {Rated(R"({"stars":"x"})")});
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalid) << "the other store enforces it too";

  // Both register a V2 at once with different schemas: one wins, the
  // other finds the label taken (a conflict), never two V2s.
  ASSERT_TRUE(
      a->schemas().SetTypeSettings("Link.Rated", {.compatibility = Compatibility::kNone}).ok());
  ASSERT_TRUE((*b)->schemas().Refresh().ok());
  Result<Schemas::RegisterResult> ra = Status::Internal("not run"),
                                  rb = Status::Internal("not run");
  std::thread ta([&] { ra = a->schemas().Register("Link.Rated", "V2", kV2); });
  std::thread tb([&] { rb = (*b)->schemas().Register("Link.Rated", "V2", kV3); });
  ta.join();
  tb.join();
  EXPECT_NE(ra.ok(), rb.ok()) << ra.status().ToString() << " / " << rb.status().ToString();
  EXPECT_EQ((ra.ok() ? rb : ra).status().code(), ErrorCode::kConflict);
  ASSERT_TRUE(a->schemas().Refresh().ok());
  EXPECT_EQ(a->schemas().Find("Link.Rated")->versions.size(), 2u);
}

TEST_P(SchemaConformanceTest, ConcurrentAppendsAndReadsWhileTheRegistryChanges) {
  // Writers and readers on several threads while another registers
  // versions, an upcaster and settings: each commit and each cursor works
  // on one whole snapshot (the TSan build runs this).
  auto store = Wrap(milliseconds(5));
  ASSERT_TRUE(store);
  Schemas& schemas = store->schemas();
  ASSERT_TRUE(schemas.Register("Link.Rated", "V1", kV1).ok());
  ASSERT_TRUE(schemas.SetTypeSettings("Link.Rated", {.mode = SchemaMode::kEnforce}).ok());
  constexpr int kWriters = 3;
  constexpr int kAppends = 20;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < kAppends; ++i)
        if (!store
                 ->Append("link-" + std::to_string(w), Expected::any(),
                          {Rated(R"({"stars":3})", "V1")})
                 .ok())
          failures.fetch_add(1);
    });
  threads.emplace_back([&] {
    for (int i = 0; i < kAppends; ++i) {
      auto read = ReadStreamEvents(*store, "link-0");
      if (!read.ok() && read.status().code() != ErrorCode::kNotFound) failures.fetch_add(1);
      if (read.ok())
        for (const RecordedEvent& e : *read)
          if (e.schema != "V1" && e.schema != "V2" && e.schema != "V3") failures.fetch_add(1);
    }
  });
  ASSERT_TRUE(schemas.SetTypeSettings("Link.Rated", {.compatibility = Compatibility::kNone}).ok());
  ASSERT_TRUE(schemas.Register("Link.Rated", "V2", kV2).ok());
  ASSERT_TRUE(
      schemas
          .AddUpcaster(DeclarativeUpcaster{
              .type = "Link.Rated", .from = "V1", .to = "V2", .renames = R"({"/stars":"/rating"})"})
          .ok());
  ASSERT_TRUE(schemas.Register("Link.Rated", "V3", kV3).ok());
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (int w = 0; w < kWriters; ++w) {
    auto head = store->Head("link-" + std::to_string(w));
    ASSERT_TRUE(head.ok());
    EXPECT_EQ(head->version.value(), kAppends - 1);
  }
  // Read now: every event is V1, upcast to V2 (no V2 -> V3 upcaster: it stops there).
  auto read = ReadStreamEvents(*store, "link-1");
  ASSERT_TRUE(read.ok());
  for (const RecordedEvent& e : *read) EXPECT_EQ(e.data, R"({"rating":3})");
}

INSTANTIATE_TEST_SUITE_P(Backends, SchemaConformanceTest,
                         ::testing::Values(Backend{"memory", false}, Backend{"embedded", true},
                                           Backend{"dynamodb", false}),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace indelible::conformance
