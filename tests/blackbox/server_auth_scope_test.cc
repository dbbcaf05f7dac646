// What a principal sees of many streams at once (docs/SECURITY.md, "$all
// and subscriptions", "Consumer groups"): $all and /subscribe/all narrowed
// to the streams it may read, consumer groups only over what it may read;
// and the audit trail ("Audit trail"): one $audit event per administrative
// or destructive act, with who, from where, on what and how it ended.
#include <sys/stat.h>

#include "blackbox/auth_fixture.h"

namespace indelible {
namespace {

using namespace std::chrono_literals;

std::vector<std::int64_t> PositionsOf(const std::vector<json::object>& events) {
  std::vector<std::int64_t> out;
  for (const json::object& event : events) out.push_back(IntOf(event, "position"));
  return out;
}

std::vector<json::object> Where(const std::vector<json::object>& events,
                                const std::function<bool(const std::string&)>& stream) {
  std::vector<json::object> out;
  for (const json::object& event : events)
    if (stream(StringOf(event, "stream"))) out.push_back(event);
  return out;
}

bool IsOrders(const std::string& stream) {
  return stream.substr(0, stream.find_first_of("-/")) == "orders";
}

// The data of an $audit event.
json::object AuditData(const json::object& event) {
  const json::value* data = event.if_contains("data");
  return data != nullptr && data->is_object() ? data->as_object() : json::object();
}

class AuthScopeTest : public AuthServerTest {
 protected:
  // A group of `query` made by the admin.
  void MakeGroup(const std::string& name, const std::string& query = "") {
    const HttpResponse made = http().Request("PUT", "/consumers/" + name + query, Bearer(admin()));
    ASSERT_EQ(made.status, 201u) << made.body;
  }

  // The stream's events as the admin reads them (none if it has none).
  std::vector<json::object> StreamAsAdmin(const std::string& stream) {
    return EventsOf(http().Get("/streams/" + stream + "?limit=10000", Bearer(admin())).Json());
  }
};

// --- $all --------------------------------------------------------------------

TEST_F(AuthScopeTest, AllShowsEachPrincipalOnlyTheStreamsItMayRead) {
  const std::string orders = MakeKey("orders", {"orders-writer"});
  const std::string reader = MakeKey("everything", {"reader"});
  // An event parked by a group: $parked-parky holds a copy of orders-1's.
  MakeGroup("parky", "?category=orders&policy=park&maxAttempts=1");
  AppendAsAdmin("orders-1");
  AppendAsAdmin("payments-1");
  AppendAsAdmin("orders/eu-2");
  AppendAsAdmin("payments-2");
  const json::value pulled =
      http().Post("/consumers/parky/pull?consumer=c", "{}", Bearer(admin())).Json();
  ASSERT_TRUE(pulled.is_object() && !pulled.at("deliveries").as_array().empty())
      << json::serialize(pulled);
  const std::int64_t first =
      pulled.at("deliveries").as_array()[0].at("event").at("position").as_int64();
  ASSERT_EQ(http()
                .Post("/consumers/parky/nack", R"({"position":)" + std::to_string(first) + "}",
                      Bearer(admin()))
                .status,
            200u);
  for (int i = 0; i < 200 && StreamAsAdmin("$parked-parky").empty(); ++i)
    std::this_thread::sleep_for(10ms);
  ASSERT_FALSE(StreamAsAdmin("$parked-parky").empty()) << "nothing was parked";
  AppendAsAdmin("orders-1");
  const std::int64_t last = AppendAsAdmin("payments-3");  // the last event is not theirs

  const std::vector<json::object> everything = AllAs(admin());
  const auto reserved = [](const std::string& s) { return s.starts_with("$"); };
  ASSERT_FALSE(Where(everything, [](const std::string& s) { return s == "$audit"; }).empty());
  ASSERT_FALSE(
      Where(everything, [](const std::string& s) { return s == "$parked-parky"; }).empty());
  EXPECT_EQ(IntOf(everything.back(), "position"), last);

  // Category "orders" only; positions of the others skipped.
  const std::vector<json::object> theirs = AllAs(orders);
  EXPECT_EQ(PositionsOf(theirs), PositionsOf(Where(everything, IsOrders)));
  EXPECT_EQ(theirs.size(), 3u);
  // One page: `next` goes past what was skipped, to the end.
  const json::value page = http().Get("/all?limit=10000", Bearer(orders)).Json();
  EXPECT_EQ(Member(page, "next"), std::to_string(last + 1));
  // A page at a time, by `next`: the same events.
  std::vector<json::object> paged;
  for (std::int64_t from = 1, pages = 0; pages < 100; ++pages) {
    const json::value one =
        http().Get("/all?limit=1&from=" + std::to_string(from), Bearer(orders)).Json();
    const auto events = EventsOf(one);
    paged.insert(paged.end(), events.begin(), events.end());
    const std::int64_t next = IntOf(one.as_object(), "next");
    ASSERT_GE(next, from);
    if (events.empty()) break;
    from = next;
  }
  EXPECT_EQ(PositionsOf(paged), PositionsOf(theirs));
  // Another category's filter: an empty page, not an error.
  for (const char* query : {"?category=payments", "?prefix=payments-", "?category=$audit"}) {
    const HttpResponse other = http().Get(std::string("/all") + query, Bearer(orders));
    EXPECT_EQ(other.status, 200u) << query << other.body;
    EXPECT_TRUE(EventsOf(other.Json()).empty()) << query << other.body;
  }

  // A reader of everything: everything but the store's own '$' streams.
  EXPECT_EQ(PositionsOf(AllAs(reader)),
            PositionsOf(Where(everything, [&](const std::string& s) { return !reserved(s); })));
  EXPECT_TRUE(EventsOf(http().Get("/all?prefix=$", Bearer(reader)).Json()).empty());
  EXPECT_TRUE(EventsOf(http().Get("/all?prefix=$parked-", Bearer(reader)).Json()).empty());
}

TEST_F(AuthScopeTest, SubscribeAllDeliversOnlyWhatThePrincipalMayRead) {
  const std::string analyst = MakeKey("analyst", {"analyst"});  // read: prefix "orders-"
  AppendAsAdmin("orders-1");
  AppendAsAdmin("payments-1");
  AppendAsAdmin("orders/eu");  // category orders, but not under the prefix
  AppendAsAdmin("orders-2");

  testutil::SseReader sse(server().port(), "/subscribe/all", Bearer(analyst));
  ASSERT_TRUE(sse.ReadHead());
  ASSERT_EQ(sse.status(), 200u) << sse.ReadErrorBody();
  std::vector<std::string> seen;
  for (int i = 0; i < 2; ++i) {
    auto message = sse.NextMessage(10s);
    ASSERT_TRUE(message) << "after " << seen.size();
    seen.push_back(Member(json::parse(message->data), "stream"));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"\"orders-1\"", "\"orders-2\""}));
  // Live: what it may not read is skipped, what it may arrives.
  AppendAsAdmin("payments-2");
  MakeKey("noise", {"reader"});  // an $audit event
  const std::int64_t theirs = AppendAsAdmin("orders-3");
  auto live = sse.NextMessage(10s);
  ASSERT_TRUE(live);
  EXPECT_EQ(live->id, std::to_string(theirs)) << live->data;
  EXPECT_EQ(Member(json::parse(live->data), "stream"), "\"orders-3\"");
  sse.Close();
}

// --- The API beyond single streams ---------------------------------------------

// A commit needs the write right on every stream it names: one stream out
// of reach refuses the whole commit (403), and nothing is written.
TEST_F(AuthScopeTest, ACommitNeedsTheWriteRightOnEveryStream) {
  const std::string orders = MakeKey("orders", {"orders-writer"});
  const std::string reader = MakeKey("reader", {"reader"});
  const std::string mine = R"({"stream":"orders-1","events":[{"type":"Placed"}]})";
  const std::string theirs = R"({"stream":"payments-1","events":[{"type":"Paid"}]})";
  const std::string before = Snapshot();
  EXPECT_TRUE(IsRefusal(
      http().Post("/commits", R"({"appends":[)" + mine + "," + theirs + "]}", Bearer(orders)),
      403));
  EXPECT_TRUE(
      IsRefusal(http().Post("/commits", R"({"appends":[)" + mine + "]}", Bearer(reader)), 403));
  EXPECT_TRUE(IsRefusal(http().Post("/commits", R"({"appends":[)" + mine + "]}"), 401));
  EXPECT_EQ(Snapshot(), before) << "a refused commit wrote something";
  const HttpResponse allowed =
      http().Post("/commits", R"({"appends":[)" + mine + "]}", Bearer(orders));
  EXPECT_EQ(allowed.status, 201u) << allowed.body;
  // The state record is read like the stream.
  EXPECT_TRUE(IsError(http().Get("/streams/orders-1/state", Bearer(reader)), 404, "not_found"));
  EXPECT_TRUE(IsRefusal(http().Get("/streams/orders-1/state"), 401));
}

// The listing shows a principal only the streams it may read; `$` streams
// only to admins.
TEST_F(AuthScopeTest, TheListingShowsOnlyWhatThePrincipalMayRead) {
  const std::string analyst = MakeKey("analyst", {"analyst"});  // read: prefix "orders-"
  AppendAsAdmin("orders-1");
  AppendAsAdmin("orders/eu");
  AppendAsAdmin("payments-1");
  const auto names = [&](const std::string& key) {
    std::vector<std::string> out;
    const json::value page = http().Get("/streams?limit=1000", Bearer(key)).Json();
    for (const json::value& info : page.at("streams").as_array())
      out.push_back(StringOf(info.as_object(), "stream"));
    return out;
  };
  EXPECT_EQ(names(analyst), (std::vector<std::string>{"orders-1"}));
  const std::vector<std::string> all = names(admin());
  EXPECT_EQ(all.front(), "$audit") << "the key made above was audited";
  EXPECT_EQ(std::vector<std::string>(all.begin() + 1, all.end()),
            (std::vector<std::string>{"orders-1", "orders/eu", "payments-1"}));
  const std::string payer = MakeKey("payer", {"orders-ops"});  // consumers+read on orders
  EXPECT_EQ(names(payer), (std::vector<std::string>{"orders-1", "orders/eu"}));
  EXPECT_TRUE(IsRefusal(http().Get("/streams"), 401));
}

// An event by id is found only in a stream the caller may read: elsewhere
// it is not found, as an id no event has (a 403 would say it exists).
TEST_F(AuthScopeTest, AnEventByIdIsFoundOnlyWhereThePrincipalMayRead) {
  const std::string analyst = MakeKey("analyst", {"analyst"});  // read: prefix "orders-"
  const std::string order = NewUuid();
  const std::string payment = NewUuid();
  for (const auto& [stream, id] : {std::pair{"orders-1", order}, {"payments-1", payment}}) {
    const HttpResponse made = http().Post(std::string("/streams/") + stream,
                                          EventJson("Happened", "{}", id), Bearer(admin()));
    ASSERT_EQ(made.status, 201u) << made.body;
  }
  EXPECT_EQ(http().Get("/events/" + order, Bearer(analyst)).status, 200u);
  const HttpResponse hidden = http().Get("/events/" + payment, Bearer(analyst));
  EXPECT_EQ(hidden.status, 404u) << hidden.body;
  EXPECT_EQ(hidden.body.find("payments"), std::string::npos) << hidden.body;
  EXPECT_EQ(http().Get("/events/" + payment, Bearer(admin())).status, 200u);
  EXPECT_TRUE(IsRefusal(http().Get("/events/" + order), 401));
}

// A subscription opened with a key ends once the key is revoked (or
// expires): it checks its credentials again before a read once the key
// cache time passed, so it delivers nothing after the revocation.
TEST_F(AuthScopeTest, ASubscriptionEndsWhenItsKeyIsRevoked) {
  const std::string key = MakeKey("tail", {"reader"});
  testutil::SseReader sse(server().port(), "/subscribe/all", Bearer(key));
  ASSERT_TRUE(sse.ReadHead());
  ASSERT_EQ(sse.status(), 200u);
  AppendAsAdmin("orders-1");
  ASSERT_TRUE(sse.NextMessage(10s)) << "the live subscription delivers";
  ASSERT_EQ(http().Delete("/keys/tail", Bearer(admin())).status, 200u);
  ASSERT_TRUE(IsRefusal(http().Get("/all", Bearer(key)), 401));
  AppendAsAdmin("orders-2");
  const auto after = sse.NextMessage(3s);
  EXPECT_FALSE(after) << "the revoked key's subscription delivered " << after->data;
}

// --- Consumer groups ---------------------------------------------------------

TEST_F(AuthScopeTest, ConsumerGroupsOnlyOverWhatThePrincipalMayRead) {
  const std::string ops = MakeKey("orders-ops", {"orders-ops"});  // consumers+read on orders
  AppendAsAdmin("orders-1");
  AppendAsAdmin("payments-1");
  AppendAsAdmin("orders-2");

  // Filtered by a category it reads: allowed, and delivers only that.
  EXPECT_EQ(http().Request("PUT", "/consumers/orders-proj?category=orders", Bearer(ops)).status,
            201u);
  const json::value pulled =
      http().Post("/consumers/orders-proj/pull?consumer=c&max=100", "{}", Bearer(ops)).Json();
  ASSERT_TRUE(pulled.is_object()) << json::serialize(pulled);
  std::vector<std::string> streams;
  for (const json::value& d : pulled.at("deliveries").as_array())
    streams.push_back(std::string(d.at("event").at("stream").as_string()));
  EXPECT_EQ(streams, (std::vector<std::string>{"orders-1", "orders-2"}));

  const std::string before = Snapshot();
  // Unfiltered, or filtered by what it may not read: refused.
  EXPECT_TRUE(IsRefusal(http().Request("PUT", "/consumers/orders-all", Bearer(ops)), 403));
  EXPECT_TRUE(IsRefusal(
      http().Request("PUT", "/consumers/orders-pay?category=payments", Bearer(ops)), 403));
  EXPECT_TRUE(
      IsRefusal(http().Request("PUT", "/consumers/orders-x?prefix=orders", Bearer(ops)), 403))
      << "prefix 'orders' also selects 'ordersx-...', which it may not read";
  // A group whose name its rules do not cover: refused whatever the filter.
  EXPECT_TRUE(IsRefusal(
      http().Request("PUT", "/consumers/payments-proj?category=orders", Bearer(ops)), 403));
  EXPECT_EQ(Changes(before, Snapshot()), "");

  // An existing unfiltered group it may manage by name: no pull.
  MakeGroup("orders-unfiltered");
  MakeGroup("payments-proj", "?category=payments");
  const std::string made = Snapshot();
  EXPECT_TRUE(IsRefusal(
      http().Post("/consumers/orders-unfiltered/pull?consumer=c", "{}", Bearer(ops)), 403));
  EXPECT_TRUE(
      IsRefusal(http().Post("/consumers/payments-proj/pull?consumer=c", "{}", Bearer(ops)), 403));
  EXPECT_EQ(Changes(made, Snapshot()), "") << "a refused pull leased events";
  // The admin pulls it.
  EXPECT_EQ(
      http().Post("/consumers/orders-unfiltered/pull?consumer=c", "{}", Bearer(admin())).status,
      200u);

  // The list shows the groups it may manage only.
  const json::value listed = http().Get("/consumers", Bearer(ops)).Json();
  std::vector<std::string> names;
  for (const json::value& g : listed.at("consumers").as_array())
    names.push_back(std::string(g.at("group").as_string()));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"orders-proj", "orders-unfiltered"}));
}

// --- The audit trail ---------------------------------------------------------

TEST_F(AuthScopeTest, EachAdministrativeActAppendsOneAuditEvent) {
  // Each act, and what its one audit event says.
  const auto act = [&](const std::string& type, const std::function<HttpResponse()>& request,
                       const std::string& target, const std::string& outcome) {
    const std::size_t before = AuditOf(type).size();
    const HttpResponse answer = request();
    const std::vector<json::object> after = AuditOf(type);
    ASSERT_EQ(after.size(), before + 1) << type << " after " << answer.status << answer.body;
    const json::object data = AuditData(after.back());
    EXPECT_EQ(Member(data, "principal"), "\"key:bootstrap\"") << type;
    EXPECT_TRUE(StringOf(data, "source").starts_with("127.0.0.1:")) << json::serialize(data);
    EXPECT_EQ(StringOf(data, "target"), target) << type;
    EXPECT_EQ(StringOf(data, "outcome"), outcome) << type;
    EXPECT_EQ(IntOf(data, "status"), static_cast<std::int64_t>(answer.status)) << type;
  };
  const Headers as = Bearer(admin());

  AppendAsAdmin("orders-9");
  act(
      "audit.stream.delete",
      [&] {
        return http().Delete("/streams/orders-9", {as[0], {"If-Match", "\"7\""}});
      },
      "orders-9", "conflict");
  act(
      "audit.stream.delete", [&] { return http().Delete("/streams/orders-9", as); }, "orders-9",
      "ok");

  act(
      "audit.consumers.create", [&] { return http().Request("PUT", "/consumers/g1", as); }, "g1",
      "ok");
  for (const char* what : {"skip", "retry", "replay"}) {
    const std::string type = std::string("audit.consumers.") + what;
    const std::size_t before = AuditOf(type).size();
    const HttpResponse answer = http().Post(std::string("/consumers/g1/") + what, "{}", as);
    const std::vector<json::object> after = AuditOf(type);
    ASSERT_EQ(after.size(), before + 1) << type << answer.body;
    const json::object data = AuditData(after.back());
    EXPECT_EQ(StringOf(data, "target"), "g1");
    EXPECT_EQ(IntOf(data, "status"), static_cast<std::int64_t>(answer.status)) << type;
    EXPECT_EQ(StringOf(data, "outcome") == "ok", answer.status < 300) << json::serialize(data);
  }
  act(
      "audit.consumers.delete", [&] { return http().Delete("/consumers/g1", as); }, "g1", "ok");

  act(
      "audit.key.create",
      [&] { return http().Post("/keys", R"({"name":"audited","roles":["reader"]})", as); },
      "audited", "ok");
  const json::value keys = http().Get("/keys", as).Json();
  std::string id;
  for (const json::value& k : keys.at("keys").as_array())
    if (k.at("name").as_string() == "audited") id = std::string(k.at("id").as_string());
  ASSERT_FALSE(id.empty());
  act(
      "audit.key.revoke", [&] { return http().Delete("/keys/" + id, as); }, id, "ok");
  act(
      "audit.key.revoke", [&] { return http().Delete("/keys/" + id, as); }, id, "not_found");

  // Reads are not acts.
  const std::size_t events = StreamAsAdmin("$audit").size();
  http().Get("/all", as);
  http().Get("/keys", as);
  http().Get("/consumers", as);
  EXPECT_EQ(StreamAsAdmin("$audit").size(), events);
}

TEST_F(AuthScopeTest, TenFailedAuthenticationsFromOneAddressAreOneAuditEvent) {
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(http().Get("/all", Bearer(std::string(kUnknownKey))).status, 401u);
  std::vector<json::object> failures;
  for (int i = 0; i < 500 && failures.empty(); ++i) {
    failures = AuditOf("audit.auth.failures");
    if (failures.empty()) std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(failures.size(), 1u);
  const json::object data = AuditData(failures[0]);
  EXPECT_EQ(StringOf(data, "outcome"), "unauthorized");
  EXPECT_EQ(IntOf(data, "status"), 401);
  EXPECT_TRUE(StringOf(data, "source").starts_with("127.0.0.1")) << json::serialize(data);
  EXPECT_NE(StringOf(data, "detail").find("10"), std::string::npos) << json::serialize(data);
  // Five more (not a power of ten), then an act whose audit event is
  // written before its answer: still one.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(http().Get("/all").status, 401u);
  MakeKey("after-failures", {"reader"});
  EXPECT_EQ(AuditOf("audit.auth.failures").size(), 1u);
}

TEST_F(AuthScopeTest, TheAuditTrailIsTheAdminsAlone) {
  AppendAsAdmin("orders-1");
  ASSERT_EQ(http().Delete("/streams/orders-1", Bearer(admin())).status, 200u);
  for (const char* role : {"operator", "writer", "reader", "key-manager"}) {
    const std::string key = MakeKey(std::string("k-") + role, {role});
    EXPECT_TRUE(IsRefusal(http().Get("/streams/$audit", Bearer(key)), 403)) << role;
    EXPECT_TRUE(IsRefusal(http().Get("/streams/$audit/head", Bearer(key)), 403)) << role;
    EXPECT_TRUE(IsRefusal(http().Get("/streams/%24audit", Bearer(key)), 403)) << role;
    EXPECT_TRUE(IsRefusal(http().Get("/subscribe/streams/%24audit", Bearer(key)), 403)) << role;
    EXPECT_TRUE(IsRefusal(http().Delete("/streams/$audit", Bearer(key)), 403)) << role;
    EXPECT_TRUE(
        IsRefusal(http().Post("/streams/$audit", EventJson("audit.forged"), Bearer(key)), 403))
        << role;
    EXPECT_TRUE(EventsOf(http().Get("/all?category=$audit", Bearer(key)).Json()).empty()) << role;
  }
  EXPECT_EQ(http().Get("/streams/$audit", Bearer(admin())).status, 200u);
  // Not even the admin rewrites it: it is append-only, by the store alone.
  EXPECT_EQ(http().Post("/streams/$audit", EventJson("audit.forged"), Bearer(admin())).status,
            400u);
  EXPECT_EQ(http().Delete("/streams/$audit", Bearer(admin())).status, 400u);
  EXPECT_EQ(http().Get("/streams/$audit/head", Bearer(admin())).status, 200u);
}

// "401 means no or bad credentials, 403 not allowed; nothing is written on
// either" (DESIGN.md): a 403 a handler decides (a key with a role its maker
// does not hold, a group over streams its maker may not read) writes no
// audit event, like a 403 of the route's declared access.
TEST_F(AuthScopeTest, ARefusedActIsNotWrittenToTheAuditTrail) {
  const std::string manager = MakeKey("manager", {"key-manager"});
  const std::string ops = MakeKey("ops", {"orders-ops"});
  const std::size_t before = StreamAsAdmin("$audit").size();
  EXPECT_TRUE(IsRefusal(http().Delete("/streams/orders-1", Bearer(ops)), 403));  // route
  EXPECT_EQ(StreamAsAdmin("$audit").size(), before);
  EXPECT_TRUE(
      IsRefusal(http().Post("/keys", R"({"name":"up","roles":["reader"]})", Bearer(manager)), 403));
  EXPECT_TRUE(IsRefusal(http().Request("PUT", "/consumers/orders-all", Bearer(ops)), 403));
  const auto after = StreamAsAdmin("$audit");
  EXPECT_EQ(after.size(), before) << "a refused act was appended: "
                                  << json::serialize(after.back());
}

TEST(AuthOffAudit, NothingIsAppendedToTheAuditTrailWithoutAuthentication) {
  testutil::TempDir tmp;
  Launched server(INDELIBLE_PATH,
                  {"serve", "--store", "file:" + tmp.Sub("data"), "--listen", "127.0.0.1:0"},
                  tmp.path().string());
  ASSERT_TRUE(server.Start()) << server.output();
  HttpClient http(server.port());
  ASSERT_EQ(http.Post("/streams/orders-1", EventJson("A")).status, 201u);
  EXPECT_EQ(http.Delete("/streams/orders-1").status, 200u);
  EXPECT_EQ(http.Request("PUT", "/consumers/g").status, 201u);
  EXPECT_EQ(http.Post("/consumers/g/skip", "{}").status / 100, 4u);
  EXPECT_EQ(http.Delete("/consumers/g").status, 200u);
  // Keys are not managed over HTTP without authentication (an admin key
  // minted now would count once it is turned on).
  EXPECT_TRUE(IsRefusal(http.Post("/keys", R"({"name":"k","roles":["reader"]})"), 403));
  EXPECT_TRUE(IsRefusal(http.Delete("/keys/k"), 403));
  for (int i = 0; i < 12; ++i) http.Get("/all", Bearer(std::string(kUnknownKey)));
  EXPECT_TRUE(IsError(http.Get("/streams/$audit"), 404, "not_found"));
  const std::vector<json::object> all = EventsOf(http.Get("/all?limit=10000").Json());
  for (const json::object& event : all)
    EXPECT_FALSE(StringOf(event, "stream").starts_with("$audit")) << json::serialize(event);
  // whoami says authentication is off.
  EXPECT_EQ(Member(http.Get("/auth/whoami").Json(), "authentication"), "false");
}

}  // namespace
}  // namespace indelible
