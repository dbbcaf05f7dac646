// The saved form of a consumer group: one checkpoint record
// ("group/NAME", Store::SaveRecord) holding its definition and its
// checkpoint as JSON, so every backend that keeps checkpoint records keeps
// groups without a schema of its own.
#pragma once

#include <indelible/consumer_group.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace indelible::subscriptions {

inline constexpr std::string_view kGroupRecordPrefix = "group/";

// A parked event an operator skipped (ConsumerGroup::SkipParked), kept while
// it still matters: while its stream is parked at or before it (so a replay
// passes it over), or while its original is past the checkpoint (so the
// window, reading it again after a restart, does not deliver it).
struct SkippedCopy {
  std::string stream;  // the original's stream
  Position position;   // the original's position
};

struct GroupRecord {
  ConsumerGroupOptions options;  // the saved fields only (not window, interval)
  Position checkpoint;
  // Parked streams (policy park): each with the first version of
  // $parked-<group> holding one of its events not yet replayed. Events of
  // these streams are parked behind, not delivered, until a replay has
  // delivered all of them.
  std::map<std::string, std::uint64_t, std::less<>> parked;
  std::uint64_t parked_events = 0;  // copies not yet replayed
  bool replaying = false;           // a replay pass is under way
  // Per-event decisions on parked events, by the copy's version in
  // $parked-<group>: skipped ones (see SkippedCopy) and ones being retried
  // (delivered again on their own; see ConsumerGroup::RetryParked).
  std::map<std::uint64_t, SkippedCopy> skipped;
  std::set<std::uint64_t> retrying;
};

Status ValidateGroupName(std::string_view name);
Status ValidateGroupOptions(const ConsumerGroupOptions& options);
std::string RecordName(std::string_view group);
std::string EncodeGroupRecord(const GroupRecord& record);
// internal if the record is not one this version wrote.
Result<GroupRecord> DecodeGroupRecord(std::string_view group, std::string_view json);
// The fields Create compares: filter, start and policy.
bool SameDefinition(const ConsumerGroupOptions& a, const ConsumerGroupOptions& b);

}  // namespace indelible::subscriptions
