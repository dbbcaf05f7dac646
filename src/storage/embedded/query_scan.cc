#include "storage/embedded/query_scan.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"

namespace indelible::storage::embedded {

ItemScan::ItemScan(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* log,
                   rocksdb::ColumnFamilyHandle* tags, const rocksdb::ReadOptions& read,
                   QueryItem item, bool forward, Position from, Position last)
    : item_(std::move(item)),
      forward_(forward),
      first_(forward ? std::max<std::uint64_t>(from.value(), 1) : 1),
      last_(forward ? last.value() : std::min(from.value(), last.value())) {
  if (first_ > last_) return;
  if (!item_.tags.empty()) {
    if (tags == nullptr) return;  // a format 3 folder: no event has tags
    for (const std::string& tag : item_.tags) {
      auto t = std::make_unique<TagIterator>();
      t->lower = TagKey(tag, first_);
      t->upper = TagKey(tag, last_.next());
      t->lower_slice = rocksdb::Slice(t->lower);
      t->upper_slice = rocksdb::Slice(t->upper);
      rocksdb::ReadOptions bounded = read;
      bounded.iterate_lower_bound = &t->lower_slice;
      bounded.iterate_upper_bound = &t->upper_slice;
      t->it.reset(db->NewIterator(bounded, tags));
      tags_.push_back(std::move(t));
    }
    SettleTags(forward_ ? first_ : last_);
    return;
  }
  log_lower_ = PositionKey(first_);
  log_upper_ = PositionKey(last_.next());
  log_lower_slice_ = rocksdb::Slice(log_lower_);
  log_upper_slice_ = rocksdb::Slice(log_upper_);
  rocksdb::ReadOptions bounded = read;
  bounded.iterate_lower_bound = &log_lower_slice_;
  bounded.iterate_upper_bound = &log_upper_slice_;
  log_.reset(db->NewIterator(bounded, log));
  if (forward_) {
    log_->SeekToFirst();
  } else {
    log_->SeekToLast();
  }
  SettleLog();
}

void ItemScan::Next() {
  valid_ = false;
  if (!tags_.empty()) {
    if (forward_ ? position_ >= last_ : position_ <= first_) return;
    SettleTags(forward_ ? position_.next() : Position(position_.value() - 1));
    return;
  }
  if (forward_) {
    log_->Next();
  } else {
    log_->Prev();
  }
  SettleLog();
}

bool ItemScan::TypeMatches(std::string_view type) const {
  return item_.types.empty() ||
         std::find(item_.types.begin(), item_.types.end(), type) != item_.types.end();
}

void ItemScan::Fail(Status status) {
  valid_ = false;
  status_ = std::move(status);
}

Position ItemScan::PositionOf(const TagIterator& t) {
  std::string_view tag;
  Position position;
  if (!DecodeTagKey(ToView(t.it->key()), &tag, &position)) {
    Fail(Status::Internal("a tag index key is malformed (run `indelible check`)"));
    return Position(0);
  }
  return position;
}

// Leapfrog: each iterator seeks to the target; one that lands further away
// makes its position the new target, until all land on the same one.
void ItemScan::SettleTags(Position target) {
  valid_ = false;
  while (true) {
    bool agreed = true;
    for (std::size_t i = 0; i < tags_.size(); ++i) {
      TagIterator& t = *tags_[i];
      const std::string key = TagKey(item_.tags[i], target);
      if (forward_) {
        t.it->Seek(key);
      } else {
        t.it->SeekForPrev(key);
      }
      if (!t.it->Valid()) {
        if (!t.it->status().ok()) Fail(FromRocks(t.it->status(), "reading the tag index"));
        return;
      }
      const Position at = PositionOf(t);
      if (!status_.ok()) return;
      if (at != target) {
        target = at;
        agreed = false;
        break;
      }
    }
    if (!agreed) continue;
    TagIterator& front = *tags_.front();
    auto type = DecodeTagEntry(ToView(front.it->key()), ToView(front.it->value()), false);
    if (!type)
      return Fail(Status::Internal(
          fmt::format("the tag index entry of position {} is corrupt (run `indelible check`)",
                      target.value())));
    if (TypeMatches(*type)) {
      valid_ = true;
      position_ = target;
      return;
    }
    if (forward_ ? target >= last_ : target <= first_) return;
    target = forward_ ? target.next() : Position(target.value() - 1);
  }
}

void ItemScan::SettleLog() {
  valid_ = false;
  for (; log_->Valid(); forward_ ? log_->Next() : log_->Prev()) {
    EventView view;
    const std::string_view key = ToView(log_->key());
    if (std::string why = DecodeEvent(key, ToView(log_->value()), false, &view); !why.empty())
      return Fail(Status::Internal(fmt::format("event at position {}: {} (run `indelible check`)",
                                               DecodePositionKey(key).value(), why)));
    if (TypeMatches(view.type)) {
      valid_ = true;
      position_ = view.position;
      return;
    }
  }
  if (!log_->status().ok()) Fail(FromRocks(log_->status(), "reading $all"));
}

}  // namespace indelible::storage::embedded
