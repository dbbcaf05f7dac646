// The positions one query item matches, read from the embedded engine's
// tag index or its log (docs/DCB.md, "What a read costs"). Private to the
// embedded backend: the query cursor merges one scan per item, and the
// group-commit leader runs them to check an AppendCondition.
#pragma once

#include <rocksdb/db.h>

#include <memory>
#include <string>
#include <vector>

#include "indelible/query.h"
#include "indelible/status.h"

namespace indelible::storage::embedded {

// Operation
//   An item with tags walks the index of each of its tags at once and
//   leapfrogs them (each iterator seeks to the furthest one's position
//   until all stand on the same one): the cost follows the rarest tag, not
//   the store. The entry's value holds the event's type, so the item's
//   types need no read of the event. An item of types alone (or the empty
//   item of Query::All) walks the log.
//
//   Forward, the scan passes the positions in [from, last] rising;
//   backward, those in [1, from] falling (from capped at last).
//
// Concurrency: one thread; `read` (its snapshot) and the DB outlive it.
class ItemScan {
 public:
  ItemScan(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* log, rocksdb::ColumnFamilyHandle* tags,
           const rocksdb::ReadOptions& read, QueryItem item, bool forward, Position from,
           Position last);
  ItemScan(const ItemScan&) = delete;
  ItemScan& operator=(const ItemScan&) = delete;

  bool Valid() const { return valid_; }
  // REQUIRES: Valid()
  Position position() const { return position_; }
  void Next();
  Status status() const { return status_; }

 private:
  struct TagIterator {
    std::string lower, upper;
    rocksdb::Slice lower_slice, upper_slice;
    std::unique_ptr<rocksdb::Iterator> it;
  };
  // Moves every tag iterator to the first position at or past `target` in
  // the scan's direction where all agree and the type matches.
  void SettleTags(Position target);
  void SettleLog();
  bool TypeMatches(std::string_view type) const;
  Position PositionOf(const TagIterator& t);
  void Fail(Status status);

  const QueryItem item_;
  const bool forward_;
  const Position first_, last_;  // the range scanned, inclusive
  std::vector<std::unique_ptr<TagIterator>> tags_;
  std::string log_lower_, log_upper_;
  rocksdb::Slice log_lower_slice_, log_upper_slice_;
  std::unique_ptr<rocksdb::Iterator> log_;
  bool valid_ = false;
  Position position_;
  Status status_;
};

}  // namespace indelible::storage::embedded
