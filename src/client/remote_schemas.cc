// Client::schemas(): the Schemas interface over /schemas and
// /schema-settings (docs/SCHEMAS.md, "HTTP"), one request per call.
#include <fmt/format.h>

#include "api/schemas.h"
#include "api/wire.h"
#include "client/client_impl.h"

namespace indelible::client {
namespace {

namespace http = net::http;
using net::PercentEncode;

std::string TypePath(std::string_view type) { return "/schemas/" + PercentEncode(type); }

// ok when the answer has one of the statuses `want`, else the error the
// answer says.
Status Expect(const net::Response& answer, std::initializer_list<http::status> want) {
  for (http::status status : want)
    if (answer.result() == status) return Status::Ok();
  return api::StatusFromAnswer(answer.result_int(), answer.body());
}

class RemoteSchemas final : public Schemas {
 public:
  explicit RemoteSchemas(std::shared_ptr<net::HttpClient> http) : http_(std::move(http)) {}

  Result<RegisterResult> Register(std::string_view type, std::string_view version,
                                  std::string_view schema, std::string_view) override {
    // The server records the caller's credential as the principal.
    auto answer = Send(http::verb::post, TypePath(type) + "/versions",
                       api::RegisterRequestToJson({std::string(version), std::string(schema)}),
                       /*retry_safe=*/true);  // registering twice is a no-op
    if (!answer.ok()) return answer.status();
    if (Status s = Expect(*answer, {http::status::created, http::status::ok}); !s.ok()) return s;
    auto registered = api::SchemaVersionFromJson(answer->body());
    if (!registered.ok()) return registered.status();
    return RegisterResult{std::move(*registered), answer->result() == http::status::created};
  }

  Status CheckCompatible(std::string_view type, std::string_view schema) override {
    auto answer = Send(http::verb::post, TypePath(type) + "/check", api::CheckRequestToJson(schema),
                       /*retry_safe=*/true);
    if (!answer.ok()) return answer.status();
    if (Status s = Expect(*answer, {http::status::ok}); !s.ok()) return s;
    auto checked = api::CompatibilityAnswerFromJson(answer->body());
    if (!checked.ok()) return checked.status();
    return checked->compatible ? Status::Ok() : Status::Rejected(checked->reason);
  }

  Status SetTypeSettings(std::string_view type, const SchemaSettings& settings,
                         std::string_view) override {
    return PutSettings(TypePath(type) + "/settings", settings);
  }
  Status SetCategorySettings(std::string_view category, const SchemaSettings& settings,
                             std::string_view) override {
    return PutSettings("/schema-settings/categories/" + PercentEncode(category), settings);
  }
  Status SetDefaultSettings(const SchemaSettings& settings, std::string_view) override {
    return PutSettings("/schema-settings/default", settings);
  }

  Status AddUpcaster(const DeclarativeUpcaster& upcaster, std::string_view) override {
    auto answer = Send(http::verb::post, TypePath(upcaster.type) + "/upcasters",
                       api::UpcasterRequestToJson(upcaster), /*retry_safe=*/false);
    if (!answer.ok()) return answer.status();
    if (Status s = Expect(*answer, {http::status::created}); !s.ok()) return s;
    return api::UpcasterFromJson(answer->body()).status();
  }

  Status AddUpcaster(std::string type, std::string from, std::string to, UpcastFunction) override {
    return Status::Invalid(
        "upcast", fmt::format("C++ upcasters run in the process that reads: the server cannot run "
                              "this one ({} {} to {}); register a declarative upcaster, or read "
                              "through a SchemaStore of your own",
                              type, from, to));
  }

  std::vector<SchemaType> List() override {
    auto overview = Overview("/schemas", api::SchemaOverviewFromJson);
    return overview.ok() ? std::move(overview->types) : std::vector<SchemaType>();
  }

  std::optional<SchemaType> Find(std::string_view type) override {
    auto answer = Get(TypePath(type));
    if (!answer.ok() || answer->result() != http::status::ok) return std::nullopt;
    auto found = api::SchemaTypeFromJson(answer->body());
    if (!found.ok()) return std::nullopt;
    return std::move(*found);
  }

  std::optional<SchemaVersion> Find(std::string_view type, std::string_view version) override {
    auto answer = Get(TypePath(type) + "/versions/" + PercentEncode(version));
    if (!answer.ok() || answer->result() != http::status::ok) return std::nullopt;
    auto found = api::SchemaVersionFromJson(answer->body());
    if (!found.ok()) return std::nullopt;
    return std::move(*found);
  }

  std::vector<std::pair<std::string, SchemaSettings>> CategorySettings() override {
    auto settings = Overview("/schema-settings", api::SchemaSettingsListFromJson);
    return settings.ok() ? std::move(settings->categories)
                         : std::vector<std::pair<std::string, SchemaSettings>>();
  }

  SchemaSettings DefaultSettings() override {
    auto settings = Overview("/schema-settings", api::SchemaSettingsListFromJson);
    return settings.ok() ? settings->default_settings : SchemaSettings();
  }

  Status Validate(const EventData& event) override {
    auto answer = Send(http::verb::post, TypePath(event.type) + "/validate",
                       api::ValidateRequestToJson({event.schema, event.data}), /*retry_safe=*/true);
    if (!answer.ok()) return answer.status();
    if (Status s = Expect(*answer, {http::status::ok}); !s.ok()) return s;
    auto validated = api::ValidationAnswerFromJson(answer->body());
    if (!validated.ok()) return validated.status();
    if (validated->valid) return Status::Ok();
    return Status::Invalid("data" + validated->pointer, validated->rule);
  }

  // The server reads the registry itself; nothing is kept here.
  Status Refresh() override { return Status::Ok(); }
  SchemaStats stats() const override { return {}; }

 private:
  Result<net::Response> Get(const std::string& target) {
    return Call(*http_, MakeRequest(*http_, http::verb::get, target), /*retry_safe=*/true);
  }

  Result<net::Response> Send(http::verb method, const std::string& target, std::string body,
                             bool retry_safe) {
    net::Request request = MakeRequest(*http_, method, target);
    request.set(http::field::content_type, kJsonContentType);
    request.body() = std::move(body);
    request.prepare_payload();
    return Call(*http_, request, retry_safe);
  }

  Status PutSettings(const std::string& target, const SchemaSettings& settings) {
    // Setting the same values again changes nothing: safe to resend.
    auto answer = Send(http::verb::put, target, api::SchemaSettingsToJson(settings),
                       /*retry_safe=*/true);
    if (!answer.ok()) return answer.status();
    if (Status s = Expect(*answer, {http::status::ok}); !s.ok()) return s;
    return api::SchemaSettingsFromJson(answer->body()).status();
  }

  template <typename Decode>
  Result<api::SchemaOverview> Overview(const std::string& target, Decode decode) {
    auto answer = Get(target);
    if (!answer.ok()) return answer.status();
    if (Status s = Expect(*answer, {http::status::ok}); !s.ok()) return s;
    return decode(answer->body());
  }

  const std::shared_ptr<net::HttpClient> http_;
};

}  // namespace

std::unique_ptr<Schemas> MakeRemoteSchemas(std::shared_ptr<net::HttpClient> http) {
  return std::make_unique<RemoteSchemas>(std::move(http));
}

}  // namespace indelible::client
