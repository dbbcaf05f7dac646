// Read cursors of the embedded engine. Both read through RocksDB iterators,
// which pin an implicit snapshot: a cursor never sees a commit made after it.
#include <fmt/format.h>

#include "core/text.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"

namespace indelible::storage::embedded {
namespace {

// $all: one iterator over the log, keys are positions in order.
class AllCursor final : public EventCursor {
 public:
  AllCursor(const EmbeddedStore& store, ReadAllOptions options, Position end)
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
  std::int64_t resume_from() const override {
    return static_cast<std::int64_t>(valid_ ? view_.position.value() : next_);
  }

 private:
  // Moves to the first matching event at or after the iterator.
  void Settle() {
    valid_ = false;
    if (returned_ >= options_.limit) return;
    for (; it_->Valid(); it_->Next()) {
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
  bool valid_ = false;
  EventView view_;
  Status status_;
};

// A stream: one iterator over the stream's index entries and one over the
// log. Consecutive events of a stream are often neighbours in the log (they
// were appended together or the stream was busy), so the log iterator first
// tries one step and only seeks when that misses.
class StreamCursor final : public EventCursor {
 public:
  StreamCursor(const EmbeddedStore& store, std::string_view stream,
               const ReadStreamOptions& options, std::int64_t from, std::int64_t low,
               std::int64_t high)
      : forward_(options.direction == Direction::kForward),
        limit_(options.limit),
        low_(low),
        high_(high),
        next_(from) {
    lower_ = StreamVersionKey(stream, low);
    upper_ = StreamVersionKey(stream, high + 1);
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    rocksdb::ReadOptions read;
    read.iterate_lower_bound = &lower_slice_;
    read.iterate_upper_bound = &upper_slice_;
    // Both iterators see the same snapshot of the database.
    snapshot_ = store.db()->GetSnapshot();
    db_ = store.db();
    rocksdb::ReadOptions log_read;
    log_read.snapshot = snapshot_;
    read.snapshot = snapshot_;
    index_.reset(store.db()->NewIterator(read, store.streams()));
    log_.reset(store.db()->NewIterator(log_read, store.log()));
    if (next_ < low_ || next_ > high_) return;
    const std::string start = StreamVersionKey(stream, next_);
    if (forward_) {
      index_->Seek(start);
    } else {
      index_->SeekForPrev(start);
    }
    Settle();
  }
  ~StreamCursor() override {
    index_.reset();
    log_.reset();
    db_->ReleaseSnapshot(snapshot_);
  }
  bool Valid() const override { return valid_; }
  void Next() override {
    ++returned_;
    next_ += forward_ ? 1 : -1;
    if (forward_) {
      index_->Next();
    } else {
      index_->Prev();
    }
    Settle();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  std::int64_t resume_from() const override { return next_; }

 private:
  void Settle() {
    valid_ = false;
    if (returned_ >= limit_) return;
    if (!index_->Valid()) {
      if (!index_->status().ok()) status_ = FromRocks(index_->status(), "reading a stream");
      return;
    }
    auto position = DecodeStreamEntry(ToView(index_->key()), ToView(index_->value()), false);
    if (!position) {
      status_ = Status::Internal("a stream index entry is corrupt (run `indelible check`)");
      return;
    }
    const std::string key = PositionKey(*position);
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
                                                   position->value()))
                    : FromRocks(log_->status(), "reading a stream");
      return;
    }
    if (std::string why = DecodeEvent(key, ToView(log_->value()), false, &view_); !why.empty()) {
      status_ = Status::Internal(fmt::format("event at position {}: {}", position->value(), why));
      return;
    }
    next_ = view_.version.value();
    valid_ = true;
  }

  const bool forward_;
  const std::size_t limit_;
  const std::int64_t low_, high_;
  std::int64_t next_;
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  rocksdb::DB* db_ = nullptr;
  const rocksdb::Snapshot* snapshot_ = nullptr;
  std::unique_ptr<rocksdb::Iterator> index_, log_;
  std::size_t returned_ = 0;
  bool valid_ = false;
  EventView view_;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<EventCursor>> EmbeddedStore::ReadStream(std::string_view stream,
                                                               const ReadStreamOptions& options) {
  auto head = Head(stream);
  if (!head.ok()) return head.status();
  if (head->deleted && !options.include_deleted)
    return Status::NotFound(fmt::format("stream '{}' is deleted", Printable(stream)), true);
  const std::int64_t low = options.include_deleted ? 0 : head->first_version.value();
  const std::int64_t high = head->version.value();
  std::int64_t from;
  if (options.direction == Direction::kForward) {
    from = std::max(low, options.from ? options.from->value() : 0);
  } else {
    from = std::min(high, options.from ? options.from->value() : high);
  }
  return std::unique_ptr<EventCursor>(new StreamCursor(*this, stream, options, from, low, high));
}

Result<std::unique_ptr<EventCursor>> EmbeddedStore::ReadAll(const ReadAllOptions& options) {
  return std::unique_ptr<EventCursor>(new AllCursor(*this, options, LastPosition()));
}

}  // namespace indelible::storage::embedded
