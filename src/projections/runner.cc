// The live copy: follow $all, apply batches with their checkpoint, handle
// failures by the consumer-group policies (projection.h).
#include "projections/runner.h"

#include <algorithm>

#include "core/clock.h"

namespace indelible {

using projections::CopyNames;
using projections::CopyTransaction;
using projections::LockRow;
using projections::MetaRow;

namespace {

std::string Where(const RecordedEvent& event) {
  return event.stream + "@" + std::to_string(event.version.value()) + " (position " +
         std::to_string(event.position.value()) + ", " + event.type + ")";
}

}  // namespace

Status ProjectionRunner::Impl::Connect() {
  if (db_) return Status::Ok();
  auto db = ReadStore::Open(url_);
  if (!db.ok()) return db.status();
  if (Status s = projections::EnsureMetaTables(**db); !s.ok()) return s;
  db_ = std::move(*db);
  return Status::Ok();
}

Status ProjectionRunner::Impl::GoLive() {
  if (Status s = Connect(); !s.ok()) return s;
  for (int round = 0; round < 3; ++round) {
    auto tx = db_->Begin();
    if (!tx.ok()) return tx.status();
    auto row = LockRow(**tx, db_->dialect(), projection_.name);
    if (!row.ok()) return row.status();
    if (!row->has_value()) {
      if (Status s = CreateFirstCopy(**tx); !s.ok()) return s;
      continue;
    }
    const MetaRow& meta = **row;
    if (meta.version > projection_.version)
      return Status::Invalid("projection.version",
                             "the read store holds version " + std::to_string(meta.version) +
                                 " of projection '" + projection_.name + "', newer than this " +
                                 "program's version " + std::to_string(projection_.version) +
                                 ": run the newer program");
    if (meta.version < projection_.version) {
      tx->reset();  // the rebuild takes the lock in its own transactions
      if (Status s = Rebuild({}); !s.ok()) return s;
      continue;
    }
    names_ = std::make_unique<CopyNames>(projection_, meta.generation);
    position_ = meta.position;
    blocked_at_ = meta.blocked_at;
    SubscriptionOptions options;
    options.filter = projection_.filter;
    options.after = Position(position_);
    options.page_events = std::max<std::size_t>(1, options_.batch_events);
    subscription_ = std::make_unique<Subscription>(store_, options);
    Published(position_);
    return Status::Ok();
  }
  return Status::Unavailable("projection '" + projection_.name +
                             "' keeps changing under this runner (another runner or rebuild)");
}

Status ProjectionRunner::Impl::CreateFirstCopy(SqlTransaction& tx) {
  // Set up with its views, and a checkpoint at 0; commits `tx`.
  const SqlDialect dialect = db_->dialect();
  CopyNames names(projection_, 1);
  if (Status s = projections::SetupCopy(tx, dialect, projection_, names, false); !s.ok()) return s;
  if (Status s = projections::PointViews(tx, {}, projection_.tables, 1); !s.ok()) return s;
  if (Status s = tx.Execute(
          "INSERT INTO indelible_projections (name, version, generation, position, tables, "
          "updated_ms) VALUES ($1, $2, 1, 0, $3, $4)",
          {projection_.name, std::int64_t{projection_.version},
           projections::JoinNames(projection_.tables), UnixMillisNow()});
      !s.ok())
    return s;
  return tx.Commit();
}

Status ProjectionRunner::Impl::EnsureCopy() {
  auto tx = db_->Begin();
  if (!tx.ok()) return tx.status();
  auto row = LockRow(**tx, db_->dialect(), projection_.name);
  if (!row.ok()) return row.status();
  if (row->has_value()) return Status::Ok();
  return CreateFirstCopy(**tx);
}

Result<std::uint64_t> ProjectionRunner::Impl::Step(std::chrono::milliseconds wait) {
  if (!subscription_)
    if (Status s = GoLive(); !s.ok()) return s;
  if (blocked_at_) {
    auto acted = CheckOperator();
    if (!acted.ok()) return acted.status();
    if (!*acted) SleepFor(std::min(wait, std::chrono::milliseconds(200)));
    return 0;
  }
  auto batch = subscription_->Next(wait);
  if (!batch.ok()) return batch.status();
  last_caught_up_ = batch->caught_up;
  const Position through = subscription_->position();
  if (through.value() == position_) return 0;
  std::vector<RecordedEvent> events;
  events.reserve(batch->events.size());
  for (RecordedEvent& event : batch->events)
    if (!event.stream.starts_with('$')) events.push_back(std::move(event));
  auto result = ApplyBatch(events, through);
  if (!result.ok()) {
    subscription_.reset();  // resubscribe from the checkpoint
    return result.status();
  }
  switch (result->outcome) {
    case Outcome::kApplied:
      attempts_.clear();  // only ever the failing event, now applied
      Published(position_);
      return events.size();
    case Outcome::kFenced:
      subscription_.reset();
      return 0;
    case Outcome::kFailed:
      break;
  }
  Status handled = HandleFailure(events, through);
  subscription_.reset();
  if (!handled.ok()) return handled;
  return 0;
}

Result<std::unique_ptr<SqlTransaction>> ProjectionRunner::Impl::BeginOwned() {
  auto tx = db_->Begin();
  if (!tx.ok()) return tx.status();
  auto row = LockRow(**tx, db_->dialect(), projection_.name);
  if (!row.ok()) return row.status();
  if (!row->has_value() || (*row)->generation != names_->generation() ||
      (*row)->position != position_ || (*row)->version != projection_.version)
    return std::unique_ptr<SqlTransaction>();  // rolled back
  return std::move(*tx);
}

Result<ProjectionRunner::Impl::BatchResult> ProjectionRunner::Impl::ApplyBatch(
    const std::vector<RecordedEvent>& events, Position through) {
  auto tx = BeginOwned();
  if (!tx.ok()) return tx.status();
  if (*tx == nullptr) return BatchResult{Outcome::kFenced, {}};
  CopyTransaction copy(**tx, db_->dialect(), *names_, false);
  for (const RecordedEvent& event : events) {
    Status applied = projections::ApplyOne(projection_, copy, event);
    if (!applied.ok()) return BatchResult{Outcome::kFailed, applied};
  }
  Status saved = (*tx)->Execute(
      "UPDATE indelible_projections SET position = $2, updated_ms = $3 WHERE name = $1",
      {projection_.name, static_cast<std::int64_t>(through.value()), UnixMillisNow()});
  if (saved.ok()) saved = (*tx)->Commit();
  if (!saved.ok()) {
    // A statement of the batch may have failed unseen until here
    // (PostgreSQL pipelines them): the apply's failure, unless the store is down.
    if (saved.code() == ErrorCode::kUnavailable || events.empty()) return saved;
    return BatchResult{Outcome::kFailed, saved};
  }
  position_ = through.value();
  return BatchResult{};
}

Status ProjectionRunner::Impl::HandleFailure(const std::vector<RecordedEvent>& events,
                                             Position through) {
  // Find the failing event: one per transaction, each with its checkpoint.
  const RecordedEvent* failing = nullptr;
  Status error;
  for (const RecordedEvent& event : events) {
    auto one = ApplyBatch({event}, event.position);
    if (!one.ok()) return one.status();
    if (one->outcome == Outcome::kFenced) return Status::Ok();
    if (one->outcome == Outcome::kFailed) {
      failing = &event;
      error = one->error;
      break;
    }
    Published(position_);
  }
  if (failing == nullptr) {  // a transient failure: all went in one by one
    auto rest = ApplyBatch({}, through);
    if (!rest.ok()) return rest.status();
    Published(position_);
    return Status::Ok();
  }
  const int attempts = ++attempts_[failing->position.value()];
  if (attempts < options_.max_attempts) {
    auto backoff = options_.initial_backoff * (1LL << std::min(attempts - 1, 20));
    SleepFor(std::min<std::chrono::milliseconds>(backoff, options_.max_backoff));
    return Status::Ok();
  }
  attempts_.erase(failing->position.value());
  return options_.policy == FailurePolicy::kPark ? Park(*failing, error) : Block(*failing, error);
}

Status ProjectionRunner::Impl::Park(const RecordedEvent& event, const Status& error) {
  auto tx = BeginOwned();
  if (!tx.ok()) return tx.status();
  if (*tx == nullptr) return Status::Ok();  // fenced: the next step reloads
  for (auto [sql, params] :
       {std::pair<const char*, std::vector<SqlValue>>{
            "INSERT INTO indelible_parked (projection, position, stream, version, type, "
            "reason, parked_ms) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
            {projection_.name, static_cast<std::int64_t>(event.position.value()), event.stream,
             event.version.value(), event.type, error.ToString(), UnixMillisNow()}},
        {"UPDATE indelible_projections SET position = $2, updated_ms = $3 WHERE name = $1",
         {projection_.name, static_cast<std::int64_t>(event.position.value()), UnixMillisNow()}}}) {
    if (Status s = (*tx)->Execute(sql, params); !s.ok()) return s;
  }
  if (Status s = (*tx)->Commit(); !s.ok()) return s;
  position_ = event.position.value();
  Published(position_);
  return Status::Ok();
}

Status ProjectionRunner::Impl::Block(const RecordedEvent& event, const Status& error) {
  auto tx = BeginOwned();
  if (!tx.ok()) return tx.status();
  if (*tx == nullptr) return Status::Ok();
  if (Status s =
          (*tx)->Execute("UPDATE indelible_projections SET blocked_at = $2, blocked_reason = $3, "
                         "operator_action = '', updated_ms = $4 WHERE name = $1",
                         {projection_.name, static_cast<std::int64_t>(event.position.value()),
                          Where(event) + ": " + error.ToString(), UnixMillisNow()});
      !s.ok())
    return s;
  if (Status s = (*tx)->Commit(); !s.ok()) return s;
  blocked_at_ = event.position.value();
  return Status::Ok();
}

Result<bool> ProjectionRunner::Impl::CheckOperator() {
  auto tx = db_->Begin();
  if (!tx.ok()) return tx.status();
  auto row = LockRow(**tx, db_->dialect(), projection_.name);
  if (!row.ok()) return row.status();
  if (!row->has_value() || (*row)->generation != names_->generation() || !(*row)->blocked_at) {
    // A rebuild replaced the copy (and the block with it): reload.
    blocked_at_.reset();
    subscription_.reset();
    return true;
  }
  const MetaRow& meta = **row;
  if (meta.operator_action != "retry" && meta.operator_action != "skip") return false;
  const bool skip = meta.operator_action == "skip";
  const std::uint64_t position = skip ? *meta.blocked_at : meta.position;
  if (Status s = (*tx)->Execute(
          "UPDATE indelible_projections SET position = $2, blocked_at = NULL, "
          "blocked_reason = '', operator_action = '', updated_ms = $3 WHERE name = $1",
          {projection_.name, static_cast<std::int64_t>(position), UnixMillisNow()});
      !s.ok())
    return s;
  if (Status s = (*tx)->Commit(); !s.ok()) return s;
  position_ = position;
  blocked_at_.reset();
  attempts_.clear();
  subscription_.reset();
  Published(position_);
  return true;
}

void ProjectionRunner::Impl::Published(std::uint64_t position) {
  {
    MutexLock lock(&mu_);
    applied_ = position;
  }
  applied_cv_.SignalAll();
}

bool ProjectionRunner::Impl::SleepFor(std::chrono::milliseconds duration) {
  const auto until = std::chrono::steady_clock::now() + duration;
  while (!stopping_ && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
        std::chrono::milliseconds(20), std::chrono::duration_cast<std::chrono::milliseconds>(
                                           until - std::chrono::steady_clock::now()) +
                                           std::chrono::milliseconds(1)));
  return !stopping_;
}

void ProjectionRunner::Impl::Loop() {
  auto backoff = options_.initial_backoff;
  while (!stopping_) {
    auto step = Step(std::chrono::milliseconds(500));
    {
      MutexLock lock(&mu_);
      last_error_ = step.ok() ? Status::Ok() : step.status();
    }
    if (step.ok()) {
      backoff = options_.initial_backoff;
      continue;
    }
    // The read store or the event store is down: try again, a little later each time.
    if (step.status().code() == ErrorCode::kUnavailable) {
      subscription_.reset();
      db_.reset();
    }
    SleepFor(backoff);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

bool ProjectionRunner::Impl::WaitFor(Position position, std::chrono::milliseconds timeout) {
  MutexLock lock(&mu_);
  return applied_cv_.WaitFor(&mu_, timeout,
                             [&]() REQUIRES(mu_) { return applied_ >= position.value(); });
}

void ProjectionRunner::Impl::Stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  stopping_ = false;
}

}  // namespace indelible
