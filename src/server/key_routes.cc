// /keys: API keys over HTTP (docs/SECURITY.md, "API keys"), what
// `indelible keys --url` calls; /auth/whoami: the caller as the server sees
// it. Creating a key writes a record (a durable save): every store call
// runs on the blocking pool.
//
// A caller with the keys right but not admin may hand out only roles it
// holds itself, so the keys right never raises anyone above their own.
#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include "api/keys.h"
#include "core/clock.h"
#include "server/key_document.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

// The request as api decodes it, with roles the server knows and the
// expiry as a time.
struct KeyRequest {
  std::string name;
  std::vector<std::string> roles;
  std::int64_t expires_ms = 0;
};

Result<KeyRequest> ParseKeyRequest(const Exchange& exchange, const auth::RoleBook& book,
                                   std::int64_t now_ms) {
  auto request = api::KeyRequestFromJson(exchange.request().body());
  if (!request.ok()) return request.status();
  for (const std::string& role : request->roles)
    if (!book.Has(role))
      return Status::Invalid(
          "roles", fmt::format("no role '{}'; roles: {}", std::string_view(role).substr(0, 64),
                               fmt::join(book.Names(), ", ")));
  KeyRequest out{std::move(request->name), std::move(request->roles), 0};
  if (request->expires_in_seconds > 0) out.expires_ms = now_ms + request->expires_in_seconds * 1000;
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
      std::string body = api::NewKeyToJson({made->key, KeyDocument(made->info)});
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
      std::vector<api::Key> listed;
      listed.reserve(keys->size());
      for (const auth::KeyInfo& key : *keys) listed.push_back(KeyDocument(key));
      exchange->RespondJson(http::status::ok, api::KeyListToJson(listed));
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
      exchange->RespondJson(http::status::ok, api::RevokedKeyToJson(KeyDocument(*revoked)));
    });
  });
}

void WhoAmI(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  const auto& principal = exchange->principal();
  api::Caller caller;
  caller.authentication = context.require_auth;
  if (principal != nullptr) {
    caller.principal = principal->name;
    caller.roles = principal->roles;
    caller.grants = principal->grants.ToJson();
  }
  exchange->RespondJson(http::status::ok, api::CallerToJson(caller));
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

api::Key KeyDocument(const auth::KeyInfo& info) {
  return api::Key{info.id,         info.name,         info.roles,     info.created_ms,
                  info.expires_ms, info.last_used_ms, info.created_by};
}

}  // namespace indelible::server
