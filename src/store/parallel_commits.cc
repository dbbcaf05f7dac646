#include "store/parallel_commits.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace indelible::store {

std::vector<std::vector<std::size_t>> CommitChains(const std::vector<CommitRequest>& commits) {
  // Union-find over the commits; a set's root is its lowest index, so the
  // sets come out in the order of their first commit.
  std::vector<std::size_t> root(commits.size());
  std::iota(root.begin(), root.end(), std::size_t{0});
  auto find = [&root](std::size_t i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  std::unordered_map<std::string_view, std::size_t> first_commit_of_stream;
  for (std::size_t i = 0; i < commits.size(); ++i) {
    for (const AppendRequest& append : commits[i].appends) {
      auto [it, inserted] = first_commit_of_stream.try_emplace(append.stream, i);
      if (inserted) continue;
      const std::size_t a = find(it->second), b = find(i);
      root[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<std::vector<std::size_t>> chains;
  std::vector<std::size_t> chain_of(commits.size());
  for (std::size_t i = 0; i < commits.size(); ++i) {
    const std::size_t r = find(i);
    if (r == i) {
      chain_of[i] = chains.size();
      chains.emplace_back();
    }
    chains[chain_of[r]].push_back(i);
  }
  return chains;
}

ParallelCommits::ParallelCommits(int threads, CommitFn commit) : commit_(std::move(commit)) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { Work(); });
}

ParallelCommits::~ParallelCommits() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  ready_.SignalAll();
  for (auto& worker : workers_) worker.join();
}

void ParallelCommits::Work() {
  for (;;) {
    std::function<void()> task;
    {
      MutexLock lock(&mu_);
      ready_.Wait(&mu_, [this]() REQUIRES(mu_) { return stopping_ || !tasks_.empty(); });
      // Tasks left at a stop belong to calls that have returned: a call
      // returns only when its chains are done, so they have nothing to do.
      if (stopping_) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

namespace {

// One CommitEach: shared with its helper tasks, which may start after the
// call has returned (their workers were busy) and then find nothing to do.
struct Call {
  std::vector<CommitRequest> commits;
  std::vector<std::vector<std::size_t>> chains;
  std::vector<std::optional<Result<CommitResult>>> results;
  std::atomic<std::size_t> next_chain{0};
  Mutex mu;
  CondVar finished;
  std::size_t chains_done GUARDED_BY(mu) = 0;
};

}  // namespace

std::vector<Result<CommitResult>> ParallelCommits::CommitEach(std::vector<CommitRequest> commits) {
  auto call = std::make_shared<Call>();
  call->chains = CommitChains(commits);
  call->results.resize(commits.size());
  call->commits = std::move(commits);
  const std::size_t chains = call->chains.size();
  // Chains are claimed one at a time, so a helper that starts late takes
  // what is left and none waits for another.
  auto run = [call, this] {
    for (std::size_t c; (c = call->next_chain.fetch_add(1)) < call->chains.size();) {
      for (std::size_t i : call->chains[c]) {
        CommitRequest& commit = call->commits[i];
        call->results[i].emplace(commit_(std::move(commit.appends), commit.options));
      }
      MutexLock lock(&call->mu);
      if (++call->chains_done == call->chains.size()) call->finished.SignalAll();
    }
  };
  const std::size_t helpers = std::min(chains, workers_.size() + 1) - (chains > 0 ? 1 : 0);
  if (helpers > 0) {
    {
      MutexLock lock(&mu_);
      for (std::size_t h = 0; h < helpers; ++h) tasks_.emplace_back(run);
    }
    if (helpers == 1) {
      ready_.Signal();
    } else {
      ready_.SignalAll();
    }
  }
  run();
  {
    MutexLock lock(&call->mu);
    call->finished.Wait(&call->mu,
                        [&]() REQUIRES(call->mu) { return call->chains_done == chains; });
  }
  std::vector<Result<CommitResult>> results;
  results.reserve(call->results.size());
  for (auto& result : call->results) results.push_back(std::move(*result));
  return results;
}

}  // namespace indelible::store
