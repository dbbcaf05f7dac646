// Store::FindEvent on every backend: the event an id names, in whichever
// stream holds it, the same as reading it by stream; nullopt for an id no
// event has; a deleted stream's events are still found (they stay). The
// DynamoDB backend keeps no index by id and says so.
#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

EventData MakeEvent(std::string type, std::string data, std::string metadata = "{}") {
  EventData event;
  event.id = EventId::Random();
  event.type = std::move(type);
  event.data = std::move(data);
  event.metadata = std::move(metadata);
  return event;
}

}  // namespace

TEST_P(ConformanceTest, FindEventGivesTheEventAnIdNamesInAnyStream) {
  const EventData opened = MakeEvent("Opened", R"({"owner":"ann"})");
  const EventData paid =
      MakeEvent("Paid", R"({"amount":5})", R"({"causationId":")" + opened.id.ToString() + R"("})");
  auto made = store().Append("account-1", Expected::no_stream(), {opened});
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  ASSERT_TRUE(
      store().Append("payment-7", Expected::no_stream(), {MakeEvent("Asked", "{}"), paid}).ok());

  auto found = store().FindEvent(paid.id);
  if (GetParam().name == "dynamodb") {
    ASSERT_FALSE(found.ok());
    EXPECT_EQ(found.status().code(), ErrorCode::kInvalid) << found.status().ToString();
    return;
  }
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_TRUE(found->has_value());
  const RecordedEvent& event = **found;
  EXPECT_EQ(event.id, paid.id);
  EXPECT_EQ(event.stream, "payment-7");
  EXPECT_EQ(event.version.value(), 1);
  EXPECT_EQ(event.type, "Paid");
  EXPECT_EQ(event.data, paid.data);
  EXPECT_EQ(event.metadata, paid.metadata);
  // The same event as a read of its stream gives, position and time too.
  auto read = ReadStreamEvents(store(), "payment-7");
  ASSERT_TRUE(read.ok() && read->size() == 2);
  EXPECT_EQ(event.position, read->at(1).position);
  EXPECT_EQ(event.timestamp_ms, read->at(1).timestamp_ms);

  auto cause = store().FindEvent(opened.id);
  ASSERT_TRUE(cause.ok() && cause->has_value());
  EXPECT_EQ((*cause)->stream, "account-1");

  auto nothing = store().FindEvent(EventId::Random());
  ASSERT_TRUE(nothing.ok()) << nothing.status().ToString();
  EXPECT_FALSE(nothing->has_value());

  // A deleted stream's events stay, and so does what finds them.
  ASSERT_TRUE(store().Delete("account-1").ok());
  cause = store().FindEvent(opened.id);
  ASSERT_TRUE(cause.ok() && cause->has_value());
  EXPECT_EQ((*cause)->type, "Opened");
}

}  // namespace indelible::conformance
