// What each route needs of its caller when authentication is on
// (docs/SECURITY.md, "Routes and rights"): declared with the route, checked
// by the session before the handler runs, so no handler can forget it.
// Handlers that serve many streams at once ($all, subscriptions, consumer
// groups) narrow what they return with the principal's grants themselves.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/authenticator.h"
#include "indelible/status.h"

namespace indelible::server {

struct Access {
  enum class Scope : std::uint8_t {
    kOpen,           // no credentials needed (/health)
    kAuthenticated,  // any principal (/auth/whoami)
    kStream,         // the right on the stream of the first path parameter
    kGroup,          // the right on the consumer group of the first path parameter
    kEverywhere,     // the right on every stream (keys, metrics)
    kSomewhere,      // the right on some stream; the handler narrows ($all)
    kPrefix,         // the right on every stream under `prefix` (custom routes)
    kAdmin,          // the admin role (acts on the whole store: POST /scavenge)
  };
  Scope scope = Scope::kOpen;
  auth::Right right = auth::Right::kRead;
  std::string prefix;
  // Appended to $audit with its outcome when the route answers ("stream.delete").
  std::string audit;
  // Why the route needs this right, added to a 403 when it is not plain
  // from the route (writing stream metadata needs `delete`).
  std::string why;

  static Access Open() { return {}; }
  static Access Authenticated() { return {Scope::kAuthenticated, auth::Right::kRead, {}, {}, {}}; }
  static Access OnStream(auth::Right right, std::string audit = {}, std::string why = {}) {
    return {Scope::kStream, right, {}, std::move(audit), std::move(why)};
  }
  static Access OnGroup(std::string audit = {}) {
    return {Scope::kGroup, auth::Right::kConsumers, {}, std::move(audit), {}};
  }
  static Access Everywhere(auth::Right right, std::string audit = {}) {
    return {Scope::kEverywhere, right, {}, std::move(audit), {}};
  }
  static Access Somewhere(auth::Right right) { return {Scope::kSomewhere, right, {}, {}, {}}; }
  static Access Under(auth::Right right, std::string prefix) {
    return {Scope::kPrefix, right, std::move(prefix), {}, {}};
  }
  // No right on streams is enough: `why` says what the act does, for the 403.
  static Access Admin(std::string audit, std::string why) {
    return {Scope::kAdmin, auth::Right::kRead, {}, std::move(audit), std::move(why)};
  }
};

// nullopt: allowed. Else why not, for a 403.
std::optional<Status> CheckAccess(const Access& access, const auth::Principal& principal,
                                  const std::vector<std::string>& params);

}  // namespace indelible::server
