// ParallelCommits: Store::CommitEach for a backend whose commits are
// independent round trips to a remote service (DynamoDB), where doing them
// one after another bounds a server's appends by one request's latency.
//
// Operation: the commits of one CommitEach are split into chains
// (CommitChains): commits that share a stream, directly or through a third
// commit, form one chain and run in their given order, so a batch
// [s exactly(0), s exactly(1)] succeeds as it would in turn; chains run at
// the same time, on the calling thread and up to `threads - 1` workers.
//
//   commits  0:a  1:b  2:a,c  3:d  4:c
//   chains   {0,2,4} {1} {3}      -> three at once; 0, 2, 4 in order
//
// Concurrency: CommitEach may be called from many threads at once; each call
// waits for its own commits only, and always makes progress on its calling
// thread, so callers never wait on each other's work.
//
// Why not boost::asio::thread_pool: its handlers run inside
// std::atomic_thread_fence blocks that ThreadSanitizer cannot model (GCC's
// -Wtsan), and the store's concurrency tests run under TSan.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "indelible/store.h"

namespace indelible::store {

// The chains of `commits`, each a list of indices in increasing order; the
// chains ordered by their first index. Every index appears exactly once.
std::vector<std::vector<std::size_t>> CommitChains(const std::vector<CommitRequest>& commits);

class ParallelCommits {
 public:
  using CommitFn =
      std::function<Result<CommitResult>(std::vector<AppendRequest>, const CommitOptions&)>;

  // At most `threads` commits of one CommitEach in flight (1: in turn).
  // `commit` must be safe to call from several threads at once and must
  // outlive this object.
  ParallelCommits(int threads, CommitFn commit);
  ~ParallelCommits();  // joins the workers; no CommitEach may be running
  ParallelCommits(const ParallelCommits&) = delete;
  ParallelCommits& operator=(const ParallelCommits&) = delete;

  std::vector<Result<CommitResult>> CommitEach(std::vector<CommitRequest> commits);

 private:
  void Work();

  const CommitFn commit_;
  Mutex mu_;
  CondVar ready_;
  std::deque<std::function<void()>> tasks_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace indelible::store
