// The HTTP API's documents (src/api/wire.h): each one written the way the
// server writes it reads back, through the client's decoder, as what was
// written; and bodies that are not the API are internal errors, not crashes.
#include <gtest/gtest.h>

#include "api/keys.h"
#include "api/limits.h"
#include "api/pages.h"
#include "api/wire.h"
#include "core/event_json.h"

namespace indelible {
namespace {

RecordedEvent SampleEvent() {
  RecordedEvent event;
  event.id = EventId::Random();
  event.stream = "BANK_ACCOUNT/7";
  event.version = StreamVersion(3);
  event.position = Position(41);
  event.type = "Deposited";
  event.schema = "V2";
  event.content_type = std::string(kJsonContentType);
  event.data = R"({"amount":1e400,"memo":"caf\u00e9","n":[1,2.50,{}]})";
  event.metadata = R"({"user":"ann","causationId":"x"})";
  event.timestamp_ms = 1700000000123;
  return event;
}

void ExpectSameEvent(const RecordedEvent& got, const RecordedEvent& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.stream, want.stream);
  EXPECT_EQ(got.version, want.version);
  EXPECT_EQ(got.position, want.position);
  EXPECT_EQ(got.type, want.type);
  EXPECT_EQ(got.schema, want.schema);
  EXPECT_EQ(got.content_type, want.content_type);
  EXPECT_EQ(got.data, want.data);  // byte for byte: stored as sent
  EXPECT_EQ(got.metadata, want.metadata);
  EXPECT_EQ(got.timestamp_ms, want.timestamp_ms);
}

TEST(ApiWireTest, StoredEventsRoundTripByteForByte) {
  const RecordedEvent json = SampleEvent();
  auto back = api::StoredEventFromJson(EventToJson(json.view()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameEvent(*back, json);

  RecordedEvent bytes = SampleEvent();
  bytes.content_type = "application/octet-stream";
  bytes.data = std::string("\x00\x01\xff\"\n", 5);
  auto raw = api::StoredEventFromJson(EventToJson(bytes.view()));
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  ExpectSameEvent(*raw, bytes);
}

TEST(ApiWireTest, AnAppendBodyReadsBackAsTheEventsSent) {
  std::vector<EventData> events(2);
  events[0].id = EventId::Random();
  events[0].type = "Opened";
  events[0].data = R"({"owner":"ann"})";
  events[1].id = EventId::Random();
  events[1].type = "Blob";
  events[1].schema = "V1";
  events[1].content_type = "image/png";
  events[1].data = std::string("\x89PNG\x00", 5);
  events[1].metadata = R"({"k":1})";
  auto back = EventsFromJson(api::EventsToJson(events));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*back)[i].id, events[i].id);
    EXPECT_EQ((*back)[i].type, events[i].type);
    EXPECT_EQ((*back)[i].schema, events[i].schema);
    EXPECT_EQ((*back)[i].content_type, events[i].content_type);
    EXPECT_EQ((*back)[i].data, events[i].data);
  }
  EXPECT_EQ((*back)[1].metadata, events[1].metadata);
}

TEST(ApiWireTest, AppendResultsHeadsAndHealthRoundTrip) {
  AppendResult result;
  result.stream = "todo-\"1\"";
  result.first_version = StreamVersion(4);
  result.last_version = StreamVersion(6);
  result.position = Position(99);
  auto r = api::AppendResultFromJson(api::AppendResultToJson(result));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stream, result.stream);
  EXPECT_EQ(r->first_version, result.first_version);
  EXPECT_EQ(r->last_version, result.last_version);
  EXPECT_EQ(r->position, result.position);

  StreamHead head;
  head.version = StreamVersion(12);
  head.position = Position(300);
  head.deleted = true;
  head.first_version = StreamVersion(10);
  auto h = api::HeadFromJson(api::HeadToJson("todo-1", head));
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->version, head.version);
  EXPECT_EQ(h->position, head.position);
  EXPECT_EQ(h->deleted, head.deleted);
  EXPECT_EQ(h->first_version, head.first_version);

  for (const ServerHealth& health : {ServerHealth{"ok", "", Position(7)},
                                     ServerHealth{"failed", "sync failed: \"EIO\"", Position(8)}}) {
    auto back = api::HealthFromJson(api::HealthToJson(health));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->status, health.status);
    EXPECT_EQ(back->reason, health.reason);
    EXPECT_EQ(back->last_position, health.last_position);
  }
}

TEST(ApiWireTest, EveryErrorCodeRoundTripsWithItsDetails) {
  const Status statuses[] = {
      Status::NotFound("gone", true),
      Status::NotFound("never was"),
      Status::Conflict("stale", 4),
      Status::Conflict("no stream", std::nullopt),
      Status::Conflict("deleted", 2, true),
      Status::Invalid("events[2].type", "bad \"x\""),
      Status::TooLarge("data", "over 400 KiB"),
      Status::Rejected("overdrawn"),
      Status::Unauthorized("no key"),
      Status::Unavailable("disk"),
      Status::Internal("bug"),
  };
  for (const Status& status : statuses) {
    const Status back = api::StatusFromAnswer(400, api::StatusToJson(status));
    EXPECT_EQ(back.code(), status.code()) << status.ToString();
    EXPECT_EQ(back.message(), status.message());
    EXPECT_EQ(back.field(), status.field());
    EXPECT_EQ(back.actual_version(), status.actual_version());
    EXPECT_EQ(back.deleted(), status.deleted());
  }
  EXPECT_EQ(api::StatusToJson(Status::Conflict("m", 4)),
            R"({"error":"conflict","message":"m","actualVersion":4})");
  EXPECT_EQ(api::StatusToJson(Status::Conflict("m", std::nullopt)),
            R"({"error":"conflict","message":"m","actualVersion":null})");
  // Not our body (a proxy's page): the HTTP status decides.
  EXPECT_EQ(api::StatusFromAnswer(503, "<html>busy</html>").code(), ErrorCode::kUnavailable);
  EXPECT_EQ(api::StatusFromAnswer(404, "").code(), ErrorCode::kNotFound);
}

// A stream's conflict says which kind it is: the version (with the
// stream's actual one) or an event id already written elsewhere.
TEST(ApiWireTest, BothKindsOfStreamConflictRoundTrip) {
  const Status version = Status::Conflict("stale", 4, false, "todo-\"1\"");
  EXPECT_EQ(api::StatusToJson(version),
            R"({"error":"conflict","message":"stale","reason":"version","actualVersion":4,)"
            R"("stream":"todo-\"1\""})");
  const Status v = api::StatusFromAnswer(409, api::StatusToJson(version));
  EXPECT_EQ(v.code(), ErrorCode::kConflict);
  EXPECT_FALSE(v.event_id_conflict());
  EXPECT_EQ(v.message(), "stale");
  EXPECT_EQ(v.actual_version(), std::optional<std::int64_t>(4));
  EXPECT_EQ(v.stream(), "todo-\"1\"");

  const std::string id = EventId::Random().ToString();
  const Status event_id = Status::EventIdConflict("id reused", id, "todo-2");
  EXPECT_EQ(api::StatusToJson(event_id),
            R"({"error":"conflict","message":"id reused","reason":"event_id","eventId":")" + id +
                R"(","stream":"todo-2"})");
  const Status e = api::StatusFromAnswer(409, api::StatusToJson(event_id));
  EXPECT_EQ(e.code(), ErrorCode::kConflict);
  EXPECT_TRUE(e.event_id_conflict());
  EXPECT_EQ(e.message(), "id reused");
  EXPECT_EQ(e.event_id(), id);
  EXPECT_EQ(e.stream(), "todo-2");
  EXPECT_FALSE(e.actual_version().has_value());

  // Not known which stream holds the id: neither eventId's stream nor a
  // version, still an event id conflict.
  const Status bare = Status::EventIdConflict("id reused", id, "");
  const Status b = api::StatusFromAnswer(409, api::StatusToJson(bare));
  EXPECT_TRUE(b.event_id_conflict());
  EXPECT_EQ(b.event_id(), id);
  EXPECT_EQ(b.stream(), "");
}

RecordedEvent EventAt(std::int64_t version, std::uint64_t position, std::string data) {
  RecordedEvent event = SampleEvent();
  event.id = EventId::Random();
  event.version = StreamVersion(version);
  event.position = Position(position);
  event.data = std::move(data);
  return event;
}

TEST(ApiWireTest, StreamAndAllPagesRoundTrip) {
  StreamPage page;
  page.stream = "BANK_ACCOUNT/7";
  page.events = {EventAt(3, 41, R"({"a":1e400})"), EventAt(4, 45, "[1.0, 2]")};
  page.next_version = StreamVersion(5);
  for (const bool more : {true, false}) {
    if (!more) page.next_version.reset();
    const std::string body = api::StreamPageToJson(page);
    auto back = api::StreamPageFromJson(body);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->stream, page.stream);
    EXPECT_EQ(back->next_version, page.next_version);
    ASSERT_EQ(back->events.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) ExpectSameEvent(back->events[i], page.events[i]);
    EXPECT_TRUE(body.ends_with(more ? R"(],"nextVersion":5})" : R"(],"nextVersion":null})"))
        << body;
  }
  auto empty = api::StreamPageFromJson(api::StreamPageToJson(StreamPage{"s", {}, {}, {}}));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->events.empty());
  EXPECT_FALSE(empty->next_version);

  AllPage all;
  all.events = {EventAt(0, 7, "{}"), EventAt(9, 8, R"("text")")};
  all.next = Position(12);  // past events a filter skipped
  const std::string body = api::AllPageToJson(all);
  EXPECT_TRUE(body.starts_with(R"({"events":[{)")) << body;
  auto back = api::AllPageFromJson(body);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->next, all.next);
  ASSERT_EQ(back->events.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) ExpectSameEvent(back->events[i], all.events[i]);
}

// The byte budget: the first event always (or paging would never move on),
// the others only while the page, closing text included, fits.
TEST(ApiWireTest, APageStopsAtItsByteBudgetButHoldsOneEvent) {
  const RecordedEvent big = EventAt(0, 1, "\"" + std::string(500, 'x') + "\"");
  api::StreamPageWriter tiny("s", 10);
  EXPECT_TRUE(tiny.Add(big.view()));
  EXPECT_FALSE(tiny.Add(big.view()));
  EXPECT_EQ(tiny.events(), 1u);
  auto one = api::StreamPageFromJson(std::move(tiny).Finish(StreamVersion(1)));
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->events.size(), 1u);
  EXPECT_EQ(one->next_version, StreamVersion(1));

  const std::size_t budget = 3 * EventToJson(big.view()).size();
  api::AllPageWriter writer(budget);
  std::size_t added = 0;
  while (writer.Add(big.view())) ++added;
  EXPECT_EQ(added, 2u);  // a third would leave no room for the closing text
  const std::string body = std::move(writer).Finish(Position(3));
  EXPECT_LE(body.size(), budget);
  auto page = api::AllPageFromJson(body);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->events.size(), 2u);
  EXPECT_EQ(page->next, Position(3));
}

TEST(ApiWireTest, ConsumerGroupStatusAndDeliveriesRoundTrip) {
  ConsumerGroupInfo info;
  info.name = "billing";
  info.checkpoint = Position(10);
  info.last_position = Position(25);
  info.lag_events = 15;
  info.lag_seconds = 1.5;
  info.in_flight = 3;
  info.redeliveries = 2;
  info.blocked_at = Position(11);
  info.blocked_reason = "handler said \"no\"";
  info.parked_streams = 1;
  info.parked_events = 4;
  info.replaying = true;
  auto back = api::ConsumerGroupInfoFromJson(api::ConsumerGroupInfoToJson(info));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->name, info.name);
  EXPECT_EQ(back->checkpoint, info.checkpoint);
  EXPECT_EQ(back->last_position, info.last_position);
  EXPECT_EQ(back->lag_events, info.lag_events);
  EXPECT_DOUBLE_EQ(back->lag_seconds, info.lag_seconds);
  EXPECT_EQ(back->in_flight, info.in_flight);
  EXPECT_EQ(back->redeliveries, info.redeliveries);
  EXPECT_EQ(back->blocked_at, info.blocked_at);
  EXPECT_EQ(back->blocked_reason, info.blocked_reason);
  EXPECT_EQ(back->parked_streams, info.parked_streams);
  EXPECT_EQ(back->parked_events, info.parked_events);
  EXPECT_EQ(back->replaying, info.replaying);

  ConsumerGroupInfo idle;
  idle.name = "audit";
  auto list = api::ConsumerGroupListFromJson(api::ConsumerGroupListToJson({info, idle}));
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "billing");
  EXPECT_EQ((*list)[0].blocked_reason, info.blocked_reason);
  EXPECT_EQ((*list)[1].name, "audit");
  EXPECT_FALSE((*list)[1].blocked_at);
  EXPECT_EQ(api::ConsumerGroupListToJson({}), R"({"consumers":[]})");

  Delivery delivery;
  delivery.attempt = 3;
  delivery.parked_version = StreamVersion(5);
  delivery.event = SampleEvent();
  Delivery first;
  first.attempt = 1;
  first.event = EventAt(0, 2, R"({"n":1.0})");
  const std::vector<Delivery> batch = {first, delivery};
  const std::string encoded = api::DeliveriesToJson(batch);
  // What a pull measured already is used as it is; the rest is written.
  const std::string measured = api::DeliveryToJson(delivery);
  EXPECT_EQ(api::DeliveriesToJson(batch,
                                  [&](std::size_t i) {
                                    return i == 1 ? std::string_view(measured) : std::string_view();
                                  }),
            encoded);
  auto deliveries = api::DeliveriesFromJson(encoded);
  ASSERT_TRUE(deliveries.ok()) << deliveries.status().ToString();
  ASSERT_EQ(deliveries->size(), 2u);
  EXPECT_EQ((*deliveries)[0].attempt, 1);
  EXPECT_FALSE((*deliveries)[0].parked_version);
  ExpectSameEvent((*deliveries)[0].event, first.event);
  EXPECT_EQ((*deliveries)[1].attempt, 3);
  EXPECT_EQ((*deliveries)[1].parked_version, delivery.parked_version);
  ExpectSameEvent((*deliveries)[1].event, delivery.event);
  EXPECT_EQ(api::DeliveriesToJson({}), R"({"deliveries":[]})");
}

// GET /consumers/{group} adds `waiting`, and with waitFor `reached`, in
// front of the status; DELETE answers the name.
TEST(ApiWireTest, MembersAndParkedPagesRoundTrip) {
  ConsumerGroupInfo info;
  info.name = "billing";
  info.members = {{"w\"1", 3, 1764400000123, 1}, {"w2", 0, 1764400000456, 0}};
  info.members_omitted = true;
  const std::string body = api::ConsumerGroupStatusToJson({info, 0, {}});
  EXPECT_NE(body.find(R"("members":[{"consumer":"w\"1","inFlight":3,"lastPull":1764400000123,)"
                      R"("waiting":1},)"),
            std::string::npos)
      << body;
  auto back = api::ConsumerGroupStatusFromJson(body);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->info.members.size(), 2u);
  EXPECT_EQ(back->info.members[0].consumer, "w\"1");
  EXPECT_EQ(back->info.members[0].in_flight, 3u);
  EXPECT_EQ(back->info.members[0].last_pull_ms, 1764400000123);
  EXPECT_EQ(back->info.members[0].waiting, 1u);
  EXPECT_TRUE(back->info.members_omitted);

  ParkedPage page;
  for (int i = 0; i < 3; ++i) {
    ParkedCopy copy;
    copy.copy.id = EventId::Random();
    copy.copy.stream = "$parked-billing";
    copy.copy.version = StreamVersion(i);
    copy.copy.position = Position(10 + i);
    copy.copy.type = "Placed";
    copy.copy.data = R"({"n":1})";
    copy.copy.metadata = R"({"$parked":{"stream":"a"},"metadata":{}})";
    copy.state = i == 0   ? ParkedState::kResolved
                 : i == 1 ? ParkedState::kSkipped
                          : ParkedState::kRetrying;
    page.events.push_back(copy);
  }
  page.next = StreamVersion(3);
  const std::string json = api::ParkedPageToJson("billing", page);
  EXPECT_TRUE(json.starts_with(
      R"({"group":"billing","events":[{"parkedVersion":0,"state":"resolved","event":{)"))
      << json;
  auto parsed = api::ParkedPageFromJson(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->events.size(), 3u);
  EXPECT_EQ(parsed->events[1].state, ParkedState::kSkipped);
  EXPECT_EQ(parsed->events[2].state, ParkedState::kRetrying);
  EXPECT_EQ(parsed->events[2].copy.version, StreamVersion(2));
  EXPECT_EQ(parsed->events[2].copy.metadata, page.events[2].copy.metadata);
  EXPECT_EQ(parsed->next, StreamVersion(3));
  // A byte budget stops the page before the copy that passes it (one at least).
  auto cut = api::ParkedPageFromJson(api::ParkedPageToJson("billing", page, 1));
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->events.size(), 1u);
  EXPECT_EQ(cut->next, StreamVersion(1));
  EXPECT_EQ(api::ParkedPageToJson("b", {}), R"({"group":"b","events":[],"nextVersion":null})");
}

TEST(ApiWireTest, ConsumerGroupStatusWithWaitingAndReachedRoundTrips) {
  ConsumerGroupInfo info;
  info.name = "billing";
  info.checkpoint = Position(9);
  info.last_position = Position(9);
  info.lag_events = 0;
  for (const std::optional<bool> reached :
       {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
    const api::ConsumerGroupStatus status{info, 2, reached};
    const std::string body = api::ConsumerGroupStatusToJson(status);
    const std::string lead = reached ? (*reached ? R"({"reached":true,"waiting":2,"group":)"
                                                 : R"({"reached":false,"waiting":2,"group":)")
                                     : R"({"waiting":2,"group":)";
    EXPECT_TRUE(body.starts_with(lead)) << body;
    auto back = api::ConsumerGroupStatusFromJson(body);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->info.name, "billing");
    EXPECT_EQ(back->info.checkpoint, info.checkpoint);
    EXPECT_EQ(back->waiting, std::optional<std::uint64_t>(2));
    EXPECT_EQ(back->reached, reached);
  }
  // Without either: the status of the other routes, and the members.
  auto plain = api::ConsumerGroupStatusFromJson(api::ConsumerGroupStatusToJson({info, {}, {}}));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  std::string info_json = api::ConsumerGroupInfoToJson(info);
  info_json.pop_back();
  EXPECT_EQ(api::ConsumerGroupStatusToJson({info, {}, {}}),
            info_json + R"(,"members":[],"membersOmitted":false})");
  EXPECT_EQ(api::ConsumerGroupInfoToJson(info).find("members"), std::string::npos);
  EXPECT_FALSE(plain->waiting);
  EXPECT_FALSE(plain->reached);
  EXPECT_EQ(api::ConsumerGroupStatusFromJson(R"({"reached":"yes","group":"g"})").status().code(),
            ErrorCode::kInternal);

  EXPECT_EQ(api::ConsumerGroupDeletedToJson("a\"b"), R"({"deleted":"a\"b"})");
  auto deleted = api::ConsumerGroupDeletedFromJson(api::ConsumerGroupDeletedToJson("a\"b"));
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, "a\"b");
  EXPECT_EQ(api::ConsumerGroupDeletedFromJson("{}").status().code(), ErrorCode::kInternal);
}

// The two request bodies of a consumer group: what the client sends is
// what the server reads; anything else is invalid, naming the field.
TEST(ApiWireTest, AcksAndNacksRoundTrip) {
  const std::vector<Position> positions = {Position(3), Position(1), Position(1ull << 62)};
  EXPECT_EQ(api::AckToJson(positions), R"({"positions":[3,1,4611686018427387904]})");
  auto acked = api::AckFromJson(api::AckToJson(positions));
  ASSERT_TRUE(acked.ok()) << acked.status().ToString();
  EXPECT_EQ(*acked, positions);

  for (const std::optional<std::string>& reason :
       {std::optional<std::string>(), std::optional<std::string>("bad \"input\"\n")}) {
    auto nack = api::NackFromJson(api::NackToJson({Position(7), reason}));
    ASSERT_TRUE(nack.ok()) << nack.status().ToString();
    EXPECT_EQ(nack->position, Position(7));
    EXPECT_EQ(nack->reason, reason);
  }

  const std::pair<const char*, const char*> bad_acks[] = {
      {"[1]", "body"},
      {"{}", "positions"},
      {R"({"positions":[]})", "positions"},
      {R"({"positions":[0]})", "positions"},
      {R"({"positions":["1"]})", "positions"},
  };
  for (const auto& [body, field] : bad_acks) {
    const Status s = api::AckFromJson(body).status();
    EXPECT_EQ(s.code(), ErrorCode::kInvalid) << body;
    EXPECT_EQ(s.field(), field) << body;
  }
  const std::pair<const char*, const char*> bad_nacks[] = {
      {"nope", "body"},
      {R"({"reason":"x"})", "position"},
      {R"({"position":-2})", "position"},
      {R"({"position":2,"reason":5})", "reason"},
  };
  for (const auto& [body, field] : bad_nacks) {
    const Status s = api::NackFromJson(body).status();
    EXPECT_EQ(s.code(), ErrorCode::kInvalid) << body;
    EXPECT_EQ(s.field(), field) << body;
  }
}

api::Key SampleKey() {
  return api::Key{"0123456789abcdef", "ci-bot", {"writer", "reader"}, 1700000000000, 0, 0, "ann"};
}

void ExpectSameKey(const api::Key& got, const api::Key& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.roles, want.roles);
  EXPECT_EQ(got.created_ms, want.created_ms);
  EXPECT_EQ(got.expires_ms, want.expires_ms);
  EXPECT_EQ(got.last_used_ms, want.last_used_ms);
  EXPECT_EQ(got.created_by, want.created_by);
}

TEST(ApiWireTest, KeysRoundTrip) {
  api::Key never = SampleKey();
  api::Key used = SampleKey();
  used.id = "fedcba9876543210";
  used.expires_ms = 1800000000000;
  used.last_used_ms = 1700000060000;
  // The bytes auth's KeyInfo::ToJson wrote before the wire module did.
  EXPECT_EQ(api::KeyToJson(never),
            R"({"id":"0123456789abcdef","name":"ci-bot","roles":["writer","reader"],)"
            R"("created":1700000000000,"createdBy":"ann","lastUsed":null})");
  EXPECT_EQ(api::KeyToJson(used),
            R"({"id":"fedcba9876543210","name":"ci-bot","roles":["writer","reader"],)"
            R"("created":1700000000000,"expires":1800000000000,"createdBy":"ann",)"
            R"("lastUsed":1700000060000})");
  for (const api::Key& key : {never, used}) {
    auto back = api::KeyFromJson(api::KeyToJson(key));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSameKey(*back, key);
  }

  const api::NewKey made{"idl_0123456789abcdef_secret", never};
  const std::string made_json = api::NewKeyToJson(made);
  EXPECT_TRUE(made_json.starts_with(R"({"key":"idl_0123456789abcdef_secret","id":)")) << made_json;
  auto made_back = api::NewKeyFromJson(made_json);
  ASSERT_TRUE(made_back.ok()) << made_back.status().ToString();
  EXPECT_EQ(made_back->key, made.key);
  ExpectSameKey(made_back->info, never);

  const std::string revoked_json = api::RevokedKeyToJson(used);
  EXPECT_TRUE(revoked_json.starts_with(R"({"revoked":true,"id":)")) << revoked_json;
  auto revoked = api::RevokedKeyFromJson(revoked_json);
  ASSERT_TRUE(revoked.ok()) << revoked.status().ToString();
  ExpectSameKey(*revoked, used);
  // A key that is not said to be revoked is not the answer to a revoke.
  EXPECT_EQ(api::RevokedKeyFromJson(api::KeyToJson(used)).status().code(), ErrorCode::kInternal);

  auto listed = api::KeyListFromJson(api::KeyListToJson({never, used}));
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 2u);
  ExpectSameKey((*listed)[0], never);
  ExpectSameKey((*listed)[1], used);
  EXPECT_EQ(api::KeyListToJson({}), R"({"keys":[]})");
  for (const char* body : {"", "[]", R"({"keys":{}})", R"({"keys":[{"id":"x"}]})"})
    EXPECT_EQ(api::KeyListFromJson(body).status().code(), ErrorCode::kInternal) << body;
}

TEST(ApiWireTest, KeyRequestsRoundTripAndBadOnesNameTheirField) {
  for (const std::int64_t expires : {std::int64_t{0}, std::int64_t{3600}}) {
    const api::KeyRequest request{"ci \"bot\"", {"writer"}, expires};
    auto back = api::KeyRequestFromJson(api::KeyRequestToJson(request));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->name, request.name);
    EXPECT_EQ(back->roles, request.roles);
    EXPECT_EQ(back->expires_in_seconds, expires);
  }
  EXPECT_EQ(api::KeyRequestToJson({"a", {"reader"}, 0}), R"({"name":"a","roles":["reader"]})");
  const std::pair<const char*, const char*> bad[] = {
      {"[]", "body"},
      {R"({"roles":["reader"]})", "name"},
      {R"({"name":"a","roles":[]})", "roles"},
      {R"({"name":"a","roles":[1]})", "roles"},
      {R"({"name":"a","roles":["reader"],"expiresInSeconds":0})", "expiresInSeconds"},
  };
  for (const auto& [body, field] : bad) {
    const Status s = api::KeyRequestFromJson(body).status();
    EXPECT_EQ(s.code(), ErrorCode::kInvalid) << body;
    EXPECT_EQ(s.field(), field) << body;
  }
}

TEST(ApiWireTest, TheCallerRoundTrips) {
  const api::Caller anonymous{false, std::nullopt, {}, ""};
  EXPECT_EQ(api::CallerToJson(anonymous), R"({"authentication":false})");
  auto a = api::CallerFromJson(api::CallerToJson(anonymous));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_FALSE(a->authentication);
  EXPECT_FALSE(a->principal);

  const api::Caller ann{
      true, "ann", {"writer"}, R"({"admin":false,"rules":[{"allow":["read"],"prefixes":["a-"]}]})"};
  EXPECT_EQ(api::CallerToJson(ann),
            R"({"authentication":true,"principal":"ann","roles":["writer"],)"
            R"("grants":{"admin":false,"rules":[{"allow":["read"],"prefixes":["a-"]}]}})");
  auto back = api::CallerFromJson(api::CallerToJson(ann));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->authentication);
  EXPECT_EQ(back->principal, ann.principal);
  EXPECT_EQ(back->roles, ann.roles);
  EXPECT_EQ(back->grants, ann.grants);
  EXPECT_EQ(api::CallerFromJson(R"({"principal":"x"})").status().code(), ErrorCode::kInternal);
}

// The client stays within what the server accepts: the same constants.
TEST(ApiWireTest, PageLimitsAreWithinOneAnother) {
  static_assert(api::kDefaultPageEvents >= 1 && api::kDefaultPageEvents <= kMaxPageEvents);
  static_assert(api::kDefaultListedStreams >= 1 &&
                api::kDefaultListedStreams <= api::kMaxListedStreams);
  EXPECT_EQ(kMaxPageEvents, 10000u);  // docs/HTTP.md and docs/openapi.json say so
  EXPECT_EQ(api::kMaxListedStreams, 1000u);
  EXPECT_EQ(api::kMaxWait, std::chrono::milliseconds(60000));
}

TEST(ApiWireTest, ETagsRoundTripAndOnlyQuotedVersionsParse) {
  const std::int64_t versions[] = {0, 1, 42, std::int64_t{1} << 62};
  for (std::int64_t v : versions) {
    auto back = api::VersionFromETag(api::ETagFor(StreamVersion(v)));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->value(), v);
  }
  for (const char* bad : {"", "\"\"", "4", "\"-1\"", "\"4x\"", "W/\"4\""})
    EXPECT_EQ(api::VersionFromETag(bad).status().code(), ErrorCode::kInternal) << bad;
}

TEST(ApiWireTest, BodiesThatAreNotTheApiAreInternalErrors) {
  for (const char* body : {"", "[]", "null", "{", R"({"firstVersion":"1"})", "<html/>"}) {
    EXPECT_EQ(api::AppendResultFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::HeadFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::AllPageFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::StreamPageFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::DeliveriesFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::ConsumerGroupStatusFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::ConsumerGroupListFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::KeyFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::NewKeyFromJson(body).status().code(), ErrorCode::kInternal) << body;
    EXPECT_EQ(api::CallerFromJson(body).status().code(), ErrorCode::kInternal) << body;
  }
}

// Numbers past int64 parse (as uint64 or double) but are no version: a
// server answering with one gets an error back, not a thrown exception
// that ends the client's process.
TEST(ApiWireTest, WholeNumbersPastInt64AreErrorsNotExceptions) {
  const auto huge = AppendResult{};
  std::string body = api::AppendResultToJson(huge);
  const auto at = body.find("\"firstVersion\":");
  ASSERT_NE(at, std::string::npos) << body;
  const auto end = body.find_first_of(",}", at);
  body.replace(at, end - at, R"("firstVersion":18446744073709551615)");
  EXPECT_EQ(api::AppendResultFromJson(body).status().code(), ErrorCode::kInternal) << body;

  const Status conflict = api::StatusFromAnswer(
      409, R"({"error":"conflict","message":"m","actualVersion":18446744073709551615})");
  EXPECT_EQ(conflict.code(), ErrorCode::kConflict);
  EXPECT_FALSE(conflict.actual_version().has_value());
}

}  // namespace
}  // namespace indelible
