#include "auth/jwks.h"

#include <fmt/format.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

#include <array>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "core/text.h"

namespace indelible::auth {

namespace json = boost::json;

struct Jwks::Key {
  std::string kty;
  std::optional<JwsAlg> alg;  // what the key verifies; nullopt: unusable
  std::string unusable;       // why, when !alg
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey{nullptr, &EVP_PKEY_free};
};

namespace {

// RSA moduli below this are refused: NIST SP 800-131A disallows 1024-bit
// RSA signatures, and no provider we know of still issues them.
constexpr int kMinRsaBits = 2048;

using BnPtr = std::unique_ptr<BIGNUM, decltype(&BN_free)>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)>;

constexpr std::array<signed char, 256> MakeDecodeTable() {
  std::array<signed char, 256> table{};
  for (auto& entry : table) entry = -1;
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (std::size_t i = 0; i < kAlphabet.size(); ++i)
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<signed char>(i);
  return table;
}
constexpr auto kDecodeTable = MakeDecodeTable();

// A string member of `object`: nullopt when absent, and `*wrong` set when
// present but not a string.
std::optional<std::string> StringMember(const json::object& object, std::string_view name,
                                        bool* wrong) {
  const json::value* value = object.if_contains(name);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) {
    *wrong = true;
    return std::nullopt;
  }
  return std::string(value->as_string());
}

// The bytes of a base64url member that must be present and non-empty.
Result<std::string> BytesMember(const json::object& object, std::string_view name,
                                const std::string& kid) {
  bool wrong = false;
  const auto text = StringMember(object, name, &wrong);
  if (!text || wrong)
    return Status::Invalid("jwks",
                           fmt::format("key '{}' has no string '{}'", Printable(kid), name));
  auto bytes = DecodeBase64Url(*text);
  if (!bytes || bytes->empty())
    return Status::Invalid("jwks",
                           fmt::format("key '{}': '{}' is not base64url", Printable(kid), name));
  return std::move(*bytes);
}

// EVP_PKEY_fromdata with a builder's parameters, then OpenSSL's own public
// key check (an RSA modulus that is even, an EC point off the curve...).
EVP_PKEY* FromData(const char* type, OSSL_PARAM_BLD* builder) {
  ParamPtr params(OSSL_PARAM_BLD_to_param(builder), &OSSL_PARAM_free);
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr), &EVP_PKEY_CTX_free);
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1) return nullptr;
  EVP_PKEY* pkey = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &pkey, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) return nullptr;
  PkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr), &EVP_PKEY_CTX_free);
  if (!check || EVP_PKEY_public_check(check.get()) != 1) {
    EVP_PKEY_free(pkey);
    return nullptr;
  }
  return pkey;
}

Status RsaKey(const json::object& jwk, const std::string& kid, Jwks::Key* key) {
  auto n = BytesMember(jwk, "n", kid);
  if (!n.ok()) return n.status();
  auto e = BytesMember(jwk, "e", kid);
  if (!e.ok()) return e.status();
  auto bytes = [](const std::string& s) {
    return reinterpret_cast<const unsigned char*>(s.data());
  };
  BnPtr n_bn(BN_bin2bn(bytes(*n), static_cast<int>(n->size()), nullptr), &BN_free);
  BnPtr e_bn(BN_bin2bn(bytes(*e), static_cast<int>(e->size()), nullptr), &BN_free);
  ParamBldPtr builder(OSSL_PARAM_BLD_new(), &OSSL_PARAM_BLD_free);
  if (!n_bn || !e_bn || !builder) return Status::Internal("out of memory reading a JWKS");
  if (const int bits = BN_num_bits(n_bn.get()); bits < kMinRsaBits) {
    key->unusable = fmt::format("an RSA modulus of {} bits (fewer than {})", bits, kMinRsaBits);
    return Status::Ok();
  }
  if (OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, n_bn.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, e_bn.get()) != 1)
    return Status::Internal("out of memory reading a JWKS");
  key->pkey.reset(FromData("RSA", builder.get()));
  if (!key->pkey)
    return Status::Invalid("jwks",
                           fmt::format("key '{}' is not a valid RSA public key", Printable(kid)));
  key->alg = JwsAlg::kRs256;
  return Status::Ok();
}

Status EcKey(const json::object& jwk, const std::string& kid, Jwks::Key* key) {
  bool wrong = false;
  const auto crv = StringMember(jwk, "crv", &wrong);
  if (!crv || wrong)
    return Status::Invalid("jwks", fmt::format("EC key '{}' has no string 'crv'", Printable(kid)));
  if (*crv != "P-256") {
    key->unusable = fmt::format("curve '{}' (only P-256 is supported)", Printable(*crv));
    return Status::Ok();
  }
  auto x = BytesMember(jwk, "x", kid);
  if (!x.ok()) return x.status();
  auto y = BytesMember(jwk, "y", kid);
  if (!y.ok()) return y.status();
  // RFC 7518 6.2.1.2: each coordinate is the full 32 bytes.
  if (x->size() != 32 || y->size() != 32)
    return Status::Invalid(
        "jwks", fmt::format("P-256 key '{}' has coordinates not 32 bytes long", Printable(kid)));
  const std::string point = "\x04" + *x + *y;  // SEC 1 uncompressed form
  ParamBldPtr builder(OSSL_PARAM_BLD_new(), &OSSL_PARAM_BLD_free);
  if (!builder ||
      OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME,
                                      SN_X9_62_prime256v1, 0) != 1 ||
      OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1)
    return Status::Internal("out of memory reading a JWKS");
  key->pkey.reset(FromData("EC", builder.get()));
  if (!key->pkey)
    return Status::Invalid("jwks",
                           fmt::format("key '{}' is not a valid P-256 public key", Printable(kid)));
  key->alg = JwsAlg::kEs256;
  return Status::Ok();
}

// One member of "keys": the key, or unusable with why, or invalid.
Status ParseKey(const json::object& jwk, const std::string& kid, Jwks::Key* key) {
  bool wrong = false;
  const auto kty = StringMember(jwk, "kty", &wrong);
  const auto use = StringMember(jwk, "use", &wrong);
  const auto alg = StringMember(jwk, "alg", &wrong);
  if (!kty || wrong)
    return Status::Invalid(
        "jwks", fmt::format("key '{}': 'kty' missing, or kty/use/alg not strings", Printable(kid)));
  key->kty = *kty;
  if (use && *use != "sig") {
    key->unusable = fmt::format("use '{}' (not 'sig')", Printable(*use));
    return Status::Ok();
  }
  if (*kty == "RSA") {
    if (alg && *alg != "RS256") {
      key->unusable = fmt::format("RSA key for alg '{}' (only RS256 is verified)", Printable(*alg));
      return Status::Ok();
    }
    return RsaKey(jwk, kid, key);
  }
  if (*kty == "EC") {
    if (alg && *alg != "ES256") {
      key->unusable = fmt::format("EC key for alg '{}' (only ES256 is verified)", Printable(*alg));
      return Status::Ok();
    }
    return EcKey(jwk, kid, key);
  }
  // "oct" (an HMAC secret has no business in a public JWKS), "OKP"...
  key->unusable = fmt::format("kty '{}' (only RSA and EC)", Printable(*kty));
  return Status::Ok();
}

}  // namespace

std::string_view JwsAlgName(JwsAlg alg) {
  switch (alg) {
    case JwsAlg::kRs256:
      return "RS256";
    case JwsAlg::kEs256:
      return "ES256";
  }
  return "?";
}

std::optional<std::string> DecodeBase64Url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3 + 2);
  std::uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    const int v = kDecodeTable[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  // The 2 or 4 bits left over pad the last character: they must be zero.
  if ((bits & ((1u << count) - 1)) != 0) return std::nullopt;
  return out;
}

std::string EncodeBase64Url(std::string_view bytes) {
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::uint32_t bits = 0;
  int count = 0;
  for (const char c : bytes) {
    bits = (bits << 8) | static_cast<unsigned char>(c);
    count += 8;
    while (count >= 6) {
      count -= 6;
      out.push_back(kAlphabet[(bits >> count) & 0x3f]);
    }
  }
  if (count > 0) out.push_back(kAlphabet[(bits << (6 - count)) & 0x3f]);
  return out;
}

Jwks::~Jwks() = default;

Result<std::shared_ptr<const Jwks>> Jwks::Parse(std::string_view text) {
  boost::system::error_code ec;
  const json::value document = json::parse(text, ec);
  if (ec) return Status::Invalid("jwks", fmt::format("not JSON: {}", ec.message()));
  const json::object* root = document.if_object();
  const json::value* keys = root ? root->if_contains("keys") : nullptr;
  if (keys == nullptr || !keys->is_array())
    return Status::Invalid("jwks", "not a JWKS: no \"keys\" array");

  std::shared_ptr<Jwks> jwks(new Jwks());
  std::string skipped;  // why keys were left out, for "no usable key"
  for (const json::value& member : keys->as_array()) {
    const json::object* jwk = member.if_object();
    if (jwk == nullptr) return Status::Invalid("jwks", "a member of \"keys\" is not an object");
    const json::value* kid = jwk->if_contains("kid");
    if (kid == nullptr || !kid->is_string()) {
      // A token can name no such key: leave it out, as we would an unusable one.
      skipped += "; a key without a kid";
      continue;
    }
    const std::string name(kid->as_string());
    if (jwks->keys_.contains(name))
      return Status::Invalid("jwks", fmt::format("two keys have kid '{}'", Printable(name)));
    auto key = std::make_unique<Key>();
    if (Status status = ParseKey(*jwk, name, key.get()); !status.ok()) return status;
    if (!key->alg) skipped += fmt::format("; key '{}': {}", Printable(name), key->unusable);
    jwks->keys_.emplace(name, std::move(key));
  }
  if (jwks->usable_keys() == 0)
    return Status::Invalid("jwks", fmt::format("no usable signing key{}", skipped));
  return std::shared_ptr<const Jwks>(std::move(jwks));
}

Result<EVP_PKEY*> Jwks::KeyFor(std::string_view kid, JwsAlg alg) const {
  const auto it = keys_.find(kid);
  if (it == keys_.end())
    return Status::Unauthorized(fmt::format("unknown kid '{}'", Printable(kid)));
  const Key& key = *it->second;
  if (!key.alg)
    return Status::Unauthorized(
        fmt::format("key '{}' is not usable: {}", Printable(kid), key.unusable));
  if (*key.alg != alg)
    return Status::Unauthorized(fmt::format("key '{}' (kty {}) is for {}, the token says {}",
                                            Printable(kid), key.kty, JwsAlgName(*key.alg),
                                            JwsAlgName(alg)));
  return key.pkey.get();
}

int Jwks::usable_keys() const {
  int usable = 0;
  for (const auto& [kid, key] : keys_) usable += key->alg ? 1 : 0;
  return usable;
}

}  // namespace indelible::auth
