// api/keys.h: API keys and the caller, both ways.
#include "api/keys.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "api/decoding.h"
#include "core/json_spans.h"

namespace indelible::api {
namespace json = boost::json;

using decoding::NotOurs;
using decoding::ParseObject;
using decoding::StringMember;

namespace {

constexpr std::string_view kKeyWhat = "API key";

json::object KeyObject(const Key& key) {
  json::object out;
  out["id"] = key.id;
  out["name"] = key.name;
  out["roles"] = json::array(key.roles.begin(), key.roles.end());
  out["created"] = key.created_ms;
  if (key.expires_ms != 0) out["expires"] = key.expires_ms;
  out["createdBy"] = key.created_by;
  out["lastUsed"] = key.last_used_ms == 0 ? json::value(nullptr) : json::value(key.last_used_ms);
  return out;
}

// Members after the ones a document puts first (`key`, `revoked`).
std::string KeyJsonAfter(json::object first, const Key& key) {
  for (auto& member : KeyObject(key)) first.emplace(member.key(), std::move(member.value()));
  return json::serialize(first);
}

std::int64_t IntegerOr(const json::object& object, std::string_view key, std::int64_t fallback) {
  const json::value* v = object.if_contains(key);
  return v != nullptr && v->is_int64() ? v->as_int64() : fallback;
}

Result<std::vector<std::string>> Strings(const json::object& object, std::string_view key,
                                         std::string_view what) {
  const json::value* list = object.if_contains(key);
  if (list == nullptr || !list->is_array())
    return NotOurs(what, fmt::format("'{}' is not an array", key));
  std::vector<std::string> out;
  for (const json::value& item : list->as_array()) {
    if (!item.is_string()) return NotOurs(what, fmt::format("'{}' holds a non-string", key));
    out.emplace_back(item.as_string());
  }
  return out;
}

Result<Key> KeyFrom(const json::object& object) {
  Key key;
  key.id = StringMember(object, "id");
  key.name = StringMember(object, "name");
  if (key.id.empty() || key.name.empty()) return NotOurs(kKeyWhat, "no 'id' or 'name'");
  auto roles = Strings(object, "roles", kKeyWhat);
  if (!roles.ok()) return roles.status();
  key.roles = std::move(*roles);
  key.created_ms = IntegerOr(object, "created", -1);
  if (key.created_ms < 0) return NotOurs(kKeyWhat, "no 'created' time");
  key.expires_ms = IntegerOr(object, "expires", 0);
  key.created_by = StringMember(object, "createdBy");
  const json::value* used = object.if_contains("lastUsed");
  if (used == nullptr || !(used->is_null() || used->is_int64()))
    return NotOurs(kKeyWhat, "'lastUsed' is neither a time nor null");
  key.last_used_ms = used->is_int64() ? used->as_int64() : 0;
  return key;
}

}  // namespace

std::string KeyRequestToJson(const KeyRequest& request) {
  json::object out;
  out["name"] = request.name;
  out["roles"] = json::array(request.roles.begin(), request.roles.end());
  if (request.expires_in_seconds > 0) out["expiresInSeconds"] = request.expires_in_seconds;
  return json::serialize(out);
}

Result<KeyRequest> KeyRequestFromJson(std::string_view body) {
  boost::system::error_code ec;
  json::value parsed = json::parse(json::string_view(body.data(), body.size()), ec);
  if (ec || !parsed.is_object())
    return Status::Invalid("body", R"(expected {"name": "...", "roles": ["writer"]})");
  const json::object& object = parsed.as_object();
  KeyRequest out;
  const json::value* name = object.if_contains("name");
  if (name == nullptr || !name->is_string())
    return Status::Invalid("name", "required: a string naming the key's holder");
  out.name = std::string(name->as_string());
  const json::value* roles = object.if_contains("roles");
  if (roles == nullptr || !roles->is_array() || roles->as_array().empty())
    return Status::Invalid("roles", "required: an array of role names");
  for (const json::value& role : roles->as_array()) {
    if (!role.is_string()) return Status::Invalid("roles", "role names are strings");
    out.roles.emplace_back(role.as_string());
  }
  if (const json::value* in = object.if_contains("expiresInSeconds")) {
    if (!in->is_int64() || in->as_int64() < 1 || in->as_int64() > (std::int64_t{1} << 40))
      return Status::Invalid("expiresInSeconds", "a whole number of seconds >= 1");
    out.expires_in_seconds = in->as_int64();
  }
  return out;
}

std::string KeyToJson(const Key& key) { return json::serialize(KeyObject(key)); }

Result<Key> KeyFromJson(std::string_view body) {
  auto object = ParseObject(body, kKeyWhat);
  if (!object.ok()) return object.status();
  return KeyFrom(*object);
}

std::string NewKeyToJson(const NewKey& key) {
  return KeyJsonAfter(json::object{{"key", key.key}}, key.info);
}

Result<NewKey> NewKeyFromJson(std::string_view body) {
  auto object = ParseObject(body, "new API key");
  if (!object.ok()) return object.status();
  NewKey key;
  key.key = StringMember(*object, "key");
  if (key.key.empty()) return NotOurs("new API key", "no 'key'");
  auto info = KeyFrom(*object);
  if (!info.ok()) return info.status();
  key.info = std::move(*info);
  return key;
}

std::string RevokedKeyToJson(const Key& key) {
  return KeyJsonAfter(json::object{{"revoked", true}}, key);
}

Result<Key> RevokedKeyFromJson(std::string_view body) {
  auto object = ParseObject(body, "revoked API key");
  if (!object.ok()) return object.status();
  if (!decoding::BoolMember(*object, "revoked"))
    return NotOurs("revoked API key", "'revoked' is not true");
  return KeyFrom(*object);
}

std::string KeyListToJson(const std::vector<Key>& keys) {
  std::string out = R"({"keys":[)";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) out += ',';
    out += KeyToJson(keys[i]);
  }
  out += "]}";
  return out;
}

Result<std::vector<Key>> KeyListFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "API key list";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  const json::value* list = object->if_contains("keys");
  if (list == nullptr || !list->is_array()) return NotOurs(kWhat, "no 'keys' array");
  std::vector<Key> out;
  for (const json::value& item : list->as_array()) {
    if (!item.is_object()) return NotOurs(kWhat, "an entry is not an object");
    auto key = KeyFrom(item.as_object());
    if (!key.ok()) return key.status();
    out.push_back(std::move(*key));
  }
  return out;
}

std::string CallerToJson(const Caller& caller) {
  std::string out = fmt::format(R"({{"authentication":{})", caller.authentication);
  if (caller.principal) {
    out += R"(,"principal":)" + json::serialize(json::string_view(*caller.principal));
    out += R"(,"roles":)" + json::serialize(json::array(caller.roles.begin(), caller.roles.end()));
    out += R"(,"grants":)";
    out += caller.grants.empty() ? std::string_view("{}") : std::string_view(caller.grants);
  }
  out += '}';
  return out;
}

Result<Caller> CallerFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "whoami answer";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  const json::value* authentication = object->if_contains("authentication");
  if (authentication == nullptr || !authentication->is_bool())
    return NotOurs(kWhat, "'authentication' is not true or false");
  Caller caller;
  caller.authentication = authentication->as_bool();
  if (const json::value* principal = object->if_contains("principal"); principal != nullptr) {
    if (!principal->is_string()) return NotOurs(kWhat, "'principal' is not a string");
    caller.principal = std::string(principal->as_string());
    auto roles = Strings(*object, "roles", kWhat);
    if (!roles.ok()) return roles.status();
    caller.roles = std::move(*roles);
    auto grants = RawMember(body, "grants");
    if (!grants || grants->front() != '{') return NotOurs(kWhat, "'grants' is not an object");
    caller.grants = std::string(*grants);
  }
  return caller;
}

}  // namespace indelible::api
