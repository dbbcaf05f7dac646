#include "user.h"

#include <boost/json.hpp>
#include <utility>

#include "json_fields.h"

namespace json = boost::json;
using indelible::Result;
using indelible::RuleContext;
using indelible::Status;

namespace {

using json_fields::ParseObject;
using json_fields::String;
using json_fields::Strings;

Result<int> Stars(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_int64() || v->as_int64() < 1 || v->as_int64() > ratings::kRatingScale)
    return Status::Invalid(std::string(key), "expected an integer from 1 to 5");
  return static_cast<int>(v->as_int64());
}

}  // namespace

namespace ratings {

Status ValidateUser(std::string_view field, std::string_view user) {
  bool ok = !user.empty() && user.size() <= 64;
  for (char c : user)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-');
  if (ok) return Status::Ok();
  return Status::Invalid(std::string(field), std::string(field) +
                                                 " must be 1 to 64 ASCII letters, digits, "
                                                 "'.', '_' or '-'");
}

Status ValidateLink(std::string_view field, std::string_view link) {
  bool ok = !link.empty() && link.size() <= 2048;
  for (char c : link) ok = ok && c > ' ' && c < 0x7f;
  if (ok) return Status::Ok();
  return Status::Invalid(std::string(field),
                         std::string(field) +
                             " must be 1 to 2048 bytes of printable ASCII without spaces "
                             "(a URL; percent-encode the rest)");
}

Status ValidateRating(std::string_view field, std::int64_t rating) {
  if (rating >= 1 && rating <= 5) return Status::Ok();
  return Status::Invalid(std::string(field),
                         std::string(field) + " must be an integer from 1 to 5");
}

indelible::EventData RatingEvent(std::string type, const Rating& rating) {
  indelible::EventData event = indelible::MakeEvent(std::move(type), rating);
  event.schema = kRatingV2;
  return event;
}

// The rules judge new events only. A stored event is a fact, applied as
// well as it can be when replayed (ctx.replaying()): the standard API on the
// same port can write around the entity, and a duplicate USER_FOLLOWED
// written there must not leave the user unloadable. The read model applies
// stored events the same tolerant way, so the two agree.
indelible::Rules<UserState> UserRules() {
  indelible::Rules<UserState> rules{UserState{}};
  // "rate" twice is refused rather than taken as an update: the two are
  // different intents with different events, and a client that rates twice
  // most likely lost track of what it did.
  rules.On<Rating>(
      kLinkRated, [](UserState u, const Rating& r, RuleContext& ctx) -> Result<UserState> {
        if (u.ratings.contains(r.link) && !ctx.replaying())
          return Status::Rejected("already rated " + r.link + "; update the rating instead");
        u.ratings[r.link] = r.stars;
        return u;
      });
  rules.On<Rating>(kRatingUpdated,
                   [](UserState u, const Rating& r, RuleContext& ctx) -> Result<UserState> {
                     if (!u.ratings.contains(r.link) && !ctx.replaying())
                       return Status::Rejected("no rating of " + r.link + " to update");
                     u.ratings[r.link] = r.stars;
                     return u;
                   });
  rules.On<RatingDeleted>(
      kRatingDeleted,
      [](UserState u, const RatingDeleted& r, RuleContext& ctx) -> Result<UserState> {
        if (u.ratings.erase(r.link) == 0 && !ctx.replaying())
          return Status::Rejected("no rating of " + r.link + " to delete");
        return u;
      });
  rules.On<Follow>(kUserFollowed,
                   [](UserState u, const Follow& f, RuleContext& ctx) -> Result<UserState> {
                     if (ctx.replaying()) {
                       u.following.insert(f.user);
                       return u;
                     }
                     // The stream names the follower: the rule stays a pure function.
                     if (ctx.event().stream == UserStream(f.user))
                       return Status::Rejected("a user cannot follow themselves");
                     if (!u.following.insert(f.user).second)
                       return Status::Rejected("already following " + f.user);
                     return u;
                   });
  rules.On<Follow>(kUserUnfollowed,
                   [](UserState u, const Follow& f, RuleContext& ctx) -> Result<UserState> {
                     if (u.following.erase(f.user) == 0 && !ctx.replaying())
                       return Status::Rejected("not following " + f.user);
                     return u;
                   });
  return rules;
}

}  // namespace ratings

using namespace ratings;

// The state record keeps the key `rating`: it is not an event (no schema,
// no upcasting), and records written before V2 must stay loadable.
std::string indelible::Codec<UserState>::Encode(const UserState& u) {
  json::array following(u.following.begin(), u.following.end());
  json::array rated;
  for (const auto& [link, rating] : u.ratings)
    rated.push_back(json::object{{"link", link}, {"rating", rating}});
  return json::serialize(json::object{{"following", following}, {"ratings", rated}});
}
Result<UserState> indelible::Codec<UserState>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto following = Strings(*o, "following");
  if (!following.ok()) return following.status();
  const json::value* rated = o->if_contains("ratings");
  if (rated == nullptr || !rated->is_array())
    return Status::Invalid("ratings", "expected an array of {link, rating}");
  UserState u;
  u.following.insert(following->begin(), following->end());
  for (const json::value& item : rated->as_array()) {
    if (!item.is_object()) return Status::Invalid("ratings", "expected {link, rating} objects");
    auto link = String(item.as_object(), "link");
    if (!link.ok()) return link.status();
    auto rating = Stars(item.as_object(), "rating");
    if (!rating.ok()) return rating.status();
    u.ratings[*link] = *rating;
  }
  return u;
}

// V2 only: the store upcasts V1 events before they get here.
std::string indelible::Codec<Rating>::Encode(const Rating& r) {
  return json::serialize(
      json::object{{"link", r.link}, {"stars", r.stars}, {"scale", kRatingScale}});
}
Result<Rating> indelible::Codec<Rating>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto link = String(*o, "link");
  if (!link.ok()) return link.status();
  // Another scale would be a later version, which this code does not know.
  const json::value* scale = o->if_contains("scale");
  if (scale == nullptr || !scale->is_int64() || scale->as_int64() != kRatingScale)
    return Status::Invalid("scale", "expected 5");
  auto stars = Stars(*o, "stars");
  if (!stars.ok()) return stars.status();
  return Rating{*link, *stars};
}

std::string indelible::Codec<RatingDeleted>::Encode(const RatingDeleted& r) {
  return json::serialize(json::object{{"link", r.link}});
}
Result<RatingDeleted> indelible::Codec<RatingDeleted>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto link = String(*o, "link");
  if (!link.ok()) return link.status();
  return RatingDeleted{*link};
}

std::string indelible::Codec<Follow>::Encode(const Follow& f) {
  return json::serialize(json::object{{"user", f.user}});
}
Result<Follow> indelible::Codec<Follow>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto user = String(*o, "user");
  if (!user.ok()) return user.status();
  return Follow{*user};
}
