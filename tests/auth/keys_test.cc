// auth::KeyStore and the key format (src/auth/api_keys.h) on the memory
// store: made, verified, revoked, expiring, registered; what the store
// keeps of a key (a hash, never the secret); the cache's lifetime; the
// shape checks of ParseKey.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <thread>

#include "auth/api_keys.h"

namespace indelible::auth {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kNow = 1'700'000'000'000;

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < size; ++i) {
    out += kDigits[digest[i] >> 4];
    out += kDigits[digest[i] & 15];
  }
  return out;
}

class KeyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open("memory:");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  NewKey Make(KeyStore& keys, const std::string& name, std::vector<std::string> roles = {"reader"},
              std::int64_t expires_ms = 0) {
    auto made = keys.Create(name, std::move(roles), expires_ms, "test", kNow);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? *made : NewKey{};
  }

  std::unique_ptr<Store> store_;
};

TEST_F(KeyStoreTest, AKeyIsMadeVerifiedAndKeptAsAHashOnly) {
  KeyStore keys(*store_, 1h);
  const NewKey made = Make(keys, "svc", {"writer", "reader"}, kNow + 60000);
  const auto parsed = ParseKey(made.key);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->id, made.info.id);
  EXPECT_EQ(made.key.size(), 4 + 16 + 1 + 43u);
  EXPECT_EQ(made.info.created_by, "test");
  EXPECT_EQ(made.info.created_ms, kNow);

  auto verified = keys.Verify(made.key, kNow + 1);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_EQ(verified->name, "svc");
  EXPECT_EQ(verified->roles, (std::vector<std::string>{"writer", "reader"}));
  EXPECT_EQ(verified->expires_ms, kNow + 60000);

  // The record: the hash of the secret, never the secret.
  auto record = store_->LoadRecord("auth/keys/" + made.info.id);
  ASSERT_TRUE(record.ok() && *record);
  EXPECT_EQ(record->value().find(parsed->secret), std::string::npos) << **record;
  EXPECT_NE(record->value().find(Sha256Hex(parsed->secret)), std::string::npos) << **record;

  auto listed = keys.List();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, made.info.id);
  // KeyInfo has no field for the secret or its hash: what the API shows of
  // a key (api::KeyToJson, tests/unit/api_wire_test.cc) cannot hold them.
  EXPECT_EQ((*listed)[0].last_used_ms, 0) << "never used";
}

TEST_F(KeyStoreTest, KeysAreDistinctAndListedInOrderOfMaking) {
  KeyStore keys(*store_, 1h);
  std::vector<NewKey> made;
  for (int i = 0; i < 5; ++i) {
    auto key = keys.Create("k" + std::to_string(i), {"reader"}, 0, "test", kNow + i);
    ASSERT_TRUE(key.ok());
    made.push_back(*key);
  }
  auto listed = keys.List();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ((*listed)[i].name, "k" + std::to_string(i));
    for (int j = 0; j < i; ++j) {
      EXPECT_NE(made[i].info.id, made[j].info.id);
      EXPECT_NE(ParseKey(made[i].key)->secret, ParseKey(made[j].key)->secret);
    }
  }
}

TEST_F(KeyStoreTest, CreateRefusesBadRequests) {
  KeyStore keys(*store_, 1h);
  for (const std::string& name :
       std::vector<std::string>{"", "has space", "a/b", std::string(65, 'x'), "é"}) {
    auto made = keys.Create(name, {"reader"}, 0, "test", kNow);
    ASSERT_FALSE(made.ok()) << name;
    EXPECT_EQ(made.status().code(), ErrorCode::kInvalid) << name;
  }
  EXPECT_TRUE(keys.Create(std::string(64, 'x'), {"reader"}, 0, "test", kNow).ok());
  EXPECT_EQ(keys.Create("x", {}, 0, "test", kNow).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(keys.Create("x", {"reader"}, kNow, "test", kNow).status().code(), ErrorCode::kInvalid)
      << "an expiry that is not in the future";
  Make(keys, "taken");
  auto again = keys.Create("taken", {"reader"}, 0, "test", kNow);
  EXPECT_EQ(again.status().code(), ErrorCode::kConflict);
}

TEST_F(KeyStoreTest, AWrongSecretReadsLikeAnUnknownKey) {
  KeyStore keys(*store_, 1h);
  const NewKey made = Make(keys, "svc");
  std::string wrong = made.key;
  wrong.back() = wrong.back() == 'A' ? 'B' : 'A';
  const std::string unknown = "idl_0123456789abcdef_" + std::string(43, 'A');
  auto refused_unknown = keys.Verify(unknown, kNow);
  ASSERT_FALSE(refused_unknown.ok());
  EXPECT_EQ(refused_unknown.status().code(), ErrorCode::kUnauthorized);
  for (int pass = 0; pass < 2; ++pass) {  // read from the store, then cached
    auto refused = keys.Verify(wrong, kNow);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), ErrorCode::kUnauthorized);
    EXPECT_EQ(refused.status().message(), refused_unknown.status().message());
    EXPECT_TRUE(keys.Verify(made.key, kNow).ok());
  }
  auto malformed = keys.Verify("idl_nope", kNow);
  EXPECT_EQ(malformed.status().code(), ErrorCode::kUnauthorized);
}

TEST_F(KeyStoreTest, RandomUnknownIdsKeepMemoryBoundedAndKnownKeysCached) {
  // Any client can send well-formed keys with ids nobody made. Each was
  // once cached for good (120,000 grew a server by 36 MB); now at most
  // kMaxUnknownIds are remembered, however many arrive within the TTL.
  KeyStore keys(*store_, 1h);
  const NewKey made = Make(keys, "svc");
  ASSERT_TRUE(keys.Verify(made.key, kNow).ok());
  const std::string secret(43, 'A');
  constexpr int kIds = 1'000'000;
  std::size_t most = 0;
  for (int i = 0; i < kIds; ++i) {
    const std::string key = fmt::format("idl_{:016x}_{}", 0x1000000000000000ULL + i, secret);
    ASSERT_EQ(keys.Verify(key, kNow).status().code(), ErrorCode::kUnauthorized);
    if (i % 1000 == 0) most = std::max(most, keys.CachedIds());
  }
  most = std::max(most, keys.CachedIds());
  EXPECT_LE(most, KeyStore::kMaxUnknownIds + 1) << "unknown ids piled up";
  EXPECT_GE(most, KeyStore::kMaxUnknownIds) << "unknown ids are remembered (no store read)";
  // The newest unknown id is answered from memory; the known key still is.
  const auto newest = keys.VerifyCached(
      fmt::format("idl_{:016x}_{}", 0x1000000000000000ULL + kIds - 1, secret), kNow);
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->status().code(), ErrorCode::kUnauthorized);
  const auto known = keys.VerifyCached(made.key, kNow);
  ASSERT_TRUE(known) << "the known key fell out of the cache";
  EXPECT_TRUE(known->ok());
  // An id remembered as unknown that becomes a key (made elsewhere, then
  // registered here) is known at once.
  const std::string later = "idl_00000000000000aa_" + secret;
  ASSERT_FALSE(keys.Verify(later, kNow).ok());
  ASSERT_TRUE(keys.Register(later, "later", {"reader"}, kNow).ok());
  EXPECT_TRUE(keys.Verify(later, kNow).ok());
}

TEST_F(KeyStoreTest, ARevokedKeyIsRefusedAtOnceByThisStore) {
  KeyStore keys(*store_, 1h);
  const NewKey by_id = Make(keys, "one");
  const NewKey by_name = Make(keys, "two");
  ASSERT_TRUE(keys.Verify(by_id.key, kNow).ok());  // cached for an hour
  ASSERT_TRUE(keys.Verify(by_name.key, kNow).ok());
  auto revoked = keys.Revoke(by_id.info.id);
  ASSERT_TRUE(revoked.ok());
  EXPECT_EQ(revoked->name, "one");
  EXPECT_EQ(keys.Verify(by_id.key, kNow).status().code(), ErrorCode::kUnauthorized);
  ASSERT_TRUE(keys.Revoke("two").ok());
  EXPECT_EQ(keys.Verify(by_name.key, kNow).status().code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(keys.Revoke("two").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(keys.Revoke("0123456789abcdef").status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(keys.List()->empty());
  EXPECT_TRUE(store_->ListRecords("auth/keys/")->empty()) << "its records are gone";
  EXPECT_TRUE(store_->ListRecords("auth/key-used/")->empty());
  // The ids stay on record as revoked, so nothing registers them again.
  EXPECT_EQ(store_->ListRecords("auth/keys-revoked/")->size(), 2u);
  EXPECT_EQ(keys.Register(by_id.key, "again", {"admin"}, kNow).code(), ErrorCode::kInvalid);
}

TEST_F(KeyStoreTest, AKeyExpires) {
  KeyStore keys(*store_, 1h);
  const NewKey made = Make(keys, "short", {"reader"}, kNow + 1000);
  EXPECT_TRUE(keys.Verify(made.key, kNow + 999).ok());
  auto expired = keys.Verify(made.key, kNow + 1000);  // cached: the expiry is still checked
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.status().code(), ErrorCode::kUnauthorized);
  EXPECT_NE(expired.status().message().find("expired"), std::string::npos);
  KeyStore fresh(*store_, 1h);  // read from the store
  EXPECT_EQ(fresh.Verify(made.key, kNow + 5000).status().code(), ErrorCode::kUnauthorized);
  EXPECT_TRUE(fresh.Verify(made.key, kNow).ok());
}

TEST_F(KeyStoreTest, TheCacheTrustsARecordForItsLifetimeOnly) {
  const auto ttl = 1000ms;
  KeyStore keys(*store_, ttl);
  const NewKey made = Make(keys, "cached");
  EXPECT_FALSE(keys.VerifyCached(made.key, kNow)) << "not read yet";
  const auto read_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(keys.Verify(made.key, kNow).ok());
  // Revoked behind this store's back (by another server of the same table).
  ASSERT_TRUE(store_->DeleteRecord("auth/keys/" + made.info.id).ok());
  const auto cached = keys.VerifyCached(made.key, kNow);
  const bool within = std::chrono::steady_clock::now() - read_at < ttl;
  ASSERT_TRUE(within) << "the machine is too slow for this test's TTL";
  ASSERT_TRUE(cached);
  EXPECT_TRUE(cached->ok()) << "within the TTL, the cached answer stands";
  EXPECT_TRUE(keys.Verify(made.key, kNow).ok());
  std::this_thread::sleep_until(read_at + ttl + 10ms);
  EXPECT_FALSE(keys.VerifyCached(made.key, kNow)) << "past the TTL the store is asked";
  EXPECT_EQ(keys.Verify(made.key, kNow).status().code(), ErrorCode::kUnauthorized);

  // TTL 0 (the CLI): every verify reads the store.
  KeyStore uncached(*store_, 0ms);
  const NewKey other = Make(uncached, "other");
  ASSERT_TRUE(uncached.Verify(other.key, kNow).ok());
  EXPECT_FALSE(uncached.VerifyCached(other.key, kNow));
  ASSERT_TRUE(store_->DeleteRecord("auth/keys/" + other.info.id).ok());
  EXPECT_EQ(uncached.Verify(other.key, kNow).status().code(), ErrorCode::kUnauthorized);
  // A malformed key needs no store: answered from memory.
  const auto malformed = uncached.VerifyCached("Bearer x", kNow);
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status().code(), ErrorCode::kUnauthorized);
}

TEST_F(KeyStoreTest, RegisterAKeyMadeElsewhere) {
  auto other_store = Store::Open("memory:");
  ASSERT_TRUE(other_store.ok());
  KeyStore elsewhere(**other_store, 1h);
  const NewKey made = Make(elsewhere, "elsewhere");

  KeyStore keys(*store_, 1h);
  EXPECT_EQ(keys.Verify(made.key, kNow).status().code(), ErrorCode::kUnauthorized);
  ASSERT_TRUE(keys.Register(made.key, "boot", {"admin"}, kNow).ok());
  auto verified = keys.Verify(made.key, kNow);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_EQ(verified->name, "boot");
  EXPECT_EQ(verified->roles, (std::vector<std::string>{"admin"}));
  EXPECT_EQ(verified->created_by, "bootstrap");
  // Again with the same key: fine, still one key.
  EXPECT_TRUE(keys.Register(made.key, "boot", {"admin"}, kNow).ok());
  EXPECT_EQ(keys.List()->size(), 1u);
  // The same id with another secret: a conflict, and the first stays.
  std::string forged = made.key;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  EXPECT_EQ(keys.Register(forged, "boot", {"admin"}, kNow).code(), ErrorCode::kConflict);
  EXPECT_EQ(keys.Verify(forged, kNow).status().code(), ErrorCode::kUnauthorized);
  EXPECT_TRUE(keys.Verify(made.key, kNow).ok());
  EXPECT_EQ(keys.Register("hunter2", "boot", {"admin"}, kNow).code(), ErrorCode::kInvalid);
}

TEST_F(KeyStoreTest, UseIsRecordedAtMostOnceAMinute) {
  KeyStore keys(*store_, 1h);
  const NewKey made = Make(keys, "used");
  EXPECT_TRUE(keys.UseDue(made.info.id, kNow));
  EXPECT_FALSE(keys.UseDue(made.info.id, kNow + 59999));
  EXPECT_TRUE(keys.UseDue(made.info.id, kNow + 60000));
  keys.RecordUse(made.info.id, kNow + 60000);
  EXPECT_EQ((*keys.List())[0].last_used_ms, kNow + 60000);
  // Revoking drops the use record too.
  ASSERT_TRUE(keys.Revoke("used").ok());
  EXPECT_TRUE(store_->ListRecords("auth/key-used/")->empty());
}

TEST(ParseKeyTest, Shape) {
  const std::string id = "0123456789abcdef";
  const std::string secret = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ-_01234";
  ASSERT_EQ(secret.size(), 43u);
  const auto good = ParseKey("idl_" + id + "_" + secret);
  ASSERT_TRUE(good);
  EXPECT_EQ(good->id, id);
  EXPECT_EQ(good->secret, secret);
  for (const std::string& bad : std::vector<std::string>{
           "idk_" + id + "_" + secret,                   // prefix
           "IDL_" + id + "_" + secret,                   // prefix case
           id + "_" + secret,                            // no prefix
           "idl_" + id.substr(1) + "_" + secret,         // short id
           "idl_" + id + "0_" + secret,                  // long id
           "idl_0123456789ABCDEF_" + secret,             // upper-case hex
           "idl_0123456789abcdeg_" + secret,             // not hex
           "idl_" + id + "-" + secret,                   // separator
           "idl_" + id + "_" + secret.substr(1),         // short secret
           "idl_" + id + "_" + secret + "A",             // long secret
           "idl_" + id + "_" + secret.substr(1) + "+",   // base64, not base64url
           "idl_" + id + "_" + secret.substr(1) + "=",   // padding
           "idl_" + id + "_" + secret.substr(1) + " ",   // space
           "idl_" + id + "_" + secret.substr(1) + '\0',  // NUL
           std::string("idl_"),
           std::string(""),
       })
    EXPECT_FALSE(ParseKey(bad)) << bad;
  EXPECT_TRUE(IsApiKey("idl_x"));
  EXPECT_FALSE(IsApiKey("eyJhbGciOi"));
  EXPECT_FALSE(IsApiKey(""));
}

}  // namespace
}  // namespace indelible::auth
