// The test domain of the entity suite: a user profile with a name, the users
// it follows and a points balance. Small, but each rule exercises one thing
// the entity machinery must get right:
//   USER_RENAMED   plain state change; rejects an empty name
//   USER_FOLLOWED  rejects following someone already followed (a rule whose
//                  verdict depends on the state: the concurrency tests);
//                  publishes followNotice
//   POINTS_ADDED   rejects a balance under zero; publishes pointsAwarded for
//                  awards of 100 or more (most events publish nothing, so
//                  long streams fit the store's per-commit event limit), and
//                  pointsLow when the balance falls from 50 or more to under
//                  50 (what it publishes depends on the state)
// Codecs use Boost.JSON, as examples/ledger does.
#pragma once

#include <indelible/rules.h>

#include <cstdint>
#include <string>
#include <vector>

namespace indelible::entity_test {

struct Profile {
  std::string name;
  std::vector<std::string> following;
  std::int64_t points = 0;
  bool operator==(const Profile&) const = default;
};

struct Renamed {
  std::string name;
};
struct Followed {
  std::string user;
};
struct PointsAdded {
  std::int64_t amount = 0;
};
// Outbound.
struct FollowNotice {
  std::string user;
};
struct PointsAwarded {
  std::int64_t amount = 0;
};
struct PointsLow {
  std::int64_t points = 0;
};

inline constexpr const char* kRenamed = "USER_RENAMED";
inline constexpr const char* kFollowed = "USER_FOLLOWED";
inline constexpr const char* kPointsAdded = "POINTS_ADDED";
inline constexpr const char* kFollowNotice = "followNotice";
inline constexpr const char* kPointsAwarded = "pointsAwarded";
inline constexpr const char* kPointsLow = "pointsLow";

Rules<Profile> ProfileRules();

// A state of another schema for the same stream (the state-schema tests): a
// score instead of a profile, with a Codec that cannot read a Profile record.
struct Score {
  std::int64_t total = 0;
  std::int64_t awards = 0;
  bool operator==(const Score&) const = default;
};
Rules<Score> ScoreRules();

}  // namespace indelible::entity_test

namespace indelible {

template <>
struct Codec<entity_test::Profile> {
  static std::string Encode(const entity_test::Profile& value);
  static Result<entity_test::Profile> Decode(std::string_view json);
};
template <>
struct Codec<entity_test::Renamed> {
  static std::string Encode(const entity_test::Renamed& value);
  static Result<entity_test::Renamed> Decode(std::string_view json);
};
template <>
struct Codec<entity_test::Followed> {
  static std::string Encode(const entity_test::Followed& value);
  static Result<entity_test::Followed> Decode(std::string_view json);
};
template <>
struct Codec<entity_test::PointsAdded> {
  static std::string Encode(const entity_test::PointsAdded& value);
  static Result<entity_test::PointsAdded> Decode(std::string_view json);
};
template <>
struct Codec<entity_test::FollowNotice> {
  static std::string Encode(const entity_test::FollowNotice& value);
  static Result<entity_test::FollowNotice> Decode(std::string_view json);
};
template <>
struct Codec<entity_test::PointsAwarded> {
  static std::string Encode(const entity_test::PointsAwarded& value);
  static Result<entity_test::PointsAwarded> Decode(std::string_view json);
};
template <>
struct Codec<entity_test::PointsLow> {
  static std::string Encode(const entity_test::PointsLow& value);
  static Result<entity_test::PointsLow> Decode(std::string_view json);
};
template <>
struct Codec<entity_test::Score> {
  static std::string Encode(const entity_test::Score& value);
  static Result<entity_test::Score> Decode(std::string_view json);
};

}  // namespace indelible
