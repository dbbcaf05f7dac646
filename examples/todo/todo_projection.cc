#include "todo_projection.h"

#include <boost/json.hpp>
#include <optional>

namespace todo {

namespace json = boost::json;
using indelible::ProjectionTransaction;
using indelible::RecordedEvent;
using indelible::SqlValue;
using indelible::Status;

namespace {

// A string field of the event's data, or NULL (absent, or not a string).
SqlValue Text(const json::object* data, std::string_view key) {
  const json::value* v = data ? data->if_contains(key) : nullptr;
  if (v == nullptr || !v->is_string()) return nullptr;
  return std::string(v->as_string());
}

Status Apply(ProjectionTransaction& tx, const RecordedEvent& event) {
  boost::system::error_code ec;
  json::value parsed = json::parse(event.data, ec);
  const json::object* data = !ec && parsed.is_object() ? &parsed.as_object() : nullptr;
  const std::string id = event.stream.substr(5);  // todo-{id}
  const auto version = event.version.value();
  const auto position = static_cast<std::int64_t>(event.position.value());
  if (event.type == "Todo.Created") {
    // ON CONFLICT: a stream started again after its deletion.
    return tx.Execute(
        "INSERT INTO {todos} (id, title, message, version, position, deleted) "
        "VALUES ($1, COALESCE($2, ''), COALESCE($3, ''), $4, $5, 0) "
        "ON CONFLICT (id) DO UPDATE SET title = excluded.title, message = excluded.message, "
        "version = excluded.version, position = excluded.position, deleted = 0",
        {id, Text(data, "title"), Text(data, "message"), version, position});
  }
  if (event.type == "Todo.Updated") {
    return tx.Execute(
        "UPDATE {todos} SET title = COALESCE($2, title), message = COALESCE($3, message), "
        "version = $4, position = $5 WHERE id = $1",
        {id, Text(data, "title"), Text(data, "message"), version, position});
  }
  if (event.type == "Todo.Deleted" || event.type == "$deleted") {
    return tx.Execute("UPDATE {todos} SET deleted = 1, version = $2, position = $3 WHERE id = $1",
                      {id, version, position});
  }
  return Status::Ok();  // an event type of a later version of the service
}

}  // namespace

indelible::Projection TodoProjection() {
  indelible::Projection projection;
  projection.name = "todo-list";
  // 2: without the index on (deleted, id), which cost a fifth of the
  // rebuild's time; the list scans the primary key in order instead.
  projection.version = 2;
  projection.filter.categories = {"todo"};
  projection.tables = {"todos"};
  projection.setup = [](ProjectionTransaction& tx) {
    return tx.Execute(
        "CREATE TABLE {todos} (id TEXT PRIMARY KEY, title TEXT NOT NULL, message TEXT NOT NULL, "
        "version BIGINT NOT NULL, position BIGINT NOT NULL, deleted BIGINT NOT NULL)");
  };
  projection.apply = Apply;
  return projection;
}

}  // namespace todo
