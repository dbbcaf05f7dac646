// Retention at read time (docs/RETENTION.md): which of a stream's events its
// metadata hides, and cursors that leave them out. A scavenge removes the
// bytes later; until then every read path filters through these.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/store.h"
#include "indelible/stream_metadata.h"

namespace indelible::store {

// The streams that have retention settings, as one read sees them.
using RetentionMap = std::map<std::string, StreamMetadata, std::less<>>;

// What one stream's retention hides, worked out for a read: events below
// `first_version`, and events committed before `oldest_ms`.
struct RetentionCut {
  std::int64_t first_version = 0;
  std::int64_t oldest_ms = INT64_MIN;
  // The stream's last version when max_count was counted back from it
  // (nullopt when no max_count): a stream read stops there, so it never
  // returns more than max_count events though appends land meanwhile.
  std::optional<std::int64_t> last_version;

  bool Hides(const EventView& event) const {
    return event.version.value() < first_version || event.timestamp_ms < oldest_ms;
  }
};

// The cut of `metadata` for a stream whose last version is `last_version`
// (nullopt: no events, or unknown and not needed), at `now_ms`.
RetentionCut CutOf(const StreamMetadata& metadata, std::optional<std::int64_t> last_version,
                   std::int64_t now_ms);

// The cut for `stream` under `metadata`, reading its head from `store`
// only when max_count needs it. A stream without a head (never written)
// hides nothing.
Result<RetentionCut> CutFor(Store& store, std::string_view stream, const StreamMetadata& metadata,
                            std::int64_t now_ms);

// A stream cursor that leaves out what `cut` hides and ends after `limit`
// events returned.
std::unique_ptr<StreamCursor> RetainedStream(std::unique_ptr<StreamCursor> inner, RetentionCut cut,
                                             std::size_t limit);

// A $all (or query) cursor that leaves out every event a stream of `rules`
// hides, working each stream's cut out the first time it meets one, and
// ends after `limit` events returned.
std::unique_ptr<AllCursor> RetainedAll(std::unique_ptr<AllCursor> inner,
                                       std::shared_ptr<const RetentionMap> rules, Store& heads,
                                       std::int64_t now_ms, std::size_t limit);

}  // namespace indelible::store
