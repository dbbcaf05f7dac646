#include "storage/embedded/id_indexer.h"

#include <fmt/format.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <span>

#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"
#include "storage/embedded/writer.h"

namespace indelible::storage::embedded {
namespace {

// Ids per round at most: bounds the round's memory.
constexpr std::size_t kMaxBatchIds = 16 * 1024;
// The indexer writes when this many durable ids wait, or every kRoundDelay
// when fewer do, in writes of kWriteIds. Its writes share RocksDB's one
// write path with the commits, so each write holds a commit back for as
// long as its ids take to go into the memtable (~1 us each). Measured
// (ledger-append v1 and HTTP appends, 5 runs each against format 2):
// after every sync, one writer lost 7 % and eight 11 % (a wake-up and a
// write into the log between two syncs); rounds of 4,096 put the HTTP
// appends' p99 up from 3.1 to 4.2 ms (a burst of ~4 ms of writes), of 512
// to 3.4 ms, of 128 or 256 within the noise of format 2 (3.26 against
// 3.14 ms). An unindexed id costs only memory: it is found here.
constexpr std::uint64_t kRoundIds = 256;
constexpr auto kRoundDelay = std::chrono::milliseconds(50);
constexpr std::size_t kWriteIds = 256;

}  // namespace

IdIndexer::IdIndexer(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* defaults,
                     rocksdb::ColumnFamilyHandle* ids, Position indexed)
    : db_(db), defaults_(defaults), ids_(ids) {
  durable_.store(indexed.value());
  indexed_.store(indexed.value());
  thread_ = std::thread([this] { Run(); });
}

IdIndexer::~IdIndexer() { Stop(); }

void IdIndexer::Add(Ids ids) {
  if (ids.empty()) return;
  MutexLock lock(&mu_);
  for (const auto& [id, position] : ids) pending_.emplace(id, position);
  groups_.push_back(std::move(ids));
}

std::optional<Position> IdIndexer::Find(const EventId& id) const {
  MutexLock lock(&mu_);
  if (pending_.empty()) return std::nullopt;
  auto it = pending_.find(id);
  if (it == pending_.end()) return std::nullopt;
  return it->second;
}

void IdIndexer::Durable(Position last) {
  // The store and the load below pair with Run's (sequentially consistent):
  // either Run sees this position, or this sees it asleep and wakes it.
  durable_.store(last.value());
  if (sleeping_.load() && last.value() - indexed_.load() >= kRoundIds) wake_.NotifyAll();
}

void IdIndexer::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  wake_.NotifyAll();
  thread_.join();
}

void IdIndexer::TakeDurable(Ids* out) {
  const std::uint64_t durable = durable_.load();
  MutexLock lock(&mu_);
  while (!groups_.empty() && groups_.front().back().second.value() <= durable &&
         out->size() < kMaxBatchIds) {
    out->insert(out->end(), groups_.front().begin(), groups_.front().end());
    groups_.pop_front();
  }
}

rocksdb::Status IdIndexer::Write(std::span<const std::pair<EventId, Position>> ids) {
  rocksdb::WriteBatch batch;
  for (const auto& [id, position] : ids)
    batch.Put(ids_, ToSlice(IdKey(id)), EncodeEventId(id, position));
  // The ids are in position order, so every event up to the last one has
  // its entry once this batch is in.
  batch.Put(defaults_, ToSlice(kIdsIndexedKey), EncodeIdsIndexed(ids.back().second));
  // No sync: the log's next sync covers it, and what a crash takes back is
  // indexed again from the log at the next open.
  return db_->Write(rocksdb::WriteOptions(), &batch);
}

void IdIndexer::Run() {
  Ids taken;
  auto next_round = std::chrono::steady_clock::now() + kRoundDelay;
  for (;;) {
    const std::uint32_t generation = wake_.Generation();
    const bool stopping = stop_.load();
    const std::uint64_t waiting = durable_.load() - indexed_.load();
    const auto now = std::chrono::steady_clock::now();
    if (waiting > 0 && (stopping || waiting >= kRoundIds || now >= next_round)) {
      next_round = now + kRoundDelay;
      const std::uint64_t before = indexed_.load();
      const bool wrote = IndexDurable(&taken);
      if (stopping) {
        if (indexed_.load() > before) continue;  // more than one batch waits
        return;  // a failed write: the next open indexes from the log
      }
      if (!wrote) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (stopping) return;
    sleeping_.store(true);
    // Checked again after saying so: a Durable in between either is seen
    // here or sees sleeping_ and bumps the generation.
    if (durable_.load() - indexed_.load() < kRoundIds && !stop_.load())
      wake_.WaitFor(generation, waiting > 0 ? next_round - now : kRoundDelay);
    sleeping_.store(false);
  }
}

bool IdIndexer::IndexDurable(Ids* taken) {
  taken->clear();
  const std::uint64_t cpu_start = ThreadCpuNanos();
  TakeDurable(taken);
  const Ids& ids = *taken;
  for (std::size_t done = 0; done < ids.size(); done += kWriteIds) {
    const std::span<const std::pair<EventId, Position>> chunk(
        ids.data() + done, std::min(kWriteIds, ids.size() - done));
    if (rocksdb::Status s = Write(chunk); !s.ok()) {
      // The rest stay findable here; the log has the events, so nothing is
      // lost if this never succeeds (the next open indexes from the log).
      MutexLock lock(&mu_);
      groups_.emplace_front(ids.begin() + static_cast<std::ptrdiff_t>(done), ids.end());
      return false;
    }
    indexed_.store(chunk.back().second.value());
    // Forgotten only now that RocksDB has them (see Operation).
    MutexLock lock(&mu_);
    for (const auto& entry : chunk) pending_.erase(entry.first);
  }
  cpu_ns_.fetch_add(ThreadCpuNanos() - cpu_start, std::memory_order_relaxed);
  return true;
}

Result<Position> IdIndexer::IndexFromLog(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* defaults,
                                         rocksdb::ColumnFamilyHandle* log,
                                         rocksdb::ColumnFamilyHandle* ids, Position from) {
  Position through = from;
  rocksdb::WriteBatch batch;
  auto flush = [&]() -> Status {
    batch.Put(defaults, ToSlice(kIdsIndexedKey), EncodeIdsIndexed(through));
    rocksdb::Status s = db->Write(rocksdb::WriteOptions(), &batch);
    batch.Clear();
    return FromRocks(s, "indexing the ids of the log's last events");
  };
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), log));
  std::size_t staged = 0;
  for (it->Seek(PositionKey(Position(from.value() + 1))); it->Valid(); it->Next()) {
    EventView event;
    if (std::string why = DecodeEvent(ToView(it->key()), ToView(it->value()), true, &event);
        !why.empty())
      return Status::Internal(fmt::format("event at position {}: {} (run `indelible check`)",
                                          DecodePositionKey(ToView(it->key())).value(), why));
    through = DecodePositionKey(ToView(it->key()));
    batch.Put(ids, ToSlice(IdKey(event.id)), EncodeEventId(event.id, through));
    if (++staged % kMaxBatchIds == 0)
      if (Status s = flush(); !s.ok()) return s;
  }
  if (!it->status().ok()) return FromRocks(it->status(), "reading the log's last events");
  if (staged % kMaxBatchIds != 0)
    if (Status s = flush(); !s.ok()) return s;
  return through;
}

}  // namespace indelible::storage::embedded
