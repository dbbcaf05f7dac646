// The todo service's read side: an in-memory projection of the todo-*
// streams, fed by following $all (the "indexer" of the reference design).
// GETs are answered from here, never from the event streams.
//
// Concurrency: one thread applies events; Get/List/WaitFor may be called
// from any thread.
#pragma once

#include <indelible/store.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

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
  // Starts following the store from its first event.
  explicit TodoReadModel(indelible::Store& store);
  ~TodoReadModel();

  // Waits up to `timeout` until every event up to `position` is applied,
  // so a client reads its own writes. False on timeout.
  bool WaitFor(indelible::Position position, std::chrono::milliseconds timeout);
  std::optional<Todo> Get(const std::string& id) const;
  std::vector<Todo> List() const;  // not deleted, by id

 private:
  void Follow();
  void Apply(const indelible::EventView& event);

  indelible::Store& store_;
  mutable std::mutex mu_;
  std::condition_variable applied_cv_;
  std::map<std::string, Todo> todos_;  // GUARDED_BY(mu_)
  std::uint64_t applied_ = 0;          // GUARDED_BY(mu_): every position <= this is applied
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace todo
