// What the store acknowledged to the power-cut suite's writers, across
// the cuts of one data folder: the suite's model of what must survive
// (power_cut_suite.cc). Filled by the workload's threads (cut_workload.h),
// read by the checks after each reopen (cut_checks.h).
//
// Concurrency: thread-safe; every member takes mu_.
#pragma once

#include <indelible/store.h>

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace indelible::power_loss {

// A commit acknowledged, kept whole to send again as a retry after the
// next cut: its answer must be the original one, and nothing written.
struct AckedCommit {
  std::vector<AppendRequest> appends;
  CommitResult result;
};

class CutLedger {
 public:
  // Records every event of an acknowledged commit, and keeps the commit
  // for a retry (the newest kRetries of them).
  void Acked(std::vector<AppendRequest> appends, const CommitResult& result) {
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < appends.size(); ++i) {
      std::int64_t version = result.appends[i].first_version.value();
      for (const EventData& e : appends[i].events) events_[appends[i].stream][version++] = e.id;
      acked_events_ += appends[i].events.size();
    }
    recent_.push_back(AckedCommit{std::move(appends), result});
    if (recent_.size() > kRetries) recent_.pop_front();
  }
  // A delivery to the consumer group's consumer: false when that position
  // was delivered before with another event (the log changed under it).
  bool Delivered(Position position, const EventId& id) {
    std::lock_guard lock(mu_);
    auto [at, inserted] = delivered_.emplace(position.value(), id);
    return inserted || at->second == id;
  }
  void KeyMade(const std::string& subject, std::string key_id, std::string key) {
    std::lock_guard lock(mu_);
    keys_[subject] = {std::move(key_id), std::move(key)};
  }
  // A shred sent (Shredding) and acknowledged (Shredded): one sent but not
  // acknowledged may or may not have survived.
  void Shredding(const std::string& subject) {
    std::lock_guard lock(mu_);
    shredding_.insert(subject);
  }
  void Shredded(const std::string& subject) {
    std::lock_guard lock(mu_);
    shredded_.insert(subject);
  }

  // Copies for the checks (taken while no writer runs).
  std::map<std::string, std::map<std::int64_t, EventId>> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::map<std::int64_t, EventId> delivered() const {
    std::lock_guard lock(mu_);
    return delivered_;
  }
  std::map<std::string, std::pair<std::string, std::string>> keys() const {
    std::lock_guard lock(mu_);
    return keys_;
  }
  std::set<std::string> shredded() const {
    std::lock_guard lock(mu_);
    return shredded_;
  }
  std::set<std::string> shredding() const {
    std::lock_guard lock(mu_);
    return shredding_;
  }
  // The commits to retry, each once.
  std::deque<AckedCommit> TakeRecent() {
    std::lock_guard lock(mu_);
    return std::exchange(recent_, {});
  }
  std::uint64_t acked_events() const {
    std::lock_guard lock(mu_);
    return acked_events_;
  }

 private:
  static constexpr std::size_t kRetries = 24;

  mutable std::mutex mu_;
  std::map<std::string, std::map<std::int64_t, EventId>> events_;  // stream -> version -> id
  std::deque<AckedCommit> recent_;
  std::map<std::int64_t, EventId> delivered_;                        // position -> id
  std::map<std::string, std::pair<std::string, std::string>> keys_;  // subject -> (id, key)
  std::set<std::string> shredding_;
  std::set<std::string> shredded_;
  std::uint64_t acked_events_ = 0;
};

}  // namespace indelible::power_loss
