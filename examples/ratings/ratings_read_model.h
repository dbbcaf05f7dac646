// The ratings service's read side: in-memory views of the user-* streams,
// fed by a subscription to $all (category "user"), rebuilt from the first
// event at every start. The queries are answered from here, never from the
// event streams:
//   - the ratings of a link (who rated it how);
//   - the ratings of a user;
//   - a user's feed: the current ratings of the users they follow. It is a
//     join made at query time of two views kept from the events (follows,
//     ratings per user), so an unfollow drops that user's ratings at once
//     and a later follow brings back everything they rated meanwhile.
//
// Concurrency: one thread applies events; the queries and WaitFor may be
// called from any thread.
#pragma once

#include <indelible/store.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ratings {

struct RatingView {
  std::string user;
  std::string link;
  int rating = 0;
  std::uint64_t position = 0;  // of the event that set this rating
};

class RatingsReadModel {
 public:
  // Starts following the store from its first event.
  explicit RatingsReadModel(indelible::Store& store);
  ~RatingsReadModel();
  RatingsReadModel(const RatingsReadModel&) = delete;
  RatingsReadModel& operator=(const RatingsReadModel&) = delete;

  // Waits up to `timeout` until every event up to `position` is applied,
  // so a client reads its own writes. False on timeout.
  bool WaitFor(indelible::Position position, std::chrono::milliseconds timeout);

  std::vector<RatingView> ForLink(const std::string& link) const;  // by user
  std::vector<RatingView> ForUser(const std::string& user) const;  // by link
  std::vector<RatingView> Feed(const std::string& user) const;     // newest first
  std::vector<std::string> Following(const std::string& user) const;

 private:
  struct Stars {
    int rating = 0;
    std::uint64_t position = 0;
  };
  void Run();
  void Apply(const indelible::RecordedEvent& event);  // REQUIRES: mu_ held
  void Rate(const std::string& user, const std::string& link, Stars stars);
  void Unrate(const std::string& user, const std::string& link);

  indelible::Store& store_;
  mutable std::mutex mu_;
  std::condition_variable applied_cv_;
  // Both directions of the same ratings, each query reading one map.
  std::map<std::string, std::map<std::string, Stars>> by_user_;  // user -> link ->
  std::map<std::string, std::map<std::string, Stars>> by_link_;  // link -> user ->
  std::map<std::string, std::set<std::string>> following_;       // user -> users
  std::uint64_t applied_ = 0;  // GUARDED_BY(mu_): every position <= this is applied
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace ratings
