// Store::ReadQuery on the embedded engine: one ItemScan per query item
// (query_scan.h), merged by position, each event then read from the log.
#include <fmt/format.h>

#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"
#include "storage/embedded/query_scan.h"

namespace indelible::storage::embedded {
namespace {

class QueryCursor final : public AllCursor {
 public:
  // `last`: the last position the cursor may see (LastPosition() when made).
  QueryCursor(const EmbeddedStore& store, EmbeddedStore::View view, const Query& query,
              const ReadQueryOptions& options, Position last)
      : db_(store.db()),
        log_(store.log()),
        view_(std::move(view)),
        forward_(options.direction == Direction::kForward),
        limit_(options.limit),
        last_(last) {
    const Position from =
        forward_ ? options.from.value_or(Position(1)) : options.from.value_or(last);
    next_ = forward_ ? std::max<std::uint64_t>(from.value(), 1) : std::min(from, last).value();
    const rocksdb::ReadOptions read = EmbeddedStore::ReadAt(view_);
    std::vector<QueryItem> items = query.items;
    if (items.empty()) items.emplace_back();  // Query::All: the log, unfiltered
    for (QueryItem& item : items)
      scans_.push_back(std::make_unique<ItemScan>(db_, log_, store.tags(), read, std::move(item),
                                                  forward_, from, last));
    Settle();
  }
  bool Valid() const override { return valid_; }
  void Next() override {
    ++returned_;
    for (auto& scan : scans_)
      if (scan->Valid() && scan->position() == view_event_.position) scan->Next();
    Settle();
  }
  const EventView& event() const override { return view_event_; }
  Status status() const override { return status_; }
  Position next_position() const override {
    return valid_ ? view_event_.position : Position(next_);
  }

 private:
  // The nearest position any scan stands on, read from the log.
  void Settle() {
    valid_ = false;
    if (returned_ >= limit_) return;
    std::optional<Position> nearest;
    for (const auto& scan : scans_) {
      if (!scan->status().ok()) {
        status_ = scan->status();
        return;
      }
      if (!scan->Valid()) continue;
      if (!nearest || (forward_ ? scan->position() < *nearest : scan->position() > *nearest))
        nearest = scan->position();
    }
    if (!nearest) {
      next_ = forward_ ? std::max(next_, last_.value() + 1) : 0;
      return;
    }
    const std::string key = PositionKey(*nearest);
    record_.Reset();
    rocksdb::Status s = db_->Get(EmbeddedStore::ReadAt(view_), log_, ToSlice(key), &record_);
    if (!s.ok()) {
      status_ = s.IsNotFound() ? Status::Internal(fmt::format(
                                     "the tag index names position {}, which is not in the log "
                                     "(run `indelible check`)",
                                     nearest->value()))
                               : FromRocks(s, "reading an event of a query");
      return;
    }
    if (std::string why = DecodeEvent(key, ToView(record_), false, &view_event_, &tags_);
        !why.empty()) {
      status_ = Status::Internal(fmt::format("event at position {}: {}", nearest->value(), why));
      return;
    }
    next_ = forward_ ? nearest->value() + 1 : nearest->value() - 1;
    valid_ = true;
  }

  rocksdb::DB* const db_;
  rocksdb::ColumnFamilyHandle* const log_;
  const EmbeddedStore::View view_;  // outlives the scans' iterators
  const bool forward_;
  const std::size_t limit_;
  const Position last_;
  std::vector<std::unique_ptr<ItemScan>> scans_;
  std::uint64_t next_ = 0;  // where to go on once the current event is passed
  std::size_t returned_ = 0;
  bool valid_ = false;
  rocksdb::PinnableSlice record_;
  std::vector<std::string> tags_;
  EventView view_event_;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<AllCursor>> EmbeddedStore::ReadQuery(const Query& query,
                                                            const ReadQueryOptions& options) {
  if (Status s = ValidateQuery(query); !s.ok()) return s;
  // The durable view is published before LastPosition moves (SyncWritten),
  // so a view taken after reading it holds every event up to it.
  const Position last = LastPosition();
  View view = ConsistentView();
  return std::unique_ptr<AllCursor>(new QueryCursor(*this, std::move(view), query, options, last));
}

}  // namespace indelible::storage::embedded
