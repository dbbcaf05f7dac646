// A user of the ratings service as an entity (include/indelible/entity.h):
// the stream user-{id} holds everything the user did, their ratings of links
// and whom they follow, and the rules keep it consistent: a link is rated
// once (then updated or deleted), a user is followed at most once and only
// unfollowed when followed.
#pragma once

#include <indelible/entity.h>
#include <indelible/rules.h>

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace ratings {

// What the rules need to decide, nothing more: the read side keeps the rest.
struct UserState {
  std::set<std::string> following;     // user ids
  std::map<std::string, int> ratings;  // link -> 1..5
};

// Inbound event types, in the reference's style.
inline constexpr const char* kLinkRated = "LINK_RATED";
inline constexpr const char* kRatingUpdated = "RATING_UPDATED";
inline constexpr const char* kRatingDeleted = "RATING_DELETED";
inline constexpr const char* kUserFollowed = "USER_FOLLOWED";
inline constexpr const char* kUserUnfollowed = "USER_UNFOLLOWED";

// The schema versions of LINK_RATED and RATING_UPDATED (ratings_schemas.h):
// V1 {link, rating}, V2 {link, stars, scale}. The store upcasts V1 events
// on every read, so the code reads and writes V2 only.
inline constexpr const char* kRatingV1 = "V1";
inline constexpr const char* kRatingV2 = "V2";
// The scale of V2's stars: the only one so far.
inline constexpr int kRatingScale = 5;

// LINK_RATED and RATING_UPDATED, V2: {link, stars, scale}.
struct Rating {
  std::string link;
  int stars = 0;  // 1..kRatingScale
};
// The event, labelled with the version its data has.
indelible::EventData RatingEvent(std::string type, const Rating& rating);
// RATING_DELETED.
struct RatingDeleted {
  std::string link;
};
// USER_FOLLOWED and USER_UNFOLLOWED: the other user.
struct Follow {
  std::string user;
};

inline constexpr std::string_view kUserStreamPrefix = "user-";
inline std::string UserStream(std::string_view user) {
  return std::string(kUserStreamPrefix) + std::string(user);
}

// Input checks, before anything reaches the store; invalid names `field`.
// A user id is 1 to 64 ASCII letters, digits, '.', '_' or '-', so that
// user-{id} is always a valid stream name of category "user".
indelible::Status ValidateUser(std::string_view field, std::string_view user);
// A link is 1 to 2048 bytes of printable ASCII without spaces: a URL as it
// travels on the wire. Anything else is most likely a client's bug.
indelible::Status ValidateLink(std::string_view field, std::string_view link);
indelible::Status ValidateRating(std::string_view field, std::int64_t rating);

indelible::Rules<UserState> UserRules();

// Users live long and act often: a load reads the latest snapshot and at
// most 999 events after it, and only one append in a thousand pays for
// writing the state record.
inline indelible::EntityOptions UserEntityOptions() {
  indelible::EntityOptions options;
  options.snapshots = indelible::SnapshotPolicy::Every(1000);
  return options;
}

}  // namespace ratings

// JSON codecs (user.cc).
template <>
struct indelible::Codec<ratings::UserState> {
  static std::string Encode(const ratings::UserState& value);
  static indelible::Result<ratings::UserState> Decode(std::string_view json);
};
template <>
struct indelible::Codec<ratings::Rating> {
  static std::string Encode(const ratings::Rating& value);
  static indelible::Result<ratings::Rating> Decode(std::string_view json);
};
template <>
struct indelible::Codec<ratings::RatingDeleted> {
  static std::string Encode(const ratings::RatingDeleted& value);
  static indelible::Result<ratings::RatingDeleted> Decode(std::string_view json);
};
template <>
struct indelible::Codec<ratings::Follow> {
  static std::string Encode(const ratings::Follow& value);
  static indelible::Result<ratings::Follow> Decode(std::string_view json);
};
