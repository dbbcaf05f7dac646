// Every standard route x every role x a stream or group each role may and
// may not touch (docs/SECURITY.md, "Routes and rights"): the status each
// gets is the one the documented rules give (401 without or with bad
// credentials, 403 when not allowed, else the route's normal answer), every
// refusal carries {"error":"unauthorized","message":...}, and a refused
// request leaves the store as it was.
//
// The expected answers come from the rules as documented, modelled here
// (RoleModel), not from the server's own policy code.
#include <map>
#include <set>

#include "blackbox/auth_fixture.h"

namespace indelible {
namespace {

struct ModelRule {
  std::set<std::string> rights;
  std::vector<std::string> categories;
  std::vector<std::string> prefixes;
  bool everywhere() const { return categories.empty() && prefixes.empty(); }
};

// The built-in roles (admin apart) and those of kRolesFile.
const std::map<std::string, std::vector<ModelRule>>& RoleModel() {
  static const std::map<std::string, std::vector<ModelRule>> roles = {
      {"operator", {{{"read", "subscribe", "consumers", "metrics"}, {}, {}}}},
      {"writer", {{{"read", "write", "subscribe"}, {}, {}}}},
      {"reader", {{{"read", "subscribe"}, {}, {}}}},
      {"orders-writer", {{{"write", "read"}, {"orders"}, {}}}},
      {"analyst", {{{"read", "subscribe"}, {}, {"orders-"}}, {{"metrics"}, {}, {}}}},
      {"orders-ops", {{{"consumers", "read"}, {"orders"}, {}}}},
      {"key-manager", {{{"keys", "read"}, {}, {}}}},
  };
  return roles;
}

std::string CategoryOf(const std::string& name) { return name.substr(0, name.find_first_of("-/")); }

bool Allows(const std::string& role, const std::string& right, const std::string& name) {
  if (role == "admin") return true;
  if (name.empty() || name[0] == '$') return false;  // '$' streams: the admin's alone
  for (const ModelRule& rule : RoleModel().at(role)) {
    if (!rule.rights.contains(right)) continue;
    if (rule.everywhere()) return true;
    for (const std::string& c : rule.categories)
      if (c == CategoryOf(name)) return true;
    for (const std::string& p : rule.prefixes)
      if (name.starts_with(p)) return true;
  }
  return false;
}

bool Everywhere(const std::string& role, const std::string& right) {
  if (role == "admin") return true;
  for (const ModelRule& rule : RoleModel().at(role))
    if (rule.rights.contains(right) && rule.everywhere()) return true;
  return false;
}

bool Somewhere(const std::string& role, const std::string& right) {
  if (role == "admin") return true;
  for (const ModelRule& rule : RoleModel().at(role))
    if (rule.rights.contains(right)) return true;
  return false;
}

// May read every stream of a category (what a consumer group filtered by
// it delivers).
bool ReadsAllOf(const std::string& role, const std::string& category) {
  if (Everywhere(role, "read")) return true;
  for (const ModelRule& rule : RoleModel().at(role))
    if (rule.rights.contains("read") && std::find(rule.categories.begin(), rule.categories.end(),
                                                  category) != rule.categories.end())
      return true;
  return false;
}

bool Holds(const std::string& role, const std::string& other) {
  return role == "admin" || role == other;
}

enum class Scope { kOpen, kAuthenticated, kStream, kGroup, kEverywhere, kSomewhere, kAdmin };

struct Route {
  std::string method;
  // {s} a stream, {g} a consumer group, {c} the group's category, {k} a
  // key id, {n} a fresh name.
  std::string path;
  std::string body;
  Scope scope;
  std::string right;
  // The answer to a caller who may: ack and nack of an undelivered
  // position, retry and skip of a group that is not blocked are 400.
  unsigned ok;
  unsigned ok_reserved;  // ... on '$audit' (the admin: store rules apply)
};

const std::vector<Route>& Routes() {
  static const std::vector<Route> routes = {
      {"POST", "/streams/{s}", EventJson("Tried"), Scope::kStream, "write", 201, 400},
      {"GET", "/streams/{s}", "", Scope::kStream, "read", 200, 200},
      {"DELETE", "/streams/{s}", "", Scope::kStream, "delete", 200, 400},
      // A hard delete needs what a soft one does; '$' streams are never erased.
      {"DELETE", "/streams/{s}?erase=true", "", Scope::kStream, "delete", 200, 400},
      {"GET", "/streams/{s}/head", "", Scope::kStream, "read", 200, 200},
      // No state record was written: allowed is 404.
      {"GET", "/streams/{s}/state", "", Scope::kStream, "read", 404, 404},
      // Stream metadata: read with read, written with delete (its retention
      // hides events); custom keys only here, so nothing is hidden.
      {"GET", "/streams/{s}/metadata", "", Scope::kStream, "read", 200, 200},
      {"PUT", "/streams/{s}/metadata", R"({"custom":{"tried":true}})", Scope::kStream, "delete",
       200, 200},
      // A commit needs the write right on each stream it names (one here).
      {"POST", "/commits", R"({"appends":[{"stream":"{s}","events":[{"type":"Tried"}]}]})",
       Scope::kStream, "write", 201, 400},
      {"GET", "/streams", "", Scope::kSomewhere, "read", 200, 0},
      // No event has this id: allowed is 404 (as for an event the caller
      // may not read).
      {"GET", "/events/5f0c0a4e-0000-4000-8000-000000000001", "", Scope::kSomewhere, "read", 404,
       0},
      {"GET", "/openapi.json", "", Scope::kOpen, "", 200, 0},
      {"GET", "/subscribe/streams/{s}", "", Scope::kStream, "subscribe", 200, 200},
      {"GET", "/all", "", Scope::kSomewhere, "read", 200, 0},
      {"GET", "/subscribe/all", "", Scope::kSomewhere, "subscribe", 200, 0},
      {"PUT", "/consumers/{g}?category={c}", "", Scope::kGroup, "consumers", 201, 0},
      {"GET", "/consumers/{g}", "", Scope::kGroup, "consumers", 200, 0},
      {"DELETE", "/consumers/{g}", "", Scope::kGroup, "consumers", 200, 0},
      {"GET", "/consumers", "", Scope::kSomewhere, "consumers", 200, 0},
      {"POST", "/consumers/{g}/pull?consumer=c1", "{}", Scope::kGroup, "consumers", 200, 0},
      {"POST", "/consumers/{g}/ack", R"({"positions":[1]})", Scope::kGroup, "consumers", 400, 0},
      {"POST", "/consumers/{g}/nack", R"({"position":1})", Scope::kGroup, "consumers", 400, 0},
      {"POST", "/consumers/{g}/retry", "{}", Scope::kGroup, "consumers", 400, 0},
      {"POST", "/consumers/{g}/skip", "{}", Scope::kGroup, "consumers", 400, 0},
      {"POST", "/consumers/{g}/replay", "{}", Scope::kGroup, "consumers", 200, 0},
      // The group blocks (no park policy): its parked list is empty, and a
      // per-event decision is 400.
      {"GET", "/consumers/{g}/parked", "", Scope::kGroup, "consumers", 200, 0},
      {"POST", "/consumers/{g}/parked/0/retry", "{}", Scope::kGroup, "consumers", 400, 0},
      {"POST", "/consumers/{g}/parked/0/skip", "{}", Scope::kGroup, "consumers", 400, 0},
      {"GET", "/keys", "", Scope::kEverywhere, "keys", 200, 0},
      {"POST", "/keys", R"({"name":"{n}","roles":["reader"]})", Scope::kEverywhere, "keys", 201, 0},
      {"DELETE", "/keys/{k}", "", Scope::kEverywhere, "keys", 200, 0},
      {"GET", "/metrics", "", Scope::kEverywhere, "metrics", 200, 0},
      // The whole store: the admin role's alone, whatever rights a role has.
      {"POST", "/scavenge", "", Scope::kAdmin, "", 200, 0},
      // A server without a master key cannot shred: 400 once allowed.
      {"DELETE", "/subjects/user-1", "", Scope::kAdmin, "", 400, 0},
      {"GET", "/health", "", Scope::kOpen, "", 200, 0},
      // The web console's files: a browser sends no credential when it
      // navigates, and the files hold no data.
      {"GET", "/", "", Scope::kOpen, "", 302, 0},
      {"GET", "/console", "", Scope::kOpen, "", 302, 0},
      {"GET", "/console/app.js", "", Scope::kOpen, "", 200, 0},
      {"GET", "/auth/whoami", "", Scope::kAuthenticated, "", 200, 0},
  };
  return routes;
}

void Replace(std::string& text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

class AuthMatrixTest : public AuthServerTest {
 protected:
  // The answer, as a plain response (an event stream's head, or its error
  // body; an accepted subscription is closed at once).
  HttpResponse Send(const std::string& method, const std::string& target, const std::string& body,
                    const Headers& headers) {
    if (target.starts_with("/subscribe/")) {
      testutil::SseReader sse(server().port(), target, headers);
      HttpResponse out;
      if (!sse.ReadHead()) return out;
      out = sse.head();
      if (out.status != 200) out.body = sse.ReadErrorBody();
      sse.Close();
      return out;
    }
    Headers all = headers;
    if (!body.empty()) all.emplace_back("Content-Type", "application/json");
    return http().Request(method, target, all, body);
  }

  // The answer the rules give `who` ("none", "bad", "admin" or a role) on
  // `route` naming `name` (a stream or group).
  static unsigned Expected(const Route& route, const std::string& who, const std::string& name) {
    if (route.scope == Scope::kOpen) return route.ok;
    if (who == "none" || who == "bad") return 401;
    bool allowed = false;
    switch (route.scope) {
      case Scope::kOpen:
      case Scope::kAuthenticated:
        allowed = true;
        break;
      case Scope::kStream:
        allowed = Allows(who, route.right, name);
        break;
      case Scope::kGroup:
        allowed = Allows(who, route.right, name);
        // A group delivers every event its filter selects: creating or
        // pulling one needs the right to read all of them.
        if (route.method == "PUT" || route.path.find("/pull") != std::string::npos)
          allowed = allowed && ReadsAllOf(who, CategoryOf(name));
        break;
      case Scope::kEverywhere:
        allowed = Everywhere(who, route.right);
        // A non-admin may hand out, and revoke, only keys whose roles it
        // holds ("reader" here).
        if (route.method == "POST" || route.method == "DELETE")
          allowed = allowed && Holds(who, "reader");
        break;
      case Scope::kSomewhere:
        allowed = Somewhere(who, route.right);
        break;
      case Scope::kAdmin:
        allowed = who == "admin";
        break;
    }
    if (!allowed) return 403;
    return name.starts_with("$") ? route.ok_reserved : route.ok;
  }
};

TEST_F(AuthMatrixTest, EveryRouteEveryRoleAllowedAndDeniedNames) {
  std::map<std::string, Headers> who = {{"none", {}}, {"bad", Bearer(std::string(kUnknownKey))}};
  who["admin"] = Bearer(admin());
  for (const auto& [role, _] : RoleModel()) who[role] = Bearer(MakeKey("k-" + role, {role}));
  // $audit exists: the keys just made are on its record.
  ASSERT_EQ(http().Get("/streams/$audit/head", Bearer(admin())).status, 200u);

  int n = 0;
  int denials = 0;
  for (const Route& route : Routes()) {
    std::vector<std::string> names = {""};
    if (route.scope == Scope::kStream) names = {"orders", "payments", "$audit"};
    if (route.scope == Scope::kGroup) names = {"orders", "payments"};
    for (const std::string& category : names) {
      for (const auto& [principal, headers] : who) {
        ++n;
        // A fresh stream, group or key per request, made by the admin, so
        // that every answer is about access and not about what an earlier
        // request did.
        std::string path = route.path, body = route.body, name;
        if (route.scope == Scope::kStream) {
          name = category == "$audit" ? category : category + "-m" + std::to_string(n);
          if (category != "$audit" && route.method != "POST") AppendAsAdmin(name);
          Replace(path, "{s}", name);
          Replace(body, "{s}", name);
        }
        if (route.scope == Scope::kGroup) {
          name = category + "-g" + std::to_string(n);
          if (route.method != "PUT") {
            const HttpResponse made = http().Request(
                "PUT", "/consumers/" + name + "?leaseMs=3600000&category=" + category,
                Bearer(admin()));
            ASSERT_EQ(made.status, 201u) << made.body;
          }
          Replace(path, "{g}", name);
          Replace(path, "{c}", category);
        }
        if (path.find("{k}") != std::string::npos) {
          const std::string victim = MakeKey("victim-" + std::to_string(n), {"reader"});
          Replace(path, "{k}", victim.substr(4, 16));
        }
        Replace(body, "{n}", "new-" + std::to_string(n));

        const unsigned expected = Expected(route, principal, name);
        const std::string cell = route.method + " " + path + " as " + principal;
        const bool refused = expected == 401 || expected == 403;
        const std::string before = refused ? Snapshot() : "";
        const HttpResponse answer = Send(route.method, path, body, headers);
        EXPECT_EQ(answer.status, expected) << cell << ": " << answer.body;
        if (!refused) continue;
        ++denials;
        EXPECT_TRUE(IsRefusal(answer, expected)) << cell;
        EXPECT_EQ(Changes(before, Snapshot()), "") << cell << " changed the store";
      }
    }
  }
  // The table reached every kind of answer.
  EXPECT_GT(denials, 100);
}

TEST_F(AuthMatrixTest, EveryMalformedCredentialIs401WithTheChallenge) {
  const Headers variants[] = {
      {{"Authorization", "Bearer"}},
      {{"Authorization", "Bearer "}},
      {{"Authorization", "Basic YWRtaW46YWRtaW4="}},
      {{"Authorization", "Bearer not-a-key"}},
      {{"Authorization", "Bearer idl_short"}},
      {{"Authorization", "Bearer " + std::string(kUnknownKey)}},
      {{"X-Api-Key", std::string(kUnknownKey)}},
      {{"Authorization", "Bearer " + admin() + "x"}},
      {{"Authorization", "Bearer " + admin().substr(0, admin().size() - 1)}},
  };
  for (const Headers& headers : variants) {
    const std::string sent = headers[0].first + ": " + headers[0].second;
    EXPECT_TRUE(IsRefusal(http().Get("/all", headers), 401)) << sent;
    EXPECT_TRUE(IsRefusal(http().Post("/streams/orders-1", EventJson("X"), headers), 401)) << sent;
  }
  EXPECT_EQ(http().Get("/streams/orders-1", Bearer(admin())).status, 404u);
  // The key in X-Api-Key is taken as well as in Authorization.
  EXPECT_EQ(http().Get("/auth/whoami", {{"X-Api-Key", admin()}}).status, 200u);
  EXPECT_EQ(http().Get("/auth/whoami", {{"Authorization", "bearer " + admin()}}).status, 200u);
}

}  // namespace
}  // namespace indelible
