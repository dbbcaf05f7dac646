// Entity commands: apply new events to a loaded state and commit events,
// state record and outbox together, retrying on conflicts.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/text.h"
#include "entities/outbox.h"
#include "indelible/entity.h"

namespace indelible::detail {
namespace {

bool Live(const LoadOutcome& loaded) { return loaded.version && !loaded.deleted; }

bool WritesState(const EntityOptions& options, ChangeKind kind, const LoadOutcome& loaded,
                 StreamVersion last) {
  switch (options.snapshots.kind()) {
    case SnapshotPolicy::Kind::kNone:
      return false;
    case SnapshotPolicy::Kind::kEveryWrite:
      return true;
    case SnapshotPolicy::Kind::kEveryN: {
      if (kind == ChangeKind::kRecalculate || loaded.stale_snapshot) return true;
      const std::int64_t covered = loaded.snapshot_version ? loaded.snapshot_version->value() : -1;
      return last.value() - covered >= options.snapshots.n();
    }
  }
  return false;
}

Status CheckCommand(const std::vector<EventData>& events, const Folder& folder, ChangeKind kind,
                    const EntityOptions& options) {
  if (events.empty() && kind == ChangeKind::kAppend)
    return Status::Invalid("events", "a command needs at least one event");
  if (options.max_attempts < 1)
    return Status::Invalid("max_attempts", "EntityOptions::max_attempts must be 1 or more");
  if (options.snapshots.kind() == SnapshotPolicy::Kind::kEveryN && options.snapshots.n() < 1)
    return Status::Invalid("snapshots", "SnapshotPolicy::Every(n) needs n >= 1");
  for (std::size_t i = 0; i < events.size(); ++i)
    if (!folder.HasRule(events[i].type))
      return Status::Invalid(
          fmt::format("events[{}].type", i),
          fmt::format("the entity has no rule for event type '{}'", Printable(events[i].type)));
  return Status::Ok();
}

// Applies the command's events after `loaded`; fills the outbox.
Status ApplyNew(const std::string& stream, Folder& folder, const LoadOutcome& loaded,
                const std::vector<EventData>& events, std::vector<PublishedEvent>& published,
                std::vector<EventData>& outbox) {
  std::int64_t version = loaded.version ? loaded.version->value() + 1 : 0;
  for (std::size_t i = 0; i < events.size(); ++i, ++version) {
    const EventData& e = events[i];
    const EventView view{e.id,
                         stream,
                         StreamVersion(version),
                         Position(0),
                         e.type,
                         e.schema,
                         e.content_type,
                         e.data,
                         e.metadata,
                         0,
                         e.tags};
    std::vector<PublishedEvent> mine;
    RuleContext ctx(view, /*replaying=*/false, &mine);
    if (Status s = folder.Apply(view, ctx); !s.ok()) {
      if (s.code() == ErrorCode::kInvalid)  // the codec could not read it: name its field
        return Status::Invalid(s.field().empty() || s.field() == "data"
                                   ? fmt::format("events[{}].data", i)
                                   : fmt::format("events[{}].data.{}", i, s.field()),
                               s.message());
      return s;
    }
    for (std::size_t k = 0; k < mine.size(); ++k) {
      mine[k].id = entities::OutboundId(e.id, k);
      outbox.push_back(entities::OutboxEvent(mine[k], e.metadata, stream, view.version));
      published.push_back(std::move(mine[k]));
    }
  }
  return Status::Ok();
}

// The stored state, for a command whose events an earlier attempt wrote.
Result<ChangeOutcome> Replayed(Store& store, const std::string& stream, Folder& folder,
                               const EntityOptions& options, int attempt) {
  auto stored = Load(store, stream, folder, options, false);
  if (!stored.ok()) return stored.status();
  ChangeOutcome replayed;
  replayed.entity = *stored;
  replayed.attempts = attempt;
  replayed.replayed = true;
  return replayed;
}

// Whether the command's events were already written by an earlier attempt
// (a client's retry with the same ids). The rules judge a retry against a
// state that already holds it, so they may reject it ("already following")
// or publish other outbound events (a mixed retry the store refuses as a
// conflict): the commit alone cannot tell. The store can: the events alone,
// with an expectation no stream meets, are an idempotent retry if it wrote
// them (nothing written) and a conflict otherwise (nothing written).
Result<bool> AlreadyWritten(Store& store, const std::string& stream,
                            const std::vector<EventData>& events) {
  const Expected unmeetable =
      Expected::exactly(StreamVersion(std::numeric_limits<std::int64_t>::max()));
  auto probe = store.Commit({AppendRequest{stream, unmeetable, events}});
  if (!probe.ok())
    return probe.status().code() == ErrorCode::kConflict ? Result<bool>(false) : probe.status();
  if (!probe->appends[0].replayed)
    return Status::Internal(
        fmt::format("probing '{}' for a retry wrote events", Printable(stream)));
  return true;
}

}  // namespace

Result<ChangeOutcome> RunCommand(Store& store, const std::string& stream, Folder& folder,
                                 const EntityOptions& options, std::vector<EventData> events,
                                 std::optional<LoadOutcome> in_hand, ChangeKind kind) {
  if (Status s = CheckCommand(events, folder, kind, options); !s.ok()) return s;
  // Only ids the caller made can come back in a retry of a landed command.
  const bool caller_ids =
      std::any_of(events.begin(), events.end(), [](const EventData& e) { return !e.id.is_nil(); });
  // Ids made once: a retry after a lost reply is then an idempotent retry.
  for (EventData& e : events)
    if (e.id.is_nil()) e.id = EventId::Random();

  Status last_conflict;
  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    LoadOutcome loaded;
    if (attempt == 1 && in_hand) {
      loaded = *in_hand;  // the folder holds its state
    } else {
      auto reloaded = Load(store, stream, folder, options, kind == ChangeKind::kRecalculate);
      if (!reloaded.ok()) return reloaded.status();
      loaded = *reloaded;
    }
    if (events.empty() && !Live(loaded))
      return Status::NotFound(fmt::format("entity stream '{}' does not exist", Printable(stream)),
                              loaded.deleted);

    ChangeOutcome outcome;
    outcome.attempts = attempt;
    std::vector<EventData> outbox;
    if (Status s = ApplyNew(stream, folder, loaded, events, outcome.published, outbox); !s.ok()) {
      if (s.code() == ErrorCode::kRejected && caller_ids && Live(loaded)) {
        auto written = AlreadyWritten(store, stream, events);
        if (!written.ok()) return written.status();
        if (*written) return Replayed(store, stream, folder, options, attempt);
      }
      return s;
    }
    const StreamVersion last(loaded.version ? loaded.version->value() +
                                                  static_cast<std::int64_t>(events.size())
                                            : static_cast<std::int64_t>(events.size()) - 1);
    const bool write_state = WritesState(options, kind, loaded, last);
    if (events.empty() && !write_state) {  // recalculated, nothing to store
      outcome.entity = loaded;
      return outcome;
    }

    std::vector<AppendRequest> appends;
    appends.push_back(AppendRequest{
        stream, Live(loaded) ? Expected::exactly(*loaded.version) : Expected::no_stream(), events});
    if (write_state) appends[0].state = StateUpdate{folder.Encode(), options.state_schema};
    if (!outbox.empty())
      appends.push_back(
          AppendRequest{options.outbox_prefix + stream, Expected::any(), std::move(outbox)});

    auto committed = store.Commit(std::move(appends));
    if (committed.ok()) {
      const AppendResult& mine = committed->appends[0];
      if (mine.replayed)  // an earlier attempt of this command landed
        return Replayed(store, stream, folder, options, attempt);
      outcome.entity = loaded;
      outcome.entity.version = mine.last_version;
      outcome.entity.position = mine.position;
      outcome.entity.deleted = false;
      if (write_state) outcome.entity.snapshot_version = mine.last_version;
      return outcome;
    }
    if (committed.status().code() != ErrorCode::kConflict) return committed.status();
    if (caller_ids) {
      auto written = AlreadyWritten(store, stream, events);
      if (!written.ok()) return written.status();
      if (*written) return Replayed(store, stream, folder, options, attempt);
    }
    last_conflict = committed.status();
  }
  return Status::Conflict(
      fmt::format("entity '{}' kept changing: {} attempts failed; last: {}", Printable(stream),
                  options.max_attempts, last_conflict.message()),
      last_conflict.actual_version(), last_conflict.deleted());
}

}  // namespace indelible::detail
