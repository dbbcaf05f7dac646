// Rebuild: a new copy from the start of $all while the live copy serves,
// then one transaction that catches up and switches (projection.h).
#include <chrono>

#include "core/clock.h"
#include "projections/runner.h"

namespace indelible {

using projections::CopyNames;
using projections::CopyTransaction;
using projections::LockRow;

namespace {

Status Stopped(const std::string& name, const RecordedEvent& event, const Status& error) {
  std::string message = "rebuild of projection '" + name + "' stopped at " + event.stream + "@" +
                        std::to_string(event.version.value()) + " (position " +
                        std::to_string(event.position.value()) + "): " + error.ToString() +
                        "; the live copy is unchanged: fix the projection and rebuild again";
  if (error.code() == ErrorCode::kUnavailable) return Status::Unavailable(std::move(message));
  return Status::Invalid("projection", std::move(message));
}

}  // namespace

Status ProjectionRunner::Impl::Rebuild(
    const std::function<void(const RebuildProgress&)>& progress) {
  auto opened = ReadStore::Open(url_);
  if (!opened.ok()) return opened.status();
  ReadStore& db = **opened;
  if (Status s = projections::EnsureMetaTables(db); !s.ok()) return s;
  const std::string& name = projection_.name;

  // 1. Claim a new copy and set it up; an abandoned one is dropped.
  std::int64_t generation = 0;
  {
    auto tx = db.Begin();
    if (!tx.ok()) return tx.status();
    auto row = LockRow(**tx, db.dialect(), name);
    if (!row.ok()) return row.status();
    if (!row->has_value()) {
      // No live copy yet: one with nothing in it, that the switch replaces.
      if (Status s = (*tx)->Execute(
              "INSERT INTO indelible_projections (name, version, generation, position, tables) "
              "VALUES ($1, $2, 0, 0, '')",
              {name, std::int64_t{projection_.version}});
          !s.ok())
        return s;
      generation = 1;
    } else {
      generation = std::max((*row)->generation, (*row)->building_generation.value_or(0)) + 1;
      if ((*row)->building_generation)
        if (Status s =
                projections::DropCopy(**tx, (*row)->building_tables, *(*row)->building_generation);
            !s.ok())
          return s;
    }
    CopyNames names(projection_, generation);
    if (Status s = projections::SetupCopy(**tx, db.dialect(), projection_, names, true); !s.ok())
      return s;
    if (Status s = (*tx)->Execute(
            "UPDATE indelible_projections SET building_generation = $2, building_position = 0, "
            "building_tables = $3, updated_ms = $4 WHERE name = $1",
            {name, generation, projections::JoinNames(projection_.tables), UnixMillisNow()});
        !s.ok())
      return s;
    if (Status s = (*tx)->Commit(); !s.ok()) return s;
  }

  // 2. Replay into it, a batch per transaction, its progress saved.
  CopyNames names(projection_, generation);
  SubscriptionOptions options;
  options.filter = projection_.filter;
  options.page_events = std::max<std::size_t>(1, options_.batch_events);
  Subscription subscription(store_, options);
  RebuildProgress report;
  report.target = store_.LastPosition();
  const auto began = std::chrono::steady_clock::now();
  std::uint64_t built = 0;
  auto report_progress = [&] {
    report.position = Position(built);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    report.events_per_second = seconds > 0 ? report.events / seconds : 0;
    if (progress) progress(report);
  };
  // Applies the next pages in `tx`; `until_caught_up`: all of them.
  auto apply_pages = [&](SqlTransaction& tx, bool until_caught_up) -> Result<bool> {
    CopyTransaction copy(tx, db.dialect(), names, true);
    for (;;) {
      if (stopping_) return Status::Unavailable("the runner is stopping");
      auto batch = subscription.Next(std::chrono::milliseconds(0));
      if (!batch.ok()) return batch.status();
      for (const RecordedEvent& event : batch->events) {
        if (event.stream.starts_with('$')) continue;
        if (Status s = projections::ApplyOne(projection_, copy, event); !s.ok())
          return Stopped(name, event, s);
        ++report.events;
      }
      if (!until_caught_up || batch->caught_up) return batch->caught_up;
    }
  };
  auto claim = [&](SqlTransaction& tx) -> Result<projections::MetaRow> {
    auto row = LockRow(tx, db.dialect(), name);
    if (!row.ok()) return row.status();
    if (!row->has_value() || (*row)->building_generation != generation ||
        (*row)->building_position != built)
      return Status::Conflict("another rebuild of projection '" + name + "' took over",
                              std::nullopt);
    return **row;
  };
  for (bool caught_up = false; !caught_up;) {
    auto tx = db.Begin();
    if (!tx.ok()) return tx.status();
    if (auto row = claim(**tx); !row.ok()) return row.status();
    auto pages = apply_pages(**tx, false);
    if (!pages.ok()) return pages.status();
    caught_up = *pages;
    const std::uint64_t through = subscription.position().value();
    if (Status s = (*tx)->Execute(
            "UPDATE indelible_projections SET building_position = $2, updated_ms = $3 "
            "WHERE name = $1",
            {name, static_cast<std::int64_t>(through), UnixMillisNow()});
        !s.ok())
      return s;
    if (Status s = (*tx)->Commit(); !s.ok()) return s;
    built = through;
    report_progress();
  }

  // 3. Switch: with the row locked, no live runner can commit; catch up
  // with what came meanwhile, point the views at the new copy, drop the old.
  auto tx = db.Begin();
  if (!tx.ok()) return tx.status();
  auto row = claim(**tx);
  if (!row.ok()) return row.status();
  if (auto pages = apply_pages(**tx, true); !pages.ok()) return pages.status();
  built = subscription.position().value();
  if (Status s = projections::PointViews(**tx, row->tables, projection_.tables, generation);
      !s.ok())
    return s;
  if (row->generation > 0)
    if (Status s = projections::DropCopy(**tx, row->tables, row->generation); !s.ok()) return s;
  if (Status s = (*tx)->Execute(
          "UPDATE indelible_projections SET version = $2, generation = $3, position = $4, "
          "tables = $5, building_generation = NULL, building_position = 0, "
          "building_tables = '', blocked_at = NULL, blocked_reason = '', operator_action = '', "
          "updated_ms = $6 WHERE name = $1",
          {name, std::int64_t{projection_.version}, generation, static_cast<std::int64_t>(built),
           projections::JoinNames(projection_.tables), UnixMillisNow()});
      !s.ok())
    return s;
  if (Status s = (*tx)->Commit(); !s.ok()) return s;
  // SQLite keeps the dropped copy's pages in its WAL file until a
  // checkpoint: truncate it, so a rebuild after a shred leaves nothing of
  // the subject in any byte (docs/RETENTION.md). Best effort: a reader
  // holding the WAL makes it a partial checkpoint, finished by a later one.
  if (db.dialect() == SqlDialect::kSqlite) (void)db.Query("PRAGMA wal_checkpoint(TRUNCATE)");
  report_progress();
  return Status::Ok();
}

}  // namespace indelible
