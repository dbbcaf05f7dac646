// AppendBatcher: appends from every connection go into one queue; committer
// threads (the server uses one) take everything queued and give it to the store as one
// Store::CommitEach, so concurrent appends share a group commit (one sync)
// without a blocked thread per request. With a thread per request, waking
// and switching between a hundred threads cost more than the appends
// themselves on two cores (docs/BENCHMARKS.md, "HTTP").
//
// Concurrency: Submit from any thread. `done` runs on a committer thread and
// must only post work elsewhere (Exchange::Respond does).
#pragma once

#include <indelible/store.h>

#include <functional>
#include <thread>
#include <vector>

#include "core/mutex.h"

namespace indelible::server {

class AppendBatcher {
 public:
  using Done = std::function<void(Result<CommitResult>)>;

  AppendBatcher(Store& store, int threads);
  ~AppendBatcher();  // Stop()
  AppendBatcher(const AppendBatcher&) = delete;
  AppendBatcher& operator=(const AppendBatcher&) = delete;

  void Submit(CommitRequest commit, Done done);
  // Commits what is queued, then joins the threads; later Submits are
  // answered unavailable.
  void Stop();

 private:
  struct Pending {
    CommitRequest commit;
    Done done;
  };
  void Loop();

  Store& store_;
  Mutex mu_;
  CondVar queued_;
  std::vector<Pending> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace indelible::server
