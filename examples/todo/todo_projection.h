// The todo service's read model as a projection (the "indexer" of the
// reference design): one row per todo in the table `todos`, kept from the
// todo-* streams. Shared by indelible-todo and the projection benchmark.
//
//   todos(id TEXT PRIMARY KEY, title TEXT, message TEXT,
//         version BIGINT,   -- the stream's last version: the ETag
//         position BIGINT,  -- of the event that last changed the row
//         deleted BIGINT)   -- 1 after Todo.Deleted; the row stays
#pragma once

#include <indelible/projection.h>

namespace todo {

indelible::Projection TodoProjection();

}  // namespace todo
