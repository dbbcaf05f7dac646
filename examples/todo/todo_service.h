// The reference REST design of a todo service, on event streams:
//
//   POST   /todo        {id, title, message}  201 + ETag "0"; 409 if the id exists
//   GET    /todo/{id}                         200 + ETag; 404 if unknown or deleted
//   POST   /todo/{id}   If-Match, {title?, message?}
//                                             200 + new ETag; 409 stale; 404; 428 without If-Match
//   DELETE /todo/{id}   If-Match              200 + ETag; records Todo.Deleted, events stay
//   GET    /todo                              every todo not deleted
//
// Each todo is the stream todo-{id} (Todo.Created, Todo.Updated,
// Todo.Deleted); its ETag is the stream's last version. Reads come from the
// read model, after waiting for it to reach the stream's head, so a client
// always reads its own writes.
#pragma once

#include <indelible/server.h>
#include <indelible/store.h>

#include <vector>

#include "todo_read_model.h"

namespace todo {

std::vector<indelible::HttpRoute> TodoRoutes(indelible::Store& store, TodoReadModel& model);

}  // namespace todo
