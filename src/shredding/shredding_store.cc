#include "shredding/shredding_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "core/clock.h"
#include "shredding/sealed_event.h"

namespace indelible::shredding {

namespace json = boost::json;

namespace {

// Saved by a shred, deleted by the compaction after the next scavenge:
// until then the deleted keys' bytes may still be in the backend's files.
constexpr std::string_view kShredPendingRecord = "subject-keys-shredded";

bool IsSealed(const EventView& event) { return event.content_type == kSealedContentType; }

// A consumer group's copy of an event it parked (subscriptions/parking.h).
bool IsParkedCopy(std::string_view stream) { return stream.starts_with("$parked-"); }

// A state record (an entity's snapshot) written with events of a subject
// is sealed with that subject's key: these bytes, then the sealed format
// bound to "state/STREAM". State is opaque bytes, so the mark is one no
// JSON and no text starts with.
constexpr std::string_view kSealedStateMark("\0\xffsealed-state\0", 15);

std::string StateBinding(std::string_view stream) { return fmt::format("state/{}", stream); }

// The subject an event's tags declare: none, one, or invalid for two.
Result<std::optional<std::string_view>> TaggedSubject(const std::vector<std::string>& tags) {
  std::optional<std::string_view> subject;
  for (const std::string& tag : tags) {
    if (!std::string_view(tag).starts_with(kSubjectTagPrefix)) continue;
    if (subject)
      return Status::Invalid("tags", fmt::format("an event declares at most one subject, not "
                                                 "'{}' and '{}'",
                                                 *subject, tag.substr(kSubjectTagPrefix.size())));
    subject = std::string_view(tag).substr(kSubjectTagPrefix.size());
  }
  return subject;
}

// A parked copy (subscriptions/parking.h) carries its original's tags in
// its metadata, not as tags: it is sealed with the original's subject.
std::optional<std::string> ParkedSubject(std::string_view stream, std::string_view metadata) {
  if (!IsParkedCopy(stream) ||
      metadata.find(fmt::format("\"{}", kSubjectTagPrefix)) == std::string_view::npos)
    return std::nullopt;
  boost::system::error_code ec;
  json::value root = json::parse(json::string_view(metadata.data(), metadata.size()), ec);
  if (ec || !root.is_object()) return std::nullopt;
  const json::value* parked = root.as_object().if_contains("$parked");
  if (parked == nullptr || !parked->is_object()) return std::nullopt;
  const json::value* tags = parked->as_object().if_contains("tags");
  if (tags == nullptr || !tags->is_array()) return std::nullopt;
  for (const json::value& tag : tags->as_array())
    if (tag.is_string() && tag.as_string().starts_with(kSubjectTagPrefix))
      return std::string(tag.as_string().subview().substr(kSubjectTagPrefix.size()));
  return std::nullopt;
}

// Where the chosen fields are in an event's metadata: at its top, or for a
// parked copy in the original's metadata, which the copy keeps under
// "metadata".
json::object* FieldsHolder(json::value& root, bool parked) {
  if (!root.is_object()) return nullptr;
  if (!parked) return &root.as_object();
  json::value* inner = root.as_object().if_contains("metadata");
  return inner != nullptr && inner->is_object() ? &inner->as_object() : nullptr;
}

// Moves the chosen fields out of `metadata` into `fields` (a JSON object,
// or empty when none was there).
void SplitFields(const std::vector<std::string>& chosen, bool parked, std::string* metadata,
                 std::string* fields) {
  if (chosen.empty()) return;
  boost::system::error_code ec;
  json::value root = json::parse(*metadata, ec);
  json::object* holder = ec ? nullptr : FieldsHolder(root, parked);
  if (holder == nullptr) return;
  json::object sealed;
  for (const std::string& field : chosen) {
    auto it = holder->find(field);
    if (it == holder->end()) continue;
    sealed[field] = std::move(it->value());
    holder->erase(it);
  }
  if (sealed.empty()) return;
  *metadata = json::serialize(root);
  *fields = json::serialize(sealed);
}

std::string MergeFields(bool parked, std::string_view metadata, std::string_view fields) {
  if (fields.empty()) return std::string(metadata);
  boost::system::error_code ec;
  json::value root = json::parse(json::string_view(metadata.data(), metadata.size()), ec);
  json::value sealed = json::parse(json::string_view(fields.data(), fields.size()), ec);
  json::object* holder = FieldsHolder(root, parked);
  if (holder == nullptr || !sealed.is_object()) return std::string(metadata);
  for (auto& [key, value] : sealed.as_object()) (*holder)[key] = value;
  return json::serialize(root);
}

// A cursor handing out the opened form of sealed events.
template <class Base>
class OpeningCursor : public Base {
 public:
  OpeningCursor(std::unique_ptr<Base> inner, ShreddingStore* store, bool raw)
      : inner_(std::move(inner)), store_(store), raw_(raw) {
    Prepare();
  }
  bool Valid() const override { return status_.ok() && inner_->Valid(); }
  void Next() override {
    inner_->Next();
    Prepare();
  }
  const EventView& event() const override { return opened_ ? view_ : inner_->event(); }
  Status status() const override { return status_.ok() ? inner_->status() : status_; }

 protected:
  std::unique_ptr<Base> inner_;

 private:
  void Prepare() {
    opened_ = false;
    if (!status_.ok() || !inner_->Valid()) return;
    const EventView& event = inner_->event();
    if (!IsSealed(event)) return;
    auto opened = store_->Open(event, raw_, &buffer_);
    if (!opened.ok()) {
      status_ = opened.status();
      return;
    }
    if (!*opened) return;
    opened_ = true;
    view_ = event;
    view_.content_type = buffer_.content_type;
    view_.data = buffer_.data;
    view_.metadata = buffer_.metadata;
  }

  ShreddingStore* store_;
  const bool raw_;
  Status status_;
  bool opened_ = false;
  ShreddingStore::Opened buffer_;
  EventView view_;
};

class OpeningStreamCursor final : public OpeningCursor<StreamCursor> {
 public:
  using OpeningCursor::OpeningCursor;
  std::optional<StreamVersion> next_version() const override { return inner_->next_version(); }
};

class OpeningAllCursor final : public OpeningCursor<AllCursor> {
 public:
  using OpeningCursor::OpeningCursor;
  Position next_position() const override { return inner_->next_position(); }
};

}  // namespace

ShreddingStore::ShreddingStore(std::unique_ptr<Store> inner, const StoreOptions& options)
    : ForwardingStore(std::move(inner)), sealed_fields_(options.sealed_metadata_fields) {
  if (!options.master_keys.empty())
    keys_ = std::make_unique<SubjectKeys>(*inner_, options.master_keys,
                                          !inner_->traits().local_reads || options.follower,
                                          options.metadata_refresh);
}

Result<bool> ShreddingStore::Open(const EventView& event, bool raw, Opened* out) {
  if (keys_ == nullptr) return false;
  auto sealed = ParseSealed(event.data);
  if (!sealed) return false;  // not ours: read as stored
  auto key = keys_->Find(sealed->subject, sealed->key_id);
  if (!key.ok()) return key.status();
  if (!key->has_value()) {
    out->content_type = std::string(kJsonContentType);
    out->data = std::string(kRedactedData);
    out->metadata = std::string(event.metadata);
    return true;
  }
  if (raw) return false;
  auto plain = OpenEvent(**key, *sealed, event.id);
  // A box that fails its tag under the subject's key was not sealed by a
  // store with this key (or its bytes changed): read as stored.
  if (!plain) return false;
  out->content_type = std::move(plain->content_type);
  out->data = std::move(plain->data);
  out->metadata = MergeFields(IsParkedCopy(event.stream), event.metadata, plain->fields);
  return true;
}

Status ShreddingStore::SealEvent(const std::string& stream, EventData& event) {
  auto tagged = TaggedSubject(event.tags);
  if (!tagged.ok()) return tagged.status();
  std::optional<std::string> subject;
  if (*tagged)
    subject = std::string(**tagged);
  else
    subject = ParkedSubject(stream, event.metadata);
  if (!subject) return Status::Ok();
  // Already sealed (an import), or nothing left to protect (a redacted
  // event exported after its subject was shredded).
  if (event.content_type == kSealedContentType ||
      (event.content_type == kJsonContentType && event.data == kRedactedData))
    return Status::Ok();
  if (keys_ == nullptr)
    return Status::Invalid(
        "subject",
        fmt::format("an event of '{}' declares subject '{}', but this store has no master key to "
                    "seal it with: give one (--master-key-file or INDELIBLE_MASTER_KEY; "
                    "StoreOptions::master_keys), docs/RETENTION.md",
                    stream, *subject));
  auto key = keys_->ForSealing(*subject);
  if (!key.ok()) return key.status();
  if (event.id == EventId()) event.id = EventId::Random();
  Plain plain;
  plain.content_type = std::move(event.content_type);
  plain.data = std::move(event.data);
  SplitFields(sealed_fields_, IsParkedCopy(stream), &event.metadata, &plain.fields);
  event.data = shredding::SealEvent(key->key, key->id, *subject, event.id, plain);
  event.content_type = std::string(kSealedContentType);
  return Status::Ok();
}

Status ShreddingStore::Seal(std::vector<AppendRequest>& appends) {
  for (AppendRequest& append : appends) {
    for (EventData& event : append.events)
      if (Status s = SealEvent(append.stream, event); !s.ok()) return s;
    if (append.state && keys_ != nullptr)
      if (Status s = SealState(append); !s.ok()) return s;
  }
  return Status::Ok();
}

Status ShreddingStore::SealState(AppendRequest& append) {
  // The subject of the append's events; for a state-only append (an entity
  // recalculated), that of the stream's last event.
  std::optional<std::string> subject;
  for (const EventData& event : append.events) {
    auto tagged = TaggedSubject(event.tags);
    if (tagged.ok() && *tagged) {
      subject = std::string(**tagged);
      break;
    }
  }
  if (!subject && append.events.empty()) {
    ReadStreamOptions last;
    last.direction = Direction::kBackward;
    last.limit = 1;
    last.raw = true;
    auto cursor = inner_->ReadStream(append.stream, last);
    if (cursor.ok() && (*cursor)->Valid() && IsSealed((*cursor)->event()))
      if (auto sealed = ParseSealed((*cursor)->event().data))
        subject = std::string(sealed->subject);
  }
  if (!subject) return Status::Ok();
  auto key = keys_->ForSealing(*subject);
  if (!key.ok()) return key.status();
  Plain plain;
  plain.data = std::move(append.state->data);
  append.state->data = std::string(kSealedStateMark);
  append.state->data += SealBound(key->key, key->id, *subject, StateBinding(append.stream), plain);
  return Status::Ok();
}

Result<std::optional<StateRecord>> ShreddingStore::OpenState(std::string_view stream,
                                                             std::optional<StateRecord> state) {
  if (!state || keys_ == nullptr || !std::string_view(state->data).starts_with(kSealedStateMark))
    return state;
  auto sealed = ParseSealed(std::string_view(state->data).substr(kSealedStateMark.size()));
  if (!sealed) return state;
  auto key = keys_->Find(sealed->subject, sealed->key_id);
  if (!key.ok()) return key.status();
  // Shredded: as if there were none, so an entity is rebuilt from its
  // (redacted) events.
  if (!key->has_value()) return std::optional<StateRecord>();
  auto plain = OpenBound(**key, *sealed, StateBinding(stream));
  if (!plain) return state;
  state->data = std::move(plain->data);
  return state;
}

Result<std::optional<StateRecord>> ShreddingStore::ReadState(std::string_view stream) {
  auto state = inner_->ReadState(stream);
  if (!state.ok()) return state;
  return OpenState(stream, std::move(*state));
}

Result<CommitResult> ShreddingStore::CommitValidated(std::vector<AppendRequest> appends,
                                                     const CommitOptions& options) {
  if (Status s = Seal(appends); !s.ok()) return s;
  return internal::StoreAccess::CommitValidated(*inner_, std::move(appends), options);
}

std::vector<Result<CommitResult>> ShreddingStore::CommitEachValidated(
    std::vector<CommitRequest> commits) {
  // A commit that cannot be sealed fails alone; the others go on together.
  std::vector<std::optional<Status>> refused(commits.size());
  std::vector<CommitRequest> sealed;
  std::vector<std::size_t> slots;
  for (std::size_t i = 0; i < commits.size(); ++i) {
    if (Status s = Seal(commits[i].appends); !s.ok()) {
      refused[i] = std::move(s);
      continue;
    }
    sealed.push_back(std::move(commits[i]));
    slots.push_back(i);
  }
  auto done = internal::StoreAccess::CommitEachValidated(*inner_, std::move(sealed));
  if (slots.size() == refused.size()) return done;
  std::vector<Result<CommitResult>> results;
  results.reserve(refused.size());
  for (std::size_t i = 0, next = 0; i < refused.size(); ++i) {
    if (refused[i]) {
      results.emplace_back(std::move(*refused[i]));
    } else {
      results.push_back(std::move(done[next++]));
    }
  }
  return results;
}

void ShreddingStore::CommitAsyncValidated(CommitRequest commit, CommitCallback done) {
  if (Status s = Seal(commit.appends); !s.ok()) return done(std::move(s));
  internal::StoreAccess::CommitAsyncValidated(*inner_, std::move(commit), std::move(done));
}

Result<std::unique_ptr<StreamCursor>> ShreddingStore::ReadStream(std::string_view stream,
                                                                 const ReadStreamOptions& options) {
  auto cursor = inner_->ReadStream(stream, options);
  if (!cursor.ok() || keys_ == nullptr) return cursor;
  return std::unique_ptr<StreamCursor>(
      std::make_unique<OpeningStreamCursor>(std::move(*cursor), this, options.raw));
}

Result<std::unique_ptr<AllCursor>> ShreddingStore::ReadAll(const ReadAllOptions& options) {
  auto cursor = inner_->ReadAll(options);
  if (!cursor.ok() || keys_ == nullptr) return cursor;
  return std::unique_ptr<AllCursor>(
      std::make_unique<OpeningAllCursor>(std::move(*cursor), this, options.raw));
}

Result<std::unique_ptr<AllCursor>> ShreddingStore::ReadQuery(const Query& query,
                                                             const ReadQueryOptions& options) {
  auto cursor = inner_->ReadQuery(query, options);
  if (!cursor.ok() || keys_ == nullptr) return cursor;
  return std::unique_ptr<AllCursor>(
      std::make_unique<OpeningAllCursor>(std::move(*cursor), this, options.raw));
}

Result<std::optional<RecordedEvent>> ShreddingStore::FindEvent(const EventId& id) {
  auto found = inner_->FindEvent(id);
  if (!found.ok() || !found->has_value() || keys_ == nullptr) return found;
  RecordedEvent& event = **found;
  Opened opened;
  auto did = Open(event.view(), /*raw=*/false, &opened);
  if (!did.ok()) return did.status();
  if (*did) {
    event.content_type = std::move(opened.content_type);
    event.data = std::move(opened.data);
    event.metadata = std::move(opened.metadata);
  }
  return found;
}

Result<Store::StateAndEvents> ShreddingStore::ReadStateAndEvents(std::string_view stream) {
  auto loaded = inner_->ReadStateAndEvents(stream);
  if (!loaded.ok() || keys_ == nullptr) return loaded;
  const bool had_state = loaded->state.has_value();
  auto state = OpenState(stream, std::move(loaded->state));
  if (!state.ok()) return state.status();
  loaded->state = std::move(*state);
  if (had_state && !loaded->state) {
    // The state's subject was shredded: every event of the stream instead.
    auto events = inner_->ReadStream(stream, {});
    if (!events.ok()) return events.status();
    loaded->events = std::move(*events);
  }
  if (loaded->events != nullptr)
    loaded->events = std::make_unique<OpeningStreamCursor>(std::move(loaded->events), this, false);
  return loaded;
}

Result<ShredReport> ShreddingStore::ShredSubject(std::string_view subject) {
  if (keys_ == nullptr) return Store::ShredSubject(subject);
  if (Status s = ValidateSubject(subject); !s.ok()) return s;
  // Marked before the keys go: a crash in between leaves a compaction
  // owed, never a deleted key whose bytes no scavenge will compact away.
  if (Status s = inner_->SaveRecord(kShredPendingRecord, std::to_string(UnixMillisNow())); !s.ok())
    return s;
  auto keys = keys_->Shred(subject);
  if (!keys.ok()) return keys.status();
  return ShredReport{std::string(subject), *keys};
}

Result<std::uint64_t> ShreddingStore::RewrapSubjectKeys(const ProgressFn& progress) {
  if (keys_ == nullptr) return Store::RewrapSubjectKeys(progress);
  return keys_->Rewrap(progress);
}

Result<ScavengeReport> ShreddingStore::RemoveEvents(const std::vector<ScavengeCut>& cuts,
                                                    const ProgressFn& progress,
                                                    Compaction compact) {
  auto pending = inner_->LoadRecord(kShredPendingRecord);
  const bool shredded = pending.ok() && pending->has_value() && compact != Compaction::kNone;
  auto report = internal::StoreAccess::RemoveEvents(*inner_, cuts, progress,
                                                    shredded ? Compaction::kAlways : compact);
  // The compaction that took the keys' bytes away is done: later scavenges
  // need not compact for them. (Deleted after it, so a crash in it leaves
  // the mark.)
  if (report.ok() && shredded) (void)inner_->DeleteRecord(kShredPendingRecord);
  return report;
}

}  // namespace indelible::shredding
