// Bearer JWTs from an identity provider (Cognito, Keycloak, Auth0...):
// verified offline with the public keys of a JWKS file (RFC 7517), so no
// request to the provider is ever made.
//
// Accepted: compact JWS (RFC 7515) signed RS256 (RSASSA-PKCS1-v1_5 SHA-256)
// or ES256 (ECDSA P-256 SHA-256, the signature as r||s), whose header names
// a `kid` of the JWKS whose `kty`/`alg`/`crv` fit the token's `alg`.
// Refused, each with an unauthorized status naming why: `alg: none`, HS*
// (a public key used as an HMAC secret: the RS/HS confusion), any other
// alg, an unknown kid, a bad signature, `exp` passed, `nbf` or `iat` in the
// future (both with `leeway`), an `iss` other than `issuer`, an `aud`
// (string or array) holding none of `audiences`, and malformed base64url
// or JSON.
//
// The JWKS file is read at Open and again when its modification time or
// size changes (looked at no more than once a second), so a provider's key
// rotation reaches the server by rewriting the file; a rewrite that does
// not parse keeps the previous keys and is reported once on stderr.
//
// Thread-safe: Verify may be called from many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/result.h"

namespace indelible::auth {

struct JwtSettings {
  std::string jwks_file;
  std::string issuer;                  // required; `iss` must equal it
  std::vector<std::string> audiences;  // required; `aud` must hold one
  // Dot path of the claim holding the roles ("roles", "realm_access.roles",
  // "cognito:groups"): an array of strings or one space-separated string.
  // Missing: no roles.
  std::string roles_claim = "roles";
  std::chrono::seconds leeway{30};  // clock skew allowed on exp, nbf, iat
};

struct JwtIdentity {
  std::string subject;             // `sub` (required, non-empty)
  std::vector<std::string> roles;  // from roles_claim
  std::int64_t expires_at = 0;     // `exp`, Unix seconds (required)
};

class JwtVerifier {
 public:
  // invalid naming the file and what is wrong with it (unreadable, not a
  // JWKS, no usable key), or with the settings (no issuer, no audience).
  static Result<std::unique_ptr<JwtVerifier>> Open(JwtSettings settings);
  virtual ~JwtVerifier() = default;

  // The token's identity, or unauthorized naming why it was refused.
  virtual Result<JwtIdentity> Verify(std::string_view token,
                                     std::chrono::system_clock::time_point now) = 0;
};

}  // namespace indelible::auth
