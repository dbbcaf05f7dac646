#include "server/append_batcher.h"

#include <algorithm>

namespace indelible::server {
namespace {

// A batch is one CommitEach; the engine splits it further by bytes. Bounded
// so one committer does not take the whole queue while another idles.
constexpr std::size_t kMaxBatch = 256;

}  // namespace

AppendBatcher::AppendBatcher(Store& store, int threads) : store_(store) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { Loop(); });
}

AppendBatcher::~AppendBatcher() { Stop(); }

void AppendBatcher::Submit(CommitRequest commit, Done done) {
  {
    MutexLock lock(&mu_);
    if (!stopping_) {
      queue_.push_back(Pending{std::move(commit), std::move(done)});
      queued_.Signal();
      return;
    }
  }
  done(Status::Unavailable("the server is shutting down; retry the append with the same ids"));
}

void AppendBatcher::Stop() {
  {
    MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  queued_.SignalAll();
  for (auto& thread : threads_) thread.join();
}

void AppendBatcher::Loop() {
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
      if (!queue_.empty()) queued_.Signal();  // another committer can start on the rest
    }
    std::vector<CommitRequest> commits;
    commits.reserve(batch.size());
    for (Pending& pending : batch) commits.push_back(std::move(pending.commit));
    std::vector<Result<CommitResult>> results = store_.CommitEach(std::move(commits));
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(results[i]));
  }
}

}  // namespace indelible::server
