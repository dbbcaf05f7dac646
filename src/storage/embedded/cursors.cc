// Read cursors of the embedded engine. Both read through RocksDB iterators,
// which pin an implicit snapshot: a cursor never sees a commit made after it.
#include <fmt/format.h>

#include "core/text.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"

namespace indelible::storage::embedded {
namespace {

// $all: one iterator over the log, keys are positions in order.
class LogCursor final : public AllCursor {
 public:
  LogCursor(const EmbeddedStore& store, ReadAllOptions options, Position end)
      : options_(std::move(options)), next_(std::max<std::uint64_t>(options_.from.value(), 1)) {
    upper_ = PositionKey(end.next());
    upper_slice_ = rocksdb::Slice(upper_);
    rocksdb::ReadOptions read;
    read.iterate_upper_bound = &upper_slice_;
    read.readahead_size = 2 * 1024 * 1024;  // long scans: read ahead
    it_.reset(store.db()->NewIterator(read, store.log()));
    it_->Seek(PositionKey(Position(next_)));
    Settle();
  }
  bool Valid() const override { return valid_; }
  void Next() override {
    ++returned_;
    it_->Next();
    Settle();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  Position next_position() const override { return valid_ ? view_.position : Position(next_); }

 private:
  // Moves to the first matching event at or after the iterator.
  void Settle() {
    valid_ = false;
    if (returned_ >= options_.limit) return;
    // The iterator stands on an event not yet looked at: the budget
    // (ReadAllOptions::max_scan) is checked before each one.
    for (; scanned_ < options_.max_scan && it_->Valid(); it_->Next()) {
      ++scanned_;
      std::string_view key = ToView(it_->key());
      if (std::string why = DecodeEvent(key, ToView(it_->value()), false, &view_); !why.empty()) {
        status_ = Status::Internal(fmt::format("event at position {}: {} (run `indelible check`)",
                                               DecodePositionKey(key).value(), why));
        return;
      }
      next_ = view_.position.value() + 1;
      if (options_.filter.empty() || options_.filter.Matches(view_.stream, view_.type)) {
        valid_ = true;
        return;
      }
    }
    if (!it_->status().ok()) status_ = FromRocks(it_->status(), "reading $all");
  }

  const ReadAllOptions options_;
  std::string upper_;
  rocksdb::Slice upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
  std::uint64_t next_;
  std::size_t returned_ = 0;
  std::size_t scanned_ = 0;  // events looked at (ReadAllOptions::max_scan)
  bool valid_ = false;
  EventView view_;
  Status status_;
};

// A stream: one iterator over the stream's index entries and one over the
// log. Each index entry says how many events its append wrote from there on
// (its run, at consecutive positions), so a forward read walks the log for
// the rest of the run and touches the index once per append. Elsewhere the
// log iterator first tries one step (neighbours are common) and seeks only
// when that misses.
class StreamIndexCursor final : public StreamCursor {
 public:
  StreamIndexCursor(const EmbeddedStore& store, EmbeddedStore::View view, std::string_view stream,
                    const ReadStreamOptions& options, std::int64_t from, std::int64_t low,
                    std::int64_t high)
      : stream_(stream),
        forward_(options.direction == Direction::kForward),
        limit_(options.limit),
        low_(low),
        high_(high),
        next_(from),
        snapshot_(std::move(view)),
        db_(store.db()) {
    lower_ = StreamVersionKey(stream, low);
    upper_ = StreamVersionKey(stream, high + 1);
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    // Both iterators read the view the head was read from. (A follower
    // has none, but its view moves only on catch-up, and the log iterator,
    // made second, can only be newer than the index: harmless.)
    rocksdb::ReadOptions read = EmbeddedStore::ReadAt(snapshot_);
    read.iterate_lower_bound = &lower_slice_;
    read.iterate_upper_bound = &upper_slice_;
    index_.reset(db_->NewIterator(read, store.streams()));
    log_.reset(db_->NewIterator(EmbeddedStore::ReadAt(snapshot_), store.log()));
    if (next_ < low_ || next_ > high_) return;
    SeekIndex();
    Settle();
  }
  bool Valid() const override { return valid_; }
  void Next() override {
    ++returned_;
    next_ += forward_ ? 1 : -1;
    valid_ = false;
    if (returned_ >= limit_ || next_ < low_ || next_ > high_) return;
    if (run_left_ > 0) {
      --run_left_;
      index_stale_ = true;
      const Position expected = view_.position.next();
      log_->Next();
      if (log_->Valid() && DecodePositionKey(ToView(log_->key())) == expected && Decode(expected) &&
          view_.version.value() == next_) {
        valid_ = true;
        return;
      }
      if (!status_.ok()) return;
      run_left_ = 0;  // the run did not hold: fall back to the index
    }
    if (index_stale_) {
      SeekIndex();
    } else if (forward_) {
      index_->Next();
    } else {
      index_->Prev();
    }
    Settle();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  std::optional<StreamVersion> next_version() const override { return NextVersionOrNone(next_); }

 private:
  void SeekIndex() {
    index_stale_ = false;
    const std::string start = StreamVersionKey(stream_, next_);
    if (forward_) {
      index_->Seek(start);
    } else {
      index_->SeekForPrev(start);
    }
  }

  bool Decode(Position position) {
    if (std::string why = DecodeEvent(ToView(log_->key()), ToView(log_->value()), false, &view_);
        !why.empty()) {
      status_ = Status::Internal(fmt::format("event at position {}: {}", position.value(), why));
      return false;
    }
    return true;
  }

  // Reads the event of the index entry under index_.
  void Settle() {
    valid_ = false;
    if (!index_->Valid()) {
      if (!index_->status().ok()) status_ = FromRocks(index_->status(), "reading a stream");
      return;
    }
    auto entry = DecodeStreamEntry(ToView(index_->key()), ToView(index_->value()), false);
    if (!entry) {
      status_ = Status::Internal("a stream index entry is corrupt (run `indelible check`)");
      return;
    }
    const std::string key = PositionKey(entry->position);
    if (log_->Valid()) {
      if (forward_) {
        log_->Next();
      } else {
        log_->Prev();
      }
    }
    if (!log_->Valid() || ToView(log_->key()) != key) log_->Seek(key);
    if (!log_->Valid() || ToView(log_->key()) != key) {
      status_ = log_->status().ok()
                    ? Status::Internal(fmt::format("stream index points at position {}, which is "
                                                   "missing from the log (run `indelible check`)",
                                                   entry->position.value()))
                    : FromRocks(log_->status(), "reading a stream");
      return;
    }
    if (!Decode(entry->position)) return;
    next_ = view_.version.value();
    run_left_ = forward_ ? entry->run - 1 : 0;
    valid_ = true;
  }

  const std::string stream_;
  const bool forward_;
  const std::size_t limit_;
  const std::int64_t low_, high_;
  std::int64_t next_;
  const EmbeddedStore::View snapshot_;  // outlives the iterators below
  rocksdb::DB* const db_;
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  std::unique_ptr<rocksdb::Iterator> index_, log_;
  std::uint32_t run_left_ = 0;  // events of the current run still ahead in the log
  bool index_stale_ = false;    // index_ lags behind next_ after walking a run
  std::size_t returned_ = 0;
  bool valid_ = false;
  EventView view_;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<StreamCursor>> EmbeddedStore::ReadStream(std::string_view stream,
                                                                const ReadStreamOptions& options) {
  View view = ConsistentView();
  auto head = HeadAt(view, stream);
  if (!head.ok()) return head.status();
  auto plan = storage::PlanStreamRead(stream, *head, options);
  if (!plan.ok()) return plan.status();
  return std::unique_ptr<StreamCursor>(new StreamIndexCursor(
      *this, std::move(view), stream, options, plan->from, plan->low, plan->high));
}

Result<std::unique_ptr<AllCursor>> EmbeddedStore::ReadAll(const ReadAllOptions& options) {
  return std::unique_ptr<AllCursor>(new LogCursor(*this, options, LastPosition()));
}

}  // namespace indelible::storage::embedded
