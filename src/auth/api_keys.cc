#include "auth/api_keys.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <boost/json.hpp>

namespace indelible::auth {
namespace {

namespace json = boost::json;

constexpr std::string_view kPrefix = "idl_";
constexpr std::size_t kIdHex = 16;
constexpr std::size_t kSecretBytes = 32;
constexpr std::size_t kSecretChars = 43;  // base64url of 32 bytes, unpadded
constexpr std::int64_t kUseEveryMs = 60000;

std::string RecordName(std::string_view id) { return fmt::format("auth/keys/{}", id); }
std::string UseRecordName(std::string_view id) { return fmt::format("auth/key-used/{}", id); }
std::string RevokedRecordName(std::string_view id) {
  return fmt::format("auth/keys-revoked/{}", id);
}

std::string Hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

std::string Base64Url(const unsigned char* bytes, std::size_t n) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    bits = (bits << 8) | bytes[i];
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += kAlphabet[(bits >> count) & 63];
    }
  }
  if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
  return out;
}

Status RandomBytes(unsigned char* out, std::size_t n) {
  if (RAND_bytes(out, static_cast<int>(n)) != 1)
    return Status::Unavailable("the system's random generator failed (OpenSSL RAND_bytes)");
  return Status::Ok();
}

std::string HashSecret(std::string_view secret) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(secret.data(), secret.size(), digest, &size, EVP_sha256(), nullptr);
  return Hex(digest, size);
}

bool SameHash(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool ValidName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

// The stored record (what the API shows of a key is api/keys.h's); lastUsed
// lives in a record of its own.
std::string RecordJson(const KeyInfo& info, const std::string& hash) {
  json::object out;
  out["id"] = info.id;
  out["name"] = info.name;
  out["roles"] = json::array(info.roles.begin(), info.roles.end());
  out["created"] = info.created_ms;
  if (info.expires_ms != 0) out["expires"] = info.expires_ms;
  out["createdBy"] = info.created_by;
  out["hash"] = hash;
  return json::serialize(out);
}

std::int64_t Int(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_int64() ? v->as_int64() : 0;
}

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// A record as written by RecordJson; the hash beside it.
Result<std::pair<KeyInfo, std::string>> ParseRecord(std::string_view id, std::string_view text) {
  boost::system::error_code ec;
  json::value root = json::parse(text, ec);
  if (ec || !root.is_object())
    return Status::Internal(fmt::format("the record of API key {} is not JSON", id));
  const json::object& o = root.as_object();
  KeyInfo info;
  info.id = Str(o, "id");
  info.name = Str(o, "name");
  info.created_ms = Int(o, "created");
  info.expires_ms = Int(o, "expires");
  info.created_by = Str(o, "createdBy");
  if (const json::value* roles = o.if_contains("roles"); roles != nullptr && roles->is_array())
    for (const json::value& role : roles->as_array())
      if (role.is_string()) info.roles.emplace_back(role.as_string());
  std::string hash = Str(o, "hash");
  if (info.id != id || hash.size() != 64)
    return Status::Internal(fmt::format("the record of API key {} is damaged", id));
  return std::pair{std::move(info), std::move(hash)};
}

}  // namespace

std::optional<ParsedKey> ParseKey(std::string_view key) {
  if (!key.starts_with(kPrefix)) return std::nullopt;
  key.remove_prefix(kPrefix.size());
  if (key.size() != kIdHex + 1 + kSecretChars || key[kIdHex] != '_') return std::nullopt;
  const std::string_view id = key.substr(0, kIdHex);
  const std::string_view secret = key.substr(kIdHex + 1);
  if (!std::all_of(id.begin(), id.end(),
                   [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
    return std::nullopt;
  if (!std::all_of(secret.begin(), secret.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
      }))
    return std::nullopt;
  return ParsedKey{std::string(id), std::string(secret)};
}

bool IsApiKey(std::string_view token) { return token.starts_with(kPrefix); }

KeyStore::KeyStore(Store& store, std::chrono::milliseconds cache_ttl)
    : store_(store), cache_ttl_(cache_ttl) {}

Status KeyStore::Save(const KeyInfo& info, const std::string& hash) {
  Status s = store_.SaveRecord(RecordName(info.id), RecordJson(info, hash));
  if (!s.ok()) return s;
  MutexLock lock(&mu_);
  Forget(info.id);
  return Status::Ok();
}

Result<NewKey> KeyStore::Create(std::string name, std::vector<std::string> roles,
                                std::int64_t expires_ms, std::string created_by,
                                std::int64_t now_ms) {
  if (!ValidName(name))
    return Status::Invalid("name", fmt::format("'{}' is not a key name: 1 to 64 letters, digits, "
                                               "'.', '_' or '-'",
                                               name.substr(0, 80)));
  if (roles.empty()) return Status::Invalid("roles", "a key needs at least one role");
  if (expires_ms != 0 && expires_ms <= now_ms)
    return Status::Invalid("expires", "the expiry is in the past");
  auto existing = List();
  if (!existing.ok()) return existing.status();
  for (const KeyInfo& key : *existing)
    if (key.name == name)
      return Status::Conflict(fmt::format("a key named '{}' exists (id {}); revoke it or choose "
                                          "another name",
                                          name, key.id),
                              std::nullopt);
  unsigned char id[kIdHex / 2];
  unsigned char secret[kSecretBytes];
  if (Status s = RandomBytes(id, sizeof(id)); !s.ok()) return s;
  if (Status s = RandomBytes(secret, sizeof(secret)); !s.ok()) return s;
  NewKey out;
  out.info.id = Hex(id, sizeof(id));
  out.info.name = std::move(name);
  out.info.roles = std::move(roles);
  out.info.created_ms = now_ms;
  out.info.expires_ms = expires_ms;
  out.info.created_by = std::move(created_by);
  const std::string encoded = Base64Url(secret, sizeof(secret));
  out.key = fmt::format("{}{}_{}", kPrefix, out.info.id, encoded);
  if (Status s = Save(out.info, HashSecret(encoded)); !s.ok()) return s;
  return out;
}

Status KeyStore::Register(std::string_view key, std::string name, std::vector<std::string> roles,
                          std::int64_t now_ms) {
  auto parsed = ParseKey(key);
  if (!parsed)
    return Status::Invalid("key",
                           "not an API key (idl_ + 16 hex digits + _ + 43 base64url "
                           "characters); make one with `indelible keys create`");
  auto revoked = store_.LoadRecord(RevokedRecordName(parsed->id));
  if (!revoked.ok()) return revoked.status();
  if (*revoked)
    return Status::Invalid("key", fmt::format("API key {} was revoked: it cannot be registered "
                                              "again; give a new key (or remove the key file, and "
                                              "a new one is made)",
                                              parsed->id));
  auto existing = Read(parsed->id);
  if (!existing.ok()) return existing.status();
  if (existing->info) {
    if (SameHash(existing->hash, HashSecret(parsed->secret))) return Status::Ok();
    return Status::Conflict(
        fmt::format("API key id {} is registered with another secret", parsed->id), std::nullopt);
  }
  KeyInfo info;
  info.id = parsed->id;
  info.name = std::move(name);
  info.roles = std::move(roles);
  info.created_ms = now_ms;
  info.created_by = "bootstrap";
  return Save(info, HashSecret(parsed->secret));
}

Result<std::vector<KeyInfo>> KeyStore::List() {
  auto records = store_.ListRecords("auth/keys/");
  if (!records.ok()) return records.status();
  auto uses = store_.ListRecords("auth/key-used/");
  if (!uses.ok()) return uses.status();
  std::unordered_map<std::string, std::int64_t> used;
  for (const auto& [name, value] : *uses) {
    try {
      used[name.substr(std::string_view("auth/key-used/").size())] = std::stoll(value);
    } catch (const std::exception&) {
    }
  }
  std::vector<KeyInfo> out;
  for (const auto& [name, value] : *records) {
    auto parsed = ParseRecord(std::string_view(name).substr(10), value);
    if (!parsed.ok()) return parsed.status();
    parsed->first.last_used_ms = used[parsed->first.id];
    out.push_back(std::move(parsed->first));
  }
  std::sort(out.begin(), out.end(),
            [](const KeyInfo& a, const KeyInfo& b) { return a.created_ms < b.created_ms; });
  return out;
}

Result<KeyInfo> KeyStore::Revoke(std::string_view id_or_name,
                                 const std::function<Status(const KeyInfo&)>& may_revoke) {
  auto keys = List();
  if (!keys.ok()) return keys.status();
  const KeyInfo* found = nullptr;
  for (const KeyInfo& key : *keys) {
    if (key.id != id_or_name && key.name != id_or_name) continue;
    found = &key;
    if (key.id == id_or_name) break;
  }
  if (found == nullptr)
    return Status::NotFound(
        fmt::format("no API key with id or name '{}'; `indelible keys list` "
                    "shows them",
                    id_or_name.substr(0, 80)));
  KeyInfo info = *found;
  if (may_revoke)
    if (Status s = may_revoke(info); !s.ok()) return s;
  if (Status s = store_.SaveRecord(RevokedRecordName(info.id), info.name); !s.ok()) return s;
  if (Status s = store_.DeleteRecord(RecordName(info.id)); !s.ok()) return s;
  if (Status s = store_.DeleteRecord(UseRecordName(info.id)); !s.ok()) return s;
  MutexLock lock(&mu_);
  Forget(info.id);
  used_.erase(info.id);
  return info;
}

Result<KeyStore::Cached> KeyStore::Read(const std::string& id) {
  Cached entry;
  entry.read_at = std::chrono::steady_clock::now();
  auto record = store_.LoadRecord(RecordName(id));
  if (!record.ok()) return record.status();
  if (*record) {
    auto parsed = ParseRecord(id, **record);
    if (!parsed.ok()) return parsed.status();
    entry.info = std::move(parsed->first);
    entry.hash = std::move(parsed->second);
  }
  MutexLock lock(&mu_);
  if (entry.info) {
    unknown_.erase(id);  // its place in unknown_order_ goes when it comes first
    cache_[id] = entry;
  } else {
    cache_.erase(id);
    RememberUnknown(id, entry.read_at);
  }
  return entry;
}

void KeyStore::RememberUnknown(const std::string& id,
                               std::chrono::steady_clock::time_point read_at) {
  if (cache_ttl_.count() <= 0) return;
  if (auto [it, added] = unknown_.try_emplace(id, read_at); !added) {
    it->second = read_at;  // keeps its older place in line: leaves a little early
    return;
  }
  unknown_order_.push_back(id);
  // Drop the oldest while it expired or the bound is passed. An id whose
  // entry went meanwhile (a key was made with it) leaves when it comes first.
  while (!unknown_order_.empty()) {
    auto oldest = unknown_.find(unknown_order_.front());
    if (oldest != unknown_.end()) {
      if (read_at - oldest->second < cache_ttl_ && unknown_.size() <= kMaxUnknownIds) break;
      unknown_.erase(oldest);
    }
    unknown_order_.pop_front();
  }
}

void KeyStore::Forget(const std::string& id) {
  cache_.erase(id);
  unknown_.erase(id);
}

std::size_t KeyStore::CachedIds() {
  MutexLock lock(&mu_);
  return cache_.size() + unknown_.size();
}

Result<KeyInfo> KeyStore::Check(const Cached& entry, const ParsedKey& key,
                                std::int64_t now_ms) const {
  // The same answer for an unknown id and a wrong secret: which ids exist
  // is not for an unauthenticated caller to learn.
  if (!entry.info || !SameHash(entry.hash, HashSecret(key.secret)))
    return Status::Unauthorized("the API key is not valid (unknown, revoked or mistyped)");
  if (entry.info->expires_ms != 0 && entry.info->expires_ms <= now_ms)
    return Status::Unauthorized(
        fmt::format("the API key '{}' expired; make a new one", entry.info->name));
  return *entry.info;
}

std::optional<Result<KeyInfo>> KeyStore::VerifyCached(std::string_view key, std::int64_t now_ms) {
  auto parsed = ParseKey(key);
  if (!parsed)
    return Result<KeyInfo>(Status::Unauthorized(
        "the credential is not an API key (idl_...) nor a JWT; see docs/SECURITY.md"));
  Cached entry;
  {
    MutexLock lock(&mu_);
    const auto now = std::chrono::steady_clock::now();
    if (auto it = cache_.find(parsed->id); it != cache_.end()) {
      if (now - it->second.read_at >= cache_ttl_) return std::nullopt;
      entry = it->second;
    } else if (auto unknown = unknown_.find(parsed->id); unknown != unknown_.end()) {
      if (now - unknown->second >= cache_ttl_) return std::nullopt;
      entry.read_at = unknown->second;  // no info: answered as an unknown key
    } else {
      return std::nullopt;
    }
  }
  return Check(entry, *parsed, now_ms);
}

Result<KeyInfo> KeyStore::Verify(std::string_view key, std::int64_t now_ms) {
  if (auto cached = VerifyCached(key, now_ms)) return std::move(*cached);
  auto parsed = ParseKey(key);
  auto entry = Read(parsed->id);
  if (!entry.ok()) return entry.status();
  return Check(*entry, *parsed, now_ms);
}

bool KeyStore::UseDue(const std::string& id, std::int64_t now_ms) {
  MutexLock lock(&mu_);
  std::int64_t& last = used_[id];
  if (now_ms - last < kUseEveryMs) return false;
  last = now_ms;
  return true;
}

void KeyStore::RecordUse(const std::string& id, std::int64_t now_ms) {
  // Best effort: a failed write only loses a last-use time.
  (void)store_.SaveRecord(UseRecordName(id), std::to_string(now_ms));
}

}  // namespace indelible::auth
