#include "auth/policy.h"

#include <fmt/format.h>
#include <indelible/types.h>

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <sstream>

namespace indelible::auth {
namespace {

namespace json = boost::json;

constexpr std::pair<Right, std::string_view> kRightNames[] = {
    {Right::kRead, "read"},           {Right::kWrite, "write"},         {Right::kDelete, "delete"},
    {Right::kSubscribe, "subscribe"}, {Right::kConsumers, "consumers"}, {Right::kKeys, "keys"},
    {Right::kMetrics, "metrics"},
};

bool Has(Rights rights, Right right) { return (rights & static_cast<Rights>(right)) != 0; }

Rights Of(std::initializer_list<Right> rights) {
  Rights out = 0;
  for (Right r : rights) out |= static_cast<Rights>(r);
  return out;
}

Role BuiltIn(std::string name, Rights rights) {
  Role role{std::move(name), false, {}};
  role.rules.push_back(Rule{rights, {}, {}});
  return role;
}

// A prefix `p` lies inside category `c`: every name starting with p has
// category c.
bool PrefixInCategory(std::string_view prefix, std::string_view category) {
  return prefix.size() > category.size() && prefix.starts_with(category) &&
         (prefix[category.size()] == '-' || prefix[category.size()] == '/');
}

Result<std::vector<std::string>> Strings(const json::object& rule, std::string_view key,
                                         const std::string& where) {
  std::vector<std::string> out;
  const json::value* v = rule.if_contains(key);
  if (v == nullptr) return out;
  if (!v->is_array())
    return Status::Invalid("roles",
                           fmt::format("{}: \"{}\" must be an array of strings", where, key));
  for (const json::value& item : v->as_array()) {
    if (!item.is_string() || item.as_string().empty())
      return Status::Invalid("roles",
                             fmt::format("{}: \"{}\" must hold non-empty strings", where, key));
    if (item.as_string().front() == '$')
      return Status::Invalid("roles",
                             fmt::format("{}: '{}': '$' streams are the admin role's alone", where,
                                         std::string_view(item.as_string())));
    out.emplace_back(item.as_string());
  }
  return out;
}

Result<Rule> ParseRule(const json::value& value, const std::string& where) {
  if (!value.is_object())
    return Status::Invalid("roles", fmt::format("{}: a rule must be an object", where));
  const json::object& object = value.as_object();
  for (const auto& [key, _] : object)
    if (key != "allow" && key != "categories" && key != "prefixes")
      return Status::Invalid(
          "roles", fmt::format("{}: unknown key \"{}\" (allow, categories, prefixes)", where,
                               std::string_view(key)));
  Rule rule;
  const json::value* allow = object.if_contains("allow");
  if (allow == nullptr || !allow->is_array() || allow->as_array().empty())
    return Status::Invalid("roles",
                           fmt::format("{}: \"allow\" must be a non-empty array of rights", where));
  for (const json::value& name : allow->as_array()) {
    if (!name.is_string())
      return Status::Invalid("roles", fmt::format("{}: a right must be a string", where));
    auto right = ParseRight(name.as_string(), "roles");
    if (!right.ok()) return Status::Invalid("roles", where + ": " + right.status().message());
    rule.rights |= static_cast<Rights>(*right);
  }
  auto categories = Strings(object, "categories", where);
  if (!categories.ok()) return categories.status();
  auto prefixes = Strings(object, "prefixes", where);
  if (!prefixes.ok()) return prefixes.status();
  rule.categories = std::move(*categories);
  rule.prefixes = std::move(*prefixes);
  if (!rule.everywhere() && (Has(rule.rights, Right::kKeys) || Has(rule.rights, Right::kMetrics)))
    return Status::Invalid("roles", fmt::format("{}: keys and metrics are not about streams: grant "
                                                "them in a rule without categories or prefixes",
                                                where));
  return rule;
}

}  // namespace

std::string_view RightName(Right right) {
  for (const auto& [r, name] : kRightNames)
    if (r == right) return name;
  return "?";
}

Result<Right> ParseRight(std::string_view name, std::string_view field) {
  for (const auto& [r, n] : kRightNames)
    if (n == name) return r;
  return Status::Invalid(
      std::string(field),
      fmt::format("'{}' is not a right (read, write, delete, subscribe, consumers, keys, metrics)",
                  name));
}

bool Rule::Covers(std::string_view name) const {
  if (name.empty() || name.front() == '$') return false;
  if (everywhere()) return true;
  const std::string_view category = StreamCategory(name);
  return std::any_of(categories.begin(), categories.end(),
                     [&](const std::string& c) { return c == category; }) ||
         std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return name.starts_with(p); });
}

Grants Grants::Admin() {
  Grants grants;
  grants.admin_ = true;
  return grants;
}

Grants Grants::Of(std::vector<const Role*> roles) {
  Grants grants;
  for (const Role* role : roles) {
    grants.admin_ = grants.admin_ || role->admin;
    grants.rules_.insert(grants.rules_.end(), role->rules.begin(), role->rules.end());
  }
  return grants;
}

bool Grants::Allows(Right right, std::string_view name) const {
  if (admin_) return true;
  return std::any_of(rules_.begin(), rules_.end(), [&](const Rule& rule) {
    return Has(rule.rights, right) && rule.Covers(name);
  });
}

bool Grants::AllowsEverywhere(Right right) const {
  if (admin_) return true;
  return std::any_of(rules_.begin(), rules_.end(), [&](const Rule& rule) {
    return Has(rule.rights, right) && rule.everywhere();
  });
}

bool Grants::AllowsSomewhere(Right right) const {
  if (admin_) return true;
  return std::any_of(rules_.begin(), rules_.end(),
                     [&](const Rule& rule) { return Has(rule.rights, right); });
}

bool Grants::MayReadAllOf(const AllFilter& filter) const {
  if (admin_) return true;
  const auto reserved = [](const std::string& name) { return name.empty() || name[0] == '$'; };
  if (std::any_of(filter.stream_prefixes.begin(), filter.stream_prefixes.end(), reserved) ||
      std::any_of(filter.categories.begin(), filter.categories.end(), reserved))
    return false;
  if (AllowsEverywhere(Right::kRead)) return true;
  const auto readable_category = [&](const std::string& category) {
    return std::any_of(rules_.begin(), rules_.end(), [&](const Rule& rule) {
      return Has(rule.rights, Right::kRead) &&
             std::find(rule.categories.begin(), rule.categories.end(), category) !=
                 rule.categories.end();
    });
  };
  const auto readable_prefix = [&](const std::string& prefix) {
    return AllowsAllUnder(Right::kRead, prefix);
  };
  // The filter's lists are and-ed: either one inside what may be read is enough.
  if (!filter.categories.empty() &&
      std::all_of(filter.categories.begin(), filter.categories.end(), readable_category))
    return true;
  return !filter.stream_prefixes.empty() &&
         std::all_of(filter.stream_prefixes.begin(), filter.stream_prefixes.end(), readable_prefix);
}

bool Grants::AllowsAllUnder(Right right, std::string_view prefix) const {
  if (admin_) return true;
  if (prefix.empty() || prefix.front() == '$') return false;
  return std::any_of(rules_.begin(), rules_.end(), [&](const Rule& rule) {
    if (!Has(rule.rights, right)) return false;
    if (rule.everywhere()) return true;
    for (const std::string& p : rule.prefixes)
      if (prefix.starts_with(p)) return true;
    for (const std::string& c : rule.categories)
      if (PrefixInCategory(prefix, c)) return true;
    return false;
  });
}

void Grants::NarrowReadFilter(AllFilter& filter) const {
  if (AllowsEverywhere(Right::kRead) || !filter.categories.empty() ||
      !filter.stream_prefixes.empty())
    return;
  std::vector<std::string> categories, prefixes;
  for (const Rule& rule : rules_) {
    if (!Has(rule.rights, Right::kRead)) continue;
    categories.insert(categories.end(), rule.categories.begin(), rule.categories.end());
    prefixes.insert(prefixes.end(), rule.prefixes.begin(), rule.prefixes.end());
  }
  // One kind only: a filter's two lists are and-ed, so a mix cannot be said.
  if (prefixes.empty() && !categories.empty()) filter.categories = std::move(categories);
  if (categories.empty() && !prefixes.empty()) filter.stream_prefixes = std::move(prefixes);
}

std::string Grants::ToJson() const {
  json::object out;
  out["admin"] = admin_;
  json::array rules;
  for (const Rule& rule : rules_) {
    json::object r;
    json::array allow;
    for (const auto& [right, name] : kRightNames)
      if (Has(rule.rights, right)) allow.emplace_back(name);
    r["allow"] = std::move(allow);
    if (!rule.categories.empty())
      r["categories"] = json::array(rule.categories.begin(), rule.categories.end());
    if (!rule.prefixes.empty())
      r["prefixes"] = json::array(rule.prefixes.begin(), rule.prefixes.end());
    rules.emplace_back(std::move(r));
  }
  out["rules"] = std::move(rules);
  return json::serialize(out);
}

RoleBook::RoleBook() {
  roles_.emplace("admin", Role{"admin", true, {}});
  const Rights reading = Of({Right::kRead, Right::kSubscribe});
  roles_.emplace("operator",
                 BuiltIn("operator", reading | Of({Right::kConsumers, Right::kMetrics})));
  roles_.emplace("writer", BuiltIn("writer", reading | Of({Right::kWrite})));
  roles_.emplace("reader", BuiltIn("reader", reading));
}

Result<RoleBook> RoleBook::Load(const std::string& path) {
  RoleBook book;
  if (path.empty()) return book;
  std::ifstream in(path);
  if (!in) return Status::Invalid("roles", fmt::format("cannot read the roles file {}", path));
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  json::value root = json::parse(text.str(), ec);
  if (ec || !root.is_object())
    return Status::Invalid("roles", fmt::format("{} is not a JSON object{}", path,
                                                ec ? ": " + ec.message() : std::string()));
  for (const auto& [key, _] : root.as_object())
    if (key != "roles" && key != "certificates")
      return Status::Invalid("roles", fmt::format("{}: unknown key \"{}\" (roles, certificates)",
                                                  path, std::string_view(key)));
  if (const json::value* roles = root.as_object().if_contains("roles")) {
    if (!roles->is_object())
      return Status::Invalid("roles", fmt::format("{}: \"roles\" must be an object", path));
    for (const auto& [name, rules] : roles->as_object()) {
      const std::string where = fmt::format("{}: role '{}'", path, std::string_view(name));
      if (book.Has(name))
        return Status::Invalid("roles", where + " is built in (admin, operator, writer, reader)");
      if (name.empty() || name.size() > 64)
        return Status::Invalid("roles", where + ": a role name has 1 to 64 bytes");
      if (!rules.is_array()) return Status::Invalid("roles", where + " must be an array of rules");
      Role role{std::string(name), false, {}};
      for (const json::value& rule : rules.as_array()) {
        auto parsed = ParseRule(rule, where);
        if (!parsed.ok()) return parsed.status();
        role.rules.push_back(std::move(*parsed));
      }
      book.roles_.emplace(role.name, std::move(role));
    }
  }
  if (const json::value* certificates = root.as_object().if_contains("certificates")) {
    if (!certificates->is_object())
      return Status::Invalid("roles", fmt::format("{}: \"certificates\" must be an object", path));
    for (const auto& [subject, roles] : certificates->as_object()) {
      std::vector<std::string> names;
      if (roles.is_array())
        for (const json::value& role : roles.as_array())
          if (role.is_string()) names.emplace_back(role.as_string());
      if (!roles.is_array() || names.size() != roles.as_array().size())
        return Status::Invalid("roles", fmt::format("{}: certificate '{}' must map to an array of "
                                                    "role names",
                                                    path, std::string_view(subject)));
      for (const std::string& name : names)
        if (!book.Has(name))
          return Status::Invalid("roles", fmt::format("{}: certificate '{}': no role '{}'", path,
                                                      std::string_view(subject), name));
      book.certificates_.emplace(std::string(subject), std::move(names));
    }
  }
  return book;
}

const Role* RoleBook::Find(std::string_view name) const {
  auto it = roles_.find(name);
  return it == roles_.end() ? nullptr : &it->second;
}

Grants RoleBook::Resolve(const std::vector<std::string>& names) const {
  std::vector<const Role*> roles;
  for (const std::string& name : names)
    if (const Role* role = Find(name)) roles.push_back(role);
  return Grants::Of(std::move(roles));
}

const std::vector<std::string>* RoleBook::CertificateRoles(std::string_view subject) const {
  auto it = certificates_.find(subject);
  return it == certificates_.end() ? nullptr : &it->second;
}

std::vector<std::string> RoleBook::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, _] : roles_) names.push_back(name);
  return names;
}

}  // namespace indelible::auth
