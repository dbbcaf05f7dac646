// Who may do what (docs/SECURITY.md, "Roles and rules"): rights, the rules
// that grant them on streams, roles made of rules, and a principal's
// resolved grants, which every check asks.
//
// A rule grants rights on the streams it names: those whose category
// (the part before the first '-' or '/') is one of `categories`, or whose
// name starts with one of `prefixes`; a rule naming neither applies to
// every stream. Reserved '$' streams ($audit, $parked-...) are the admin
// role's alone, whatever a rule says. `keys` and `metrics` are not about
// streams: only a rule for every stream grants them. `consumers` applies
// to consumer group names the way the others apply to stream names.
#pragma once

#include <indelible/options.h>
#include <indelible/result.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace indelible::auth {

enum class Right : std::uint8_t {
  kRead = 1 << 0,       // read streams and $all
  kWrite = 1 << 1,      // append
  kDelete = 1 << 2,     // delete (tombstone) streams
  kSubscribe = 1 << 3,  // Server-Sent Events
  kConsumers = 1 << 4,  // consumer groups: create, pull, ack, skip, retry, replay, delete
  kKeys = 1 << 5,       // create, list and revoke API keys
  kMetrics = 1 << 6,    // GET /metrics
};
using Rights = std::uint8_t;
inline constexpr Rights kAllRights = 0x7f;

std::string_view RightName(Right right);
// invalid naming `field` for a name that is not a right.
Result<Right> ParseRight(std::string_view name, std::string_view field);

struct Rule {
  Rights rights = 0;
  std::vector<std::string> categories;
  std::vector<std::string> prefixes;

  bool everywhere() const { return categories.empty() && prefixes.empty(); }
  // `name` (a stream or group) is one this rule is about; never a '$' name.
  bool Covers(std::string_view name) const;
};

struct Role {
  std::string name;
  bool admin = false;
  std::vector<Rule> rules;
};

// What a principal may do: the union of its roles' rules.
class Grants {
 public:
  Grants() = default;
  static Grants Admin();
  static Grants Of(std::vector<const Role*> roles);

  bool admin() const { return admin_; }
  // The right on this stream (or group name, for kConsumers).
  bool Allows(Right right, std::string_view name) const;
  // The right on every stream ('$' ones excluded unless admin): what keys,
  // metrics and an unfiltered $all need.
  bool AllowsEverywhere(Right right) const;
  // Some rule grants the right somewhere.
  bool AllowsSomewhere(Right right) const;
  // The right on every stream whose name starts with `prefix`.
  bool AllowsAllUnder(Right right, std::string_view prefix) const;
  // Every event a consumer group with this filter delivers is on a stream
  // this principal may read.
  bool MayReadAllOf(const AllFilter& filter) const;
  // For a read of $all: narrows `filter` so the store skips what this
  // principal may not read where a filter can say so (category-only or
  // prefix-only rules); Allows(kRead, stream) still decides each event.
  void NarrowReadFilter(AllFilter& filter) const;
  // The names of the rights held everywhere and the rules, for /whoami.
  std::string ToJson() const;

 private:
  bool admin_ = false;
  std::vector<Rule> rules_;
};

// The built-in roles and those of a roles file, and certificate subjects
// mapped to roles:
//
//   {"roles": {"orders-writer": [{"allow": ["write"], "categories": ["orders"]}],
//              "analyst": [{"allow": ["read", "subscribe"], "prefixes": ["orders-"]},
//                          {"allow": ["metrics"]}]},
//    "certificates": {"CN=orders-service,O=Acme": ["orders-writer"]}}
class RoleBook {
 public:
  // The built-in roles only.
  RoleBook();
  // invalid naming the file and what is wrong (a built-in role redefined,
  // an unknown right, keys or metrics on a scoped rule, a '$' prefix).
  static Result<RoleBook> Load(const std::string& path);

  const Role* Find(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  // The known roles among `names`; unknown ones grant nothing.
  Grants Resolve(const std::vector<std::string>& names) const;
  // The roles of a client certificate's subject (RFC 2253), or nullptr.
  const std::vector<std::string>* CertificateRoles(std::string_view subject) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, Role, std::less<>> roles_;
  std::map<std::string, std::vector<std::string>, std::less<>> certificates_;
};

}  // namespace indelible::auth
