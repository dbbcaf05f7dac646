// CommitQueue: Store::CommitAsync for a backend whose commits are remote
// round trips (DynamoDB), so no caller's thread blocks on the network.
//
// Operation: every CommitAsync joins one queue; a committer thread takes
// everything queued (up to a bound) and gives it to `commit_each` as one
// batch (DynamoDB runs a batch's commits on several connections at once,
// parallel_commits.h), then calls each commit's callback. The embedded
// engine needs none of this: its own write queue is asynchronous (engine.h).
//
// Concurrency: Submit from any thread. The callbacks run on the committer
// thread and must only post work elsewhere.
#pragma once

#include <functional>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "indelible/store.h"

namespace indelible::store {

class CommitQueue {
 public:
  using CommitEachFn = std::function<std::vector<Result<CommitResult>>(std::vector<CommitRequest>)>;

  // `commit_each` must outlive this object (make the queue the owner's last
  // member, so it stops first).
  explicit CommitQueue(CommitEachFn commit_each);
  ~CommitQueue();  // commits what is queued, then joins the thread
  CommitQueue(const CommitQueue&) = delete;
  CommitQueue& operator=(const CommitQueue&) = delete;

  void Submit(CommitRequest commit, CommitCallback done);

 private:
  struct Pending {
    CommitRequest commit;
    CommitCallback done;
  };
  void Loop();

  const CommitEachFn commit_each_;
  Mutex mu_;
  CondVar queued_;
  std::vector<Pending> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace indelible::store
