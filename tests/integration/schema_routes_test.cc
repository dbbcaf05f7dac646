// The schema registry over HTTP (docs/SCHEMAS.md, "HTTP"), on a server in
// this process serving a plain memory store (which RunServer wraps in a
// SchemaStore): registration and its refusals, settings, an event written
// as V1 read as V2 through GET /streams, GET /all and SSE and as stored
// with raw=1, an enforced schema refusing an append that then wrote
// nothing, the admin right for changes (audited), and the C++ client's
// Schemas and raw reads against the live server.
#include <gtest/gtest.h>
#include <indelible/client.h>
#include <indelible/schemas.h>
#include <indelible/server.h>
#include <indelible/store.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>
#include <tuple>

#include "testutil/http_client.h"
#include "testutil/in_process_server.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testutil::Headers;
using testutil::HttpResponse;

constexpr std::string_view kV1 =
    R"({"type":"object","properties":{"total":{"type":"number"}},"required":["total"]})";
constexpr std::string_view kV2 =
    R"({"type":"object","properties":{"amount":{"type":"number"},"currency":{"type":"string"}},)"
    R"("required":["amount","currency"]})";

std::string Register(std::string_view version, std::string_view schema) {
  return R"({"version":")" + std::string(version) + R"(","schema":)" + std::string(schema) + "}";
}

// `status` and, for an error, its kind.
::testing::AssertionResult Is(const HttpResponse& answer, unsigned status,
                              std::string_view error = {}) {
  if (answer.status == status &&
      (error.empty() || (answer.Json().is_object() && answer.Json().as_object().contains("error") &&
                         answer.Json().at("error") == json::value(error))))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << status << " " << error << ", got "
                                       << answer.status << " " << answer.body << answer.error;
}

// The events of a page, or of one SSE message's data.
json::array EventsOf(const HttpResponse& answer) {
  const json::value body = answer.Json();
  if (!body.is_object() || !body.as_object().contains("events")) return {};
  return body.at("events").as_array();
}

class ServerOn {
 public:
  explicit ServerOn(ServeOptions options = {}) {
    auto store = Store::Open("memory:");
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    options.io_threads = 2;
    server_ = std::make_unique<testutil::InProcessServer>(*store_, options);
    EXPECT_TRUE(server_->AwaitListening());
  }
  ~ServerOn() { EXPECT_TRUE(server_->Stop().ok()); }

  int port() const { return server_->port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  Store& store() { return *store_; }

 private:
  std::unique_ptr<Store> store_;
  std::unique_ptr<testutil::InProcessServer> server_;
};

class SchemaRoutesTest : public ::testing::Test {
 protected:
  HttpResponse Put(std::string_view target, std::string_view body) {
    return http_.Request("PUT", target, {{"Content-Type", "application/json"}}, body);
  }

  ServerOn server_;
  testutil::HttpClient http_{server_.port(), 10s};
};

TEST_F(SchemaRoutesTest, RegistersListsShowsAndRefuses) {
  const std::string path = "/schemas/Order.Placed/versions";
  auto made = http_.Post(path, Register("V1", kV1));
  ASSERT_TRUE(Is(made, 201));
  EXPECT_EQ(made.Json().at("number"), 1);
  EXPECT_EQ(made.Json().at("version"), "V1");
  EXPECT_TRUE(made.Json().at("schema").is_object()) << made.body;  // a value, not a string
  EXPECT_TRUE(made.Json().at("registeredAt").is_int64()) << made.body;
  // The same again: a no-op; the label with another schema: a conflict.
  EXPECT_TRUE(Is(http_.Post(path, Register("V1", kV1)), 200));
  EXPECT_TRUE(Is(http_.Post(path, Register("V1", R"({"type":"object"})")), 409, "conflict"));
  // Backward (the default): V2 must accept what V1 did; a new required
  // member breaks it.
  EXPECT_TRUE(Is(http_.Post(path, Register("V2", kV2)), 422, "rejected"));
  EXPECT_TRUE(Is(http_.Post(path, R"({"schema":{}})"), 400, "invalid"));
  EXPECT_TRUE(Is(http_.Post(path, Register("V2", R"({"type":12})")), 400, "invalid"));

  auto listed = http_.Get("/schemas");
  ASSERT_TRUE(Is(listed, 200));
  const json::value listing = listed.Json();
  const json::array& types = listing.at("types").as_array();
  ASSERT_EQ(types.size(), 1u) << listed.body;
  EXPECT_EQ(types[0].at("type"), "Order.Placed");
  EXPECT_EQ(types[0].at("versions").as_array().size(), 1u);
  EXPECT_TRUE(listing.at("categories").is_object());
  EXPECT_TRUE(listing.at("default").is_object());

  auto shown = http_.Get("/schemas/Order.Placed");
  ASSERT_TRUE(Is(shown, 200));
  EXPECT_EQ(shown.Json().at("versions").at(0).at("schema"), json::parse(kV1));
  EXPECT_TRUE(Is(http_.Get("/schemas/Order.Nothing"), 404, "not_found"));
  auto version = http_.Get("/schemas/Order.Placed/versions/V1");
  ASSERT_TRUE(Is(version, 200));
  EXPECT_EQ(version.Json().at("schema"), json::parse(kV1));
  EXPECT_TRUE(Is(http_.Get("/schemas/Order.Placed/versions/V9"), 404, "not_found"));

  auto compatible = http_.Post("/schemas/Order.Placed/check", R"({"schema":{"type":"object"}})");
  ASSERT_TRUE(Is(compatible, 200));
  EXPECT_EQ(compatible.Json(), json::parse(R"({"compatible":true})"));
  auto breaking =
      http_.Post("/schemas/Order.Placed/check", R"({"schema":)" + std::string(kV2) + "}");
  ASSERT_TRUE(Is(breaking, 200));
  EXPECT_EQ(breaking.Json().at("compatible"), false);
  EXPECT_FALSE(breaking.Json().at("reason").as_string().empty()) << breaking.body;
  EXPECT_TRUE(Is(http_.Post("/schemas/Order.Placed/check", "{}"), 400, "invalid"));

  auto valid = http_.Post("/schemas/Order.Placed/validate", R"({"data":{"total":5}})");
  ASSERT_TRUE(Is(valid, 200));
  EXPECT_EQ(valid.Json(), json::parse(R"({"valid":true})"));
  auto not_valid =
      http_.Post("/schemas/Order.Placed/validate", R"({"version":"V1","data":{"total":"5"}})");
  ASSERT_TRUE(Is(not_valid, 200));
  EXPECT_EQ(not_valid.Json().at("valid"), false);
  EXPECT_EQ(not_valid.Json().at("pointer"), "/total") << not_valid.body;
  EXPECT_FALSE(not_valid.Json().at("rule").as_string().empty());
  EXPECT_TRUE(
      Is(http_.Post("/schemas/Order.Nothing/validate", R"({"data":{}})"), 404, "not_found"));
  EXPECT_TRUE(Is(http_.Post("/schemas/Order.Placed/validate", R"({"version":"V9","data":{}})"), 404,
                 "not_found"));
}

TEST_F(SchemaRoutesTest, SettingsOfATypeACategoryAndTheDefault) {
  ASSERT_TRUE(Is(http_.Post("/schemas/Order.Placed/versions", Register("V1", kV1)), 201));
  auto type = Put("/schemas/Order.Placed/settings", R"({"compatibility":"none"})");
  ASSERT_TRUE(Is(type, 200));
  EXPECT_EQ(type.Json(), json::parse(R"({"compatibility":"none"})"));
  // A field not sent keeps its value.
  type = Put("/schemas/Order.Placed/settings", R"({"mode":"warn"})");
  ASSERT_TRUE(Is(type, 200));
  EXPECT_EQ(type.Json(), json::parse(R"({"mode":"warn","compatibility":"none"})"));
  EXPECT_EQ(http_.Get("/schemas/Order.Placed").Json().at("settings"), type.Json());
  // With compatibility none, V2 goes in.
  EXPECT_TRUE(Is(http_.Post("/schemas/Order.Placed/versions", Register("V2", kV2)), 201));

  auto category = Put("/schema-settings/categories/order", R"({"mode":"enforce"})");
  ASSERT_TRUE(Is(category, 200));
  EXPECT_EQ(category.Json(), json::parse(R"({"mode":"enforce"})"));
  auto fallback = Put("/schema-settings/default", R"({"compatibility":"full"})");
  ASSERT_TRUE(Is(fallback, 200));
  EXPECT_EQ(fallback.Json().at("compatibility"), "full");
  auto settings = http_.Get("/schema-settings");
  ASSERT_TRUE(Is(settings, 200));
  EXPECT_EQ(settings.Json().at("categories").at("order"), category.Json());
  EXPECT_EQ(settings.Json().at("default").at("compatibility"), "full");

  auto bad = Put("/schema-settings/default", R"({"mode":"loud"})");
  ASSERT_TRUE(Is(bad, 400, "invalid"));
  EXPECT_EQ(bad.Json().at("field"), "mode");
  EXPECT_TRUE(Is(Put("/schemas/Order.Placed/settings", R"({"strict":true})"), 400, "invalid"));
}

TEST_F(SchemaRoutesTest, AnEventWrittenAsV1IsReadAsV2AndRawAsStored) {
  ASSERT_TRUE(Is(http_.Post("/schemas/Order.Placed/versions", Register("V1", kV1)), 201));
  ASSERT_TRUE(Is(
      http_.Post("/streams/order-1", R"({"type":"Order.Placed","schema":"V1","data":{"total":5}})"),
      201));
  ASSERT_TRUE(Is(Put("/schemas/Order.Placed/settings", R"({"compatibility":"none"})"), 200));
  ASSERT_TRUE(Is(http_.Post("/schemas/Order.Placed/versions", Register("V2", kV2)), 201));
  // Not the step after V1: refused. Then the upcaster V1 to V2.
  EXPECT_TRUE(Is(http_.Post("/schemas/Order.Placed/upcasters", R"({"from":"V2","to":"V1"})"), 400,
                 "invalid"));
  auto upcaster = http_.Post("/schemas/Order.Placed/upcasters",
                             R"({"from":"V1","to":"V2","renames":{"/total":"/amount"},)"
                             R"("defaults":{"/currency":"EUR"}})");
  ASSERT_TRUE(Is(upcaster, 201));
  EXPECT_EQ(upcaster.Json().at("patch"), json::array());
  EXPECT_EQ(http_.Get("/schemas/Order.Placed").Json().at("upcasters").as_array().size(), 1u);

  const json::value upcast = json::parse(R"({"amount":5,"currency":"EUR"})");
  const json::value stored = json::parse(R"({"total":5})");
  const auto expect_event = [](const json::value& event, std::string_view schema,
                               const json::value& data) {
    EXPECT_EQ(event.at("schema"), json::value(schema)) << event;
    EXPECT_EQ(event.at("data"), data) << event;
  };
  // $all holds $schemas' events too: the type filter leaves them out.
  for (const std::string target : {"/streams/order-1?limit=10", "/all?type=Order.Placed"}) {
    auto read = http_.Get(target);
    ASSERT_TRUE(Is(read, 200));
    ASSERT_EQ(EventsOf(read).size(), 1u) << read.body;
    expect_event(EventsOf(read)[0], "V2", upcast);
    for (const char* raw : {"&raw=1", "&raw=true"}) {
      auto as_stored = http_.Get(target + raw);
      ASSERT_TRUE(Is(as_stored, 200));
      ASSERT_EQ(EventsOf(as_stored).size(), 1u) << as_stored.body;
      expect_event(EventsOf(as_stored)[0], "V1", stored);
    }
    auto bad = http_.Get(target + "&raw=yes");
    ASSERT_TRUE(Is(bad, 400, "invalid"));
    EXPECT_EQ(bad.Json().at("field"), "raw");
  }
  // /events/{id} reads through the SchemaStore too.
  auto id = EventsOf(http_.Get("/streams/order-1"))[0].at("id").as_string();
  expect_event(http_.Get("/events/" + std::string(id)).Json(), "V2", upcast);

  for (const std::string target :
       {"/subscribe/streams/order-1?from=0", "/subscribe/all?type=Order.Placed"}) {
    for (const auto& [query, schema, data] :
         {std::tuple{"", "V2", &upcast}, std::tuple{"&raw=1", "V1", &stored}}) {
      testutil::SseReader sse(server_.port(), target + query);
      auto message = sse.NextMessage(10s);
      ASSERT_TRUE(message.has_value()) << target << query;
      expect_event(json::parse(message->data), schema, *data);
    }
    testutil::SseReader bad(server_.port(), target + "&raw=2");
    ASSERT_TRUE(bad.ReadHead());
    EXPECT_EQ(bad.status(), 400u) << target;
  }
  // A consumer group's deliveries read through the SchemaStore too.
  ASSERT_TRUE(Is(http_.Request("PUT", "/consumers/orders?type=Order.Placed"), 201));
  auto pulled = http_.Post("/consumers/orders/pull?consumer=w&max=10", "");
  ASSERT_TRUE(Is(pulled, 200));
  const json::value deliveries = pulled.Json().at("deliveries");
  ASSERT_EQ(deliveries.as_array().size(), 1u) << pulled.body;
  expect_event(deliveries.at(0).at("event"), "V2", upcast);

  // A live event, committed after the subscriber caught up, comes upcast too.
  testutil::SseReader live(server_.port(), "/subscribe/streams/order-1?from=end");
  ASSERT_TRUE(live.ReadHead());
  for (int i = 0; i < 50 && live.comments().empty(); ++i) (void)live.Next(100ms);
  ASSERT_TRUE(Is(
      http_.Post("/streams/order-1", R"({"type":"Order.Placed","schema":"V1","data":{"total":7}})"),
      201));
  auto message = live.NextMessage(10s);
  ASSERT_TRUE(message.has_value());
  expect_event(json::parse(message->data), "V2", json::parse(R"({"amount":7,"currency":"EUR"})"));
}

TEST_F(SchemaRoutesTest, AnEnforcedSchemaRefusesABadAppendAndNothingIsWritten) {
  ASSERT_TRUE(Is(http_.Post("/schemas/Order.Placed/versions", Register("V1", kV1)), 201));
  ASSERT_TRUE(Is(Put("/schemas/Order.Placed/settings", R"({"mode":"enforce"})"), 200));
  const std::string good = R"({"type":"Order.Placed","schema":"V1","data":{"total":5}})";
  const std::string bad = R"({"type":"Order.Placed","schema":"V1","data":{"total":"5"}})";
  auto refused = http_.Post("/streams/order-2", "[" + good + "," + bad + "]");
  ASSERT_TRUE(Is(refused, 400, "invalid"));
  const std::string field(refused.Json().at("field").as_string());
  EXPECT_NE(field.find("1"), std::string::npos) << field;  // the event's index
  EXPECT_NE(field.find("/total"), std::string::npos) << field;
  EXPECT_TRUE(Is(http_.Get("/streams/order-2"), 404, "not_found"));
  // The same through /commits, and a good append goes in.
  auto commit =
      http_.Post("/commits", R"({"appends":[{"stream":"order-3","events":[)" + bad + "]}]}");
  EXPECT_TRUE(Is(commit, 400, "invalid"));
  EXPECT_TRUE(Is(http_.Get("/streams/order-3"), 404, "not_found"));
  EXPECT_TRUE(Is(http_.Post("/streams/order-2", good), 201));
  // /metrics counts them: two refusals (the append, the commit), three checks that passed or not.
  const std::string metrics = http_.Get("/metrics").body;
  EXPECT_NE(metrics.find("indelible_schema_refusals_total 2\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("indelible_schema_validations_total 4\n"), std::string::npos) << metrics;
}

// Authentication on: a bootstrap admin key, and a reader key it made.
class SchemaRoutesAuthTest : public ::testing::Test {
 protected:
  static ServeOptions WithAuth(const testutil::TempDir& dir) {
    ServeOptions options;
    options.auth.enabled = true;
    options.auth.bootstrap_key_file = dir.Sub("admin.key");
    return options;
  }

  void SetUp() override {
    std::ifstream file(dir_.Sub("admin.key"));
    std::getline(file, admin_key_);
    ASSERT_FALSE(admin_key_.empty());
    auto made = http_.Post("/keys", R"({"name":"reader-1","roles":["reader"]})", Admin());
    ASSERT_TRUE(Is(made, 201));
    reader_key_ = std::string(made.Json().at("key").as_string());
  }

  Headers Admin() const { return {{"Authorization", "Bearer " + admin_key_}}; }
  Headers Reader() const { return {{"Authorization", "Bearer " + reader_key_}}; }
  HttpResponse Put(std::string_view target, std::string_view body, Headers headers) {
    headers.emplace_back("Content-Type", "application/json");
    return http_.Request("PUT", target, headers, body);
  }

  testutil::TempDir dir_;
  ServerOn server_{WithAuth(dir_)};
  testutil::HttpClient http_{server_.port(), 10s};
  std::string admin_key_, reader_key_;
};

TEST_F(SchemaRoutesAuthTest, ReadingNeedsAPrincipalAndChangesAnAdmin) {
  const std::string versions = "/schemas/Order.Placed/versions";
  EXPECT_TRUE(Is(http_.Get("/schemas"), 401));
  EXPECT_TRUE(Is(http_.Post(versions, Register("V1", kV1)), 401));
  EXPECT_TRUE(Is(http_.Post(versions, Register("V1", kV1), Reader()), 403, "unauthorized"));
  EXPECT_TRUE(Is(Put("/schemas/Order.Placed/settings", R"({"mode":"warn"})", Reader()), 403));
  EXPECT_TRUE(Is(Put("/schema-settings/default", R"({"mode":"warn"})", Reader()), 403));
  EXPECT_TRUE(Is(Put("/schema-settings/categories/order", "{}", Reader()), 403));
  EXPECT_TRUE(Is(
      http_.Post("/schemas/Order.Placed/upcasters", R"({"from":"V1","to":"V2"})", Reader()), 403));
  EXPECT_TRUE(Is(http_.Get("/schemas", Reader()), 200));
  EXPECT_EQ(http_.Get("/schemas", Reader()).Json().at("types").as_array().size(), 0u);

  ASSERT_TRUE(Is(http_.Post(versions, Register("V1", kV1), Admin()), 201));
  ASSERT_TRUE(Is(Put("/schemas/Order.Placed/settings", R"({"mode":"warn"})", Admin()), 200));
  // Reading, checking and validating: any principal.
  EXPECT_TRUE(Is(http_.Get("/schemas/Order.Placed", Reader()), 200));
  EXPECT_TRUE(Is(http_.Get("/schemas/Order.Placed/versions/V1", Reader()), 200));
  EXPECT_TRUE(Is(http_.Get("/schema-settings", Reader()), 200));
  EXPECT_TRUE(Is(http_.Post("/schemas/Order.Placed/check", R"({"schema":{}})", Reader()), 200));
  EXPECT_TRUE(
      Is(http_.Post("/schemas/Order.Placed/validate", R"({"data":{"total":1}})", Reader()), 200));

  // The changes are in the audit trail (refusals are not, as everywhere).
  auto audit = http_.Get("/streams/%24audit?limit=1000", Admin());
  ASSERT_TRUE(Is(audit, 200));
  std::vector<std::string> acts;
  for (const json::value& event : EventsOf(audit)) {
    const json::value& data = event.at("data");
    if (data.at("principal") == "key:bootstrap" && data.at("act") != "key.create")
      acts.push_back(std::string(data.at("act").as_string()) + " " +
                     std::string(data.at("target").as_string()));
  }
  EXPECT_EQ(acts, (std::vector<std::string>{"schema.register Order.Placed",
                                            "schema.settings Order.Placed"}))
      << audit.body;
}

TEST_F(SchemaRoutesAuthTest, TheClientsRegistryNeedsAnAdminCredential) {
  ClientOptions options;
  options.credential = reader_key_;
  auto client = Client::Connect(server_.url(), options);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto refused = (*client)->schemas().Register("Order.Placed", "V1", kV1);
  EXPECT_EQ(refused.status().code(), ErrorCode::kUnauthorized) << refused.status().ToString();
  EXPECT_TRUE((*client)->schemas().List().empty());
}

TEST(SchemaClientTest, TheClientsSchemasOverALiveServer) {
  ServerOn server;
  auto client = Client::Connect(server.url());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  Schemas& schemas = (*client)->schemas();

  auto first = schemas.Register("Order.Placed", "V1", kV1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->created);
  EXPECT_EQ(first->version.number, 1u);
  EXPECT_EQ(json::parse(first->version.schema), json::parse(kV1));
  auto again = schemas.Register("Order.Placed", "V1", kV1);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->created);
  EXPECT_EQ(schemas.Register("Order.Placed", "V1", "{}").status().code(), ErrorCode::kConflict);
  EXPECT_EQ(schemas.Register("Order.Placed", "V2", kV2).status().code(), ErrorCode::kRejected);
  Status incompatible = schemas.CheckCompatible("Order.Placed", kV2);
  EXPECT_EQ(incompatible.code(), ErrorCode::kRejected);
  EXPECT_FALSE(incompatible.message().empty());
  EXPECT_TRUE(schemas.CheckCompatible("Order.Placed", R"({"type":"object"})").ok());

  ASSERT_TRUE(schemas.SetTypeSettings("Order.Placed", {std::nullopt, Compatibility::kNone}).ok());
  ASSERT_TRUE(schemas.Register("Order.Placed", "V2", kV2).ok());
  ASSERT_TRUE(schemas.SetCategorySettings("order", {SchemaMode::kWarn, std::nullopt}).ok());
  ASSERT_TRUE(schemas.SetDefaultSettings({std::nullopt, Compatibility::kFull}).ok());
  const auto categories = schemas.CategorySettings();
  ASSERT_EQ(categories.size(), 1u);
  EXPECT_EQ(categories[0].first, "order");
  EXPECT_EQ(categories[0].second.mode, SchemaMode::kWarn);
  EXPECT_EQ(schemas.DefaultSettings().compatibility, Compatibility::kFull);

  DeclarativeUpcaster upcaster;
  upcaster.type = "Order.Placed";
  upcaster.from = "V1";
  upcaster.to = "V2";
  upcaster.renames = R"({"/total":"/amount"})";
  upcaster.defaults = R"({"/currency":"EUR"})";
  ASSERT_TRUE(schemas.AddUpcaster(upcaster).ok());
  Status code_upcaster = schemas.AddUpcaster(
      "Order.Placed", "V1", "V2",
      [](const EventView& event) -> Result<std::string> { return std::string(event.data); });
  EXPECT_EQ(code_upcaster.code(), ErrorCode::kInvalid);
  EXPECT_NE(code_upcaster.message().find("C++ upcasters run in the process that reads"),
            std::string::npos);

  const auto listed = schemas.List();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].versions.size(), 2u);
  ASSERT_EQ(listed[0].upcasters.size(), 1u);
  EXPECT_EQ(json::parse(listed[0].upcasters[0].renames), json::parse(upcaster.renames));
  auto found = schemas.Find("Order.Placed");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->settings.compatibility, Compatibility::kNone);
  EXPECT_FALSE(schemas.Find("Order.Nothing").has_value());
  auto v2 = schemas.Find("Order.Placed", "V2");
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->number, 2u);
  EXPECT_FALSE(schemas.Find("Order.Placed", "V9").has_value());

  EventData event;
  event.type = "Order.Placed";
  event.schema = "V2";
  event.data = R"({"amount":"5","currency":"EUR"})";
  Status invalid = schemas.Validate(event);
  EXPECT_EQ(invalid.code(), ErrorCode::kInvalid);
  EXPECT_EQ(invalid.field(), "data/amount") << invalid.ToString();
  event.data = R"({"amount":5,"currency":"EUR"})";
  EXPECT_TRUE(schemas.Validate(event).ok());
  event.type = "Order.Nothing";
  EXPECT_EQ(schemas.Validate(event).code(), ErrorCode::kNotFound);
  EXPECT_TRUE(schemas.Refresh().ok());
  EXPECT_EQ(schemas.stats().validated, 0u);

  // The remote store reads upcast, and raw when asked.
  auto remote = OpenRemoteStore(server.url());
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  EventData old;
  old.type = "Order.Placed";
  old.schema = "V1";
  old.data = R"({"total":5})";
  ASSERT_TRUE((*remote)->Append("order-1", Expected::any(), {old}).ok());
  for (bool raw : {false, true}) {
    ReadStreamOptions options;
    options.raw = raw;
    auto cursor = (*remote)->ReadStream("order-1", options);
    ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
    ASSERT_TRUE((*cursor)->Valid());
    EXPECT_EQ((*cursor)->event().schema, raw ? "V1" : "V2");
    EXPECT_EQ(json::parse((*cursor)->event().data),
              json::parse(raw ? R"({"total":5})" : R"({"amount":5,"currency":"EUR"})"));
    ReadAllOptions all;
    all.filter.types = {"Order.Placed"};  // not $schemas' events
    all.raw = raw;
    auto all_cursor = (*remote)->ReadAll(all);
    ASSERT_TRUE(all_cursor.ok()) << all_cursor.status().ToString();
    ASSERT_TRUE((*all_cursor)->Valid());
    EXPECT_EQ((*all_cursor)->event().schema, raw ? "V1" : "V2");
    EXPECT_EQ((*all_cursor)->event().stream, "order-1");
  }
}

}  // namespace
}  // namespace indelible
