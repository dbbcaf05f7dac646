// API keys (docs/SECURITY.md, "API keys"): 256-bit random secrets, shown
// once, kept only as SHA-256 hashes in the store's own records, so they
// live in every backend and every server of a DynamoDB deployment sees the
// same keys.
//
// A key reads "idl_<id>_<secret>": the id (16 hex digits) names its record
// `auth/keys/<id>` and is not secret; the secret is 32 random bytes in
// base64url. Hashing the secret needs no salt or slow hash: it is random
// and as long as the hash, so no dictionary or brute force reaches it.
//
// Revocation deletes the record. A server trusts what it read of a key
// for `cache_ttl` (a second by default): a key revoked on another server
// is refused here within that; on this server at once.
//
// Memory: what was read of a known key is kept (one entry per key on
// record). An unknown id is remembered too, for the same lifetime, so a
// client repeating a bad key costs no store read; but any client can send
// random ids, so at most kMaxUnknownIds of them are kept, oldest out first
// (tests/auth/keys_test.cc sends a million).
//
// Last use is kept in a record of its own (`auth/key-used/<id>`), written
// at most once a minute per key, so a revoke racing a use never brings a
// key back.
//
// Thread-safe.
#pragma once

#include <indelible/store.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"

namespace indelible::auth {

struct KeyInfo {
  std::string id;  // 16 hex digits
  std::string name;
  std::vector<std::string> roles;
  std::int64_t created_ms = 0;
  std::int64_t expires_ms = 0;    // 0: never
  std::int64_t last_used_ms = 0;  // 0: never (to the minute)
  std::string created_by;         // the principal, or "bootstrap" / "cli"
};

struct NewKey {
  KeyInfo info;
  std::string key;  // the whole "idl_..." string: shown once, never stored
};

// "idl_<id>_<secret>" split; nullopt if `key` does not have that shape.
struct ParsedKey {
  std::string id;
  std::string secret;
};
std::optional<ParsedKey> ParseKey(std::string_view key);
// Looks like an API key (so a bearer token is not taken for a JWT).
bool IsApiKey(std::string_view token);

class KeyStore {
 public:
  // Unknown ids remembered at most (about 100 bytes each).
  static constexpr std::size_t kMaxUnknownIds = 4096;

  KeyStore(Store& store, std::chrono::milliseconds cache_ttl);

  // invalid for a bad name (1 to 64 of [A-Za-z0-9._-]), a name in use, no
  // roles; the roles must be known to the caller's RoleBook (checked there).
  Result<NewKey> Create(std::string name, std::vector<std::string> roles, std::int64_t expires_ms,
                        std::string created_by, std::int64_t now_ms);
  // Registers an existing key (the bootstrap key); ok if it is registered
  // already with the same secret, conflict if its id holds another one.
  Status Register(std::string_view key, std::string name, std::vector<std::string> roles,
                  std::int64_t now_ms);
  Result<std::vector<KeyInfo>> List();
  // By id or by name; not_found if no such key; what `may_revoke` answers
  // for the key if not ok. The revoked key's info. The id stays on record
  // as revoked (`auth/keys-revoked/<id>`), so Register never brings it back.
  Result<KeyInfo> Revoke(std::string_view id_or_name,
                         const std::function<Status(const KeyInfo&)>& may_revoke = nullptr);

  // The key's info if `key` is a live key (known, secret matches, not
  // expired); unauthorized naming why not. May read the store.
  Result<KeyInfo> Verify(std::string_view key, std::int64_t now_ms);
  // The same without reading the store: nullopt when the answer is not in
  // the cache (the caller calls Verify off the I/O thread).
  std::optional<Result<KeyInfo>> VerifyCached(std::string_view key, std::int64_t now_ms);
  // Records a use of the key (at most once a minute per key; the store
  // write happens here: call off the I/O thread). True if it was due.
  bool UseDue(const std::string& id, std::int64_t now_ms);
  void RecordUse(const std::string& id, std::int64_t now_ms);

  // Ids held in memory, known and unknown: for tests of the bound.
  std::size_t CachedIds();

 private:
  struct Cached {
    std::optional<KeyInfo> info;  // nullopt: no such key
    std::string hash;             // hex SHA-256 of the secret
    std::chrono::steady_clock::time_point read_at;
  };

  Result<KeyInfo> Check(const Cached& entry, const ParsedKey& key, std::int64_t now_ms) const;
  Result<Cached> Read(const std::string& id);
  void RememberUnknown(const std::string& id, std::chrono::steady_clock::time_point read_at)
      REQUIRES(mu_);
  void Forget(const std::string& id) REQUIRES(mu_);
  Status Save(const KeyInfo& info, const std::string& hash);

  Store& store_;
  const std::chrono::milliseconds cache_ttl_;
  Mutex mu_;
  std::unordered_map<std::string, Cached> cache_ GUARDED_BY(mu_);  // known keys
  // Unknown ids and when they were read, and the same ids oldest first (one
  // lifetime for all, so also in order of expiry).
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> unknown_ GUARDED_BY(mu_);
  std::deque<std::string> unknown_order_ GUARDED_BY(mu_);
  std::unordered_map<std::string, std::int64_t> used_ GUARDED_BY(mu_);  // id -> last recorded use
};

}  // namespace indelible::auth
