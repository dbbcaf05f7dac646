// /schemas and /schema-settings: the schema registry over HTTP
// (docs/SCHEMAS.md, "HTTP"), on the server's SchemaStore (server.cc wraps
// the store it is given). Reading needs an authenticated principal, any
// right; changing needs an admin, checked here (Access has no scope for
// it: the route asks for a principal, the handler for the admin role).
// Changes are audited like the other admin acts, and append to $schemas:
// they run on the blocking pool, reads on the read pool (a registry refresh
// may read the store).
#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include "api/schemas.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

namespace asio = boost::asio;

// The name the registry records with a change: empty with authentication off.
std::string PrincipalName(const Exchange& exchange) {
  return exchange.principal() != nullptr ? exchange.principal()->name : std::string();
}

// Changes are an admin's. With authentication off there is no principal
// and everyone may, as everywhere else in the API.
bool RefusedUnlessAdmin(Exchange& exchange) {
  const auto& caller = exchange.principal();
  if (caller == nullptr || caller->grants.admin()) return false;
  exchange.RespondError(
      http::status::forbidden,
      Status::Unauthorized(fmt::format(
          "{} may not change the schema registry: only the admin role may", caller->name)));
  return true;
}

template <typename Fn>
void OnReads(ServerContext& context, std::shared_ptr<Exchange> exchange, Fn fn) {
  asio::post(context.reads, [exchange = std::move(exchange), fn = std::move(fn)] {
    RunGuarded(*exchange, [&] { fn(*exchange); });
  });
}

template <typename Fn>
void OnBlocking(ServerContext& context, std::shared_ptr<Exchange> exchange, Fn fn) {
  asio::post(context.blocking, [exchange = std::move(exchange), fn = std::move(fn)] {
    RunGuarded(*exchange, [&] { fn(*exchange); });
  });
}

Status UnknownType(std::string_view type) {
  return Status::NotFound(fmt::format(
      "no schema is registered for the type '{}'; POST /schemas/{{type}}/versions registers one",
      type.substr(0, 256)));
}

api::SchemaOverview Settings(Schemas& schemas) {
  api::SchemaOverview out;
  out.categories = schemas.CategorySettings();
  out.default_settings = schemas.DefaultSettings();
  return out;
}

void ListTypes(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  OnReads(context, std::move(exchange), [&context](Exchange& e) {
    Schemas& schemas = context.schemas();
    api::SchemaOverview overview = Settings(schemas);
    overview.types = schemas.List();
    e.RespondJson(http::status::ok, api::SchemaOverviewToJson(overview));
  });
}

void ShowType(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  OnReads(context, std::move(exchange), [&context](Exchange& e) {
    const std::string& type = e.params()[0];
    auto found = context.schemas().Find(type);
    if (!found) return e.RespondError(UnknownType(type));
    e.RespondJson(http::status::ok, api::SchemaTypeToJson(*found));
  });
}

void ShowVersion(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  OnReads(context, std::move(exchange), [&context](Exchange& e) {
    const std::string& type = e.params()[0];
    const std::string& version = e.params()[1];
    auto found = context.schemas().Find(type, version);
    if (!found) {
      if (!context.schemas().Find(type)) return e.RespondError(UnknownType(type));
      return e.RespondError(Status::NotFound(fmt::format(
          "the type '{}' has no version '{}'", type.substr(0, 256), version.substr(0, 256))));
    }
    e.RespondJson(http::status::ok, api::SchemaVersionToJson(*found));
  });
}

void Register(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (RefusedUnlessAdmin(*exchange)) return;
  auto request = api::RegisterRequestFromJson(exchange->request().body());
  if (!request.ok()) return exchange->RespondError(request.status());
  OnBlocking(context, std::move(exchange), [&context, request = std::move(*request)](Exchange& e) {
    auto registered = context.schemas().Register(e.params()[0], request.version, request.schema,
                                                 PrincipalName(e));
    if (!registered.ok()) return e.RespondError(registered.status());
    e.RespondJson(registered->created ? http::status::created : http::status::ok,
                  api::SchemaVersionToJson(registered->version));
  });
}

void Check(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto schema = api::CheckRequestFromJson(exchange->request().body());
  if (!schema.ok()) return exchange->RespondError(schema.status());
  OnReads(context, std::move(exchange), [&context, schema = std::move(*schema)](Exchange& e) {
    Status checked = context.schemas().CheckCompatible(e.params()[0], schema);
    // Incompatible is the answer asked for, not an error of the request.
    if (!checked.ok() && checked.code() != ErrorCode::kRejected) return e.RespondError(checked);
    e.RespondJson(http::status::ok,
                  api::CompatibilityAnswerToJson({checked.ok(), checked.message()}));
  });
}

void SetTypeSettings(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (RefusedUnlessAdmin(*exchange)) return;
  auto settings = api::SchemaSettingsRequestFromJson(exchange->request().body());
  if (!settings.ok()) return exchange->RespondError(settings.status());
  OnBlocking(context, std::move(exchange), [&context, settings = *settings](Exchange& e) {
    const std::string& type = e.params()[0];
    Schemas& schemas = context.schemas();
    if (Status s = schemas.SetTypeSettings(type, settings, PrincipalName(e)); !s.ok())
      return e.RespondError(s);
    // The settings as they are now (a field not sent kept its value).
    auto found = schemas.Find(type);
    e.RespondJson(http::status::ok, api::SchemaSettingsToJson(found ? found->settings : settings));
  });
}

void AddUpcaster(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (RefusedUnlessAdmin(*exchange)) return;
  auto upcaster = api::UpcasterRequestFromJson(exchange->params()[0], exchange->request().body());
  if (!upcaster.ok()) return exchange->RespondError(upcaster.status());
  OnBlocking(context, std::move(exchange),
             [&context, upcaster = std::move(*upcaster)](Exchange& e) {
               if (Status s = context.schemas().AddUpcaster(upcaster, PrincipalName(e)); !s.ok())
                 return e.RespondError(s);
               e.RespondJson(http::status::created, api::UpcasterToJson(upcaster));
             });
}

// The pointer of a failure in `data` from the field Validate names
// ("data/amount": "/amount"); nullopt for a field that is not in `data`
// (the request itself is bad).
std::optional<std::string> PointerInData(std::string_view field) {
  constexpr std::string_view kData = "data";
  if (!field.starts_with(kData)) return std::nullopt;
  field.remove_prefix(kData.size());
  if (!field.empty() && field.front() != '/') return std::nullopt;
  return std::string(field);
}

void Validate(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto request = api::ValidateRequestFromJson(exchange->request().body());
  if (!request.ok()) return exchange->RespondError(request.status());
  OnReads(context, std::move(exchange), [&context, request = std::move(*request)](Exchange& e) {
    EventData event;
    event.type = e.params()[0];
    event.schema = request.version;
    event.data = request.data;
    Status valid = context.schemas().Validate(event);
    if (valid.ok())
      return e.RespondJson(http::status::ok, api::ValidationAnswerToJson({true, {}, {}}));
    auto pointer = valid.code() == ErrorCode::kInvalid ? PointerInData(valid.field())
                                                       : std::optional<std::string>();
    if (!pointer) return e.RespondError(valid);
    e.RespondJson(http::status::ok,
                  api::ValidationAnswerToJson({false, std::move(*pointer), valid.message()}));
  });
}

void ListSettings(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  OnReads(context, std::move(exchange), [&context](Exchange& e) {
    e.RespondJson(http::status::ok, api::SchemaSettingsListToJson(Settings(context.schemas())));
  });
}

void SetCategorySettings(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (RefusedUnlessAdmin(*exchange)) return;
  auto settings = api::SchemaSettingsRequestFromJson(exchange->request().body());
  if (!settings.ok()) return exchange->RespondError(settings.status());
  OnBlocking(context, std::move(exchange), [&context, settings = *settings](Exchange& e) {
    const std::string& category = e.params()[0];
    Schemas& schemas = context.schemas();
    if (Status s = schemas.SetCategorySettings(category, settings, PrincipalName(e)); !s.ok())
      return e.RespondError(s);
    SchemaSettings now = settings;
    for (const auto& [name, set] : schemas.CategorySettings())
      if (name == category) now = set;
    e.RespondJson(http::status::ok, api::SchemaSettingsToJson(now));
  });
}

void SetDefaultSettings(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (RefusedUnlessAdmin(*exchange)) return;
  auto settings = api::SchemaSettingsRequestFromJson(exchange->request().body());
  if (!settings.ok()) return exchange->RespondError(settings.status());
  exchange->SetAuditTarget("default");
  OnBlocking(context, std::move(exchange), [&context, settings = *settings](Exchange& e) {
    Schemas& schemas = context.schemas();
    if (Status s = schemas.SetDefaultSettings(settings, PrincipalName(e)); !s.ok())
      return e.RespondError(s);
    e.RespondJson(http::status::ok, api::SchemaSettingsToJson(schemas.DefaultSettings()));
  });
}

// Any authenticated principal gets in; the handler asks for the admin role.
// A change that answers is appended to $audit (a refusal is not, as
// everywhere).
Access Change(std::string audit) {
  Access access = Access::Authenticated();
  access.audit = std::move(audit);
  return access;
}

}  // namespace

Result<bool> RawParam(const Exchange& exchange) {
  auto raw = exchange.Query("raw");
  if (!raw) return false;
  if (*raw == "1" || *raw == "true") return true;
  if (*raw == "0" || *raw == "false") return false;
  return Status::Invalid("raw", fmt::format("'{}' is not raw's: 1 or true for the events as "
                                            "stored, 0 or false (the default) for them upcast",
                                            raw->substr(0, 64)));
}

void AddSchemaRoutes(Router& router, ServerContext& context) {
  const auto route = [&](http::verb method, std::string_view pattern, Access access,
                         void (*handler)(ServerContext&, std::shared_ptr<Exchange>)) {
    router.Add(
        method, pattern, std::move(access),
        [&context, handler](std::shared_ptr<Exchange> e) { handler(context, std::move(e)); });
  };
  route(http::verb::get, "/schemas", Access::Authenticated(), ListTypes);
  route(http::verb::get, "/schemas/{}", Access::Authenticated(), ShowType);
  route(http::verb::get, "/schemas/{}/versions/{}", Access::Authenticated(), ShowVersion);
  route(http::verb::post, "/schemas/{}/versions", Change("schema.register"), Register);
  route(http::verb::post, "/schemas/{}/check", Access::Authenticated(), Check);
  route(http::verb::put, "/schemas/{}/settings", Change("schema.settings"), SetTypeSettings);
  route(http::verb::post, "/schemas/{}/upcasters", Change("schema.upcaster"), AddUpcaster);
  route(http::verb::post, "/schemas/{}/validate", Access::Authenticated(), Validate);
  route(http::verb::get, "/schema-settings", Access::Authenticated(), ListSettings);
  route(http::verb::put, "/schema-settings/categories/{}", Change("schema.settings"),
        SetCategorySettings);
  route(http::verb::put, "/schema-settings/default", Change("schema.settings"), SetDefaultSettings);
}

}  // namespace indelible::server
