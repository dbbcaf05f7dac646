#include "indelible/store.h"

#include <fmt/format.h>

#include "storage/embedded/embedded_store.h"
#include "storage/memory/memory_store.h"

namespace indelible {

Result<std::unique_ptr<Store>> Store::Open(std::string_view url, const StoreOptions& options) {
  if (url == "memory:" || url == "memory://") return storage::OpenMemoryStore(options);
  if (url.starts_with("file:")) {
    std::string_view path = url.substr(5);
    if (path.starts_with("//")) path.remove_prefix(2);
    if (path.empty()) return Status::Invalid("url", "file: URL needs a path, e.g. file:./data");
    return storage::OpenEmbeddedStore(std::string(path), options);
  }
  return Status::Invalid(
      "url", fmt::format("unknown store URL '{}': use file:PATH (embedded) or memory:", url));
}

std::vector<Result<CommitResult>> Store::CommitEach(std::vector<CommitRequest> commits) {
  std::vector<Result<CommitResult>> results;
  results.reserve(commits.size());
  for (auto& commit : commits) results.push_back(Commit(std::move(commit.appends), commit.options));
  return results;
}

namespace {
Status NoCheckpoints() {
  return Status::Invalid("store",
                         "this store keeps no checkpoint records; use a file: or memory: store");
}
}  // namespace

Status Store::SaveCheckpoint(std::string_view, std::string_view) { return NoCheckpoints(); }
Result<std::optional<std::string>> Store::LoadCheckpoint(std::string_view) {
  return NoCheckpoints();
}
Result<std::vector<std::pair<std::string, std::string>>> Store::ListCheckpoints(std::string_view) {
  return NoCheckpoints();
}
Status Store::DeleteCheckpoint(std::string_view) { return NoCheckpoints(); }

Result<std::optional<StateRecord>> Store::ReadState(std::string_view) {
  return Status::Invalid("store",
                         "this store keeps no state records; use a file: or memory: store");
}

Result<AppendResult> Store::Append(std::string stream, Expected expected,
                                   std::vector<EventData> events) {
  std::vector<AppendRequest> appends;
  appends.push_back(AppendRequest{std::move(stream), expected, std::move(events)});
  auto result = Commit(std::move(appends));
  if (!result.ok()) return result.status();
  return std::move(result->appends.front());
}

Result<AppendResult> Store::Delete(std::string stream, Expected expected) {
  if (expected.kind() == Expected::Kind::kNoStream)
    return Status::Invalid("expected", "delete expects any, exists or a version, not no_stream");
  if (Status s = ValidateStreamName(stream); !s.ok()) return s;
  EventData tombstone;
  tombstone.type = std::string(kDeletedEventType);
  tombstone.data = "{}";
  std::vector<AppendRequest> appends;
  appends.push_back(AppendRequest{std::move(stream), expected, {std::move(tombstone)}});
  CommitOptions options;
  options.allow_reserved = true;
  auto result = Commit(std::move(appends), options);
  if (!result.ok()) return result.status();
  return std::move(result->appends.front());
}

Result<std::vector<RecordedEvent>> ReadStreamEvents(Store& store, std::string_view stream,
                                                    const ReadStreamOptions& options) {
  auto cursor = store.ReadStream(stream, options);
  if (!cursor.ok()) return cursor.status();
  std::vector<RecordedEvent> events;
  for (; (*cursor)->Valid(); (*cursor)->Next()) events.push_back((*cursor)->event().ToOwned());
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  return events;
}

Result<std::vector<RecordedEvent>> ReadAllEvents(Store& store, const ReadAllOptions& options) {
  auto cursor = store.ReadAll(options);
  if (!cursor.ok()) return cursor.status();
  std::vector<RecordedEvent> events;
  for (; (*cursor)->Valid(); (*cursor)->Next()) events.push_back((*cursor)->event().ToOwned());
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  return events;
}

}  // namespace indelible
