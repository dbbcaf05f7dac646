// ProjectionRunner's insides, shared by runner.cc (the live copy) and
// rebuild.cc (a new copy and the switch-over).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "core/mutex.h"
#include "indelible/projection.h"
#include "indelible/subscription.h"
#include "projections/meta.h"
#include "projections/projection_transaction.h"

namespace indelible {

class ProjectionRunner::Impl {
 public:
  Impl(Store& store, std::string url, Projection projection, ProjectionOptions options)
      : store_(store),
        url_(std::move(url)),
        projection_(std::move(projection)),
        options_(options) {}

  // --- runner.cc: the live copy
  Status Connect();  // db_, with the meta tables
  // Creates the first copy if the projection has none (Open calls it, so
  // its views exist before any query).
  Status EnsureCopy();
  // Loads the row (creating the first copy, or rebuilding on a changed
  // version) and subscribes from its checkpoint.
  Status GoLive();
  // One step: applies the next batch (waiting up to `wait`), or handles a
  // block. Returns the number of events applied.
  Result<std::uint64_t> Step(std::chrono::milliseconds wait);
  void Loop();
  bool WaitFor(Position position, std::chrono::milliseconds timeout);
  void Stop();

  // --- rebuild.cc
  Status Rebuild(const std::function<void(const RebuildProgress&)>& progress);

  Store& store_;
  const std::string url_;
  const Projection projection_;
  const ProjectionOptions options_;

  std::atomic<bool> stopping_{false};
  std::thread thread_;
  Status last_error_ GUARDED_BY(mu_);
  // For CatchUp: the last Next reached the end of $all, or the copy is blocked.
  bool idle() const { return blocked_at_.has_value() || (subscription_ && last_caught_up_); }
  Mutex control_mu_;
  std::unique_ptr<ReadStore> control_ GUARDED_BY(control_mu_);  // status, Retry, Skip

 private:
  enum class Outcome { kApplied, kFenced, kFailed };
  struct BatchResult {
    Outcome outcome = Outcome::kApplied;
    Status error;  // kFailed: the apply's error
  };
  // A transaction holding the projection's row, or nullptr when the row no
  // longer names our copy, checkpoint and version (fenced: reload).
  Result<std::unique_ptr<SqlTransaction>> BeginOwned();
  // Applies `events` and moves the checkpoint to `through` in one
  // transaction, fenced on the row still naming our copy and checkpoint.
  Result<BatchResult> ApplyBatch(const std::vector<RecordedEvent>& events, Position through);
  // After a failed batch: one event per transaction up to the failing one,
  // then retries, then the policy.
  Status HandleFailure(const std::vector<RecordedEvent>& events, Position through);
  Status Park(const RecordedEvent& event, const Status& error);
  Status Block(const RecordedEvent& event, const Status& error);
  // While blocked: waits for an operator's retry or skip.
  Result<bool> CheckOperator();
  Status CreateFirstCopy(SqlTransaction& tx);
  void Published(std::uint64_t position);
  bool SleepFor(std::chrono::milliseconds duration);  // false if stopping

  std::unique_ptr<ReadStore> db_;
  std::unique_ptr<projections::CopyNames> names_;
  std::unique_ptr<Subscription> subscription_;
  std::uint64_t position_ = 0;  // our copy's checkpoint
  std::optional<std::uint64_t> blocked_at_;
  std::map<std::uint64_t, int> attempts_;  // failed applications by position
  bool last_caught_up_ = false;

  CondVar applied_cv_;
  std::uint64_t applied_ GUARDED_BY(mu_) = 0;  // published position_

 public:
  Mutex mu_;
};

}  // namespace indelible
