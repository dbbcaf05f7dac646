// The HTTP API's documents (src/api/wire.h): each one written the way the
// server writes it reads back, through the client's decoder, as what was
// written; and bodies that are not the API are internal errors, not crashes.
#include <gtest/gtest.h>

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

  auto list = api::ConsumerGroupListFromJson(R"({"consumers":[)" +
                                             api::ConsumerGroupInfoToJson(info) + "]}");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].name, "billing");

  Delivery delivery;
  delivery.attempt = 3;
  delivery.parked_version = StreamVersion(5);
  delivery.event = SampleEvent();
  auto deliveries =
      api::DeliveriesFromJson(R"({"deliveries":[)" + api::DeliveryToJson(delivery) + "]}");
  ASSERT_TRUE(deliveries.ok()) << deliveries.status().ToString();
  ASSERT_EQ(deliveries->size(), 1u);
  EXPECT_EQ((*deliveries)[0].attempt, 3);
  EXPECT_EQ((*deliveries)[0].parked_version, delivery.parked_version);
  ExpectSameEvent((*deliveries)[0].event, delivery.event);
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
