#include "ratings_service.h"

#include <boost/json.hpp>
#include <chrono>
#include <string>

#include "min_position.h"

namespace ratings {

namespace json = boost::json;
using indelible::HttpRequest;
using indelible::HttpResponse;
using indelible::MakeEvent;
using indelible::Result;
using indelible::Status;

namespace {

// How long a query waits for ?minPosition before giving up with 503.
constexpr auto kReadYourWrites = std::chrono::seconds(5);

HttpResponse Error(const Status& status) { return HttpResponse::Error(status); }

Result<json::object> ParseObject(const std::string& body) {
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec || !value.is_object()) return Status::Invalid("body", "send a JSON object");
  return std::move(value.as_object());
}

Result<std::string> LinkIn(const json::object& body) {
  const json::value* v = body.if_contains("link");
  if (v == nullptr || !v->is_string()) return Status::Invalid("link", "link is required: a string");
  std::string link(v->as_string());
  if (Status s = ValidateLink("link", link); !s.ok()) return s;
  return link;
}

Result<int> RatingIn(const json::object& body) {
  const json::value* v = body.if_contains("rating");
  if (v == nullptr || !v->is_int64())
    return Status::Invalid("rating", "rating is required: an integer from 1 to 5");
  if (Status s = ValidateRating("rating", v->as_int64()); !s.ok()) return s;
  return static_cast<int>(v->as_int64());
}

// ?link=L, percent-decoded by the server.
Result<std::string> LinkInQuery(const HttpRequest& request) {
  auto it = request.query.find("link");
  if (it == request.query.end())
    return Status::Invalid("link", "add ?link= with the link, percent-encoded");
  if (Status s = ValidateLink("link", it->second); !s.ok()) return s;
  return it->second;
}

// The route's {user} segment (params[0]), or the other user's.
Result<std::string> UserInPath(const HttpRequest& request, std::size_t index = 0,
                               std::string_view field = "{user}") {
  const std::string& user = request.params[index];
  if (Status s = ValidateUser(field, user); !s.ok()) return s;
  return user;
}

// Appends the command's event through the entity: the rules decide, and a
// concurrent command on the same user is retried from the new state.
HttpResponse Commit(const Users& users, const std::string& user, indelible::EventData event,
                    int status, json::object answer) {
  auto change = users.Append(UserStream(user), {std::move(event)});
  if (!change.ok()) return Error(change.status());
  answer["version"] = change->entity.version->value();  // set: the stream exists now
  answer["position"] = change->entity.position.value();
  return HttpResponse::Json(status, json::serialize(answer));
}

// POST (rate) and PUT (update): the same body, a different event and rule.
HttpResponse Rate(const Users& users, const HttpRequest& request, const char* type, int status) {
  auto user = UserInPath(request);
  if (!user.ok()) return Error(user.status());
  auto body = ParseObject(request.body);
  if (!body.ok()) return Error(body.status());
  auto link = LinkIn(*body);
  if (!link.ok()) return Error(link.status());
  auto rating = RatingIn(*body);
  if (!rating.ok()) return Error(rating.status());
  // The body keeps `rating` (the HTTP API did not change); the event is V2.
  return Commit(users, *user, RatingEvent(type, Rating{*link, *rating}), status,
                {{"user", *user}, {"link", *link}, {"rating", *rating}});
}

HttpResponse DeleteRating(const Users& users, const HttpRequest& request) {
  auto user = UserInPath(request);
  if (!user.ok()) return Error(user.status());
  auto link = LinkInQuery(request);
  if (!link.ok()) return Error(link.status());
  return Commit(users, *user, MakeEvent(kRatingDeleted, RatingDeleted{*link}), 200,
                {{"user", *user}, {"link", *link}, {"deleted", true}});
}

HttpResponse FollowUser(const Users& users, const HttpRequest& request) {
  auto user = UserInPath(request);
  if (!user.ok()) return Error(user.status());
  auto body = ParseObject(request.body);
  if (!body.ok()) return Error(body.status());
  const json::value* other = body->if_contains("user");
  if (other == nullptr || !other->is_string())
    return Error(Status::Invalid("user", "user is required: the id of the user to follow"));
  const std::string followed(other->as_string());
  if (Status s = ValidateUser("user", followed); !s.ok()) return Error(s);
  return Commit(users, *user, MakeEvent(kUserFollowed, Follow{followed}), 201,
                {{"user", *user}, {"followed", followed}});
}

HttpResponse UnfollowUser(const Users& users, const HttpRequest& request) {
  auto user = UserInPath(request);
  if (!user.ok()) return Error(user.status());
  auto other = UserInPath(request, 1, "{other}");
  if (!other.ok()) return Error(other.status());
  return Commit(users, *user, MakeEvent(kUserUnfollowed, Follow{*other}), 200,
                {{"user", *user}, {"unfollowed", *other}});
}

// ?minPosition=P: waits until the read model has applied position P (what a
// command answered), so that a client reads its own writes. Ok when there
// is nothing to wait for.
Status AwaitPosition(RatingsReadModel& model, const HttpRequest& request) {
  return examples::AwaitMinPosition(
      request, [&model](auto position, auto timeout) { return model.WaitFor(position, timeout); },
      kReadYourWrites);
}

json::array Items(const std::vector<RatingView>& ratings, bool with_user, bool with_link) {
  json::array items;
  for (const RatingView& r : ratings) {
    json::object item;
    if (with_user) item["user"] = r.user;
    if (with_link) item["link"] = r.link;
    item["rating"] = r.rating;
    item["position"] = r.position;
    items.push_back(std::move(item));
  }
  return items;
}

// A query on one user: checks the path and waits for ?minPosition first.
// `answer` fills in the rest from the read model, or fails.
template <class Answer>
HttpResponse UserQuery(RatingsReadModel& model, const HttpRequest& request, Answer answer) {
  auto user = UserInPath(request);
  if (!user.ok()) return Error(user.status());
  if (Status s = AwaitPosition(model, request); !s.ok()) return Error(s);
  json::object out{{"user", *user}};
  if (Status s = answer(*user, out); !s.ok()) return Error(s);
  return HttpResponse::Json(200, json::serialize(out));
}

// Sets out[key] to the ratings, or fails as the query did.
Status Put(json::object& out, std::string_view key, const Result<std::vector<RatingView>>& ratings,
           bool with_user, bool with_link) {
  if (!ratings.ok()) return ratings.status();
  out[key] = Items(*ratings, with_user, with_link);
  return Status::Ok();
}

HttpResponse LinkRatings(RatingsReadModel& model, const HttpRequest& request) {
  auto link = LinkInQuery(request);
  if (!link.ok()) return Error(link.status());
  if (Status s = AwaitPosition(model, request); !s.ok()) return Error(s);
  auto ratings = model.ForLink(*link);
  if (!ratings.ok()) return Error(ratings.status());
  json::object out{{"link", *link},
                   {"count", ratings->size()},
                   {"ratings", Items(*ratings, /*with_user=*/true, /*with_link=*/false)}};
  return HttpResponse::Json(200, json::serialize(out));
}

}  // namespace

std::vector<indelible::HttpRoute> RatingsRoutes(const Users& users, RatingsReadModel& model) {
  std::vector<indelible::HttpRoute> routes = {
      {"POST", "/users/{}/ratings",
       [&users](const HttpRequest& r) { return Rate(users, r, kLinkRated, 201); }},
      {"PUT", "/users/{}/ratings",
       [&users](const HttpRequest& r) { return Rate(users, r, kRatingUpdated, 200); }},
      {"DELETE", "/users/{}/ratings",
       [&users](const HttpRequest& r) { return DeleteRating(users, r); }},
      {"POST", "/users/{}/follows",
       [&users](const HttpRequest& r) { return FollowUser(users, r); }},
      {"DELETE", "/users/{}/follows/{}",
       [&users](const HttpRequest& r) { return UnfollowUser(users, r); }},
      {"GET", "/users/{}/ratings",
       [&model](const HttpRequest& r) {
         return UserQuery(model, r, [&model](const std::string& user, json::object& out) {
           return Put(out, "ratings", model.ForUser(user), /*with_user=*/false, /*with_link=*/true);
         });
       }},
      {"GET", "/users/{}/follows",
       [&model](const HttpRequest& r) {
         return UserQuery(model, r, [&model](const std::string& user, json::object& out) {
           auto following = model.Following(user);
           if (!following.ok()) return following.status();
           out["following"] = json::array(following->begin(), following->end());
           return Status::Ok();
         });
       }},
      {"GET", "/users/{}/feed",
       [&model](const HttpRequest& r) {
         return UserQuery(model, r, [&model](const std::string& user, json::object& out) {
           return Put(out, "feed", model.Feed(user), /*with_user=*/true, /*with_link=*/true);
         });
       }},
      {"GET", "/links/ratings", [&model](const HttpRequest& r) { return LinkRatings(model, r); }},
  };
  // With authentication on (--auth), a caller needs read (GET) or write
  // (the rest) on the user-* streams the routes write and project.
  for (indelible::HttpRoute& route : routes) route.stream_prefix = std::string(kUserStreamPrefix);
  return routes;
}

}  // namespace ratings
