// What the backends share for queries across streams (include/indelible/query.h).
#pragma once

#include <memory>

#include "indelible/store.h"

namespace indelible::store {

// The conflict of a commit whose AppendCondition an event at `position` broke.
Status ConditionFailed(Position position);

// A cursor over `inner` that passes only the events `query` matches, up to
// `limit` of them. next_position() is the inner cursor's, so a caller
// continues past the events it skipped.
std::unique_ptr<AllCursor> FilterByQuery(std::unique_ptr<AllCursor> inner, Query query,
                                         std::size_t limit);

}  // namespace indelible::store
