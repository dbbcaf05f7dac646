// SchemaStore (include/indelible/schemas.h): a Store that checks commits
// against the registry before the inner store sees them, and upcasts what
// the inner store's reads return. Everything else passes straight through.
#include <thread>

#include "core/mutex.h"
#include "indelible/schemas.h"
#include "schemas/registry_service.h"
#include "schemas/upcasting.h"
#include "store/store_access.h"

namespace indelible {
namespace {

using internal::StoreAccess;

class SchemaStoreImpl final : public SchemaStore {
 public:
  SchemaStoreImpl(std::unique_ptr<Store> owned, Store& inner, const SchemaOptions& options)
      : SchemaStore(StoreAccess::limits(inner)),
        owned_(std::move(owned)),
        inner_(inner),
        registry_(inner),
        options_(options) {}

  ~SchemaStoreImpl() override {
    {
      MutexLock lock(&mu_);
      stopping_ = true;
    }
    wake_.SignalAll();
    if (refresher_.joinable()) refresher_.join();
  }

  Status Start() {
    if (Status s = registry_.Refresh(); !s.ok()) return s;
    if (options_.refresh_interval.count() > 0) refresher_ = std::thread([this] { RefreshLoop(); });
    return Status::Ok();
  }

  Schemas& schemas() override { return registry_; }
  const Schemas& schemas() const override { return registry_; }
  Store& inner() override { return inner_; }

  Result<StreamHead> Head(std::string_view stream) override { return inner_.Head(stream); }

  Result<std::unique_ptr<StreamCursor>> ReadStream(std::string_view stream,
                                                   const ReadStreamOptions& options) override {
    auto cursor = inner_.ReadStream(stream, options);
    if (!cursor.ok() || options.raw) return cursor;
    return schemas::UpcastStream(std::move(*cursor), registry_.snapshot(),
                                 registry_.upcast_counters());
  }

  Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options) override {
    auto cursor = inner_.ReadAll(options);
    if (!cursor.ok() || options.raw) return cursor;
    return schemas::UpcastAll(std::move(*cursor), registry_.snapshot(),
                              registry_.upcast_counters());
  }

  Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                               const ReadQueryOptions& options) override {
    auto cursor = inner_.ReadQuery(query, options);
    if (!cursor.ok() || options.raw) return cursor;
    return schemas::UpcastAll(std::move(*cursor), registry_.snapshot(),
                              registry_.upcast_counters());
  }

  Position LastPosition() const override { return inner_.LastPosition(); }
  Position WaitForCommit(Position after, std::chrono::milliseconds timeout) override {
    return inner_.WaitForCommit(after, timeout);
  }

  Status SaveRecord(std::string_view name, std::string_view value) override {
    return inner_.SaveRecord(name, value);
  }
  Result<std::optional<std::string>> LoadRecord(std::string_view name) override {
    return inner_.LoadRecord(name);
  }
  Result<std::vector<std::pair<std::string, std::string>>> ListRecords(
      std::string_view prefix) override {
    return inner_.ListRecords(prefix);
  }
  Status DeleteRecord(std::string_view name) override { return inner_.DeleteRecord(name); }

  Result<std::optional<RecordedEvent>> FindEvent(const EventId& id) override {
    auto found = inner_.FindEvent(id);
    if (found.ok() && *found)
      schemas::UpcastEvent(*registry_.snapshot(), registry_.upcast_counters(), &**found);
    return found;
  }

  Result<std::optional<StateRecord>> ReadState(std::string_view stream) override {
    return inner_.ReadState(stream);
  }

  // Straight to the inner store: a `$metadata` event has no schema to check
  // or upcast, and the inner store may keep metadata its own way (a remote
  // store's route, the retention map of Store::Open's stores).
  Result<StoredStreamMetadata> ReadStreamMetadata(std::string_view stream) override {
    return inner_.ReadStreamMetadata(stream);
  }
  Result<StreamVersion> WriteStreamMetadata(std::string_view stream, const StreamMetadata& metadata,
                                            Expected expected) override {
    return inner_.WriteStreamMetadata(stream, metadata, expected);
  }

  Result<StateAndEvents> ReadStateAndEvents(std::string_view stream) override {
    auto loaded = inner_.ReadStateAndEvents(stream);
    if (!loaded.ok() || !loaded->events) return loaded;
    loaded->events = schemas::UpcastStream(std::move(loaded->events), registry_.snapshot(),
                                           registry_.upcast_counters());
    return loaded;
  }

  StoreTraits traits() const override { return inner_.traits(); }
  StoreStats stats() const override { return inner_.stats(); }
  Status WriteHealth() const override { return inner_.WriteHealth(); }
  std::optional<IndexHealth> IndexerHealth() const override { return inner_.IndexerHealth(); }
  Status Check(const ProgressFn& progress) override { return inner_.Check(progress); }
  Result<ScavengeReport> Scavenge(const ProgressFn& progress) override {
    return inner_.Scavenge(progress);
  }
  Result<ShredReport> ShredSubject(std::string_view subject) override {
    return inner_.ShredSubject(subject);
  }
  Result<std::uint64_t> RewrapSubjectKeys(const ProgressFn& progress) override {
    return inner_.RewrapSubjectKeys(progress);
  }
  // Erase's commit is the store's own (a tombstone and metadata, no
  // schema to check): the inner store runs it whole, removal included.
  Result<AppendResult> Erase(std::string_view stream, Expected expected) override {
    return inner_.Erase(stream, expected);
  }

 protected:
  Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                       const CommitOptions& options) override {
    if (Status s = registry_.CheckCommit(appends); !s.ok()) return s;
    return StoreAccess::CommitValidated(inner_, std::move(appends), options);
  }

  std::vector<Result<CommitResult>> CommitEachValidated(
      std::vector<CommitRequest> commits) override {
    // The commits that pass go to the inner store together (one group
    // commit there); the refused ones keep their place in the results.
    std::vector<std::optional<Result<CommitResult>>> refused(commits.size());
    std::vector<CommitRequest> passing;
    passing.reserve(commits.size());
    for (std::size_t i = 0; i < commits.size(); ++i) {
      if (Status s = registry_.CheckCommit(commits[i].appends); !s.ok())
        refused[i].emplace(std::move(s));
      else
        passing.push_back(std::move(commits[i]));
    }
    std::vector<Result<CommitResult>> written =
        passing.empty() ? std::vector<Result<CommitResult>>()
                        : StoreAccess::CommitEachValidated(inner_, std::move(passing));
    std::vector<Result<CommitResult>> results;
    results.reserve(commits.size());
    std::size_t next = 0;
    for (std::size_t i = 0; i < commits.size(); ++i) {
      if (refused[i])
        results.push_back(std::move(*refused[i]));
      else
        results.push_back(std::move(written[next++]));
    }
    return results;
  }

  void CommitAsyncValidated(CommitRequest commit, CommitCallback done) override {
    if (Status s = registry_.CheckCommit(commit.appends); !s.ok()) return done(std::move(s));
    StoreAccess::CommitAsyncValidated(inner_, std::move(commit), std::move(done));
  }

  Result<std::vector<StreamInfo>> ListStreamRange(std::string_view prefix, std::string_view after,
                                                  std::size_t limit) override {
    return StoreAccess::ListStreamRange(inner_, prefix, after, limit);
  }
  Result<ScavengeReport> RemoveEvents(const std::vector<ScavengeCut>& cuts,
                                      const ProgressFn& progress, Compaction compact) override {
    return StoreAccess::RemoveEvents(inner_, cuts, progress, compact);
  }

 private:
  // Other processes' changes to $schemas, read every refresh_interval.
  // A failed read keeps the registry as it was; the next one tries again.
  void RefreshLoop() {
    MutexLock lock(&mu_);
    while (!stopping_) {
      wake_.WaitFor(&mu_, options_.refresh_interval);
      if (stopping_) break;
      lock.Unlock();
      (void)registry_.Refresh();
      lock.Lock();
    }
  }

  std::unique_ptr<Store> owned_;  // null when borrowed
  Store& inner_;
  schemas::RegistryService registry_;
  const SchemaOptions options_;
  Mutex mu_;
  CondVar wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread refresher_;
};

Result<std::unique_ptr<SchemaStore>> Make(std::unique_ptr<Store> owned, Store& inner,
                                          const SchemaOptions& options) {
  auto store = std::make_unique<SchemaStoreImpl>(std::move(owned), inner, options);
  if (Status s = store->Start(); !s.ok()) return s;
  return std::unique_ptr<SchemaStore>(std::move(store));
}

}  // namespace

Result<std::unique_ptr<SchemaStore>> SchemaStore::Wrap(Store& inner, const SchemaOptions& options) {
  return Make(nullptr, inner, options);
}

Result<std::unique_ptr<SchemaStore>> SchemaStore::Wrap(std::unique_ptr<Store> inner,
                                                       const SchemaOptions& options) {
  if (!inner) return Status::Invalid("store", "no store to wrap");
  Store& ref = *inner;
  return Make(std::move(inner), ref, options);
}

}  // namespace indelible
