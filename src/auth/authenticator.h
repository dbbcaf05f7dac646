// Authentication (docs/SECURITY.md, "Principals"): from a request's
// credentials to a principal and its grants, or unauthorized.
//
//   Authorization: Bearer idl_...   an API key (also X-Api-Key: idl_...)
//   Authorization: Bearer eyJ...    a JWT, when a JWKS file is configured
//   a verified client certificate   its subject, when no header is given
//
// An API key's answer may need a store read (a DynamoDB request): TryFast
// answers from memory when it can (JWTs, certificates, cached keys), and
// the server calls Authenticate off its I/O threads otherwise.
//
// Thread-safe.
#pragma once

#include <indelible/store.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "auth/api_keys.h"
#include "auth/jwt.h"
#include "auth/policy.h"

namespace indelible::auth {

struct Principal {
  std::string name;  // "key:NAME", "jwt:SUBJECT", "cert:SUBJECT"
  std::vector<std::string> roles;
  Grants grants;
  std::string key_id;  // of an API key: its last use is recorded
};

struct Credentials {
  std::string authorization;  // the Authorization header, as sent
  std::string api_key;        // X-Api-Key
  std::string peer_subject;   // a verified client certificate's subject
};

struct AuthSettings {
  std::string roles_file;
  std::optional<JwtSettings> jwt;  // nullopt: JWTs are refused
  std::chrono::milliseconds key_cache{1000};
};

class Authenticator {
 public:
  // invalid naming what is wrong with the roles file or the JWT settings.
  static Result<std::unique_ptr<Authenticator>> Make(Store& store, const AuthSettings& settings);

  // nullopt: the answer needs a store read (call Authenticate off the I/O
  // thread).
  std::optional<Result<Principal>> TryFast(const Credentials& credentials, std::int64_t now_ms);
  Result<Principal> Authenticate(const Credentials& credentials, std::int64_t now_ms);

  KeyStore& keys() { return keys_; }
  const RoleBook& roles() const { return roles_; }

 private:
  Authenticator(Store& store, RoleBook roles, std::unique_ptr<JwtVerifier> jwt,
                std::chrono::milliseconds key_cache);
  // The token of the credentials: the bearer token or X-Api-Key; empty and
  // ok for none; unauthorized for an unknown scheme.
  Result<std::string> Token(const Credentials& credentials) const;
  Principal FromKey(const KeyInfo& key) const;

  RoleBook roles_;
  std::unique_ptr<JwtVerifier> jwt_;
  KeyStore keys_;
};

// The first admin key (docs/SECURITY.md, "The first admin key"): from the
// environment variable `env_name` (read once, then removed from the
// environment) and/or the file `path`: read if it exists (it must be mode
// 0600 or stricter and hold one key), else made, written there with mode
// 0600, and registered. Neither is ever printed.
Status BootstrapAdminKey(KeyStore& keys, const std::string& path, const std::string& env_name,
                         std::int64_t now_ms);

}  // namespace indelible::auth
