// A JWKS (RFC 7517): the public keys a JwtVerifier checks signatures with,
// parsed into OpenSSL keys and looked up by `kid`. Also base64url, which
// both the JWKS and the tokens are written in.
//
// Keys: RSA from `n`/`e` (at least 2048 bits), EC P-256 from `x`/`y`, made
// with OpenSSL 3's EVP_PKEY_fromdata. A key that is well formed but not for
// us (`use` other than `sig`, another `kty` or curve, an `alg` we do not
// verify, a short RSA modulus) is kept as unusable with the reason, so a
// token naming it is refused saying why; a key that is malformed (bad
// base64url, a point off the curve) makes the whole file invalid.
//
// Concurrency: a Jwks is immutable once parsed; share it across threads
// through a shared_ptr<const Jwks>.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/result.h"

struct evp_pkey_st;  // OpenSSL's EVP_PKEY (openssl/types.h)

namespace indelible::auth {

// The signature algorithms a token may name; nothing else is ever accepted.
enum class JwsAlg {
  kRs256,  // RSASSA-PKCS1-v1_5 with SHA-256, an RSA key
  kEs256,  // ECDSA on P-256 with SHA-256, an EC key, the signature as r||s
};

// "RS256", "ES256".
std::string_view JwsAlgName(JwsAlg alg);

// The bytes of unpadded base64url (RFC 7515 section 2): nullopt on any
// character outside A-Z a-z 0-9 - _ (so also on `=` padding), on a length
// that no encoding has, and on non-zero unused bits (so one value has one
// encoding).
std::optional<std::string> DecodeBase64Url(std::string_view text);
// The unpadded base64url of `bytes` (for tests and for tools).
std::string EncodeBase64Url(std::string_view bytes);

class Jwks {
 public:
  // The keys of a JWKS document, or invalid (field "jwks") naming what is
  // wrong: not JSON, no "keys" array, a key without a string kid, two keys
  // with one kid, a malformed key, or no usable key at all.
  static Result<std::shared_ptr<const Jwks>> Parse(std::string_view json);

  ~Jwks();
  Jwks(const Jwks&) = delete;
  Jwks& operator=(const Jwks&) = delete;

  // The key `kid` names, if its kty, crv, alg and use fit `alg`; otherwise
  // unauthorized naming why (unknown kid, or which property does not fit).
  // The key lives as long as this Jwks.
  Result<evp_pkey_st*> KeyFor(std::string_view kid, JwsAlg alg) const;

  // How many keys are usable for signatures (for messages and tests).
  int usable_keys() const;

  struct Key;  // jwks.cc

 private:
  Jwks() = default;
  std::map<std::string, std::unique_ptr<Key>, std::less<>> keys_;
};

}  // namespace indelible::auth
