#include "todo_read_model.h"

#include "todo_projection.h"

namespace todo {

using indelible::Result;
using indelible::SqlRow;

namespace {

// Queries in flight at once; more wait for a connection, then 503.
constexpr std::size_t kConnections = 8;
constexpr std::chrono::milliseconds kConnectionWait{2000};

Todo FromRow(const SqlRow& row) {
  return Todo{indelible::SqlText(row[0]), indelible::SqlText(row[1]), indelible::SqlText(row[2]),
              indelible::SqlInt(row[3]), indelible::SqlInt(row[4]) != 0};
}

}  // namespace

Result<std::unique_ptr<TodoReadModel>> TodoReadModel::Open(indelible::Store& store,
                                                           const std::string& read_store_url) {
  auto runner = indelible::ProjectionRunner::Open(store, read_store_url, TodoProjection());
  if (!runner.ok()) return runner.status();
  (*runner)->Start();
  return std::unique_ptr<TodoReadModel>(new TodoReadModel(read_store_url, std::move(*runner)));
}

TodoReadModel::TodoReadModel(const std::string& url,
                             std::unique_ptr<indelible::ProjectionRunner> runner)
    : runner_(std::move(runner)), pool_(url, kConnections, kConnectionWait) {}

TodoReadModel::~TodoReadModel() { runner_->Stop(); }

bool TodoReadModel::WaitFor(indelible::Position position, std::chrono::milliseconds timeout) {
  return runner_->WaitFor(position, timeout);
}

Result<std::optional<Todo>> TodoReadModel::Get(const std::string& id) {
  auto rows =
      pool_.Query("SELECT id, title, message, version, deleted FROM todos WHERE id = $1", {id});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<Todo>();
  return std::optional<Todo>(FromRow(rows->front()));
}

Result<std::vector<Todo>> TodoReadModel::List() {
  auto rows = pool_.Query(
      "SELECT id, title, message, version, deleted FROM todos WHERE deleted = 0 ORDER BY id", {});
  if (!rows.ok()) return rows.status();
  std::vector<Todo> todos;
  for (const SqlRow& row : *rows) todos.push_back(FromRow(row));
  return todos;
}

}  // namespace todo
