// ForwardingStore: a Store that hands every call to an inner one, the base
// of the wrappers Store::Open puts around a backend (RetentionStore,
// shredding::ShreddingStore), which override what they change. Erase and
// the stream metadata calls are not forwarded: their defaults are built on
// this store's own commits and reads, so a wrapper sees what they write.
#pragma once

#include <memory>

#include "indelible/store.h"
#include "store/store_access.h"

namespace indelible::store {

class ForwardingStore : public Store {
 public:
  Store& inner() { return *inner_; }

  Result<StreamHead> Head(std::string_view stream) override { return inner_->Head(stream); }
  Result<std::unique_ptr<StreamCursor>> ReadStream(std::string_view stream,
                                                   const ReadStreamOptions& options) override {
    return inner_->ReadStream(stream, options);
  }
  Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options) override {
    return inner_->ReadAll(options);
  }
  Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                               const ReadQueryOptions& options) override {
    return inner_->ReadQuery(query, options);
  }
  Result<std::optional<RecordedEvent>> FindEvent(const EventId& id) override {
    return inner_->FindEvent(id);
  }
  Result<StateAndEvents> ReadStateAndEvents(std::string_view stream) override {
    return inner_->ReadStateAndEvents(stream);
  }
  Result<std::optional<StateRecord>> ReadState(std::string_view stream) override {
    return inner_->ReadState(stream);
  }
  Position LastPosition() const override { return inner_->LastPosition(); }
  Position WaitForCommit(Position after, std::chrono::milliseconds timeout) override {
    return inner_->WaitForCommit(after, timeout);
  }
  Status SaveRecord(std::string_view name, std::string_view value) override {
    return inner_->SaveRecord(name, value);
  }
  Result<std::optional<std::string>> LoadRecord(std::string_view name) override {
    return inner_->LoadRecord(name);
  }
  Result<std::vector<std::pair<std::string, std::string>>> ListRecords(
      std::string_view prefix) override {
    return inner_->ListRecords(prefix);
  }
  Status DeleteRecord(std::string_view name) override { return inner_->DeleteRecord(name); }
  StoreTraits traits() const override { return inner_->traits(); }
  StoreStats stats() const override { return inner_->stats(); }
  Status WriteHealth() const override { return inner_->WriteHealth(); }
  std::optional<IndexHealth> IndexerHealth() const override { return inner_->IndexerHealth(); }
  Status Check(const ProgressFn& progress) override { return inner_->Check(progress); }
  Result<ScavengeReport> Scavenge(const ProgressFn& progress) override {
    return inner_->Scavenge(progress);
  }
  Result<ShredReport> ShredSubject(std::string_view subject) override {
    return inner_->ShredSubject(subject);
  }
  Result<std::uint64_t> RewrapSubjectKeys(const ProgressFn& progress) override {
    return inner_->RewrapSubjectKeys(progress);
  }

 protected:
  explicit ForwardingStore(std::unique_ptr<Store> inner)
      : Store(internal::StoreAccess::limits(*inner)), inner_(std::move(inner)) {}

  Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                       const CommitOptions& options) override {
    return internal::StoreAccess::CommitValidated(*inner_, std::move(appends), options);
  }
  std::vector<Result<CommitResult>> CommitEachValidated(
      std::vector<CommitRequest> commits) override {
    return internal::StoreAccess::CommitEachValidated(*inner_, std::move(commits));
  }
  void CommitAsyncValidated(CommitRequest commit, CommitCallback done) override {
    internal::StoreAccess::CommitAsyncValidated(*inner_, std::move(commit), std::move(done));
  }
  Result<std::vector<StreamInfo>> ListStreamRange(std::string_view prefix, std::string_view after,
                                                  std::size_t limit) override {
    return internal::StoreAccess::ListStreamRange(*inner_, prefix, after, limit);
  }
  Result<ScavengeReport> RemoveEvents(const std::vector<ScavengeCut>& cuts,
                                      const ProgressFn& progress, Compaction compact) override {
    return internal::StoreAccess::RemoveEvents(*inner_, cuts, progress, compact);
  }

  const std::unique_ptr<Store> inner_;
};

}  // namespace indelible::store
