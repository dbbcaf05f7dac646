#include "store/query.h"

#include <fmt/format.h>

namespace indelible::store {
namespace {

class QueryFilterCursor final : public AllCursor {
 public:
  QueryFilterCursor(std::unique_ptr<AllCursor> inner, Query query, std::size_t limit)
      : inner_(std::move(inner)), query_(std::move(query)), limit_(limit) {
    SkipUnmatched();
  }
  bool Valid() const override { return passed_ < limit_ && inner_->Valid(); }
  void Next() override {
    ++passed_;
    inner_->Next();
    SkipUnmatched();
  }
  const EventView& event() const override { return inner_->event(); }
  Status status() const override { return inner_->status(); }
  Position next_position() const override { return inner_->next_position(); }

 private:
  void SkipUnmatched() {
    if (passed_ >= limit_) return;
    while (inner_->Valid() && !query_.Matches(inner_->event().type, inner_->event().tags))
      inner_->Next();
  }

  std::unique_ptr<AllCursor> inner_;
  Query query_;
  std::size_t limit_;
  std::size_t passed_ = 0;
};

}  // namespace

Status ConditionFailed(Position position) {
  return Status::ConditionConflict(
      fmt::format("the append condition failed: the event at position {} matches its query and "
                  "was written after the position the decision was made at; read again and decide "
                  "anew",
                  position.value()),
      position.value());
}

std::unique_ptr<AllCursor> FilterByQuery(std::unique_ptr<AllCursor> inner, Query query,
                                         std::size_t limit) {
  return std::make_unique<QueryFilterCursor>(std::move(inner), std::move(query), limit);
}

}  // namespace indelible::store

namespace indelible {

// The default: a scan of $all. Every backend of the library overrides it
// with an index; a Store written elsewhere still answers forward queries.
Result<std::unique_ptr<AllCursor>> Store::ReadQuery(const Query& query,
                                                    const ReadQueryOptions& options) {
  if (Status s = ValidateQuery(query); !s.ok()) return s;
  if (options.direction == Direction::kBackward)
    return Status::Invalid("direction", "this store reads queries forward only");
  ReadAllOptions all;
  all.from = options.from.value_or(Position(0));
  all.raw = options.raw;
  auto cursor = ReadAll(all);
  if (!cursor.ok()) return cursor.status();
  return store::FilterByQuery(std::move(*cursor), query, options.limit);
}

Result<std::vector<RecordedEvent>> ReadQueryEvents(Store& store, const Query& query,
                                                   const ReadQueryOptions& options) {
  auto cursor = store.ReadQuery(query, options);
  if (!cursor.ok()) return cursor.status();
  std::vector<RecordedEvent> events;
  for (; (*cursor)->Valid(); (*cursor)->Next()) events.push_back((*cursor)->event().ToOwned());
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  return events;
}

}  // namespace indelible
