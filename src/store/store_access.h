// internal::StoreAccess: what the library's own layers may do with a Store
// beyond its public interface (store.h declares it a friend). Private to
// src/: not installed, not for applications.
#pragma once

#include "indelible/store.h"
#include "store/append_validation.h"

namespace indelible::internal {

struct StoreAccess {
  // Store::CommitAsync for a request decoded by EventsFromJson from a body
  // parsed as a whole (core/event_json.h): every check runs but the JSON
  // ones, which that parse already made. The HTTP server's append path,
  // so a payload is parsed once between the socket and the store.
  static void CommitAsyncParsed(Store& store, CommitRequest commit, CommitCallback done) {
    if (Status s = store::ValidateCommit(commit.appends, store.limits_, commit.options,
                                         store::EventJson::kChecked);
        !s.ok())
      return done(std::move(s));
    store.CommitAsyncValidated(std::move(commit), std::move(done));
  }

  // A store that wraps another (schemas/schema_store.h) hands the inner
  // store commits that already passed the checks, and asks it for what the
  // public interface builds on.
  static const Limits& limits(const Store& store) { return store.limits_; }
  static Result<CommitResult> CommitValidated(Store& store, std::vector<AppendRequest> appends,
                                              const CommitOptions& options) {
    return store.CommitValidated(std::move(appends), options);
  }
  static std::vector<Result<CommitResult>> CommitEachValidated(Store& store,
                                                               std::vector<CommitRequest> commits) {
    return store.CommitEachValidated(std::move(commits));
  }
  static void CommitAsyncValidated(Store& store, CommitRequest commit, CommitCallback done) {
    store.CommitAsyncValidated(std::move(commit), std::move(done));
  }
  static Result<ScavengeReport> RemoveEvents(Store& store, const std::vector<ScavengeCut>& cuts,
                                             const ProgressFn& progress,
                                             Compaction compact = Compaction::kIfRemoved) {
    return store.RemoveEvents(cuts, progress, compact);
  }
  static Result<std::vector<StreamInfo>> ListStreamRange(Store& store, std::string_view prefix,
                                                         std::string_view after,
                                                         std::size_t limit) {
    return store.ListStreamRange(prefix, after, limit);
  }
};

}  // namespace indelible::internal
