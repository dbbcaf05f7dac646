// The ratings service's read models: two projections (projection.h) of the
// user-* streams, kept in a read store (SQLite or PostgreSQL).
//
//   "ratings" -> ratings(user_id, link, rating, position)  -- the current
//                rating of each (user, link); position: of the event that
//                set it. Primary key (user_id, link); index (link, user_id).
//   "follows" -> follows(follower, followee)                -- who follows whom.
//
// The feed is a join of the two at query time (ratings_read_model.cc), so an
// unfollow drops that user's ratings at once and a later follow brings back
// everything they rated meanwhile. Two projections rather than one: each
// has its own checkpoint, so a bad event in one never holds up the other,
// and each can be rebuilt alone (`indelible-ratings project rebuild NAME`).
//
// Events are applied as tolerantly as the entity replays them (user.cc):
// a duplicate USER_FOLLOWED is a no-op, an update of an unrated link sets
// it. Events whose data does not decode are skipped, not blocked on: the
// standard API on the same port can write into user-{id} (rating events
// only in a registered shape, ratings_schemas.h; the others anything).
#pragma once

#include <indelible/projection.h>

#include <vector>

namespace ratings {

indelible::Projection RatingsProjection();
indelible::Projection FollowsProjection();
// Both, for the runners and `indelible-ratings project ...`.
std::vector<indelible::Projection> ReadModelProjections();

}  // namespace ratings
