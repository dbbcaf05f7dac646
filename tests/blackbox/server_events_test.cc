// GET /events/{id} (docs/HTTP.md, "Routes"): the event an id names, in
// whatever stream holds it, as a stream read shows it; 404 for an id no
// event has, 400 for text that is not an id. Narrowing by the caller's
// rights is server_auth_test's.
#include "blackbox/server_fixture.h"

namespace indelible {
namespace {

class EventsTest : public ServerTest {};

TEST_F(EventsTest, AnIdFindsItsEventInWhicheverStreamHoldsIt) {
  const std::string cause = NewUuid();
  const std::string effect = NewUuid();
  ASSERT_EQ(Append("order-1", "[" + EventJson("Placed", R"({"n":1})", cause) + "]").status, 201u);
  ASSERT_EQ(Append("invoice-9", "[" + EventJson("Asked") + "," +
                                    R"({"type":"Billed","data":{"n":2},"id":")" + effect +
                                    R"(","metadata":{"causationId":")" + cause + R"("}})" + "]")
                .status,
            201u);

  const HttpResponse found = http().Get("/events/" + effect);
  ASSERT_EQ(found.status, 200u) << found.body;
  const json::value body = found.Json();
  EXPECT_EQ(Member(body, "id"), "\"" + effect + "\"");
  EXPECT_EQ(Member(body, "stream"), "\"invoice-9\"");
  EXPECT_EQ(Member(body, "version"), "1");
  EXPECT_EQ(Member(body, "position"), "3");
  EXPECT_EQ(Member(body, "type"), "\"Billed\"");
  // The same JSON as the stream's own read of it.
  const HttpResponse read = http().Get("/streams/invoice-9?from=1&limit=1");
  ASSERT_EQ(read.status, 200u);
  EXPECT_EQ(json::serialize(read.Json().at("events").at(0)), json::serialize(body));

  // What a causationId names, upper case as some clients write it.
  std::string upper = cause;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const HttpResponse caused = http().Get("/events/" + upper);
  ASSERT_EQ(caused.status, 200u) << caused.body;
  EXPECT_EQ(Member(caused.Json(), "stream"), "\"order-1\"");
}

TEST_F(EventsTest, AnUnknownIdIsNotFoundAndOtherTextIsInvalid) {
  EXPECT_TRUE(IsError(http().Get("/events/" + NewUuid()), 404, "not_found"));
  const std::vector<std::string> bad_ids = {
      "42", "not-an-id", "5f0c0a4e-0000-4000-8000-00000000000g", "%00", std::string(300, 'a')};
  for (const std::string& bad : bad_ids) {
    const HttpResponse answer = http().Get("/events/" + bad);
    EXPECT_TRUE(IsError(answer, 400, "invalid")) << bad;
  }
  EXPECT_EQ(http().Get("/health").status, 200u);
}

}  // namespace
}  // namespace indelible
