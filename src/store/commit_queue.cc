#include "store/commit_queue.h"

#include <algorithm>

namespace indelible::store {
namespace {

// A batch is one CommitEach. Bounded so one slow batch does not hold
// everything queued behind its slowest commit.
constexpr std::size_t kMaxBatch = 256;

}  // namespace

CommitQueue::CommitQueue(CommitEachFn commit_each)
    : commit_each_(std::move(commit_each)), thread_([this] { Loop(); }) {}

CommitQueue::~CommitQueue() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  queued_.SignalAll();
  thread_.join();
}

void CommitQueue::Submit(CommitRequest commit, CommitCallback done) {
  {
    MutexLock lock(&mu_);
    if (!stopping_) {
      queue_.push_back(Pending{std::move(commit), std::move(done)});
      queued_.Signal();
      return;
    }
  }
  done(Status::Unavailable("the store is closing; retry the commit with the same ids"));
}

void CommitQueue::Loop() {
  for (;;) {
    std::vector<Pending> batch;
    {
      MutexLock lock(&mu_);
      queued_.Wait(&mu_, [this]() REQUIRES(mu_) { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to commit
      const std::size_t n = std::min(queue_.size(), kMaxBatch);
      batch.assign(std::make_move_iterator(queue_.begin()),
                   std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(n)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    }
    std::vector<CommitRequest> commits;
    commits.reserve(batch.size());
    for (Pending& pending : batch) commits.push_back(std::move(pending.commit));
    std::vector<Result<CommitResult>> results = commit_each_(std::move(commits));
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(results[i]));
  }
}

}  // namespace indelible::store
