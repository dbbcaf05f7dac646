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
};

}  // namespace indelible::internal
