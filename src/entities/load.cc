// Loading an entity: the latest usable state record, then the events after it.
#include <fmt/format.h>

#include "core/text.h"
#include "indelible/entity.h"

namespace indelible {

void RuleContext::PublishJson(std::string type, std::string json) {
  if (replaying_) return;  // published when the event was first appended
  published_->push_back(PublishedEvent{EventId(), std::move(type), std::move(json), event_->id});
}

namespace detail {
namespace {

// Starts from the state record if this schema wrote it; sets where to read on.
Status StartFromRecord(Store& store, std::string_view stream, Folder& folder,
                       const EntityOptions& options, LoadOutcome& out, ReadStreamOptions& read) {
  auto record = store.ReadState(stream);
  if (!record.ok()) return record.status();
  if (!record->has_value()) return Status::Ok();
  const StateRecord& r = **record;
  if (r.schema != options.state_schema) {
    out.stale_snapshot = true;  // never decoded: another schema's bytes
    return Status::Ok();
  }
  if (Status s = folder.Decode(r.data); !s.ok())
    return Status::Internal(
        fmt::format("the state record of '{}' (schema {}) cannot be decoded: {}; bump "
                    "EntityOptions::state_schema when the state's encoding changes",
                    Printable(stream), r.schema, s.message()));
  out.version = r.version;
  out.position = r.position;
  out.snapshot_version = r.version;
  read.from = StreamVersion(r.version.value() + 1);
  return Status::Ok();
}

}  // namespace

Result<LoadOutcome> Load(Store& store, std::string_view stream, Folder& folder,
                         const EntityOptions& options, bool replay_all) {
  folder.Reset();
  LoadOutcome out;
  ReadStreamOptions read;
  if (!replay_all && options.snapshots.kind() != SnapshotPolicy::Kind::kNone) {
    if (Status s = StartFromRecord(store, stream, folder, options, out, read); !s.ok()) return s;
  }

  auto cursor = store.ReadStream(stream, read);
  if (!cursor.ok()) {
    if (cursor.status().code() != ErrorCode::kNotFound) return cursor.status();
    // Missing or deleted: the initial state; a deleted stream's numbering
    // goes on after its tombstone.
    folder.Reset();
    LoadOutcome missing;
    if (cursor.status().deleted()) {
      auto head = store.Head(stream);
      if (!head.ok()) return head.status();
      missing.version = head->version;
      missing.position = head->position;
      missing.deleted = true;
    }
    return missing;
  }

  std::vector<PublishedEvent> dropped;
  for (EventCursor& c = **cursor; c.Valid(); c.Next()) {
    const EventView& event = c.event();
    RuleContext ctx(event, /*replaying=*/true, &dropped);
    if (Status s = folder.Apply(event, ctx); !s.ok())
      return Status::Internal(fmt::format(
          "stored event {} ({}) of '{}' cannot be applied by the current rules: {}",
          event.version.value(), Printable(event.type), Printable(stream), s.ToString()));
    out.version = event.version;
    out.position = event.position;
    ++out.events_read;
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  return out;
}

}  // namespace detail
}  // namespace indelible
