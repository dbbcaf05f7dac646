// RetentionStore: what Store::Open hands out. It wraps a backend so that
// every read leaves out the events the streams' metadata hides
// (docs/RETENTION.md), and keeps the map of streams with retention
// settings that those reads look in: built from the `$$` streams when the
// store opens, updated by every commit to one through this store, and, on
// a store other processes write too (DynamoDB, an embedded follower),
// refreshed by a read once it is older than StoreOptions::metadata_refresh.
// A store without any retention setting reads straight from the backend.
#pragma once

#include <atomic>
#include <memory>

#include "core/mutex.h"
#include "indelible/store.h"
#include "store/forwarding_store.h"
#include "store/retention.h"
#include "store/store_access.h"

namespace indelible::store {

using internal::StoreAccess;

class RetentionStore final : public ForwardingStore {
 public:
  // Reads the `$$` streams of `inner` (one listing page per 1,000).
  static Result<std::unique_ptr<Store>> Wrap(std::unique_ptr<Store> inner,
                                             const StoreOptions& options);

  Result<std::unique_ptr<StreamCursor>> ReadStream(std::string_view stream,
                                                   const ReadStreamOptions& options) override;
  Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options) override;
  Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                               const ReadQueryOptions& options) override;
  Result<std::optional<RecordedEvent>> FindEvent(const EventId& id) override;
  Result<StateAndEvents> ReadStateAndEvents(std::string_view stream) override;
  // The backend's head; for a stream with retention, first_version is the
  // first version a read returns (the first one not hidden: one event
  // read), so readers learn where the stream now starts.
  Result<StreamHead> Head(std::string_view stream) override;
  // Works out each retained stream's cut and has the backend remove the
  // events below it (RemoveEvents).
  Result<ScavengeReport> Scavenge(const ProgressFn& progress) override;

  RetentionStore(std::unique_ptr<Store> inner, const StoreOptions& options);

 protected:
  Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                       const CommitOptions& options) override;
  std::vector<Result<CommitResult>> CommitEachValidated(
      std::vector<CommitRequest> commits) override;
  void CommitAsyncValidated(CommitRequest commit, CommitCallback done) override;

 private:
  // The retention settings a read starting now must apply; null when no
  // stream has any.
  std::shared_ptr<const RetentionMap> Rules();
  // Reads every `$$` stream whose version changed since the last load.
  Status Load();
  // A commit through this store wrote `appends` with `result`: takes in
  // the metadata it wrote.
  void Learn(const std::vector<AppendRequest>& appends, const CommitResult& result);
  void Apply(const std::string& stream, std::int64_t version,
             std::optional<StreamMetadata> metadata);

  const bool shared_;              // other processes write the store too: refresh
  const std::int64_t refresh_ns_;  // StoreOptions::metadata_refresh, in steady_clock ticks
  // When the last refresh started (steady_clock ticks); read without mu_.
  std::atomic<std::int64_t> refreshed_at_;
  // rules_ is not null: read without mu_, so a store without retention
  // takes no lock on its reads.
  std::atomic<bool> has_rules_{false};

  Mutex mu_;
  std::shared_ptr<const RetentionMap> rules_ GUARDED_BY(mu_);
  // Every metadata stream's version as last applied, by described stream.
  std::map<std::string, std::int64_t, std::less<>> versions_ GUARDED_BY(mu_);
  bool loading_ GUARDED_BY(mu_) = false;
};

}  // namespace indelible::store
