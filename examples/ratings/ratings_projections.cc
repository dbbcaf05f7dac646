#include "ratings_projections.h"

#include <string>

#include "user.h"

namespace ratings {

using indelible::Codec;
using indelible::ProjectionTransaction;
using indelible::RecordedEvent;
using indelible::SqlDialect;
using indelible::Status;

namespace {

// Text compares byte by byte in both stores (SQLite's default; PostgreSQL's
// would follow the database's locale), so listings sort the same anywhere.
std::string TextColumn(const ProjectionTransaction& tx) {
  return tx.dialect() == SqlDialect::kPostgres ? R"(TEXT COLLATE "C" NOT NULL)" : "TEXT NOT NULL";
}

// The user of a user-{id} stream; empty for other streams of the category.
std::string UserOf(const RecordedEvent& event) {
  if (!event.stream.starts_with(kUserStreamPrefix)) return {};
  return event.stream.substr(kUserStreamPrefix.size());
}

Status SetupRatings(ProjectionTransaction& tx) {
  const std::string text = TextColumn(tx);
  Status s = tx.Execute("CREATE TABLE {ratings} (user_id " + text + ", link " + text +
                        ", rating BIGINT NOT NULL, position BIGINT NOT NULL, "
                        "PRIMARY KEY (user_id, link))");
  if (!s.ok()) return s;
  return tx.Execute("CREATE INDEX {ratings_by_link} ON {ratings} (link, user_id)");
}

Status ApplyRating(ProjectionTransaction& tx, const RecordedEvent& event) {
  const std::string user = UserOf(event);
  if (user.empty()) return Status::Ok();
  if (event.type == kLinkRated || event.type == kRatingUpdated) {
    auto rated = Codec<Rating>::Decode(event.data);
    if (!rated.ok()) return Status::Ok();
    return tx.Execute(
        "INSERT INTO {ratings} (user_id, link, rating, position) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (user_id, link) DO UPDATE SET rating = excluded.rating, "
        "position = excluded.position",
        {user, rated->link, std::int64_t{rated->stars},
         static_cast<std::int64_t>(event.position.value())});
  }
  if (event.type == kRatingDeleted) {
    auto deleted = Codec<RatingDeleted>::Decode(event.data);
    if (!deleted.ok()) return Status::Ok();
    return tx.Execute("DELETE FROM {ratings} WHERE user_id = $1 AND link = $2",
                      {user, deleted->link});
  }
  // A deleted stream: the entity starts over from the initial state, and so
  // does the user here.
  if (event.type == indelible::kDeletedEventType)
    return tx.Execute("DELETE FROM {ratings} WHERE user_id = $1", {user});
  return Status::Ok();
}

Status SetupFollows(ProjectionTransaction& tx) {
  const std::string text = TextColumn(tx);
  return tx.Execute("CREATE TABLE {follows} (follower " + text + ", followee " + text +
                    ", PRIMARY KEY (follower, followee))");
}

Status ApplyFollow(ProjectionTransaction& tx, const RecordedEvent& event) {
  const std::string user = UserOf(event);
  if (user.empty()) return Status::Ok();
  if (event.type == kUserFollowed) {
    auto followed = Codec<Follow>::Decode(event.data);
    if (!followed.ok()) return Status::Ok();
    return tx.Execute(
        "INSERT INTO {follows} (follower, followee) VALUES ($1, $2) "
        "ON CONFLICT (follower, followee) DO NOTHING",
        {user, followed->user});
  }
  if (event.type == kUserUnfollowed) {
    auto unfollowed = Codec<Follow>::Decode(event.data);
    if (!unfollowed.ok()) return Status::Ok();
    return tx.Execute("DELETE FROM {follows} WHERE follower = $1 AND followee = $2",
                      {user, unfollowed->user});
  }
  // Follows of this user by others stay: they live in the followers' streams.
  if (event.type == indelible::kDeletedEventType)
    return tx.Execute("DELETE FROM {follows} WHERE follower = $1", {user});
  return Status::Ok();
}

}  // namespace

indelible::Projection RatingsProjection() {
  indelible::Projection projection;
  projection.name = "ratings";
  projection.version = 1;
  projection.filter.categories = {"user"};
  projection.tables = {"ratings"};
  projection.indexes = {"ratings_by_link"};
  projection.setup = SetupRatings;
  projection.apply = ApplyRating;
  return projection;
}

indelible::Projection FollowsProjection() {
  indelible::Projection projection;
  projection.name = "follows";
  projection.version = 1;
  projection.filter.categories = {"user"};
  projection.tables = {"follows"};
  projection.setup = SetupFollows;
  projection.apply = ApplyFollow;
  return projection;
}

std::vector<indelible::Projection> ReadModelProjections() {
  return {RatingsProjection(), FollowsProjection()};
}

}  // namespace ratings
