#include "todo_read_model.h"

#include <boost/json.hpp>
#include <cstdio>

namespace todo {

namespace json = boost::json;
using indelible::Position;

TodoReadModel::TodoReadModel(indelible::Store& store) : store_(store) {
  thread_ = std::thread([this] { Follow(); });
}

TodoReadModel::~TodoReadModel() {
  stopping_ = true;
  thread_.join();
}

void TodoReadModel::Follow() {
  Position next(1);
  while (!stopping_) {
    indelible::ReadAllOptions options;
    options.from = next;
    options.filter.categories = {"todo"};
    auto cursor = store_.ReadAll(options);
    if (!cursor.ok()) {
      std::fprintf(stderr, "indelible-todo: read model: %s\n", cursor.status().ToString().c_str());
      store_.WaitForCommit(Position(next.value() - 1), std::chrono::seconds(1));
      continue;
    }
    for (; (*cursor)->Valid(); (*cursor)->Next()) Apply((*cursor)->event());
    next = Position((*cursor)->resume_from());
    {
      std::lock_guard lock(mu_);
      applied_ = next.value() - 1;
    }
    applied_cv_.notify_all();
    store_.WaitForCommit(Position(next.value() - 1), std::chrono::milliseconds(200));
  }
}

void TodoReadModel::Apply(const indelible::EventView& event) {
  boost::system::error_code ec;
  json::value data = json::parse(json::string_view(event.data.data(), event.data.size()), ec);
  const json::object* fields = !ec && data.is_object() ? &data.as_object() : nullptr;
  auto text = [&](std::string_view key) -> std::optional<std::string> {
    if (fields == nullptr) return std::nullopt;
    const json::value* v = fields->if_contains(key);
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return std::string(v->as_string());
  };
  // The stream is todo-{id}.
  const std::string id(event.stream.substr(5));
  std::lock_guard lock(mu_);
  if (event.type == "Todo.Created") {
    todos_[id] = Todo{id, text("title").value_or(""), text("message").value_or(""),
                      event.version.value(), false};
    return;
  }
  auto it = todos_.find(id);
  if (it == todos_.end()) return;
  it->second.version = event.version.value();
  if (event.type == "Todo.Updated") {
    if (auto title = text("title")) it->second.title = *title;
    if (auto message = text("message")) it->second.message = *message;
  } else if (event.type == "Todo.Deleted") {
    it->second.deleted = true;
  }
}

bool TodoReadModel::WaitFor(Position position, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return applied_cv_.wait_for(lock, timeout, [&] { return applied_ >= position.value(); });
}

std::optional<Todo> TodoReadModel::Get(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = todos_.find(id);
  if (it == todos_.end()) return std::nullopt;
  return it->second;
}

std::vector<Todo> TodoReadModel::List() const {
  std::lock_guard lock(mu_);
  std::vector<Todo> out;
  for (const auto& [_, todo] : todos_)
    if (!todo.deleted) out.push_back(todo);
  return out;
}

}  // namespace todo
