#include "server/security.h"

#include <fmt/format.h>

#include <cstdio>

#include "core/clock.h"

namespace indelible::server {

Status SetUpSecurity(ServerContext& context, const boost::asio::ip::tcp::endpoint& endpoint) {
  const ServeOptions& options = context.options;
  const ServeAuth& auth = options.auth;
  const bool loopback = endpoint.address().is_loopback();
  if (!loopback && !options.insecure && !options.tls.enabled())
    return Status::Invalid(
        "listen",
        fmt::format("{} is beyond loopback: serving there needs TLS (--tls-cert and --tls-key), "
                    "and credentials are then required; pass --insecure to serve plain HTTP "
                    "anyway (only on a network you trust: anyone who reaches it may read, write "
                    "and delete every stream unless --auth)",
                    options.listen));
  if (!loopback && options.insecure)
    std::fprintf(
        stderr,
        "indelible: WARNING: --insecure: serving %s beyond loopback%s%s. Anyone who can "
        "reach this address can %s.\n",
        options.listen.c_str(), options.tls.enabled() ? "" : " over plain HTTP",
        auth.enabled ? "" : " WITHOUT AUTHENTICATION",
        auth.enabled ? "see the traffic's metadata" : "read, write and delete every stream");
  context.require_auth = auth.enabled || (!loopback && !options.insecure);

  auth::AuthSettings settings;
  settings.roles_file = auth.roles_file;
  settings.key_cache = auth.key_cache;
  if (!auth.jwks_file.empty()) {
    if (auth.jwt_issuer.empty() || auth.jwt_audiences.empty())
      return Status::Invalid("jwks-file",
                             "JWTs need --jwt-issuer and at least one --jwt-audience beside "
                             "--jwks-file: a token from another issuer or for another service "
                             "must not be taken");
    settings.jwt = auth::JwtSettings{auth.jwks_file, auth.jwt_issuer, auth.jwt_audiences,
                                     auth.jwt_roles_claim};
  }
  auto authenticator = auth::Authenticator::Make(context.store, settings);
  if (!authenticator.ok()) return authenticator.status();
  context.auth = std::move(*authenticator);
  if (Status s = auth::BootstrapAdminKey(context.auth->keys(), auth.bootstrap_key_file,
                                         auth.bootstrap_key_env, UnixMillisNow());
      !s.ok())
    return s;
  if (!context.require_auth) return Status::Ok();
  auto keys = context.auth->keys().List();
  if (!keys.ok()) return keys.status();
  if (keys->empty() && auth.jwks_file.empty() && options.tls.client_ca_file.empty())
    std::fprintf(stderr,
                 "indelible: authentication is on but no credential exists yet: make an admin key "
                 "with --bootstrap-key-file FILE (or `indelible keys create --role admin` before "
                 "starting the server)\n");
  return Status::Ok();
}

}  // namespace indelible::server
