#include "auth/jwt.h"

#include <fmt/format.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "auth/jwks.h"
#include "core/mutex.h"
#include "core/text.h"

namespace indelible::auth {

namespace json = boost::json;

namespace {

// Real tokens are 1-2 KiB even with many groups; the bound keeps a hostile
// header from costing base64 and JSON work (and proxies cap headers at 8-16
// KiB anyway).
constexpr std::size_t kMaxTokenBytes = 16 * 1024;
// A JWKS is a few keys; anything bigger is not one.
constexpr std::uintmax_t kMaxJwksBytes = 1024 * 1024;
// How often Verify looks at the JWKS file: a stat per second is nothing,
// and a rotation reaches the server within a second of the rewrite.
constexpr std::chrono::seconds kReloadInterval{1};

// What a change to the JWKS file is recognised by: its size and mtime, and
// its inode, so that a rewrite by rename (write a temporary file, mv it over)
// is seen even when size and mtime (kernel ticks of a few ms) come out equal.
struct FileStamp {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp StampOf(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return FileStamp{};
  return FileStamp{true, info.st_dev, info.st_ino, info.st_size,
                   std::int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec};
}

// The file's keys, or invalid saying what is wrong (without the file name).
Result<std::shared_ptr<const Jwks>> LoadJwks(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status::Invalid("jwks_file", fmt::format("cannot read it: {}", ec.message()));
  if (size > kMaxJwksBytes)
    return Status::Invalid(
        "jwks_file", fmt::format("{} bytes, more than a JWKS ({} at most)", size, kMaxJwksBytes));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return Status::Invalid("jwks_file", "cannot read it");
  return Jwks::Parse(text.str());
}

// One of the token's first two parts: base64url of a JSON object.
Result<json::object> DecodeObject(std::string_view part, std::string_view what) {
  const auto bytes = DecodeBase64Url(part);
  if (!bytes) return Status::Unauthorized(fmt::format("the {} is not base64url", what));
  boost::system::error_code ec;
  json::value value = json::parse(*bytes, ec);
  if (ec || !value.is_object())
    return Status::Unauthorized(fmt::format("the {} is not a JSON object", what));
  return std::move(value.as_object());
}

// RFC 7518 3.4: ES256 signs as r||s, 32 bytes each; OpenSSL verifies DER.
Result<std::string> EcdsaDer(std::string_view signature) {
  if (signature.size() != 64)
    return Status::Unauthorized("an ES256 signature is 64 bytes (r||s), this one is not");
  const auto* bytes = reinterpret_cast<const unsigned char*>(signature.data());
  ECDSA_SIG* sig = ECDSA_SIG_new();
  BIGNUM* r = BN_bin2bn(bytes, 32, nullptr);
  BIGNUM* s = BN_bin2bn(bytes + 32, 32, nullptr);
  if (sig == nullptr || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig, r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    return Status::Internal("out of memory verifying a token");
  }
  std::string der;
  const int length = i2d_ECDSA_SIG(sig, nullptr);
  if (length > 0) {
    der.resize(static_cast<std::size_t>(length));
    auto* out = reinterpret_cast<unsigned char*>(der.data());
    if (i2d_ECDSA_SIG(sig, &out) != length) der.clear();
  }
  ECDSA_SIG_free(sig);  // frees r and s too
  if (der.empty()) return Status::Internal("cannot encode an ECDSA signature");
  return der;
}

Status VerifySignature(EVP_PKEY* key, JwsAlg alg, std::string_view signed_part,
                       std::string_view signature) {
  std::string der;
  if (alg == JwsAlg::kEs256) {
    auto converted = EcdsaDer(signature);
    if (!converted.ok()) return converted.status();
    der = std::move(*converted);
    signature = der;
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  // An RSA key built from n/e (jwks.cc) verifies PKCS#1 v1.5 by default.
  const bool valid =
      ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                       signature.size(), reinterpret_cast<const unsigned char*>(signed_part.data()),
                       signed_part.size()) == 1;
  ERR_clear_error();  // a failed verify leaves errors on this thread's queue
  if (!valid) return Status::Unauthorized(fmt::format("bad {} signature", JwsAlgName(alg)));
  return Status::Ok();
}

// A NumericDate claim (RFC 7519 2: seconds, possibly fractional) as whole
// seconds; nullopt when absent, unauthorized when not a number.
Result<std::optional<std::int64_t>> NumericDate(const json::object& claims, std::string_view name) {
  const json::value* value = claims.if_contains(name);
  if (value == nullptr) return std::optional<std::int64_t>();
  // Far beyond any real date, and far from overflowing when leeway is added.
  constexpr std::int64_t kBound = std::int64_t{1} << 52;
  if (value->is_int64()) return std::optional(std::clamp(value->as_int64(), -kBound, kBound));
  if (value->is_uint64()) return std::optional(kBound);
  if (value->is_double() && std::isfinite(value->as_double())) {
    const double bound = static_cast<double>(kBound);
    return std::optional(
        static_cast<std::int64_t>(std::clamp(std::floor(value->as_double()), -bound, bound)));
  }
  return Status::Unauthorized(fmt::format("the '{}' claim is not a number", name));
}

Status CheckAudience(const json::object& claims, const std::vector<std::string>& audiences) {
  const json::value* aud = claims.if_contains("aud");
  if (aud == nullptr) return Status::Unauthorized("the token has no 'aud' claim");
  auto accepted = [&](const json::value& value) {
    return value.is_string() && std::find(audiences.begin(), audiences.end(),
                                          std::string_view(value.as_string())) != audiences.end();
  };
  if (aud->is_string() && accepted(*aud)) return Status::Ok();
  if (aud->is_array())
    for (const json::value& member : aud->as_array())
      if (accepted(member)) return Status::Ok();
  if (!aud->is_string() && !aud->is_array())
    return Status::Unauthorized("the 'aud' claim is neither a string nor an array");
  return Status::Unauthorized("the token's audience ('aud') is not one this server accepts");
}

// The claim `path` names: the top-level member of that whole name first
// (Cognito's "cognito:groups", or a URL-like claim with dots), else the
// members along its dots ("realm_access.roles"). Null when there is none.
const json::value* FindClaim(const json::object& claims, std::string_view path) {
  if (const json::value* whole = claims.if_contains(path)) return whole;
  const json::object* object = &claims;
  for (;;) {
    const std::size_t dot = path.find('.');
    const json::value* member = object->if_contains(path.substr(0, dot));
    if (member == nullptr || dot == std::string_view::npos) return member;
    object = member->if_object();
    if (object == nullptr) return nullptr;
    path.remove_prefix(dot + 1);
  }
}

Result<std::vector<std::string>> Roles(const json::object& claims, const std::string& path) {
  std::vector<std::string> roles;
  const json::value* claim = path.empty() ? nullptr : FindClaim(claims, path);
  if (claim == nullptr || claim->is_null()) return roles;
  if (claim->is_string()) {
    // An OAuth "scope"-like claim: names separated by spaces.
    std::string_view rest = claim->as_string();
    while (!rest.empty()) {
      const std::size_t space = rest.find(' ');
      if (space != 0) roles.emplace_back(rest.substr(0, space));
      if (space == std::string_view::npos) break;
      rest.remove_prefix(space + 1);
    }
    return roles;
  }
  if (claim->is_array()) {
    for (const json::value& role : claim->as_array()) {
      if (!role.is_string())
        return Status::Unauthorized(
            fmt::format("the roles claim '{}' holds something other than strings", path));
      roles.emplace_back(role.as_string());
    }
    return roles;
  }
  return Status::Unauthorized(
      fmt::format("the roles claim '{}' is neither an array of strings nor a string", path));
}

class Verifier final : public JwtVerifier {
 public:
  Verifier(JwtSettings settings, std::shared_ptr<const Jwks> keys, FileStamp stamp)
      : settings_(std::move(settings)),
        keys_(std::move(keys)),
        stamp_(stamp),
        next_check_(std::chrono::steady_clock::now() + kReloadInterval) {}

  Result<JwtIdentity> Verify(std::string_view token,
                             std::chrono::system_clock::time_point now) override;

 private:
  // The keys to verify with, read again first if the file changed (looked
  // at no more than once per kReloadInterval).
  std::shared_ptr<const Jwks> CurrentKeys() EXCLUDES(mu_);
  // exp, nbf, iat, iss and aud; the expiry when they hold.
  Result<std::int64_t> CheckClaims(const json::object& claims,
                                   std::chrono::system_clock::time_point now) const;

  const JwtSettings settings_;
  Mutex mu_;
  std::shared_ptr<const Jwks> keys_ GUARDED_BY(mu_);
  FileStamp stamp_ GUARDED_BY(mu_);  // of the file keys_ (or a failed parse) came from
  std::chrono::steady_clock::time_point next_check_ GUARDED_BY(mu_);
};

std::shared_ptr<const Jwks> Verifier::CurrentKeys() {
  MutexLock lock(&mu_);
  const auto steady_now = std::chrono::steady_clock::now();
  if (steady_now < next_check_) return keys_;
  next_check_ = steady_now + kReloadInterval;  // other threads go on with keys_
  const FileStamp seen = stamp_;
  lock.Unlock();  // the stat, and the read when the file changed, run unlocked
  const FileStamp stamp = StampOf(settings_.jwks_file);
  if (stamp == seen) {
    lock.Lock();
    return keys_;
  }
  auto loaded = LoadJwks(settings_.jwks_file);
  lock.Lock();
  // Recorded either way, so a file that does not parse is reported once,
  // not once a second, and is read again when it changes again.
  stamp_ = stamp;
  if (loaded.ok()) {
    keys_ = std::move(*loaded);
  } else {
    std::fprintf(stderr, "indelible: JWKS file '%s' changed and cannot be used (%s); %s\n",
                 Printable(settings_.jwks_file).c_str(), loaded.status().message().c_str(),
                 "keeping the keys read before");
  }
  return keys_;
}

Result<JwtIdentity> Verifier::Verify(std::string_view token,
                                     std::chrono::system_clock::time_point now) {
  if (token.size() > kMaxTokenBytes)
    return Status::Unauthorized(
        fmt::format("the token is {} bytes, more than {}", token.size(), kMaxTokenBytes));
  const auto parts = std::count(token.begin(), token.end(), '.') + 1;
  if (parts != 3)
    return Status::Unauthorized(
        fmt::format("the token has {} parts, not 3 (header.payload.signature)", parts));
  const std::size_t first = token.find('.');
  const std::size_t second = token.find('.', first + 1);
  const std::string_view signed_part = token.substr(0, second);

  auto header = DecodeObject(token.substr(0, first), "header");
  if (!header.ok()) return header.status();
  const json::value* alg_value = header->if_contains("alg");
  if (alg_value == nullptr || !alg_value->is_string())
    return Status::Unauthorized("the header has no string 'alg'");
  const std::string_view alg_name = alg_value->as_string();
  JwsAlg alg;
  if (alg_name == "RS256") {
    alg = JwsAlg::kRs256;
  } else if (alg_name == "ES256") {
    alg = JwsAlg::kEs256;
  } else if (alg_name == "none") {
    return Status::Unauthorized("alg 'none' is refused: the token is not signed");
  } else if (alg_name.starts_with("HS")) {
    // With a public key as the HMAC secret, anyone could sign (RS/HS confusion).
    return Status::Unauthorized(
        fmt::format("alg '{}' is refused: only public-key signatures (RS256, ES256) are accepted",
                    Printable(alg_name)));
  } else {
    return Status::Unauthorized(
        fmt::format("alg '{}' is not accepted (RS256 or ES256)", Printable(alg_name)));
  }
  if (header->contains("crit"))
    return Status::Unauthorized("the header has 'crit' (extensions this server does not know)");
  const json::value* kid = header->if_contains("kid");
  if (kid == nullptr || !kid->is_string())
    return Status::Unauthorized("the header has no string 'kid'");

  // keys holds the Jwks, and so the key, until the end of this call.
  const std::shared_ptr<const Jwks> keys = CurrentKeys();
  auto key = keys->KeyFor(kid->as_string(), alg);
  if (!key.ok()) return key.status();
  const auto signature = DecodeBase64Url(token.substr(second + 1));
  if (!signature) return Status::Unauthorized("the signature is not base64url");
  if (signature->empty()) return Status::Unauthorized("the token has no signature");
  if (Status status = VerifySignature(*key, alg, signed_part, *signature); !status.ok())
    return status;

  // Nothing in the payload is looked at before the signature holds.
  auto claims = DecodeObject(token.substr(first + 1, second - first - 1), "payload");
  if (!claims.ok()) return claims.status();
  auto expires_at = CheckClaims(*claims, now);
  if (!expires_at.ok()) return expires_at.status();
  const json::value* sub = claims->if_contains("sub");
  if (sub == nullptr || !sub->is_string() || sub->as_string().empty())
    return Status::Unauthorized("the token has no 'sub' (subject)");
  auto roles = Roles(*claims, settings_.roles_claim);
  if (!roles.ok()) return roles.status();

  JwtIdentity identity;
  identity.subject = std::string(sub->as_string());
  identity.roles = std::move(*roles);
  identity.expires_at = *expires_at;
  return identity;
}

Result<std::int64_t> Verifier::CheckClaims(const json::object& claims,
                                           std::chrono::system_clock::time_point now) const {
  const std::int64_t now_s =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const std::int64_t leeway = settings_.leeway.count();
  auto exp = NumericDate(claims, "exp");
  if (!exp.ok()) return exp.status();
  if (!*exp) return Status::Unauthorized("the token has no 'exp' (expiry)");
  if (now_s - leeway >= **exp)
    return Status::Unauthorized(
        fmt::format("the token expired at {} (Unix time; now {})", **exp, now_s));
  auto nbf = NumericDate(claims, "nbf");
  if (!nbf.ok()) return nbf.status();
  if (*nbf && now_s + leeway < **nbf)
    return Status::Unauthorized(
        fmt::format("the token is not valid before {} (Unix time; now {})", **nbf, now_s));
  auto iat = NumericDate(claims, "iat");
  if (!iat.ok()) return iat.status();
  if (*iat && **iat > now_s + leeway)
    return Status::Unauthorized(
        fmt::format("the token was issued in the future, at {} (Unix time; now {})", **iat, now_s));
  const json::value* iss = claims.if_contains("iss");
  if (iss == nullptr || !iss->is_string())
    return Status::Unauthorized("the token has no 'iss' (issuer)");
  if (iss->as_string() != settings_.issuer)
    return Status::Unauthorized(fmt::format("the issuer '{}' is not the one this server trusts",
                                            Printable(iss->as_string())));
  if (Status status = CheckAudience(claims, settings_.audiences); !status.ok()) return status;
  return **exp;
}

}  // namespace

Result<std::unique_ptr<JwtVerifier>> JwtVerifier::Open(JwtSettings settings) {
  if (settings.issuer.empty())
    return Status::Invalid("issuer", "a JWT issuer is required (the exact 'iss' of the tokens)");
  if (settings.audiences.empty() ||
      std::any_of(settings.audiences.begin(), settings.audiences.end(),
                  [](const std::string& audience) { return audience.empty(); }))
    return Status::Invalid("audiences", "at least one non-empty JWT audience is required");
  if (settings.leeway.count() < 0 || settings.leeway > std::chrono::hours(24))
    return Status::Invalid("leeway", "the JWT leeway must be between 0 seconds and a day");
  if (settings.jwks_file.empty()) return Status::Invalid("jwks_file", "a JWKS file is required");
  const FileStamp stamp = StampOf(settings.jwks_file);
  auto keys = LoadJwks(settings.jwks_file);
  if (!keys.ok())
    return Status::Invalid(
        "jwks_file",
        fmt::format("JWKS file '{}': {}", Printable(settings.jwks_file), keys.status().message()));
  return std::unique_ptr<JwtVerifier>(
      std::make_unique<Verifier>(std::move(settings), std::move(*keys), stamp));
}

}  // namespace indelible::auth
