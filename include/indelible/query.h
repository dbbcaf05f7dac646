// Consistency beyond one stream, after the Dynamic Consistency Boundary
// specification (dcb.events): events carry tags, a Query selects events by
// type and tag, and a commit may carry an AppendCondition, "fail if an event
// matching this query was written after position P", checked and written in
// one atomic step. docs/DCB.md is the guide; streams and tags live in one
// store and one global order ($all).
//
//   Query q = Query::Of({QueryItem{{"UserRegistered"}, {"username:alice"}}});
//   auto cursor = store.ReadQuery(q);           // what a decision looks at
//   Position seen = ...last position read...;  // or cursor->next_position()
//   CommitOptions options;
//   options.condition = AppendCondition{q, seen};
//   store.Commit({{"user-42", Expected::no_stream(), {registered}}}, options);
//   // conflict (Status::condition_position()) if another writer got there first
//
// Values only: no I/O, safe to copy and share between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/types.h"

namespace indelible {

// Tags: at most kMaxEventTags per event, each 1 to kMaxTagBytes bytes of
// UTF-8 without control characters (so '\0' can separate them in keys).
// They are a set: the store keeps them sorted, duplicates removed.
inline constexpr std::size_t kMaxEventTags = 32;
inline constexpr std::size_t kMaxTagBytes = 128;
// Events without a stream: an append to this reserved stream, which any
// caller may make (it is the one '$' name open to appends; over HTTP, an
// append of POST /commits without `stream`). They appear in $all and the listing
// under its name, numbered like any stream's events, and are found by
// queries like the others. Reading it as a stream needs the admin right.
inline constexpr std::string_view kStreamlessStream = "$dcb";

// A query holds at most this many items, each at most this many types and tags.
inline constexpr std::size_t kMaxQueryItems = 32;
inline constexpr std::size_t kMaxQueryItemEntries = 32;

// Events of any of `types` (none listed: any type) that carry every one of
// `tags` (none listed: no tag needed). An item must list a type or a tag.
struct QueryItem {
  std::vector<std::string> types;
  std::vector<std::string> tags;

  // `event_tags` sorted (as the store keeps them).
  bool Matches(std::string_view type, std::span<const std::string> event_tags) const;
  bool operator==(const QueryItem&) const = default;
};

// Events matching any item; a query with no items matches every event.
struct Query {
  std::vector<QueryItem> items;

  static Query All() { return {}; }
  static Query Of(std::vector<QueryItem> items) { return Query{std::move(items)}; }
  bool matches_all() const { return items.empty(); }
  bool Matches(std::string_view type, std::span<const std::string> event_tags) const;
  bool operator==(const Query&) const = default;
};

// ok, or invalid naming the field ("query.items[1].tags[0]") and the rule.
// `field` prefixes the names ("condition.failIfEventsMatch").
Status ValidateQuery(const Query& query, std::string_view field = "query");
// The same rules for one event's tags; sorts them and removes duplicates.
Status NormalizeTags(std::vector<std::string>& tags, std::string_view field = "tags");

// A commit's condition (CommitOptions::condition): the commit fails as a
// conflict, writing nothing, if any event matching `fail_if_events_match`
// was written at a position after `after` (every event when nullopt).
// The conflict's Status::condition_position() is the first such event's.
//
// Checked with the commit's expectations in one atomic step: no event
// committed between the check and the write can break it. An idempotent
// retry (every id already written by the same appends) returns the first
// write's result whatever the condition says now.
struct AppendCondition {
  Query fail_if_events_match;
  std::optional<Position> after;
  bool operator==(const AppendCondition&) const = default;
};

struct ReadQueryOptions {
  Direction direction = Direction::kForward;
  // First position to return (inclusive). Forward: 0 or 1 from the
  // beginning. Backward: nullopt from the last event.
  std::optional<Position> from;
  std::size_t limit = SIZE_MAX;
  // The events as stored: not upcast by a SchemaStore (schemas.h), and
  // sealed events not opened (their ciphertext; redacted once shredded).
  bool raw = false;
};

}  // namespace indelible
