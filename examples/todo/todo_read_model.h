// The todo service's read side: the todo-list projection (todo_projection.h)
// kept in a read store (SQLite beside the data folder by default, or
// PostgreSQL) by a runner in this process. GETs are answered from there,
// never from the event streams.
//
// Concurrency: safe for concurrent use; queries take a connection from a
// small pool (read_store_pool.h), the runner has its own.
#pragma once

#include <indelible/projection.h>
#include <indelible/store.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "read_store_pool.h"

namespace todo {

struct Todo {
  std::string id;
  std::string title;
  std::string message;
  std::int64_t version = 0;  // the stream's last version: the ETag
  bool deleted = false;
};

class TodoReadModel {
 public:
  // Starts the projection's runner (it first rebuilds if the stored copy
  // is of another version). The Store must outlive the model.
  static indelible::Result<std::unique_ptr<TodoReadModel>> Open(indelible::Store& store,
                                                                const std::string& read_store_url);
  ~TodoReadModel();

  // Waits up to `timeout` until every event up to `position` is applied,
  // so a client reads its own writes. False on timeout.
  bool WaitFor(indelible::Position position, std::chrono::milliseconds timeout);
  indelible::Result<std::optional<Todo>> Get(const std::string& id);
  indelible::Result<std::vector<Todo>> List();  // not deleted, by id

 private:
  TodoReadModel(const std::string& url, std::unique_ptr<indelible::ProjectionRunner> runner);

  std::unique_ptr<indelible::ProjectionRunner> runner_;
  examples::ReadStorePool pool_;
};

}  // namespace todo
