// The AppendCondition check of the group-commit leader (engine.h): it runs
// while the leader decides the commit, so nothing can be written between
// the check and the commit's own write.
#include "storage/embedded/engine.h"
#include "storage/embedded/query_scan.h"
#include "storage/embedded/writer.h"

namespace indelible::storage::embedded {

Result<std::optional<Position>> EmbeddedStore::FirstConditionMatch(const AppendCondition& condition,
                                                                   const Group& group) {
  const Query& query = condition.fail_if_events_match;
  const Position after = condition.after.value_or(Position(0));
  // Written groups, synced or not: the latest data, which only the leader
  // reads (it decides on top of the groups still syncing).
  const Position written(next_position_ - 1);
  std::optional<Position> first;
  if (after < written) {
    std::vector<QueryItem> items = query.items;
    if (items.empty()) items.emplace_back();  // every event
    const rocksdb::ReadOptions latest;
    for (QueryItem& item : items) {
      ItemScan scan(db_, log(), tags(), latest, std::move(item), /*forward=*/true, after.next(),
                    written);
      if (!scan.status().ok()) return scan.status();
      if (scan.Valid() && (!first || scan.position() < *first)) first = scan.position();
    }
  }
  if (first) return first;
  // Staged in this group: after every written position, in order.
  for (const Group::StagedEvent& staged : group.staged_events)
    if (staged.position > after && query.Matches(staged.event->type, staged.event->tags))
      return std::optional(staged.position);
  return std::optional<Position>();
}

}  // namespace indelible::storage::embedded
