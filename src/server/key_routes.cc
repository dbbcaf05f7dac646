// /keys: API keys over HTTP (docs/SECURITY.md, "API keys"), what
// `indelible keys --url` calls; /auth/whoami: the caller as the server sees
// it. Creating a key writes a record (a durable save): every store call
// runs on the blocking pool.
//
// A caller with the keys right but not admin may hand out only roles it
// holds itself, so the keys right never raises anyone above their own.
#include <fmt/format.h>

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include "core/clock.h"
#include "core/event_json.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

namespace json = boost::json;

struct KeyRequest {
  std::string name;
  std::vector<std::string> roles;
  std::int64_t expires_ms = 0;
};

Result<KeyRequest> ParseKeyRequest(const Exchange& exchange, const auth::RoleBook& book,
                                   std::int64_t now_ms) {
  boost::system::error_code ec;
  json::value body = json::parse(exchange.request().body(), ec);
  if (ec || !body.is_object())
    return Status::Invalid("body", R"(expected {"name": "...", "roles": ["writer"]})");
  const json::object& object = body.as_object();
  KeyRequest out;
  const json::value* name = object.if_contains("name");
  if (name == nullptr || !name->is_string())
    return Status::Invalid("name", "required: a string naming the key's holder");
  out.name = std::string(name->as_string());
  const json::value* roles = object.if_contains("roles");
  if (roles == nullptr || !roles->is_array() || roles->as_array().empty())
    return Status::Invalid("roles", "required: an array of role names");
  for (const json::value& role : roles->as_array()) {
    if (!role.is_string()) return Status::Invalid("roles", "role names are strings");
    const std::string_view role_name = role.as_string();
    if (!book.Has(role_name))
      return Status::Invalid("roles",
                             fmt::format("no role '{}'; roles: {}", role_name.substr(0, 64),
                                         fmt::join(book.Names(), ", ")));
    out.roles.emplace_back(role_name);
  }
  if (const json::value* in = object.if_contains("expiresInSeconds")) {
    if (!in->is_int64() || in->as_int64() < 1 || in->as_int64() > (std::int64_t{1} << 40))
      return Status::Invalid("expiresInSeconds", "a whole number of seconds >= 1");
    out.expires_ms = now_ms + in->as_int64() * 1000;
  }
  return out;
}

// Without authentication anyone who reaches the server could mint an admin
// key that counts once authentication is turned on: keys are managed with
// it on, or from the store itself (`indelible keys --data`).
bool RefusedWithoutAuthentication(ServerContext& context, Exchange& exchange) {
  if (context.require_auth) return false;
  exchange.RespondError(http::status::forbidden,
                        Status::Unauthorized("keys are made and revoked over HTTP only with "
                                             "authentication on (--auth); or use `indelible keys "
                                             "create --data ...` on the store"));
  return true;
}

void CreateKey(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (RefusedWithoutAuthentication(context, *exchange)) return;
  const std::int64_t now = UnixMillisNow();
  auto request = ParseKeyRequest(*exchange, context.auth->roles(), now);
  if (!request.ok()) return exchange->RespondError(request.status());
  const auto& caller = exchange->principal();
  if (caller != nullptr && !caller->grants.admin())
    for (const std::string& role : request->roles)
      if (std::find(caller->roles.begin(), caller->roles.end(), role) == caller->roles.end())
        return exchange->RespondError(
            http::status::forbidden,
            Status::Unauthorized(fmt::format("{} may not hand out role '{}', which it does not "
                                             "hold; only admins may",
                                             caller->name, role)));
  exchange->SetAuditTarget(request->name);
  boost::asio::post(context.blocking, [&context, exchange, request = std::move(*request), now] {
    RunGuarded(*exchange, [&] {
      const std::string by = exchange->principal() ? exchange->principal()->name : "anonymous";
      auto made =
          context.auth->keys().Create(request.name, request.roles, request.expires_ms, by, now);
      if (!made.ok()) return exchange->RespondError(made.status());
      std::string body = made->info.ToJson();
      body.insert(1, fmt::format(R"("key":{},)", QuoteJson(made->key)));
      Response response(http::status::created, exchange->request().version());
      response.set(http::field::content_type, "application/json");
      // The secret is in this answer only: no cache may keep it.
      response.set(http::field::cache_control, "no-store");
      response.body() = std::move(body);
      exchange->Respond(std::move(response));
    });
  });
}

void ListKeys(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  boost::asio::post(context.blocking, [&context, exchange] {
    RunGuarded(*exchange, [&] {
      auto keys = context.auth->keys().List();
      if (!keys.ok()) return exchange->RespondError(keys.status());
      std::string body = R"({"keys":[)";
      for (std::size_t i = 0; i < keys->size(); ++i) {
        if (i > 0) body += ',';
        body += (*keys)[i].ToJson();
      }
      exchange->RespondJson(http::status::ok, body + "]}");
    });
  });
}

void RevokeKey(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (RefusedWithoutAuthentication(context, *exchange)) return;
  boost::asio::post(context.blocking, [&context, exchange] {
    RunGuarded(*exchange, [&] {
      // As for creating: a non-admin revokes only keys whose every role it
      // holds, so it cannot lock out an admin.
      const auto& caller = exchange->principal();
      auto may_revoke = [&caller](const auth::KeyInfo& key) -> Status {
        if (caller == nullptr || caller->grants.admin()) return Status::Ok();
        for (const std::string& role : key.roles)
          if (std::find(caller->roles.begin(), caller->roles.end(), role) == caller->roles.end())
            return Status::Unauthorized(
                fmt::format("{} may not revoke key '{}': it has role '{}', which {} does not hold",
                            caller->name, key.name, role, caller->name));
        return Status::Ok();
      };
      auto revoked = context.auth->keys().Revoke(exchange->params()[0], may_revoke);
      if (!revoked.ok() && revoked.status().code() == ErrorCode::kUnauthorized)
        return exchange->RespondError(http::status::forbidden, revoked.status());
      if (!revoked.ok()) return exchange->RespondError(revoked.status());
      exchange->SetAuditTarget(revoked->id);
      std::string body = revoked->ToJson();
      body.insert(1, R"("revoked":true,)");
      exchange->RespondJson(http::status::ok, std::move(body));
    });
  });
}

void WhoAmI(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  const auto& principal = exchange->principal();
  json::object out;
  out["authentication"] = context.require_auth;
  if (principal != nullptr) {
    out["principal"] = principal->name;
    out["roles"] = json::array(principal->roles.begin(), principal->roles.end());
    out["grants"] = json::parse(principal->grants.ToJson());
  }
  exchange->RespondJson(http::status::ok, json::serialize(out));
}

}  // namespace

void AddKeyRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::post, "/keys", Access::Everywhere(auth::Right::kKeys, "key.create"),
             [&context](std::shared_ptr<Exchange> e) { CreateKey(context, std::move(e)); });
  router.Add(http::verb::get, "/keys", Access::Everywhere(auth::Right::kKeys),
             [&context](std::shared_ptr<Exchange> e) { ListKeys(context, std::move(e)); });
  router.Add(http::verb::delete_, "/keys/{}", Access::Everywhere(auth::Right::kKeys, "key.revoke"),
             [&context](std::shared_ptr<Exchange> e) { RevokeKey(context, std::move(e)); });
  router.Add(http::verb::get, "/auth/whoami", Access::Authenticated(),
             [&context](std::shared_ptr<Exchange> e) { WhoAmI(context, std::move(e)); });
}

}  // namespace indelible::server
