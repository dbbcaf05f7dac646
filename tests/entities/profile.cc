#include "entities/profile.h"

#include <algorithm>
#include <boost/json.hpp>

#include "json_fields.h"

namespace indelible {
namespace json = boost::json;
using entity_test::Followed;
using entity_test::FollowNotice;
using entity_test::PointsAdded;
using entity_test::PointsAwarded;
using entity_test::PointsLow;
using entity_test::Profile;
using entity_test::Renamed;
using entity_test::Score;

namespace {

using json_fields::Integer;
using json_fields::ParseObject;
using json_fields::String;

// {"<key>": "<string>"} both ways, for the one-string events.
template <class T>
Result<T> DecodeString(std::string_view text, std::string_view key) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto value = String(*o, key);
  if (!value.ok()) return value.status();
  return T{*value};
}

template <class T>
Result<T> DecodeInteger(std::string_view text, std::string_view key) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto value = Integer(*o, key);
  if (!value.ok()) return value.status();
  return T{*value};
}

}  // namespace

std::string Codec<Profile>::Encode(const Profile& p) {
  json::array following;
  for (const auto& user : p.following) following.emplace_back(user);
  return json::serialize(
      json::object{{"name", p.name}, {"following", following}, {"points", p.points}});
}
Result<Profile> Codec<Profile>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto name = String(*o, "name");
  if (!name.ok()) return name.status();
  auto points = Integer(*o, "points");
  if (!points.ok()) return points.status();
  const json::value* following = o->if_contains("following");
  if (following == nullptr || !following->is_array())
    return Status::Invalid("following", "expected an array");
  Profile p{*name, {}, *points};
  for (const json::value& user : following->as_array()) {
    if (!user.is_string()) return Status::Invalid("following", "expected strings");
    p.following.emplace_back(user.as_string());
  }
  return p;
}

std::string Codec<Renamed>::Encode(const Renamed& e) {
  return json::serialize(json::object{{"name", e.name}});
}
Result<Renamed> Codec<Renamed>::Decode(std::string_view text) {
  return DecodeString<Renamed>(text, "name");
}

std::string Codec<Followed>::Encode(const Followed& e) {
  return json::serialize(json::object{{"user", e.user}});
}
Result<Followed> Codec<Followed>::Decode(std::string_view text) {
  return DecodeString<Followed>(text, "user");
}

std::string Codec<FollowNotice>::Encode(const FollowNotice& e) {
  return json::serialize(json::object{{"user", e.user}});
}
Result<FollowNotice> Codec<FollowNotice>::Decode(std::string_view text) {
  return DecodeString<FollowNotice>(text, "user");
}

std::string Codec<PointsAdded>::Encode(const PointsAdded& e) {
  return json::serialize(json::object{{"amount", e.amount}});
}
Result<PointsAdded> Codec<PointsAdded>::Decode(std::string_view text) {
  return DecodeInteger<PointsAdded>(text, "amount");
}

std::string Codec<PointsAwarded>::Encode(const PointsAwarded& e) {
  return json::serialize(json::object{{"amount", e.amount}});
}
Result<PointsAwarded> Codec<PointsAwarded>::Decode(std::string_view text) {
  return DecodeInteger<PointsAwarded>(text, "amount");
}

std::string Codec<PointsLow>::Encode(const PointsLow& e) {
  return json::serialize(json::object{{"points", e.points}});
}
Result<PointsLow> Codec<PointsLow>::Decode(std::string_view text) {
  return DecodeInteger<PointsLow>(text, "points");
}

std::string Codec<Score>::Encode(const Score& s) {
  return json::serialize(json::object{{"total", s.total}, {"awards", s.awards}});
}
Result<Score> Codec<Score>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto total = Integer(*o, "total");
  if (!total.ok()) return total.status();
  auto awards = Integer(*o, "awards");
  if (!awards.ok()) return awards.status();
  return Score{*total, *awards};
}

namespace entity_test {

Rules<Profile> ProfileRules() {
  Rules<Profile> rules{Profile{}};
  rules.On<Renamed>(kRenamed, [](Profile p, const Renamed& e, RuleContext&) -> Result<Profile> {
    if (e.name.empty()) return Status::Rejected("a name is required");
    p.name = e.name;
    return p;
  });
  rules.On<Followed>(
      kFollowed, [](Profile p, const Followed& e, RuleContext& ctx) -> Result<Profile> {
        if (std::find(p.following.begin(), p.following.end(), e.user) != p.following.end())
          return Status::Rejected("already following " + e.user);
        p.following.push_back(e.user);
        ctx.Publish(kFollowNotice, FollowNotice{e.user});
        return p;
      });
  rules.On<PointsAdded>(kPointsAdded,
                        [](Profile p, const PointsAdded& e, RuleContext& ctx) -> Result<Profile> {
                          if (p.points + e.amount < 0) return Status::Rejected("not enough points");
                          if (e.amount >= 100) ctx.Publish(kPointsAwarded, PointsAwarded{e.amount});
                          if (p.points >= 50 && p.points + e.amount < 50)
                            ctx.Publish(kPointsLow, PointsLow{p.points + e.amount});
                          p.points += e.amount;
                          return p;
                        });
  return rules;
}

Rules<Score> ScoreRules() {
  Rules<Score> rules{Score{}};
  rules.On<PointsAdded>(kPointsAdded, [](Score s, const PointsAdded& e, RuleContext&) {
    s.total += e.amount;
    if (e.amount >= 100) ++s.awards;
    return Result<Score>(s);
  });
  return rules;
}

}  // namespace entity_test
}  // namespace indelible
