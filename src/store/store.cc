#include "indelible/store.h"

#include <fmt/format.h>

#include <optional>

#include "store/append_validation.h"

namespace indelible {

Result<CommitResult> Store::Commit(std::vector<AppendRequest> appends,
                                   const CommitOptions& options) {
  CommitOptions checked = options;
  if (Status s = store::ValidateCommit(appends, limits_, checked); !s.ok()) return s;
  return CommitValidated(std::move(appends), checked);
}

// The commits that pass the checks go to the backend together (one batch,
// so the embedded engine can still put them in one group); the refused ones
// keep their error in their place.
std::vector<Result<CommitResult>> Store::CommitEach(std::vector<CommitRequest> commits) {
  std::vector<std::optional<Result<CommitResult>>> refused(commits.size());
  std::vector<CommitRequest> valid;
  valid.reserve(commits.size());
  for (std::size_t i = 0; i < commits.size(); ++i) {
    if (Status s = store::ValidateCommit(commits[i].appends, limits_, commits[i].options); !s.ok())
      refused[i] = s;
    else
      valid.push_back(std::move(commits[i]));
  }
  std::vector<Result<CommitResult>> written;
  if (!valid.empty()) written = CommitEachValidated(std::move(valid));
  std::vector<Result<CommitResult>> results;
  results.reserve(commits.size());
  std::size_t next = 0;
  for (auto& r : refused) results.push_back(r ? std::move(*r) : std::move(written[next++]));
  return results;
}

void Store::CommitAsync(CommitRequest commit, CommitCallback done) {
  if (Status s = store::ValidateCommit(commit.appends, limits_, commit.options); !s.ok())
    return done(std::move(s));
  CommitAsyncValidated(std::move(commit), std::move(done));
}

void Store::CommitAsyncValidated(CommitRequest commit, CommitCallback done) {
  done(CommitValidated(std::move(commit.appends), commit.options));
}

std::vector<Result<CommitResult>> Store::CommitEachValidated(std::vector<CommitRequest> commits) {
  std::vector<Result<CommitResult>> results;
  results.reserve(commits.size());
  for (auto& commit : commits)
    results.push_back(CommitValidated(std::move(commit.appends), commit.options));
  return results;
}

namespace {
Status NoRecords() {
  return Status::Invalid("store", "this store keeps no records; use a file: or memory: store");
}
}  // namespace

Status Store::SaveRecord(std::string_view, std::string_view) { return NoRecords(); }
Result<std::optional<std::string>> Store::LoadRecord(std::string_view) { return NoRecords(); }
Result<std::vector<std::pair<std::string, std::string>>> Store::ListRecords(std::string_view) {
  return NoRecords();
}
Status Store::DeleteRecord(std::string_view) { return NoRecords(); }

Result<ScavengeReport> Store::Scavenge(const ProgressFn&) {
  return Status::Invalid("store",
                         "this store cannot scavenge: run it where the store is opened "
                         "from its URL (a server's POST /scavenge, or `indelible "
                         "scavenge` on a data folder)");
}

Result<ShredReport> Store::ShredSubject(std::string_view) {
  return Status::Invalid("master key",
                         "this store has no master key, so it keeps no subject keys: open it "
                         "with one (StoreOptions::master_keys; the CLI and server read "
                         "--master-key-file or INDELIBLE_MASTER_KEY, docs/RETENTION.md)");
}

Result<std::uint64_t> Store::RewrapSubjectKeys(const ProgressFn&) {
  return Status::Invalid("master key",
                         "this store has no master key to rewrap with: open it with the new "
                         "master key first and the old ones after it (--master-key-file or "
                         "INDELIBLE_MASTER_KEY, docs/RETENTION.md)");
}

Result<ScavengeReport> Store::RemoveEvents(const std::vector<ScavengeCut>&, const ProgressFn&,
                                           Compaction) {
  return Status::Invalid(
      "store",
      "this backend cannot remove events (the embedded engine and DynamoDB can); "
      "retention still hides them from every read");
}

Result<std::optional<RecordedEvent>> Store::FindEvent(const EventId&) {
  return Status::Invalid("id",
                         "this store keeps no index of events by id; read the event by its stream "
                         "and version, or by its position in $all");
}

Result<std::optional<StateRecord>> Store::ReadState(std::string_view) {
  return Status::Invalid("store",
                         "this store keeps no state records; use a file: or memory: store");
}

Result<Store::StateAndEvents> Store::ReadStateAndEvents(std::string_view stream) {
  auto state = ReadState(stream);
  if (!state.ok()) return state.status();
  ReadStreamOptions read;
  if (*state) read.from = StreamVersion(state->value().version.value() + 1);
  auto events = ReadStream(stream, read);
  if (!events.ok()) return events.status();
  return StateAndEvents{std::move(*state), std::move(*events)};
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

Result<std::optional<LastEvent>> ReadLastEvent(Store& store, std::string_view stream) {
  ReadStreamOptions options;
  options.direction = Direction::kBackward;
  options.limit = 1;
  options.include_deleted = true;
  options.raw = true;
  auto cursor = store.ReadStream(stream, options);
  // No such stream (a listing's entry that a store's reads do not see yet):
  // nothing to show, as the contract says, rather than failing a page.
  if (cursor.status().code() == ErrorCode::kNotFound) return std::optional<LastEvent>();
  if (!cursor.ok()) return cursor.status();
  if (!(*cursor)->Valid()) {
    if (Status s = (*cursor)->status(); !s.ok()) return s;
    return std::optional<LastEvent>();  // retention hides every event
  }
  const EventView& event = (*cursor)->event();
  return std::optional<LastEvent>(LastEvent{event.id, std::string(event.type), event.version,
                                            event.position, event.timestamp_ms});
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

namespace indelible {
namespace {

// One name range a listing walks: names starting with `prefix`, or the one
// name `prefix` itself when `exact`.
struct NameRange {
  std::string prefix;
  bool exact = false;
};

// The ranges of names that match both filters, in name order. A category C
// holds C itself, then C-..., then C/... ('-' sorts before '/'); a prefix
// narrows each range, or rules it out.
std::vector<NameRange> RangesOf(const ListStreamsOptions& options) {
  const std::string& prefix = options.prefix;
  if (options.category.empty()) return {NameRange{prefix, false}};
  const std::string& category = options.category;
  std::vector<NameRange> ranges;
  if (category.starts_with(prefix)) ranges.push_back({category, true});
  for (const char separator : {'-', '/'}) {
    const std::string under = category + separator;
    if (prefix.starts_with(under)) {
      ranges.push_back({prefix, false});
    } else if (under.starts_with(prefix)) {
      ranges.push_back({under, false});
    }
  }
  return ranges;
}

}  // namespace

Result<StreamList> Store::ListStreams(const ListStreamsOptions& options) {
  if (options.limit == 0) return Status::Invalid("limit", "a listing needs a limit of at least 1");
  if (options.category.find_first_of("-/") != std::string::npos)
    return Status::Invalid("category",
                           fmt::format("'{}' is not a category: a category is the part of a "
                                       "stream name before the first '-' or '/'",
                                       options.category.substr(0, 256)));
  // One more than asked, to know whether a next page exists.
  const std::size_t wanted = options.limit + 1;
  StreamList list;
  for (const NameRange& range : RangesOf(options)) {
    if (list.streams.size() == wanted) break;
    auto found = ListStreamRange(range.prefix, options.after,
                                 range.exact ? 1 : wanted - list.streams.size());
    if (!found.ok()) return found.status();
    for (StreamInfo& info : *found) {
      if (range.exact && info.stream != range.prefix) continue;
      list.streams.push_back(std::move(info));
    }
  }
  if (list.streams.size() > options.limit) {
    list.streams.resize(options.limit);
    list.next = list.streams.back().stream;
  }
  if (options.last) {
    for (StreamInfo& info : list.streams) {
      auto last = ReadLastEvent(*this, info.stream);
      if (!last.ok()) return last.status();
      info.last = std::move(*last);
    }
  }
  return list;
}

Result<std::vector<StreamInfo>> Store::ListStreamRange(std::string_view, std::string_view,
                                                       std::size_t) {
  return Status::Invalid("store", "this store keeps no stream listing");
}

}  // namespace indelible
