#include "storage/dynamodb/cursors.h"

#include <algorithm>
#include <deque>

#include "store/decide.h"

namespace indelible::dynamodb {
namespace {

// Events per request: DynamoDB answers at most 1 MB per Query anyway.
constexpr std::int64_t kPage = 1000;

class StreamItemsCursor final : public StreamCursor {
 public:
  StreamItemsCursor(StreamTable& table, std::string stream, const ReadStreamOptions& options,
                    std::int64_t from, std::int64_t low, std::int64_t high,
                    std::vector<RecordedEvent> first_page)
      : table_(table),
        stream_(std::move(stream)),
        forward_(options.direction == Direction::kForward),
        limit_(options.limit),
        next_(from),
        low_(low),
        high_(high) {
    for (auto& e : first_page)
      if (e.version.value() >= next_ && e.version.value() <= high_) page_.push_back(std::move(e));
    Seek();
  }
  bool Valid() const override { return current_ != nullptr; }
  void Next() override {
    ++returned_;
    next_ += forward_ ? 1 : -1;
    page_.pop_front();
    Seek();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  std::optional<StreamVersion> next_version() const override {
    return store::NextVersionOrNone(next_);
  }

 private:
  void Seek() {
    current_ = nullptr;
    if (returned_ >= limit_ || next_ < low_ || next_ > high_) return;
    if (page_.empty() && !Fetch()) return;
    if (page_.empty() || page_.front().version.value() != next_) {
      status_ = Status::Internal("DynamoDB stream read returned versions out of order");
      return;
    }
    current_ = &page_.front();
    view_ = current_->view();
  }
  bool Fetch() {
    const auto left = static_cast<std::int64_t>(std::min<std::size_t>(limit_ - returned_, kPage));
    const std::int64_t start = forward_ ? next_ : std::max(low_, next_ - left + 1);
    const std::int64_t count = forward_ ? std::min(left, high_ - next_ + 1) : next_ - start + 1;
    auto events = table_.ReadStream(stream_, StreamVersion(start), static_cast<std::size_t>(count));
    if (!events.ok()) {
      status_ = events.status();
      return false;
    }
    if (!forward_) std::reverse(events->begin(), events->end());
    for (auto& e : *events) page_.push_back(std::move(e));
    return true;
  }

  StreamTable& table_;
  const std::string stream_;
  const bool forward_;
  const std::size_t limit_;
  std::int64_t next_;
  const std::int64_t low_, high_;
  std::size_t returned_ = 0;
  std::deque<RecordedEvent> page_;  // the next events in the cursor's direction
  const RecordedEvent* current_ = nullptr;
  EventView view_;
  Status status_;
};

class IndexCursor final : public AllCursor {
 public:
  IndexCursor(AllIndex& index, const ReadAllOptions& options, Position end)
      : index_(index),
        options_(options),
        end_(end.value()),
        next_(std::max<std::uint64_t>(options.from.value(), 1)) {
    Seek();
  }
  bool Valid() const override { return current_ != nullptr; }
  void Next() override {
    ++returned_;
    page_.pop_front();
    Seek();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  Position next_position() const override {
    return current_ ? current_->position : Position(next_);
  }

 private:
  void Seek() {
    current_ = nullptr;
    while (returned_ < options_.limit && scanned_ < options_.max_scan) {
      if (page_.empty()) {
        if (next_ > end_) return;
        // A page need hold no more than the caller still wants (unfiltered)
        // or may still look at: a bounded scan queries no further.
        std::size_t want = std::min<std::size_t>(options_.max_scan - scanned_, kPage);
        if (options_.filter.empty()) want = std::min(want, options_.limit - returned_);
        // The filter lets the index skip fetching appends of streams it
        // cannot match (they come back without their events).
        auto events = index_.Read(Position(next_), Position(end_), want, &options_.filter);
        if (!events.ok()) {
          status_ = events.status();
          return;
        }
        if (events->empty()) return;
        for (auto& e : *events) page_.push_back(std::move(e));
      }
      RecordedEvent& e = page_.front();
      next_ = e.position.value() + 1;
      ++scanned_;
      if (options_.filter.Matches(e.stream, e.type)) {
        current_ = &e;
        view_ = e.view();
        return;
      }
      page_.pop_front();
    }
  }

  AllIndex& index_;
  const ReadAllOptions options_;
  const std::uint64_t end_;
  std::uint64_t next_;  // the position after the last one looked at
  std::size_t returned_ = 0;
  std::size_t scanned_ = 0;  // events looked at (ReadAllOptions::max_scan)
  std::deque<RecordedEvent> page_;
  const RecordedEvent* current_ = nullptr;
  EventView view_;
  Status status_;
};

}  // namespace

std::unique_ptr<StreamCursor> MakeStreamCursor(StreamTable& table, std::string stream,
                                               const ReadStreamOptions& options, std::int64_t from,
                                               std::int64_t low, std::int64_t high,
                                               std::vector<RecordedEvent> first_page) {
  return std::make_unique<StreamItemsCursor>(table, std::move(stream), options, from, low, high,
                                             std::move(first_page));
}

std::unique_ptr<AllCursor> MakeAllCursor(AllIndex& index, const ReadAllOptions& options,
                                         Position end) {
  return std::make_unique<IndexCursor>(index, options, end);
}

}  // namespace indelible::dynamodb
