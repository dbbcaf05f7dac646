// The documents of API keys and of the caller (docs/HTTP.md, "Keys";
// docs/SECURITY.md, "API keys"): what POST/GET/DELETE /keys and
// GET /auth/whoami send and answer. The key's fields are auth::KeyInfo's
// (auth/api_keys.h), repeated here because auth sits beside this module, not
// below it (the server, above both, turns one into the other).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/result.h"

namespace indelible::api {

// POST /keys: {name, roles, expiresInSeconds?} (0: no expiry). The decoder
// reads a request: invalid, naming the field, when it is not this shape;
// whether the roles exist is the server's to check.
struct KeyRequest {
  std::string name;
  std::vector<std::string> roles;
  std::int64_t expires_in_seconds = 0;
};
std::string KeyRequestToJson(const KeyRequest& request);
Result<KeyRequest> KeyRequestFromJson(std::string_view body);

struct Key {
  std::string id;  // 16 hex digits
  std::string name;
  std::vector<std::string> roles;
  std::int64_t created_ms = 0;
  std::int64_t expires_ms = 0;    // 0: never
  std::int64_t last_used_ms = 0;  // 0: never
  std::string created_by;
};
struct NewKey {
  std::string key;  // the secret "idl_..." string
  Key info;
};

// A key as listed: {id, name, roles, created, expires?, createdBy, lastUsed}
// with lastUsed null when never used; never the secret or its hash.
std::string KeyToJson(const Key& key);
Result<Key> KeyFromJson(std::string_view body);
// POST /keys answers the new key with its secret first: {key, id, ...}.
std::string NewKeyToJson(const NewKey& key);
Result<NewKey> NewKeyFromJson(std::string_view body);
// DELETE /keys/{id}: the revoked key, {revoked: true, id, ...}.
std::string RevokedKeyToJson(const Key& key);
Result<Key> RevokedKeyFromJson(std::string_view body);
// GET /keys: {keys: [key...]}
std::string KeyListToJson(const std::vector<Key>& keys);
Result<std::vector<Key>> KeyListFromJson(std::string_view body);

// GET /auth/whoami: {authentication, principal?, roles?, grants?}; the
// last three only for a caller who authenticated. `grants` is the JSON
// object auth's Grants::ToJson writes ({admin, rules}), carried as is.
struct Caller {
  bool authentication = false;
  std::optional<std::string> principal;
  std::vector<std::string> roles;
  std::string grants;
};
std::string CallerToJson(const Caller& caller);
Result<Caller> CallerFromJson(std::string_view body);

}  // namespace indelible::api
