// The ratings service over HTTP (README.md has a curl session):
//
//   POST   /users/{user}/ratings  {link, rating}  rate          201; 422 if already rated
//   PUT    /users/{user}/ratings  {link, rating}  update        200; 422 if not rated
//   DELETE /users/{user}/ratings?link=L           delete        200; 422 if not rated
//   POST   /users/{user}/follows  {user}          follow        201; 422 if already followed
//   DELETE /users/{user}/follows/{other}          unfollow      200; 422 if not followed
//   GET    /users/{user}/ratings                  the user's ratings
//   GET    /users/{user}/follows                  whom the user follows
//   GET    /users/{user}/feed                     ratings of the users they follow
//   GET    /links/ratings?link=L                  the link's ratings
//
// Commands go through the user entity (user.h) on the stream user-{user} and
// answer {..., version, position}: the stream's new version and the
// commit's position. Queries are SQL on the read model's tables
// (ratings_read_model.h) and take ?minPosition=P to wait (up to 5 s, then
// 503) until it has applied the command that answered position P:
// read-your-writes. Bad input is 400 {error: "invalid", field, message} and
// writes nothing; a rule's refusal is the library's 422 {error: "rejected",
// message}; a read store that cannot be reached is 503 {error: "unavailable"}.
#pragma once

#include <indelible/entity.h>
#include <indelible/server.h>

#include <vector>

#include "ratings_read_model.h"
#include "user.h"

namespace ratings {

using Users = indelible::Entity<UserState>;

std::vector<indelible::HttpRoute> RatingsRoutes(const Users& users, RatingsReadModel& model);

}  // namespace ratings
