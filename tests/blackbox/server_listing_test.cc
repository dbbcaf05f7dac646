// GET /streams?last=true (issue 39, docs/HTTP.md "Stream listing") against
// the real `indelible serve`: each listed stream's newest event, only when
// asked; after more appends; a deleted stream's tombstone; null when
// retention hides every event; bad values of the parameter; with --auth,
// only the streams the caller may read. On the embedded and memory stores.
#include <map>

#include "blackbox/auth_fixture.h"
#include "blackbox/server_fixture.h"

namespace indelible {
namespace {

// The entries of a listing page by name.
std::map<std::string, json::object> ByName(const json::value& page) {
  std::map<std::string, json::object> out;
  if (!page.is_object() || !page.as_object().contains("streams")) return out;
  for (const json::value& info : page.at("streams").as_array())
    out[StringOf(info.as_object(), "stream")] = info.as_object();
  return out;
}

// The newest event of a stream as a backward read of one gives it.
json::object NewestRead(HttpClient& http, const std::string& path, const Headers& headers = {}) {
  const std::vector<json::object> events = EventsOf(
      http.Get("/streams/" + path + "?direction=backward&limit=1&includeDeleted=true", headers)
          .Json());
  return events.empty() ? json::object() : events.front();
}

// `last` is the event `newest` read back: id, type, version, position, timestamp, nothing else.
::testing::AssertionResult IsLastOf(const json::object& info, const json::object& newest) {
  const json::value* last = info.if_contains("last");
  if (last == nullptr || !last->is_object())
    return ::testing::AssertionFailure() << "no last object: " << json::serialize(info);
  json::object expected;
  for (const char* key : {"id", "type", "version", "position", "timestamp"}) {
    if (!newest.contains(key))
      return ::testing::AssertionFailure()
             << "the read has no " << key << ": " << json::serialize(newest);
    expected[key] = newest.at(key);
  }
  if (last->as_object() != expected)
    return ::testing::AssertionFailure()
           << "last " << json::serialize(*last) << ", read " << json::serialize(expected);
  return ::testing::AssertionSuccess();
}

class ListingTest : public ServerTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "file") return ServerTest::SetUp();
    StartOn(GetParam() + ":");
  }

  std::map<std::string, json::object> Listed(const std::string& query = "?last=true") {
    const HttpResponse page = http().Get("/streams" + query);
    EXPECT_EQ(page.status, 200u) << page.body;
    return ByName(page.Json());
  }

  void AppendOk(const std::string& stream, const std::string& body) {
    const HttpResponse made = Append(stream, body);
    ASSERT_EQ(made.status, 201u) << made.body;
  }
};

TEST_P(ListingTest, TheNewestEventIsListedOnlyWhenAsked) {
  const std::string created = NewUuid();
  const std::string renamed = NewUuid();
  AppendOk("orders-1", "[" + EventJson("Created", "{}", created) + "," +
                           EventJson("Renamed", "{}", renamed) + "]");
  AppendOk("orders-2", EventJson("Created"));

  for (const std::string query : {"", "?last=false", "?limit=10&last=false"})
    for (const auto& [name, info] : Listed(query))
      EXPECT_FALSE(info.contains("last")) << query << ": " << json::serialize(info);

  auto listed = Listed();
  ASSERT_EQ(listed.size(), 2u);
  const json::object& one = listed["orders-1"];
  EXPECT_TRUE(IsLastOf(one, NewestRead(http(), "orders-1")));
  EXPECT_EQ(Member(one.at("last"), "type"), R"("Renamed")");
  EXPECT_EQ(Member(one.at("last"), "id"), "\"" + renamed + "\"");
  EXPECT_EQ(Member(one.at("last"), "version"), "1");
  EXPECT_EQ(IntOf(one.at("last").as_object(), "timestamp"), IntOf(one, "lastWrite"));
  EXPECT_EQ(IntOf(one.at("last").as_object(), "position"), IntOf(one, "position"));
  EXPECT_TRUE(IsLastOf(listed["orders-2"], NewestRead(http(), "orders-2")));

  // More appends move it on.
  AppendOk("orders-1", EventJson("Shipped"));
  listed = Listed();
  EXPECT_EQ(Member(listed["orders-1"].at("last"), "type"), R"("Shipped")");
  EXPECT_EQ(Member(listed["orders-1"].at("last"), "version"), "2");
  EXPECT_EQ(Member(listed["orders-1"], "version"), "2");
  EXPECT_TRUE(IsLastOf(listed["orders-1"], NewestRead(http(), "orders-1")));

  // Paging and filters are unchanged by it.
  const HttpResponse first = http().Get("/streams?last=true&limit=1");
  ASSERT_EQ(first.status, 200u) << first.body;
  EXPECT_EQ(Member(first.Json(), "next"), R"("orders-1")");
  EXPECT_EQ(ByName(first.Json()).count("orders-1"), 1u);
  const auto rest = ByName(http().Get("/streams?last=true&after=orders-1").Json());
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_TRUE(IsLastOf(rest.at("orders-2"), NewestRead(http(), "orders-2")));
}

TEST_P(ListingTest, ADeletedStreamShowsItsTombstoneUntilItStartsAgain) {
  AppendOk("cart-1", EventJson("Added"));
  ASSERT_EQ(http().Request("DELETE", "/streams/cart-1").status, 200u);
  auto listed = Listed();
  const json::object& cart = listed["cart-1"];
  EXPECT_EQ(Member(cart, "deleted"), "true");
  EXPECT_EQ(Member(cart.at("last"), "type"), R"("$deleted")");
  EXPECT_EQ(Member(cart.at("last"), "version"), "1") << "the tombstone's version";
  EXPECT_TRUE(IsLastOf(cart, NewestRead(http(), "cart-1")));

  AppendOk("cart-1", EventJson("Added"));  // starts again, numbering going on
  listed = Listed();
  EXPECT_EQ(Member(listed["cart-1"], "deleted"), "false");
  EXPECT_EQ(Member(listed["cart-1"].at("last"), "type"), R"("Added")");
  EXPECT_EQ(Member(listed["cart-1"].at("last"), "version"), "2");
}

TEST_P(ListingTest, RetentionHidesWhatReadsDoNotReturn) {
  AppendOk("kept-1", "[" + EventJson("A") + "," + EventJson("B") + "," + EventJson("C") + "]");
  AppendOk("hidden-1", "[" + EventJson("A") + "," + EventJson("B") + "]");
  const Headers json_body = {{"Content-Type", "application/json"}};
  // maxCount keeps the newest: still the last event.
  ASSERT_EQ(
      http().Request("PUT", "/streams/kept-1/metadata", json_body, R"({"maxCount":1})").status,
      200u);
  // truncateBefore past the last version hides every event.
  ASSERT_EQ(http()
                .Request("PUT", "/streams/hidden-1/metadata", json_body, R"({"truncateBefore":5})")
                .status,
            200u);
  auto listed = Listed();
  EXPECT_EQ(Member(listed["kept-1"].at("last"), "type"), R"("C")");
  EXPECT_TRUE(IsLastOf(listed["kept-1"], NewestRead(http(), "kept-1")));
  const json::object& hidden = listed["hidden-1"];
  EXPECT_EQ(Member(hidden, "last"), "null") << "no event a read returns";
  EXPECT_EQ(Member(hidden, "version"), "1") << "the listing itself still counts what was written";
  EXPECT_TRUE(EventsOf(http().Get("/streams/hidden-1").Json()).empty());
}

TEST_P(ListingTest, ABadValueIsRefused) {
  AppendOk("s-1", EventJson("T"));
  for (const std::string value : {"yes", "1", "TRUE", "", "true,false"}) {
    const HttpResponse bad = http().Get("/streams?last=" + value);
    EXPECT_TRUE(IsError(bad, 400, "invalid")) << value;
    EXPECT_EQ(Member(bad.Json(), "field"), R"("last")") << value;
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, ListingTest, ::testing::Values("file", "memory"));

// With --auth, `last` is given for the streams the caller may read, which
// are all it lists; an admin sees `$` streams with theirs.
using ListingAuthTest = AuthServerTest;

TEST_F(ListingAuthTest, OnlyTheStreamsTheCallerMayReadAreListedWithTheirNewestEvent) {
  const std::string analyst = MakeKey("analyst", {"analyst"});  // read: prefix "orders-"
  AppendAsAdmin("orders-1", "Placed");
  AppendAsAdmin("orders-1", "Paid");
  AppendAsAdmin("payments-1", "Taken");
  const HttpResponse theirs = http().Get("/streams?last=true", Bearer(analyst));
  ASSERT_EQ(theirs.status, 200u) << theirs.body;
  const auto seen = ByName(theirs.Json());
  ASSERT_EQ(seen.size(), 1u) << theirs.body;
  EXPECT_TRUE(IsLastOf(seen.at("orders-1"), NewestRead(http(), "orders-1", Bearer(analyst))));
  EXPECT_EQ(Member(seen.at("orders-1").at("last"), "type"), R"("Paid")");

  const auto all = ByName(http().Get("/streams?last=true", Bearer(admin())).Json());
  ASSERT_EQ(all.count("payments-1"), 1u);
  EXPECT_EQ(Member(all.at("payments-1").at("last"), "type"), R"("Taken")");
  ASSERT_EQ(all.count("$audit"), 1u);
  EXPECT_TRUE(all.at("$audit").at("last").is_object()) << "the key made above was audited";
  EXPECT_TRUE(IsRefusal(http().Get("/streams?last=true"), 401));
  EXPECT_TRUE(IsError(http().Get("/streams?last=maybe", Bearer(analyst)), 400, "invalid"));
}

}  // namespace
}  // namespace indelible
