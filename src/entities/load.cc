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

// Starts from the state record if this schema wrote it; sets where to read
// on. *usable: the record was decoded, so the events after it are wanted.
Status StartFromRecord(std::string_view stream, const std::optional<StateRecord>& record,
                       Folder& folder, const EntityOptions& options, LoadOutcome& out,
                       ReadStreamOptions& read, bool* usable) {
  *usable = false;
  if (!record.has_value()) return Status::Ok();
  const StateRecord& r = *record;
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
  *usable = true;
  return Status::Ok();
}

}  // namespace

Result<LoadOutcome> Load(Store& store, std::string_view stream, Folder& folder,
                         const EntityOptions& options, bool replay_all) {
  folder.Reset();
  LoadOutcome out;
  ReadStreamOptions read;
  Result<std::unique_ptr<StreamCursor>> cursor = Status::NotFound("not read yet");
  bool have_cursor = false;
  if (!replay_all && options.snapshots.kind() != SnapshotPolicy::Kind::kNone) {
    // The record and the events after it in one read where the backend
    // keeps them together (DynamoDB's tip): one request per load.
    auto loaded = store.ReadStateAndEvents(stream);
    if (!loaded.ok()) {
      cursor = loaded.status();
      have_cursor = true;
    } else {
      bool usable = false;
      if (Status s = StartFromRecord(stream, loaded->state, folder, options, out, read, &usable);
          !s.ok())
        return s;
      // Without a record the cursor reads the stream from its start; with
      // one of another schema, the whole stream is read below instead.
      if (usable || !loaded->state.has_value()) {
        cursor = std::move(loaded->events);
        have_cursor = true;
      }
    }
  }
  if (!have_cursor) cursor = store.ReadStream(stream, read);
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
