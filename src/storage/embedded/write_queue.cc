// The group-commit queue of engine.h: who leads, who syncs, and how the
// blocking (Commit) and asynchronous (CommitAsync) writers share it.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "storage/embedded/writer.h"
#include "store/append_validation.h"

namespace indelible::storage::embedded {

std::uint64_t ThreadCpuNanos() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(now.tv_nsec);
}

void EmbeddedStore::CommitAsyncValidated(CommitRequest commit, CommitCallback done) {
  if (options_.follower)
    return done(Status::Invalid("store", "this store was opened as a read-only follower"));
  // Owned by the queue until Finish: no caller's stack holds it.
  auto* writer = new Writer;
  writer->owned = std::move(commit);
  writer->appends = &writer->owned.appends;
  writer->options = &writer->owned.options;
  writer->done = std::move(done);
  for (const auto& append : writer->owned.appends)
    for (const auto& event : append.events) writer->bytes += store::EventBytes(event);
  SubmitAsync(writer);
}

// Tickets: writers are numbered as they queue, and a group is always a
// prefix of the queue, so a few numbers say everything: every ticket up to
// taken_through_ has left the queue for a group, every one up to
// written_through_ is decided and written, every one up to done_through_
// has its final result. One thread at a time holds the lead (leading_).
// A blocking caller leads when the queue's front is one of its tickets and
// nobody leads; a leader goes on while the front is asynchronous (no thread
// waits for it) or its own, and otherwise hands the lead to the front's
// owner. A caller with several writers (CommitEach) holds consecutive
// tickets. Waiters watch the atomics and sleep on the wake slot of their
// last ticket (engine.h, wake_slots_): a leader wakes the caller it hands
// the lead to and, per group, one caller to run the group's sync (or, without
// pipelining, every caller it finished); a sync wakes the callers it
// finished and one still waiting for a sync.
void EmbeddedStore::Submit(const std::vector<Writer*>& mine) {
  std::uint64_t first, last;
  {
    MutexLock lock(&writers_mu_);
    first = last_ticket_ + 1;
    last = last_ticket_ + mine.size();
    for (Writer* writer : mine) {
      writer->wake = last;
      writers_.push_back(writer);
    }
    last_ticket_ = last;
  }
  Broadcast& slot = SlotOf(last);
  for (;;) {
    const std::uint32_t generation = slot.Generation();
    // Synced counts as written: CommitGroup hands a group to the sync
    // before its leader stores written_through_, so a sync can finish it
    // and wake its callers first, and nobody wakes them again (a deadlock
    // the TSan run of the concurrency tests found).
    if (written_through_.load(std::memory_order_acquire) >= last ||
        done_through_.load(std::memory_order_acquire) >= last)
      break;
    const std::uint64_t front = taken_through_.load(std::memory_order_acquire) + 1;
    if (leading_.load(std::memory_order_acquire) || front < first || front > last) {
      slot.Wait(generation);
      continue;
    }
    bool lead = false;
    {
      MutexLock lock(&writers_mu_);
      const std::uint64_t now_front = taken_through_.load() + 1;
      if (!leading_.load() && now_front >= first && now_front <= last) {
        leading_.store(true, std::memory_order_release);
        lead = true;
      }
    }
    if (lead) Lead(first, last);
  }
  if (pipelined()) AwaitDurable(last);
}

void EmbeddedStore::SubmitAsync(Writer* writer) {
  bool lead = false;
  {
    MutexLock lock(&writers_mu_);
    writers_.push_back(writer);
    ++last_ticket_;
    if (!leading_.load()) {
      leading_.store(true, std::memory_order_release);
      lead = true;
    }
  }
  // Otherwise the leader reaches this writer: it leads on while the front
  // is asynchronous, and a blocking front's owner leads the same way.
  if (lead) Lead(0, 0);
}

void EmbeddedStore::Lead(std::uint64_t first, std::uint64_t last) {
  for (;;) {
    std::vector<Writer*> group;
    {
      MutexLock lock(&writers_mu_);
      std::size_t bytes = 0;
      for (Writer* w : writers_) {
        if (!group.empty() && bytes + w->bytes > kMaxGroupBytes) break;
        group.push_back(w);
        bytes += w->bytes;
      }
      writers_.erase(writers_.begin(),
                     writers_.begin() + static_cast<std::ptrdiff_t>(group.size()));
      taken_through_.fetch_add(group.size(), std::memory_order_release);
    }
    // Who to wake once the group is written. Without pipelining a written
    // writer is done: finish the asynchronous ones, wake the blocking ones'
    // callers. Durable mode wakes one caller of the group, not this
    // thread's own, to run its sync while this thread leads on; the sync
    // wakes the others (WakeAfterSync). Read before CommitGroup: from then
    // on the sync stage may finish (and delete) asynchronous writers, and a
    // blocking writer's caller may return once its ticket is done.
    std::vector<Writer*> finished;
    std::vector<std::uint64_t> wake;
    for (Writer* w : group) {
      if (w->async()) {
        if (!pipelined()) finished.push_back(w);
      } else if (!pipelined()) {
        wake.push_back(w->wake);
      } else if (wake.empty() && w->wake != last) {
        wake.push_back(w->wake);
      }
    }
    const std::uint64_t written = written_through_.load(std::memory_order_relaxed);
    if (!group.empty()) CommitGroup(group);
    written_through_.store(written + group.size(), std::memory_order_release);
    // Someone already syncing runs the next sync too (WakeAfterSync hands it
    // to a caller of these groups): waking one now would only put it back to
    // sleep. The syncer's unsynced_ read follows its store of syncing_, and
    // CommitGroup added this group to unsynced_ before this load, so a sync
    // that this load sees running cannot miss the group at its end.
    if (!wake.empty() && pipelined() && syncing_.load()) wake.clear();
    bool more;
    {
      MutexLock lock(&writers_mu_);
      const std::uint64_t front = taken_through_.load() + 1;
      more = !writers_.empty() && (writers_.front()->async() || (front >= first && front <= last));
      if (!more) {
        leading_.store(false, std::memory_order_release);
        // The lead passes to the front's caller, which sleeps until told.
        if (!writers_.empty()) wake.push_back(writers_.front()->wake);
      }
    }
    Wake(wake);
    Finish(finished);
    if (!more) return;
  }
}

void EmbeddedStore::Finish(const std::vector<Writer*>& writers) {
  for (Writer* w : writers) {
    w->done(std::move(*w->result));
    delete w;
  }
}

void EmbeddedStore::Wake(std::vector<std::uint64_t>& wake) {
  for (std::uint64_t& ticket : wake) ticket %= kWakeSlots;
  std::sort(wake.begin(), wake.end());
  wake.erase(std::unique(wake.begin(), wake.end()), wake.end());
  for (const std::uint64_t slot : wake) wake_slots_[slot].broadcast.NotifyAll();
}

void EmbeddedStore::WakeAfterSync(std::vector<std::uint64_t> wake) {
  {
    // Groups written during that sync wait for the next one: one of their
    // blocking callers runs it (unless the sync stage takes them first).
    MutexLock lock(&unsynced_mu_);
    for (const Writer* w : unsynced_.writers)
      if (!w->async()) {
        wake.push_back(w->wake);
        break;
      }
  }
  Wake(wake);
  durable_.NotifyAll();
}

void EmbeddedStore::AwaitDurable(std::uint64_t last) {
  Broadcast& slot = SlotOf(last);
  for (;;) {
    const std::uint32_t generation = slot.Generation();
    if (done_through_.load(std::memory_order_acquire) >= last) return;
    if (!syncing_.exchange(true, std::memory_order_acq_rel)) {
      std::vector<std::uint64_t> wake = SyncWritten(/*gather=*/true);
      syncing_.store(false, std::memory_order_release);
      WakeAfterSync(std::move(wake));
      continue;
    }
    slot.Wait(generation);
  }
}

void EmbeddedStore::SyncStage() {
  for (;;) {
    const std::uint32_t written = async_written_.Generation();
    const std::uint32_t synced = durable_.Generation();
    std::size_t pending;
    {
      MutexLock lock(&unsynced_mu_);
      pending = unsynced_.async;
    }
    if (pending == 0) {
      if (stop_sync_stage_.load()) return;
      async_written_.Wait(written);
      continue;
    }
    if (syncing_.exchange(true, std::memory_order_acq_rel)) {
      durable_.Wait(synced);  // another thread's sync may take them
      continue;
    }
    // No gathering here: asynchronous writers are the server's, whose
    // appends are bounded by the CPU that parses and writes them, and
    // waiting for more of them only delays the answers that let clients
    // send the next ones (docs/BENCHMARKS.md, "Gathering a cohort").
    std::vector<std::uint64_t> wake = SyncWritten(/*gather=*/false);
    syncing_.store(false, std::memory_order_release);
    WakeAfterSync(std::move(wake));
  }
}

// Runs on one thread at a time (syncing_). Takes every group written so
// far: one SyncWAL covers them all, since each was written before it began.
std::vector<std::uint64_t> EmbeddedStore::SyncWritten(bool gather) {
  if (gather) GatherCohort();
  Unsynced taken;
  {
    MutexLock lock(&unsynced_mu_);
    taken.through = unsynced_.through;
    taken.position = unsynced_.position;
    taken.view = unsynced_.view;
    taken.wrote = std::exchange(unsynced_.wrote, false);
    taken.writers.swap(unsynced_.writers);
    taken.async = std::exchange(unsynced_.async, 0);
    taken.heads.swap(unsynced_.heads);
  }
  // Nothing written since the last sync took its writers.
  if (taken.through <= done_through_.load(std::memory_order_acquire)) return {};
  std::vector<Writer*> finished;
  finished.reserve(taken.async);
  std::vector<std::uint64_t> wake;
  wake.reserve(taken.writers.size() - taken.async);
  for (Writer* w : taken.writers) {
    if (w->async())
      finished.push_back(w);
    else if (wake.empty() || wake.back() != w->wake)
      wake.push_back(w->wake);
  }
  Status synced;
  std::int64_t sync_nanos = 0;
  if (sync_failed_.load()) {
    synced = StoppedWriting();
  } else if (taken.wrote) {
    const std::uint64_t cpu_start = ThreadCpuNanos();
    const auto wall_start = std::chrono::steady_clock::now();
    synced = FromRocks(db_->SyncWAL(), "syncing the write-ahead log");
    sync_nanos = (std::chrono::steady_clock::now() - wall_start).count();
    sync_cpu_ns_.fetch_add(ThreadCpuNanos() - cpu_start, std::memory_order_relaxed);
    if (!synced.ok()) StopWriting(synced);
    syncs_.fetch_add(1, std::memory_order_relaxed);
  }
  if (synced.ok() && taken.wrote) {
    // Before the view: a reader of the new view must find its heads.
    durable_heads_.Publish(taken.heads, taken.view->GetSequenceNumber());
    {
      MutexLock lock(&view_mu_);
      durable_view_ = taken.view;
    }
    Publish(taken.position);
  } else if (!synced.ok()) {
    for (Writer* w : taken.writers)
      if (w->depends_on_write()) w->result = synced;
  }
  // From here the blocking writers belong to their callers again.
  done_through_.store(taken.through, std::memory_order_release);
  LearnCohort(taken.writers.size(), taken.through, sync_nanos);
  Finish(finished);
  return wake;
}

// Why wait at all: with a closed loop of N writers (each waits for its
// answer before it writes again) and syncs started as soon as the last one
// ends, writers split into cohorts that alternate: the writers one sync
// answers come back while the next sync, holding the others, runs, and wait
// for the one after. Eight writers ran as two cohorts of about four, at most
// four events per sync, however fast the disk. A sync that first waits the
// short time the answered writers take to come back carries them all: one
// cohort of eight (docs/BENCHMARKS.md, "Gathering a cohort"). PostgreSQL's
// commit_delay and MySQL's binlog_group_commit_sync_delay wait the same
// way for a configured time; here both the count and the longest wait are
// measured: the writers the last sync answered plus those queued or written
// when it ended, for at most a share of the recent syncs' duration (below;
// a wait in vain costs less than one sync's time, and pauses waiting). A
// lone writer never waits, and neither does the sync stage (SyncStage).
void EmbeddedStore::GatherCohort() {
  if (cohort_ <= 1 || sync_nanos_ <= 0 || sync_failed_.load()) return;
  if (gather_pause_ > 0) {
    --gather_pause_;
    return;
  }
  auto unsynced_writers = [this] {
    MutexLock lock(&unsynced_mu_);
    return unsynced_.through - done_through_.load(std::memory_order_acquire);
  };
  const std::uint64_t written = unsynced_writers();
  if (written == 0 || written >= cohort_) return;
  // Waiting delays the answers of the `written` writers to gain the others
  // a sync: it pays only if the leader writes the missing ones faster than
  // the cohort would be answered without waiting (a share of a sync's time
  // as large as their share of the cohort). Past that, the writes are what
  // bounds (64 writers on two cores), not the syncs.
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::nanoseconds(sync_nanos_ * static_cast<std::int64_t>(cohort_ - written) /
                               static_cast<std::int64_t>(cohort_));
  gathering_.store(true);
  for (bool waited = false;; waited = true) {
    const std::uint32_t generation = written_.Generation();
    const std::uint64_t unsynced = unsynced_writers();
    if (unsynced >= cohort_) {
      if (waited) gather_backoff_ = kGatherPauseSyncs;  // waiting pays: keep at it
      break;
    }
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds::zero()) {
      // They did not come in time (writers that think between appends,
      // fewer writers than before, or more than the leader writes in one
      // sync's time, as 64 writers on two cores): start the next syncs
      // without waiting, twice as many after each wait in vain.
      gather_pause_ = gather_backoff_;
      gather_backoff_ = std::min(2 * gather_backoff_, kGatherPauseMaxSyncs);
      break;
    }
    written_.WaitFor(generation, left);
  }
  gathering_.store(false);
}

void EmbeddedStore::LearnCohort(std::size_t finished, std::uint64_t through,
                                std::int64_t sync_nanos) {
  std::uint64_t in_flight;
  {
    MutexLock lock(&writers_mu_);
    in_flight = last_ticket_ - through;
  }
  cohort_ = finished + in_flight;
  // A moving average: one slow sync does not make every wait long.
  if (sync_nanos > 0)
    sync_nanos_ = sync_nanos_ == 0 ? sync_nanos : (7 * sync_nanos_ + sync_nanos) / 8;
}

Status EmbeddedStore::WriteCheckpoint(const std::string& key, const std::string* value) {
  Writer writer;
  writer.checkpoint_key = &key;
  writer.checkpoint_value = value;
  writer.bytes = key.size() + (value ? value->size() : 0);
  Submit({&writer});
  if (!writer.result->ok()) return writer.result->status();
  return Status::Ok();
}

}  // namespace indelible::storage::embedded
