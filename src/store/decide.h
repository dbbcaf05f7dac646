// The semantics every backend shares: expectations, tombstones and
// idempotent retries, decided from the stream's head and the stored ids.
// Backends only look the facts up and write; the rules live here once.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "indelible/store.h"

namespace indelible::store {

// What a backend stored for one event id.
struct IdRecord {
  std::string stream;              // the stream the id was written to
  Position position;               // the event's position
  Position append_first_position;  // first event of the append that wrote it
  StreamVersion append_first_version;
  std::uint32_t append_count = 0;  // events in that append
};

// True when the append is Store::Delete's tombstone.
bool IsTombstoneAppend(const AppendRequest& append);

// The result of a state-only append (no events): the stream's head, unchanged.
AppendResult StateOnlyResult(const AppendRequest& append, const StreamHead& head);

// ok, conflict (with the actual version), or not_found (deleting a stream
// that is missing or already deleted).
// `starts_past_zero`: the commit starts a new stream past version 0
// (CommitOptions::start_version), where a tombstone alone is an erased
// stream's import.
Status CheckExpectation(const AppendRequest& append, const std::optional<StreamHead>& head,
                        bool starts_past_zero = false);

// Classifies an append against the stored records of its ids (one entry per
// event, nullopt where the id is new):
//   every id new                                  -> nullopt (a new append)
//   every id written by one earlier append to
//   the same stream                               -> that append's result
//   anything else (partial, other stream)        -> conflict
Result<std::optional<AppendResult>> ClassifyRetry(const AppendRequest& append,
                                                  std::span<const std::optional<IdRecord>> ids);

// The conflict of a commit in which some appends are retries of an earlier
// commit and others are new: it names `retried`, the first retried append.
Status MixedRetryConflict(const AppendRequest& retried);

// The head after appending the append's events at `first_position` (the
// same head for a state-only append). A new stream starts at
// `start_version` (CommitOptions::start_version: an import).
StreamHead Advance(const std::optional<StreamHead>& head, const AppendRequest& append,
                   Position first_position, std::int64_t start_version = 0);

// The versions a stream read covers, in its direction: it starts at `from`
// and stays within [low, high] (low: the current life's first version, or 0
// with include_deleted; high: the last version).
struct StreamReadPlan {
  std::int64_t from;
  std::int64_t low;
  std::int64_t high;
};
// not_found (deleted) for a deleted stream unless options.include_deleted.
Result<StreamReadPlan> PlanStreamRead(std::string_view stream, const StreamHead& head,
                                      const ReadStreamOptions& options);

// A stream cursor's next version from its internal counter, which goes
// to -1 once a backward read passes version 0.
inline std::optional<StreamVersion> NextVersionOrNone(std::int64_t next) {
  return next < 0 ? std::nullopt : std::optional<StreamVersion>(StreamVersion(next));
}

}  // namespace indelible::store
