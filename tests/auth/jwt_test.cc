// auth::JwtVerifier against tokens signed here: an RSA 2048 and an EC P-256
// key pair made by `openssl` once for the suite, a JWKS this test writes
// from their public parts, and tokens signed with EVP_DigestSign. Every
// refusal is checked by its message, so a verifier that refused for another
// reason (or accepted) fails the test.
#include "auth/jwt.h"

#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "auth/jwks.h"
#include "testutil/temp_dir.h"

namespace indelible::auth {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

constexpr char kIssuer[] = "https://id.example.com/realms/test";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string Bn(EVP_PKEY* key, const char* name, int pad = 0) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) std::abort();
  std::string bytes(pad ? pad : BN_num_bytes(bn), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  BN_free(bn);
  return EncodeBase64Url(bytes);
}

// The JWK of `key`'s public part; `extra` adds members (",\"use\":\"sig\"").
std::string Jwk(EVP_PKEY* key, const std::string& kid, const std::string& extra = "") {
  if (EVP_PKEY_is_a(key, "RSA"))
    return R"({"kty":"RSA","kid":")" + kid + R"(","n":")" + Bn(key, OSSL_PKEY_PARAM_RSA_N) +
           R"(","e":")" + Bn(key, OSSL_PKEY_PARAM_RSA_E) + "\"" + extra + "}";
  return R"({"kty":"EC","crv":"P-256","kid":")" + kid + R"(","x":")" +
         Bn(key, OSSL_PKEY_PARAM_EC_PUB_X, 32) + R"(","y":")" +
         Bn(key, OSSL_PKEY_PARAM_EC_PUB_Y, 32) + "\"" + extra + "}";
}

std::string JwksJson(const std::vector<std::string>& jwks) {
  std::string out = R"({"keys":[)";
  for (std::size_t i = 0; i < jwks.size(); ++i) out += (i ? "," : "") + jwks[i];
  return out + "]}";
}

// The raw JWS signature of `input`: PKCS#1 v1.5 for RSA, r||s for EC.
std::string SignBytes(EVP_PKEY* key, const std::string& input) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  std::size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  if (EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key) != 1 ||
      EVP_DigestSign(ctx, nullptr, &length, data, input.size()) != 1)
    std::abort();
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &length, data,
                     input.size()) != 1)
    std::abort();
  EVP_MD_CTX_free(ctx);
  signature.resize(length);
  if (EVP_PKEY_is_a(key, "RSA")) return signature;
  const auto* der = reinterpret_cast<const unsigned char*>(signature.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(signature.size()));
  std::string rs(64, '\0');
  BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(rs.data()), 32);
  BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(rs.data() + 32), 32);
  ECDSA_SIG_free(sig);
  return rs;
}

std::string Token(const std::string& header, const std::string& payload, EVP_PKEY* key) {
  const std::string input = EncodeBase64Url(header) + "." + EncodeBase64Url(payload);
  return input + "." + EncodeBase64Url(SignBytes(key, input));
}

std::int64_t Now() { return system_clock::to_time_t(system_clock::now()); }

// A payload that passes every check; change members to fail one.
struct Claims {
  std::string iss = kIssuer;
  std::string aud = R"("indelible")";  // JSON: a string or an array
  std::string sub = "alice";
  std::int64_t exp = Now() + 300;
  std::int64_t iat = Now();
  std::optional<std::int64_t> nbf;
  std::string extra = R"(,"roles":["reader","writer"])";  // more members

  std::string Json() const {
    std::string json = R"({"iss":")" + iss + R"(","aud":)" + aud + R"(,"sub":")" + sub +
                       R"(","exp":)" + std::to_string(exp) + R"(,"iat":)" + std::to_string(iat);
    if (nbf) json += R"(,"nbf":)" + std::to_string(*nbf);
    return json + extra + "}";
  }
};

// The suite's keys, made once: openssl takes a while for RSA.
class Keys : public ::testing::Environment {
 public:
  void SetUp() override {
    const std::string dir = dir_.path().string();
    const std::string make =
        "cd '" + dir +
        "' && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.pem && "
        "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa2.pem && "
        "openssl pkey -in rsa.pem -pubout -out rsa_pub.pem && "
        "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.pem";
    std::string output;
    FILE* pipe = ::popen(("(" + make + ") 2>&1").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char buf[256];
    while (std::fgets(buf, sizeof(buf), pipe) != nullptr) output += buf;
    ASSERT_EQ(::pclose(pipe), 0) << "openssl could not make the keys:\n" << output;
    rsa_ = Load(dir + "/rsa.pem");
    rsa2_ = Load(dir + "/rsa2.pem");
    ec_ = Load(dir + "/ec.pem");
    rsa_public_pem_ = ReadFile(dir + "/rsa_pub.pem");
    ASSERT_NE(rsa_public_pem_.find("BEGIN PUBLIC KEY"), std::string::npos);
  }
  void TearDown() override {
    EVP_PKEY_free(rsa_);
    EVP_PKEY_free(rsa2_);
    EVP_PKEY_free(ec_);
  }
  static EVP_PKEY* rsa() { return rsa_; }
  static EVP_PKEY* rsa2() { return rsa2_; }
  static EVP_PKEY* ec() { return ec_; }
  static const std::string& rsa_public_pem() { return rsa_public_pem_; }

 private:
  static EVP_PKEY* Load(const std::string& path) {
    FILE* file = std::fopen(path.c_str(), "r");
    if (file == nullptr) std::abort();
    EVP_PKEY* key = PEM_read_PrivateKey(file, nullptr, nullptr, nullptr);
    std::fclose(file);
    if (key == nullptr) std::abort();
    return key;
  }
  testutil::TempDir dir_;
  static inline EVP_PKEY* rsa_ = nullptr;
  static inline EVP_PKEY* rsa2_ = nullptr;
  static inline EVP_PKEY* ec_ = nullptr;
  static inline std::string rsa_public_pem_;
};
const auto* const kKeys = ::testing::AddGlobalTestEnvironment(new Keys);

constexpr char kRs256[] = R"({"alg":"RS256","typ":"JWT","kid":"rsa-1"})";
constexpr char kEs256[] = R"({"alg":"ES256","typ":"JWT","kid":"ec-1"})";

class JwtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    jwks_file_ = dir_.Sub("jwks.json");
    WriteFile(jwks_file_, JwksJson({Jwk(Keys::rsa(), "rsa-1", R"(,"use":"sig","alg":"RS256")"),
                                    Jwk(Keys::ec(), "ec-1")}));
    verifier_ = Open();
  }

  std::unique_ptr<JwtVerifier> Open(const std::string& roles_claim = "roles") {
    JwtSettings settings;
    settings.jwks_file = jwks_file_;
    settings.issuer = kIssuer;
    settings.audiences = {"indelible", "indelible-admin"};
    settings.roles_claim = roles_claim;
    auto verifier = JwtVerifier::Open(settings);
    EXPECT_TRUE(verifier.ok()) << verifier.status().ToString();
    return verifier.ok() ? std::move(*verifier) : nullptr;
  }

  Result<JwtIdentity> Verify(const std::string& token) {
    return verifier_->Verify(token, system_clock::now());
  }

  // Refused as unauthorized with `why` in the message.
  void ExpectRefused(const std::string& token, const std::string& why) {
    auto identity = Verify(token);
    ASSERT_FALSE(identity.ok()) << "accepted: " << identity->subject;
    EXPECT_EQ(identity.status().code(), ErrorCode::kUnauthorized);
    EXPECT_TRUE(Contains(identity.status().message(), why)) << identity.status().message();
  }

  testutil::TempDir dir_;
  std::string jwks_file_;
  std::unique_ptr<JwtVerifier> verifier_;
};

TEST_F(JwtTest, AcceptsRs256) {
  Claims claims;
  auto identity = Verify(Token(kRs256, claims.Json(), Keys::rsa()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->subject, "alice");
  EXPECT_EQ(identity->roles, (std::vector<std::string>{"reader", "writer"}));
  EXPECT_EQ(identity->expires_at, claims.exp);
}

TEST_F(JwtTest, AcceptsEs256) {
  auto identity = Verify(Token(kEs256, Claims().Json(), Keys::ec()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->subject, "alice");
}

TEST_F(JwtTest, RefusesExpiredButAllowsLeeway) {
  Claims claims;
  claims.exp = Now() - 60;  // leeway is 30 s
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "expired");
  claims.exp = Now() - 10;
  EXPECT_TRUE(Verify(Token(kRs256, claims.Json(), Keys::rsa())).ok());
  claims.exp = 0;
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "expired");
}

TEST_F(JwtTest, RefusesMissingExp) {
  Claims claims;
  std::string json = claims.Json();
  json.replace(json.find("\"exp\""), 5, "\"xxp\"");
  ExpectRefused(Token(kRs256, json, Keys::rsa()), "no 'exp'");
}

TEST_F(JwtTest, RefusesNotYetValid) {
  Claims claims;
  claims.nbf = Now() + 120;
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "not valid before");
  claims.nbf = Now() + 10;  // within the leeway
  EXPECT_TRUE(Verify(Token(kRs256, claims.Json(), Keys::rsa())).ok());
}

TEST_F(JwtTest, RefusesIssuedInTheFuture) {
  Claims claims;
  claims.iat = Now() + 3600;
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "issued in the future");
}

TEST_F(JwtTest, RefusesWrongIssuer) {
  Claims claims;
  claims.iss = "https://id.example.com/realms/other";
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "issuer");
  claims.iss = std::string(kIssuer) + "/";  // exact, not a prefix
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "issuer");
  claims.iss = kIssuer;
  claims.extra = R"(,"iss":"https://evil.example.com")";  // twice: the last counts
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "issuer 'https://evil.example.com'");
}

TEST_F(JwtTest, RefusesWrongAudience) {
  Claims claims;
  claims.aud = R"("someone-else")";
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "audience");
  claims.aud = R"(["a","b"])";
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "audience");
}

TEST_F(JwtTest, AcceptsAudienceArrayWithOneMatch) {
  Claims claims;
  claims.aud = R"(["account","indelible-admin"])";
  auto identity = Verify(Token(kRs256, claims.Json(), Keys::rsa()));
  EXPECT_TRUE(identity.ok()) << identity.status().ToString();
}

TEST_F(JwtTest, RefusesAlgNone) {
  const std::string unsigned_part =
      EncodeBase64Url(R"({"alg":"none","kid":"rsa-1"})") + "." + EncodeBase64Url(Claims().Json());
  ExpectRefused(unsigned_part + ".", "alg 'none' is refused");
  // With a signature part that is a valid RS256 signature of the same bytes.
  ExpectRefused(unsigned_part + "." + EncodeBase64Url(SignBytes(Keys::rsa(), unsigned_part)),
                "alg 'none' is refused");
}

// The RS/HS confusion: a verifier that fed the key's bytes to HMAC would
// accept this token, which anyone holding the public key can make.
TEST_F(JwtTest, RefusesHs256SignedWithThePublicKey) {
  const std::string input = EncodeBase64Url(R"({"alg":"HS256","typ":"JWT","kid":"rsa-1"})") + "." +
                            EncodeBase64Url(Claims().Json());
  const std::string& secret = Keys::rsa_public_pem();
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  ASSERT_NE(HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
                 reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &length),
            nullptr);
  const std::string token =
      input + "." + EncodeBase64Url(std::string(reinterpret_cast<char*>(mac), length));
  ExpectRefused(token, "alg 'HS256' is refused");
}

TEST_F(JwtTest, RefusesOtherAlgs) {
  const std::string payload = Claims().Json();
  ExpectRefused(Token(R"({"alg":"RS512","kid":"rsa-1"})", payload, Keys::rsa()),
                "'RS512' is not accepted");
  ExpectRefused(Token(R"({"alg":"NONE","kid":"rsa-1"})", payload, Keys::rsa()), "not accepted");
  ExpectRefused(Token(R"({"kid":"rsa-1"})", payload, Keys::rsa()), "no string 'alg'");
}

TEST_F(JwtTest, RefusesEs256NamingAnRsaKey) {
  ExpectRefused(Token(R"({"alg":"ES256","kid":"rsa-1"})", Claims().Json(), Keys::ec()),
                "key 'rsa-1' (kty RSA) is for RS256, the token says ES256");
  ExpectRefused(Token(R"({"alg":"RS256","kid":"ec-1"})", Claims().Json(), Keys::rsa()),
                "key 'ec-1' (kty EC) is for ES256, the token says RS256");
}

TEST_F(JwtTest, RefusesKeysNotForSignaturesOrAnotherAlg) {
  WriteFile(jwks_file_,
            JwksJson({Jwk(Keys::rsa(), "rsa-1"), Jwk(Keys::rsa2(), "enc-1", R"(,"use":"enc")"),
                      Jwk(Keys::rsa2(), "ps-1", R"(,"alg":"PS256")"),
                      R"({"kty":"oct","kid":"hmac-1","k":"c2VjcmV0"})"}));
  verifier_ = Open();
  ExpectRefused(Token(R"({"alg":"RS256","kid":"enc-1"})", Claims().Json(), Keys::rsa2()),
                "key 'enc-1' is not usable: use 'enc'");
  ExpectRefused(Token(R"({"alg":"RS256","kid":"ps-1"})", Claims().Json(), Keys::rsa2()),
                "key 'ps-1' is not usable: RSA key for alg 'PS256'");
  ExpectRefused(Token(R"({"alg":"RS256","kid":"hmac-1"})", Claims().Json(), Keys::rsa2()),
                "kty 'oct'");
  EXPECT_TRUE(Verify(Token(kRs256, Claims().Json(), Keys::rsa())).ok());
}

TEST_F(JwtTest, RefusesUnknownOrMissingKid) {
  ExpectRefused(Token(R"({"alg":"RS256","kid":"rsa-9"})", Claims().Json(), Keys::rsa()),
                "unknown kid 'rsa-9'");
  ExpectRefused(Token(R"({"alg":"RS256"})", Claims().Json(), Keys::rsa()), "no string 'kid'");
}

TEST_F(JwtTest, RefusesTamperedPayload) {
  for (const auto& [header, key] :
       {std::pair{kRs256, Keys::rsa()}, std::pair{kEs256, Keys::ec()}}) {
    const std::string token = Token(header, Claims().Json(), key);
    Claims mallory;
    mallory.sub = "mallory";
    const std::size_t first = token.find('.');
    const std::size_t second = token.find('.', first + 1);
    const std::string tampered =
        token.substr(0, first + 1) + EncodeBase64Url(mallory.Json()) + token.substr(second);
    ExpectRefused(tampered, "bad");
    ExpectRefused(tampered, "signature");
  }
  ExpectRefused(Token(kRs256, Claims().Json(), Keys::rsa2()), "bad RS256 signature");
}

TEST_F(JwtTest, RefusesBadBase64AndShape) {
  const std::string token = Token(kRs256, Claims().Json(), Keys::rsa());
  const std::size_t first = token.find('.');
  const std::size_t second = token.find('.', first + 1);
  ExpectRefused("*" + token.substr(1), "header is not base64url");
  ExpectRefused(token.substr(0, first) + "=" + token.substr(first), "header is not base64url");
  // A bad payload is signed data like any other: a token whose signature
  // holds but whose payload is not base64url.
  const std::string input = EncodeBase64Url(kRs256) + ".e30!";
  ExpectRefused(input + "." + EncodeBase64Url(SignBytes(Keys::rsa(), input)),
                "payload is not base64url");
  ExpectRefused(token.substr(0, first + 1) + "!" + token.substr(first + 2), "bad RS256 signature");
  ExpectRefused(token + "=", "signature is not base64url");
  ExpectRefused(token.substr(0, second) + ".", "no signature");
  ExpectRefused(EncodeBase64Url("[1]") + token.substr(first), "header is not a JSON object");
  ExpectRefused(EncodeBase64Url("{") + token.substr(first), "header is not a JSON object");
  ExpectRefused(token.substr(0, second), "2 parts");
  ExpectRefused(token + ".x", "4 parts");
  ExpectRefused("", "1 parts");
  ExpectRefused(token.substr(0, first) + "." + std::string(17 * 1024, 'A') + token.substr(second),
                "more than 16384");
  ExpectRefused(Token(R"({"alg":"RS256","kid":"rsa-1","crit":["exp"],"exp":1})", Claims().Json(),
                      Keys::rsa()),
                "'crit'");
  // A payload that is signed but not JSON.
  ExpectRefused(Token(kRs256, "not json", Keys::rsa()), "payload is not a JSON object");
}

TEST_F(JwtTest, RefusesMissingSubject) {
  Claims claims;
  claims.sub = "";
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "no 'sub'");
}

TEST_F(JwtTest, ReloadsTheJwksWhenItChanges) {
  ASSERT_TRUE(Verify(Token(kRs256, Claims().Json(), Keys::rsa())).ok());
  const std::string rotated_header = R"({"alg":"RS256","kid":"rsa-rotated"})";
  const std::string rotated = Token(rotated_header, Claims().Json(), Keys::rsa2());
  ExpectRefused(rotated, "unknown kid");

  WriteFile(jwks_file_, JwksJson({Jwk(Keys::rsa2(), "rsa-rotated")}));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto identity = Verify(rotated);
  EXPECT_TRUE(identity.ok()) << identity.status().ToString();
  ExpectRefused(Token(kRs256, Claims().Json(), Keys::rsa()), "unknown kid 'rsa-1'");
  ExpectRefused(Token(kEs256, Claims().Json(), Keys::ec()), "unknown kid 'ec-1'");
}

TEST_F(JwtTest, KeepsTheOldKeysWhenARewriteDoesNotParse) {
  const std::string token = Token(kRs256, Claims().Json(), Keys::rsa());
  ASSERT_TRUE(Verify(token).ok());
  WriteFile(jwks_file_, R"({"keys":[{"kty":"RSA","kid":"half)");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ::testing::internal::CaptureStderr();
  auto first = Verify(token);
  auto second = Verify(token);
  const std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(Contains(logged, "keeping the keys read before")) << logged;
  EXPECT_EQ(std::count(logged.begin(), logged.end(), '\n'), 1) << logged;

  // Reported once: after another second, the same broken file says nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(Verify(token).ok());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");

  // A JWKS with no usable key is no better than a broken one.
  WriteFile(jwks_file_, JwksJson({Jwk(Keys::rsa2(), "enc-only", R"(,"use":"enc")")}));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(Verify(token).ok());
  const std::string reported = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(Contains(reported, "no usable signing key")) << reported;
}

TEST_F(JwtTest, RolesFromATopLevelArray) {
  auto identity = Verify(Token(kRs256, Claims().Json(), Keys::rsa()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->roles, (std::vector<std::string>{"reader", "writer"}));
}

TEST_F(JwtTest, RolesFromANestedClaim) {
  verifier_ = Open("realm_access.roles");
  Claims claims;
  claims.extra = R"(,"roles":["top"],"realm_access":{"roles":["admin","reader"]})";
  auto identity = Verify(Token(kRs256, claims.Json(), Keys::rsa()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->roles, (std::vector<std::string>{"admin", "reader"}));

  claims.extra = R"(,"realm_access":"admin")";  // not an object: no roles
  identity = Verify(Token(kRs256, claims.Json(), Keys::rsa()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_TRUE(identity->roles.empty());
}

TEST_F(JwtTest, RolesFromAKeyWithAColonOrADot) {
  verifier_ = Open("cognito:groups");
  Claims claims;
  claims.extra = R"(,"cognito:groups":["ops"])";
  auto identity = Verify(Token(kRs256, claims.Json(), Keys::rsa()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->roles, (std::vector<std::string>{"ops"}));

  // A dotted name that is itself a top-level key wins over the path.
  verifier_ = Open("https://example.com/roles");
  claims.extra = R"(,"https://example.com/roles":["web"],"https://example":{"com/roles":["x"]})";
  identity = Verify(Token(kRs256, claims.Json(), Keys::rsa()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->roles, (std::vector<std::string>{"web"}));
}

TEST_F(JwtTest, RolesFromASpaceSeparatedString) {
  verifier_ = Open("scope");
  Claims claims;
  claims.extra = R"(,"scope":"events:read  events:write openid")";
  auto identity = Verify(Token(kRs256, claims.Json(), Keys::rsa()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(identity->roles, (std::vector<std::string>{"events:read", "events:write", "openid"}));
}

TEST_F(JwtTest, RolesMissingOrMalformed) {
  Claims claims;
  claims.extra = "";
  auto identity = Verify(Token(kRs256, claims.Json(), Keys::rsa()));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_TRUE(identity->roles.empty());
  claims.extra = R"(,"roles":["a",1])";
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "other than strings");
  claims.extra = R"(,"roles":{"a":1})";
  ExpectRefused(Token(kRs256, claims.Json(), Keys::rsa()), "neither");
}

// Many threads verify good and bad tokens while the JWKS is rewritten (a
// key added) and reloaded under them; run it under the tsan preset too.
TEST_F(JwtTest, ManyThreadsVerifyAtOnce) {
  const std::string rs = Token(kRs256, Claims().Json(), Keys::rsa());
  const std::string es = Token(kEs256, Claims().Json(), Keys::ec());
  Claims expired;
  expired.exp = Now() - 3600;
  const std::string bad = Token(kRs256, expired.Json(), Keys::rsa());
  const std::string added =
      Token(R"({"alg":"RS256","kid":"rsa-added"})", Claims().Json(), Keys::rsa2());

  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::atomic<int> added_accepted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        if (!Verify(rs).ok() || !Verify(es).ok() || Verify(bad).ok()) ++wrong;
        if (Verify(added).ok()) ++added_accepted;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  WriteFile(jwks_file_, JwksJson({Jwk(Keys::rsa(), "rsa-1"), Jwk(Keys::ec(), "ec-1"),
                                  Jwk(Keys::rsa2(), "rsa-added")}));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  stop = true;
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(added_accepted.load(), 0);
  EXPECT_TRUE(Verify(added).ok());
}

TEST(JwtOpenTest, RefusesBadSettingsAndFiles) {
  testutil::TempDir dir;
  JwtSettings settings;
  settings.jwks_file = dir.Sub("missing.json");
  settings.issuer = kIssuer;
  settings.audiences = {"indelible"};
  auto opened = JwtVerifier::Open(settings);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), ErrorCode::kInvalid);
  EXPECT_TRUE(Contains(opened.status().message(), "missing.json")) << opened.status().message();

  const std::string file = dir.Sub("jwks.json");
  settings.jwks_file = file;
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"not json", "not JSON"},
           {R"({"keys":{}})", "no \"keys\" array"},
           {R"({"keys":[]})", "no usable signing key"},
           {R"({"keys":[{"kty":"RSA","kid":"a","n":"AQAB","e":"AQAB"}]})", "fewer than 2048"},
           {R"({"keys":[{"kty":"RSA","kid":"a","n":"!!","e":"AQAB"}]})", "'n' is not base64url"},
           {R"({"keys":[{"kty":"EC","kid":"a","crv":"P-256","x":"AQAB","y":"AQAB"}]})",
            "not 32 bytes"},
           {R"({"keys":[{"kty":"EC","kid":"a","crv":"P-256","x":")" + std::string(43, 'A') +
                R"(","y":")" + std::string(43, 'A') + R"("}]})",
            "not a valid P-256 public key"},
           {JwksJson({Jwk(Keys::rsa(), "a"), Jwk(Keys::ec(), "a")}), "two keys have kid 'a'"},
       }) {
    WriteFile(file, text);
    opened = JwtVerifier::Open(settings);
    ASSERT_FALSE(opened.ok()) << text;
    EXPECT_EQ(opened.status().code(), ErrorCode::kInvalid);
    EXPECT_TRUE(Contains(opened.status().message(), why)) << opened.status().message();
  }

  WriteFile(file, JwksJson({Jwk(Keys::ec(), "ec-1")}));
  ASSERT_TRUE(JwtVerifier::Open(settings).ok());
  settings.issuer = "";
  EXPECT_EQ(JwtVerifier::Open(settings).status().field(), "issuer");
  settings.issuer = kIssuer;
  settings.audiences = {};
  EXPECT_EQ(JwtVerifier::Open(settings).status().field(), "audiences");
}

TEST(Base64UrlTest, DecodesStrictly) {
  EXPECT_EQ(DecodeBase64Url(""), "");
  EXPECT_EQ(DecodeBase64Url("Zg"), "f");
  EXPECT_EQ(DecodeBase64Url("Zm8"), "fo");
  EXPECT_EQ(DecodeBase64Url("Zm9v"), "foo");
  EXPECT_EQ(DecodeBase64Url("-_8"), "\xfb\xff");
  EXPECT_EQ(DecodeBase64Url("Zg=="), std::nullopt);  // padding
  EXPECT_EQ(DecodeBase64Url("Z"), std::nullopt);     // no encoding is 1 mod 4
  EXPECT_EQ(DecodeBase64Url("Zh"), std::nullopt);    // unused bits set
  EXPECT_EQ(DecodeBase64Url("Zm+v"), std::nullopt);  // base64, not base64url
  EXPECT_EQ(DecodeBase64Url("Zm v"), std::nullopt);
  const std::string all = [] {
    std::string bytes;
    for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
    return bytes;
  }();
  for (std::size_t n = 0; n < all.size(); ++n)
    EXPECT_EQ(DecodeBase64Url(EncodeBase64Url(all.substr(n))), all.substr(n));
}

}  // namespace
}  // namespace indelible::auth
