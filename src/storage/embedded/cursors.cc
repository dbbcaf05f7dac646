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
      if (std::string why = DecodeEvent(key, ToView(it_->value()), false, &view_, &tags_);
          !why.empty()) {
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
  std::vector<std::string> tags_;  // view_.tags views them
  EventView view_;
  Status status_;
};

// A stream: one iterator over the stream's append entries and one over the
// log. An append entry covers the append's versions, whose events sit at
// consecutive positions, so a read touches the index once per append and
// otherwise steps the log iterator (forward or back) from event to event.
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
    // The entry covering `low` may start before it (a read from a version
    // inside an append): the index is bounded by the stream, not by `low`.
    lower_ = StreamKeyPrefix(stream);
    upper_ = StreamVersionKey(stream, high + 1);
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    // Both iterators read the view the head was read from. (A follower
    // has none, but its view moves only on catch-up, and the log iterator,
    // made second, can only be newer than the index: harmless.)
    rocksdb::ReadOptions read = EmbeddedStore::ReadAt(snapshot_);
    read.iterate_lower_bound = &lower_slice_;
    read.iterate_upper_bound = &upper_slice_;
    index_.reset(db_->NewIterator(read, store.appends()));
    log_.reset(db_->NewIterator(EmbeddedStore::ReadAt(snapshot_), store.log()));
    if (next_ < low_ || next_ > high_) return;
    index_->SeekForPrev(StreamVersionKey(stream, next_));
    if (EnterEntry()) Load(/*adjacent=*/false);
  }
  bool Valid() const override { return valid_; }
  void Next() override {
    ++returned_;
    next_ += forward_ ? 1 : -1;
    valid_ = false;
    if (returned_ >= limit_ || next_ < low_ || next_ > high_) return;
    if (next_ < entry_first_ || next_ >= entry_first_ + entry_.count) {
      if (forward_) {
        index_->Next();
      } else {
        index_->Prev();
      }
      if (!EnterEntry()) return;
    }
    Load(/*adjacent=*/true);
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  std::optional<StreamVersion> next_version() const override {
    return store::NextVersionOrNone(next_);
  }

 private:
  // Whether the entry under index_ covers next_.
  bool Covering() const {
    if (!index_->Valid()) return false;
    std::string_view name;
    std::int64_t first = 0;
    if (!DecodeStreamVersionKey(ToView(index_->key()), &name, &first) || name != stream_ ||
        next_ < first)
      return false;
    auto entry = DecodeAppendEntry(ToView(index_->key()), ToView(index_->value()), false);
    return entry && next_ < first + entry->count;
  }

  // Where no entry covers next_ because a scavenge removed its version
  // (the stream's "scavenged/" record says from where it kept them), a
  // forward read goes on at the first kept version and a backward one
  // ends. kNone: nothing was removed there (a missing entry is an error).
  enum class Removal { kNone, kSkipped, kEnd };
  Removal SkipRemoved() {
    const std::string key = ScavengedKey(stream_);
    std::string value;
    if (!db_->Get(EmbeddedStore::ReadAt(snapshot_), db_->DefaultColumnFamily(), ToSlice(key),
                  &value)
             .ok())
      return Removal::kNone;
    auto kept_from = DecodeScavenged(key, value);
    if (!kept_from || kept_from->value() <= next_) return Removal::kNone;
    if (!forward_ || kept_from->value() > high_) return Removal::kEnd;
    next_ = kept_from->value();
    index_->SeekForPrev(StreamVersionKey(stream_, next_));
    return Removal::kSkipped;
  }

  // Reads the entry under index_, which must cover next_ (or follow a
  // scavenge's removal to the entry that does).
  bool EnterEntry() {
    if (!Covering() && SkipRemoved() == Removal::kEnd) return false;
    if (!index_->Valid()) {
      status_ = index_->status().ok()
                    ? Status::Internal(fmt::format(
                          "stream '{}' has no index entry for version {} (run `indelible check`)",
                          Printable(stream_), next_))
                    : FromRocks(index_->status(), "reading a stream");
      return false;
    }
    std::string_view name;
    std::int64_t first = 0;
    auto entry = DecodeStreamVersionKey(ToView(index_->key()), &name, &first)
                     ? DecodeAppendEntry(ToView(index_->key()), ToView(index_->value()), false)
                     : std::nullopt;
    if (!entry || name != stream_ || next_ < first || next_ >= first + entry->count) {
      status_ = Status::Internal(fmt::format(
          "stream '{}': the index entry for version {} is corrupt or missing (run `indelible "
          "check`)",
          Printable(stream_), next_));
      return false;
    }
    entry_ = *entry;
    entry_first_ = first;
    return true;
  }

  // Reads the event of version next_ from the log: one step of the log
  // iterator when the previous event was its neighbour, else a seek.
  void Load(bool adjacent) {
    const Position position(entry_.first_position.value() +
                            static_cast<std::uint64_t>(next_ - entry_first_));
    const std::string key = PositionKey(position);
    if (adjacent && log_->Valid()) {
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
                                                   position.value()))
                    : FromRocks(log_->status(), "reading a stream");
      return;
    }
    if (std::string why = DecodeEvent(key, ToView(log_->value()), false, &view_, &tags_);
        !why.empty()) {
      status_ = Status::Internal(fmt::format("event at position {}: {}", position.value(), why));
      return;
    }
    if (view_.version.value() != next_ || view_.stream != stream_) {
      status_ = Status::Internal(fmt::format(
          "position {} holds another event than stream '{}' version {} (run `indelible check`)",
          position.value(), Printable(stream_), next_));
      return;
    }
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
  AppendEntry entry_;             // the append entry covering next_
  std::int64_t entry_first_ = 0;  // its first version
  std::size_t returned_ = 0;
  bool valid_ = false;
  std::vector<std::string> tags_;  // view_.tags views them
  EventView view_;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<StreamCursor>> EmbeddedStore::ReadStream(std::string_view stream,
                                                                const ReadStreamOptions& options) {
  View view = ConsistentView();
  auto head = HeadAt(view, stream);
  if (!head.ok()) return head.status();
  auto plan = store::PlanStreamRead(stream, *head, options);
  if (!plan.ok()) return plan.status();
  return std::unique_ptr<StreamCursor>(new StreamIndexCursor(
      *this, std::move(view), stream, options, plan->from, plan->low, plan->high));
}

Result<std::unique_ptr<AllCursor>> EmbeddedStore::ReadAll(const ReadAllOptions& options) {
  return std::unique_ptr<AllCursor>(new LogCursor(*this, options, LastPosition()));
}

}  // namespace indelible::storage::embedded
