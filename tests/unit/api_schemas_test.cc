// The schema registry's documents (src/api/schemas.h): each written as the
// server writes it reads back, through the client's decoder, as what was
// written, schemas and transforms byte for byte; requests that are not the
// shape are invalid naming the field, answers that are not the API internal.
#include <gtest/gtest.h>

#include "api/schemas.h"

namespace indelible {
namespace {

SchemaVersion SampleVersion(std::uint32_t number = 2) {
  SchemaVersion version;
  version.type = "Order.Placed";
  version.version = "V" + std::to_string(number);
  version.number = number;
  // A number Boost.JSON would rewrite (1E0), and white space inside.
  version.schema =
      R"({"type": "object", "properties": {"amount": {"type": "number", "maximum": 1.0}}})";
  version.registered_ms = 1700000000123;
  return version;
}

DeclarativeUpcaster SampleUpcaster() {
  DeclarativeUpcaster upcaster;
  upcaster.type = "Order.Placed";
  upcaster.from = "V1";
  upcaster.to = "V2";
  upcaster.renames = R"({"/total":"/amount"})";
  upcaster.defaults = R"({"/currency":"EUR","/rate":1.0})";
  upcaster.patch = R"([{"op":"remove","path":"/legacy"}])";
  return upcaster;
}

void ExpectSameVersion(const SchemaVersion& got, const SchemaVersion& want) {
  EXPECT_EQ(got.type, want.type);
  EXPECT_EQ(got.version, want.version);
  EXPECT_EQ(got.number, want.number);
  EXPECT_EQ(got.schema, want.schema);
  EXPECT_EQ(got.registered_ms, want.registered_ms);
}

void ExpectSameUpcaster(const DeclarativeUpcaster& got, const DeclarativeUpcaster& want) {
  EXPECT_EQ(got.type, want.type);
  EXPECT_EQ(got.from, want.from);
  EXPECT_EQ(got.to, want.to);
  EXPECT_EQ(got.renames, want.renames);
  EXPECT_EQ(got.defaults, want.defaults);
  EXPECT_EQ(got.patch, want.patch);
}

void ExpectSameSettings(const SchemaSettings& got, const SchemaSettings& want) {
  EXPECT_EQ(got.mode, want.mode);
  EXPECT_EQ(got.compatibility, want.compatibility);
}

TEST(ApiSchemasTest, AVersionRoundTripsWithItsSchemaAsRegistered) {
  const SchemaVersion version = SampleVersion();
  const std::string text = api::SchemaVersionToJson(version);
  // The schema is a JSON value in the document, not a string.
  EXPECT_NE(text.find(R"("schema":{"type": "object")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("registeredAt":1700000000123)"), std::string::npos) << text;
  auto back = api::SchemaVersionFromJson(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameVersion(*back, version);
}

TEST(ApiSchemasTest, SettingsRoundTripWithUnsetFieldsLeftOut) {
  EXPECT_EQ(api::SchemaSettingsToJson({}), "{}");
  const SchemaSettings both{SchemaMode::kEnforce, Compatibility::kFullTransitive};
  const std::string text = api::SchemaSettingsToJson(both);
  EXPECT_EQ(text, R"({"mode":"enforce","compatibility":"full_transitive"})");
  auto back = api::SchemaSettingsFromJson(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameSettings(*back, both);
  auto request = api::SchemaSettingsRequestFromJson(text);
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  ExpectSameSettings(*request, both);
  auto only_mode = api::SchemaSettingsRequestFromJson(R"({"mode":"warn"})");
  ASSERT_TRUE(only_mode.ok());
  EXPECT_EQ(only_mode->mode, SchemaMode::kWarn);
  EXPECT_FALSE(only_mode->compatibility.has_value());
}

TEST(ApiSchemasTest, ATypeAndTheOverviewRoundTrip) {
  SchemaType type;
  type.type = "Order.Placed";
  type.versions = {SampleVersion(1), SampleVersion(2)};
  type.settings.compatibility = Compatibility::kNone;
  type.upcasters = {SampleUpcaster()};
  api::SchemaOverview overview;
  overview.types = {type, SchemaType{"Order.Shipped", {SampleVersion(1)}, {}, {}}};
  overview.types[1].versions[0].type = "Order.Shipped";
  overview.categories = {{"order", {SchemaMode::kEnforce, std::nullopt}},
                         {"invoice", {std::nullopt, Compatibility::kForward}}};
  overview.default_settings.mode = SchemaMode::kWarn;

  auto back = api::SchemaOverviewFromJson(api::SchemaOverviewToJson(overview));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->types.size(), 2u);
  EXPECT_EQ(back->types[0].type, "Order.Placed");
  ASSERT_EQ(back->types[0].versions.size(), 2u);
  ExpectSameVersion(back->types[0].versions[1], type.versions[1]);
  ExpectSameSettings(back->types[0].settings, type.settings);
  ASSERT_EQ(back->types[0].upcasters.size(), 1u);
  ExpectSameUpcaster(back->types[0].upcasters[0], type.upcasters[0]);
  EXPECT_EQ(back->types[1].type, "Order.Shipped");
  EXPECT_TRUE(back->types[1].upcasters.empty());
  ASSERT_EQ(back->categories.size(), 2u);
  EXPECT_EQ(back->categories[0].first, "order");  // in the order given
  ExpectSameSettings(back->categories[0].second, overview.categories[0].second);
  EXPECT_EQ(back->categories[1].first, "invoice");
  ExpectSameSettings(back->categories[1].second, overview.categories[1].second);
  ExpectSameSettings(back->default_settings, overview.default_settings);

  auto settings = api::SchemaSettingsListFromJson(api::SchemaSettingsListToJson(overview));
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_TRUE(settings->types.empty());
  ASSERT_EQ(settings->categories.size(), 2u);
  ExpectSameSettings(settings->default_settings, overview.default_settings);

  auto one = api::SchemaTypeFromJson(api::SchemaTypeToJson(type));
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->versions.size(), 2u);
  ExpectSameVersion(one->versions[0], type.versions[0]);
}

TEST(ApiSchemasTest, UpcastersRoundTripAsDocumentsAndAsRequests) {
  const DeclarativeUpcaster upcaster = SampleUpcaster();
  auto back = api::UpcasterFromJson(api::UpcasterToJson(upcaster));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameUpcaster(*back, upcaster);

  auto request = api::UpcasterRequestFromJson("Order.Placed", api::UpcasterRequestToJson(upcaster));
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  ExpectSameUpcaster(*request, upcaster);

  // Absent parts are the no-op defaults.
  auto bare = api::UpcasterRequestFromJson("Order.Placed", R"({"from":"V1","to":"V2"})");
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_EQ(bare->renames, "{}");
  EXPECT_EQ(bare->defaults, "{}");
  EXPECT_EQ(bare->patch, "[]");
}

TEST(ApiSchemasTest, RequestsAndAnswersRoundTrip) {
  auto registered = api::RegisterRequestFromJson(
      api::RegisterRequestToJson({"V3", R"({"type":"object","required":["id"]})"}));
  ASSERT_TRUE(registered.ok()) << registered.status().ToString();
  EXPECT_EQ(registered->version, "V3");
  EXPECT_EQ(registered->schema, R"({"type":"object","required":["id"]})");
  // A boolean is a schema too.
  auto accept_all = api::RegisterRequestFromJson(R"({"version":"V1","schema":true})");
  ASSERT_TRUE(accept_all.ok()) << accept_all.status().ToString();
  EXPECT_EQ(accept_all->schema, "true");

  auto checked = api::CheckRequestFromJson(api::CheckRequestToJson(R"({"type":"string"})"));
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_EQ(*checked, R"({"type":"string"})");
  for (const api::CompatibilityAnswer& answer :
       {api::CompatibilityAnswer{true, ""},
        api::CompatibilityAnswer{false,
                                 "backward: breaks V1: /required: 'currency' is required"}}) {
    auto back = api::CompatibilityAnswerFromJson(api::CompatibilityAnswerToJson(answer));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->compatible, answer.compatible);
    EXPECT_EQ(back->reason, answer.reason);
  }

  for (const api::ValidateRequest& request :
       {api::ValidateRequest{"V2", R"({"amount":"12"})"}, api::ValidateRequest{"", "[1,2.50]"}}) {
    auto back = api::ValidateRequestFromJson(api::ValidateRequestToJson(request));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->version, request.version);
    EXPECT_EQ(back->data, request.data);
  }
  for (const api::ValidationAnswer& answer :
       {api::ValidationAnswer{true, "", ""},
        api::ValidationAnswer{false, "/amount", "type: expected number, got string"},
        api::ValidationAnswer{false, "", "required: 'id' is missing"}}) {
    auto back = api::ValidationAnswerFromJson(api::ValidationAnswerToJson(answer));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->valid, answer.valid);
    EXPECT_EQ(back->pointer, answer.pointer);
    EXPECT_EQ(back->rule, answer.rule);
  }
}

TEST(ApiSchemasTest, RequestsNotOfTheirShapeAreInvalidNamingTheField) {
  const auto field_of = [](const Status& status) {
    EXPECT_EQ(status.code(), ErrorCode::kInvalid) << status.ToString();
    return status.field();
  };
  EXPECT_EQ(field_of(api::RegisterRequestFromJson("[]").status()), "body");
  EXPECT_EQ(field_of(api::RegisterRequestFromJson(R"({"schema":{}})").status()), "version");
  EXPECT_EQ(field_of(api::RegisterRequestFromJson(R"({"version":"V1"})").status()), "schema");
  EXPECT_EQ(field_of(api::CheckRequestFromJson("{}").status()), "schema");
  EXPECT_EQ(field_of(api::SchemaSettingsRequestFromJson(R"({"mode":"strict"})").status()), "mode");
  EXPECT_EQ(field_of(api::SchemaSettingsRequestFromJson(R"({"compatibility":null})").status()),
            "compatibility");
  EXPECT_EQ(field_of(api::SchemaSettingsRequestFromJson(R"({"mod":"warn"})").status()), "mod");
  EXPECT_EQ(field_of(api::UpcasterRequestFromJson("T", R"({"to":"V2"})").status()), "from");
  EXPECT_EQ(field_of(api::UpcasterRequestFromJson("T", R"({"from":"V1"})").status()), "to");
  EXPECT_EQ(
      field_of(api::UpcasterRequestFromJson("T", R"({"from":"V1","to":"V2","patch":{}})").status()),
      "patch");
  EXPECT_EQ(
      field_of(
          api::UpcasterRequestFromJson("T", R"({"from":"V1","to":"V2","renames":[]})").status()),
      "renames");
  EXPECT_EQ(field_of(api::ValidateRequestFromJson(R"({"version":"V1"})").status()), "data");
  EXPECT_EQ(field_of(api::ValidateRequestFromJson(R"({"version":2,"data":{}})").status()),
            "version");
}

TEST(ApiSchemasTest, AnswersThatAreNotTheApiAreInternal) {
  for (std::string_view body :
       {"", "[]", R"({"type":"T","version":"V1","number":1,"registeredAt":1})",
        R"({"type":"T","version":"V1","number":0,"schema":{},"registeredAt":1})"})
    EXPECT_EQ(api::SchemaVersionFromJson(body).status().code(), ErrorCode::kInternal) << body;
  EXPECT_EQ(api::SchemaSettingsFromJson(R"({"mode":"loud"})").status().code(),
            ErrorCode::kInternal);
  EXPECT_EQ(api::SchemaTypeFromJson(R"({"type":"T","versions":{},"settings":{},"upcasters":[]})")
                .status()
                .code(),
            ErrorCode::kInternal);
  EXPECT_EQ(api::SchemaOverviewFromJson(R"({"types":[],"default":{}})").status().code(),
            ErrorCode::kInternal);
  EXPECT_EQ(api::CompatibilityAnswerFromJson(R"({"compatible":false})").status().code(),
            ErrorCode::kInternal);
  EXPECT_EQ(api::ValidationAnswerFromJson(R"({"valid":"no"})").status().code(),
            ErrorCode::kInternal);
}

}  // namespace
}  // namespace indelible
