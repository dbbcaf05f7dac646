// ShreddingStore: crypto-shredding (docs/RETENTION.md) around a backend.
// Store::Open puts it under the RetentionStore of every store it opens.
//
// At commit, an event that declares a subject (its tag "subject:<id>")
// has its data, content type and the chosen metadata fields sealed with
// that subject's key (sealed_event.h); the backend stores the ciphertext.
// Every read path opens sealed events again: stream and $all reads,
// queries, subscriptions and consumer groups (which read through them),
// entity loads and FindEvent. Once the subject's keys are shredded its
// events read as redacted: data kRedactedData, content type JSON, the
// sealed metadata fields gone. `raw` reads hand a sealed event as stored
// (export), or redacted once shredded. A state record written with a
// subject's events is sealed too, and reads as absent once shredded.
//
// Without master keys it seals nothing: an event that declares a subject
// is refused, and sealed events read as stored.
#pragma once

#include <memory>

#include "indelible/store.h"
#include "shredding/subject_keys.h"
#include "store/forwarding_store.h"

namespace indelible::shredding {

class ShreddingStore final : public store::ForwardingStore {
 public:
  ShreddingStore(std::unique_ptr<Store> inner, const StoreOptions& options);

  // What a read does with a sealed event (the cursors' part).
  struct Opened {
    std::string content_type;
    std::string data;
    std::string metadata;
  };
  // Fills `out` and returns true when `event` is sealed and reads other
  // than as stored; an error when its key cannot be loaded.
  Result<bool> Open(const EventView& event, bool raw, Opened* out);

  Result<std::unique_ptr<StreamCursor>> ReadStream(std::string_view stream,
                                                   const ReadStreamOptions& options) override;
  Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options) override;
  Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                               const ReadQueryOptions& options) override;
  Result<std::optional<RecordedEvent>> FindEvent(const EventId& id) override;
  Result<StateAndEvents> ReadStateAndEvents(std::string_view stream) override;
  Result<std::optional<StateRecord>> ReadState(std::string_view stream) override;
  Result<ShredReport> ShredSubject(std::string_view subject) override;
  Result<std::uint64_t> RewrapSubjectKeys(const ProgressFn& progress) override;

 protected:
  Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                       const CommitOptions& options) override;
  std::vector<Result<CommitResult>> CommitEachValidated(
      std::vector<CommitRequest> commits) override;
  void CommitAsyncValidated(CommitRequest commit, CommitCallback done) override;
  // Compacts in any case after a shred, so the deleted keys leave the
  // backend's files too.
  Result<ScavengeReport> RemoveEvents(const std::vector<ScavengeCut>& cuts,
                                      const ProgressFn& progress, Compaction compact) override;

 private:
  // Seals the events of `appends` that declare a subject, and the state
  // records written with them.
  Status Seal(std::vector<AppendRequest>& appends);
  Status SealEvent(const std::string& stream, EventData& event);
  Status SealState(AppendRequest& append);
  // The state as written, nullopt once its subject is shredded.
  Result<std::optional<StateRecord>> OpenState(std::string_view stream,
                                               std::optional<StateRecord> state);

  const std::vector<std::string> sealed_fields_;
  // Null without master keys.
  std::unique_ptr<SubjectKeys> keys_;
};

}  // namespace indelible::shredding
