#include "storage/dynamodb/cursors.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <deque>
#include <map>
#include <set>

#include "core/text.h"
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/batch_get.h"
#include "storage/dynamodb/scavenge.h"
#include "storage/dynamodb/tag_index.h"
#include "storage/dynamodb/tip.h"
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
    // Versions a scavenge removed (scavenge.h) are not read: the table's
    // read steps over them to the stream's floor, so either direction goes
    // on from the next version there is, and a backward read that finds
    // none is at the stream's start.
    if (!forward_ && page_.empty()) return;
    if (forward_ && !page_.empty() && page_.front().version.value() > next_) {
      next_ = page_.front().version.value();
      if (next_ > high_) return;
    }
    if (!forward_ && page_.front().version.value() < next_) next_ = page_.front().version.value();
    if (page_.empty() || page_.front().version.value() != next_) {
      status_ = Status::Internal("DynamoDB stream read returned versions out of order");
      return;
    }
    current_ = &page_.front();
    view_ = current_->view();
  }
  bool Fetch() {
    const auto left = static_cast<std::int64_t>(std::min<std::size_t>(limit_ - returned_, kPage));
    if (forward_) {
      auto events = table_.ReadStream(stream_, StreamVersion(next_),
                                      static_cast<std::size_t>(std::min(left, high_ - next_ + 1)));
      if (!events.ok()) {
        status_ = events.status();
        return false;
      }
      for (auto& e : *events) page_.push_back(std::move(e));
      return true;
    }
    // Backward: the versions up to next_, read forward. A read that stops
    // at a gap a scavenge made (it leaves items below its floor until it
    // is done) goes on after it; the table's read skips to the floor.
    std::vector<RecordedEvent> held;
    for (std::int64_t at = std::max(low_, next_ - left + 1); at <= next_;) {
      auto events =
          table_.ReadStream(stream_, StreamVersion(at), static_cast<std::size_t>(next_ - at + 1));
      if (!events.ok()) {
        status_ = events.status();
        return false;
      }
      if (events->empty()) break;
      const std::int64_t last = events->back().version.value();
      for (auto& e : *events)
        if (e.version.value() <= next_) held.push_back(std::move(e));
      at = last + 1;
    }
    for (auto it = held.rbegin(); it != held.rend(); ++it) page_.push_back(std::move(*it));
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
      if (!IsRemoved(e) && options_.filter.Matches(e.stream, e.type)) {
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

// One query item's candidates, in the read's direction: the entries of its
// chosen tag's index pages (of its types), or, for an item of types alone,
// the events of $all.
class QuerySource {
 public:
  // A candidate: an index entry (its event to be fetched) or an event.
  struct Candidate {
    std::int64_t position = 0;
    std::optional<TagEntry> entry;
    std::optional<RecordedEvent> event;
  };

  QuerySource(AllIndex& all, TagIndex& tags, QueryItem item, std::optional<std::string> tag,
              bool forward, std::int64_t from, std::int64_t end)
      : all_(all),
        tags_(tags),
        item_(std::move(item)),
        tag_(std::move(tag)),
        forward_(forward),
        next_(from),
        end_(end) {}

  // The next candidate's position; nullopt when there is none.
  Result<std::optional<std::int64_t>> Peek() {
    while (buffer_.empty() && !done_)
      if (Status s = Load(); !s.ok()) return s;
    if (buffer_.empty()) return std::optional<std::int64_t>();
    return std::optional<std::int64_t>(buffer_.front().position);
  }
  Candidate Take() {
    Candidate c = std::move(buffer_.front());
    buffer_.pop_front();
    return c;
  }

 private:
  static constexpr int kPagesPerQuery = 8;
  static constexpr std::size_t kScanPage = 256;

  bool InRange(std::int64_t position) const {
    return position >= 1 && position <= end_ && (forward_ ? position >= from_ : position <= from_);
  }
  bool Typed(const std::string& type) const {
    return item_.types.empty() ||
           std::find(item_.types.begin(), item_.types.end(), type) != item_.types.end();
  }

  Status Load() {
    if (next_ < 1 || (forward_ && next_ > end_)) {
      done_ = true;
      return Status::Ok();
    }
    if (!tag_) return LoadScan();
    if (first_) {
      first_ = false;
      from_ = next_;
      if (forward_) {
        // The page holding `from` may begin before it.
        auto page = tags_.PageAtOrBefore(*tag_, next_);
        if (!page.ok()) return page.status();
        if (*page) {
          Add(**page);
          next_ = (*page)->position + 1;
        }
        return Status::Ok();
      }
    }
    auto pages = tags_.Pages(*tag_, next_, forward_, kPagesPerQuery);
    if (!pages.ok()) return pages.status();
    for (const TagPage& page : *pages) {
      if (forward_ && page.position > end_) {
        done_ = true;
        return Status::Ok();
      }
      Add(page);
      next_ = forward_ ? page.position + 1 : page.position - 1;
    }
    if (static_cast<int>(pages->size()) < kPagesPerQuery) done_ = true;
    return Status::Ok();
  }

  void Add(const TagPage& page) {
    std::vector<const TagEntry*> kept;
    for (const TagEntry& e : page.entries)
      if (InRange(e.position) && Typed(e.type)) kept.push_back(&e);
    if (!forward_) std::reverse(kept.begin(), kept.end());
    for (const TagEntry* e : kept) buffer_.push_back(Candidate{e->position, *e, std::nullopt});
  }

  // An item of types alone: $all, a page at a time.
  Status LoadScan() {
    if (first_) {
      first_ = false;
      from_ = next_;
    }
    std::int64_t low = next_, high = next_;
    if (forward_) {
      high = end_;
    } else {
      low = std::max<std::int64_t>(1, next_ - static_cast<std::int64_t>(kScanPage) + 1);
    }
    auto events = all_.Read(Position(static_cast<std::uint64_t>(low)),
                            Position(static_cast<std::uint64_t>(high)), kScanPage);
    if (!events.ok()) return events.status();
    if (events->empty()) {
      done_ = true;
      return Status::Ok();
    }
    if (!forward_) std::reverse(events->begin(), events->end());
    for (auto& e : *events) {
      const auto position = static_cast<std::int64_t>(e.position.value());
      next_ = forward_ ? position + 1 : position - 1;
      if (!IsRemoved(e) && item_.Matches(e.type, e.tags))
        buffer_.push_back(Candidate{position, std::nullopt, std::move(e)});
    }
    if (!forward_ && low == 1) done_ = true;
    return Status::Ok();
  }

  AllIndex& all_;
  TagIndex& tags_;
  const QueryItem item_;
  const std::optional<std::string> tag_;
  const bool forward_;
  std::int64_t next_;  // the next page key (tags) or position (scan) to read
  std::int64_t from_ = 0;
  const std::int64_t end_;
  bool first_ = true;
  bool done_ = false;
  std::deque<Candidate> buffer_;
};

class QueryCursor final : public AllCursor {
 public:
  QueryCursor(TagIndex& tags, Query query, const ReadQueryOptions& options, std::int64_t end,
              std::vector<std::unique_ptr<QuerySource>> sources)
      : tags_(tags),
        query_(std::move(query)),
        forward_(options.direction == Direction::kForward),
        limit_(options.limit),
        end_(end),
        sources_(std::move(sources)) {
    if (forward_)
      next_ = std::max<std::int64_t>(
          options.from ? static_cast<std::int64_t>(options.from->value()) : 1, 1);
    else
      next_ = std::min<std::int64_t>(
          options.from ? static_cast<std::int64_t>(options.from->value()) : end_, end_);
    Seek();
  }
  bool Valid() const override { return !ready_.empty() && returned_ < limit_ && status_.ok(); }
  void Next() override {
    ++returned_;
    const auto position = static_cast<std::int64_t>(ready_.front().position.value());
    next_ = forward_ ? position + 1 : position - 1;
    ready_.pop_front();
    Seek();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return status_; }
  Position next_position() const override {
    if (Valid()) return ready_.front().position;
    return Position(static_cast<std::uint64_t>(std::max<std::int64_t>(next_, 0)));
  }

 private:
  static constexpr std::size_t kBatch = 100;  // BatchGetItem's keys

  void Seek() {
    if (returned_ >= limit_) return;
    while (ready_.empty() && status_.ok()) {
      auto filled = Fill();
      if (!filled.ok()) {
        status_ = filled;
        return;
      }
      if (exhausted_) break;
    }
    if (ready_.empty()) {
      if (status_.ok() && exhausted_) next_ = forward_ ? end_ + 1 : 0;
      return;
    }
    view_ = ready_.front().view();
  }

  // The next candidates (up to a batch), merged across the items without
  // repeats, their events fetched and checked against the whole query.
  Status Fill() {
    std::vector<QuerySource::Candidate> batch;
    while (batch.size() < kBatch) {
      std::optional<std::int64_t> best;
      for (auto& source : sources_) {
        auto head = source->Peek();
        if (!head.ok()) return head.status();
        if (*head && (!best || (forward_ ? **head < *best : **head > *best))) best = **head;
      }
      if (!best) {
        exhausted_ = true;
        break;
      }
      std::optional<QuerySource::Candidate> chosen;
      for (auto& source : sources_) {
        auto head = source->Peek();
        if (!head.ok()) return head.status();
        if (!*head || **head != *best) continue;
        QuerySource::Candidate c = source->Take();
        // An event a scan read needs no fetch: keep that one.
        if (!chosen || (c.event && !chosen->event)) chosen = std::move(c);
      }
      batch.push_back(std::move(*chosen));
    }
    if (batch.empty()) return Status::Ok();
    // The append items of the index entries.
    std::map<std::pair<std::string, std::int64_t>, std::vector<RecordedEvent>> appends;
    for (const auto& c : batch)
      if (!c.event)
        appends.emplace(std::pair(c.entry->stream, c.entry->append_first),
                        std::vector<RecordedEvent>());
    for (const bool consistent : {false, true}) {
      std::vector<boost::json::object> keys;
      for (const auto& [key, events] : appends)
        if (events.empty())
          keys.push_back(
              boost::json::object{{kStreamKey, S(key.first)}, {kVersionKey, N(key.second)}});
      if (keys.empty()) break;
      BatchGetOptions options;
      options.consistent = consistent;
      auto items = BatchGetItems(tags_.client(), tags_.table(), keys, options);
      if (!items.ok()) return items.status();
      for (const auto& item : *items) {
        auto parsed = ParseAppendItem(item);
        if (!parsed.ok()) return parsed.status();
        auto it = appends.find(std::pair(parsed->events.front().stream, parsed->first));
        if (it != appends.end()) it->second = std::move(parsed->events);
      }
    }
    // An item still missing was removed by a scavenge when the event is
    // below its stream's floor (scavenge.h): the entry is stepped over.
    std::set<std::string> missing;
    for (const auto& [key, events] : appends)
      if (events.empty()) missing.insert(key.first);
    std::map<std::string, std::int64_t> floors;
    if (!missing.empty()) {
      auto read = ReadFloors(tags_.client(), tags_.table(), missing);
      if (!read.ok()) return read.status();
      floors = std::move(*read);
    }
    for (auto& c : batch) {
      RecordedEvent event;
      if (c.event) {
        event = std::move(*c.event);
      } else {
        const auto& events = appends[std::pair(c.entry->stream, c.entry->append_first)];
        if (auto floor = floors.find(c.entry->stream);
            events.empty() && floor != floors.end() &&
            c.entry->append_first + c.entry->offset < floor->second)
          continue;
        if (c.entry->offset < 0 || c.entry->offset >= static_cast<std::int64_t>(events.size()))
          return Status::Internal(fmt::format(
              "the tag index refers to version {} of stream '{}', which {} does not hold",
              c.entry->append_first + c.entry->offset, Printable(c.entry->stream), tags_.table()));
        event = events[static_cast<std::size_t>(c.entry->offset)];
        event.position = Position(static_cast<std::uint64_t>(c.position));
      }
      if (query_.Matches(event.type, event.tags)) ready_.push_back(std::move(event));
    }
    // Past the candidates looked at, matching or not.
    const std::int64_t last = batch.back().position;
    if (ready_.empty()) next_ = forward_ ? last + 1 : last - 1;
    return Status::Ok();
  }

  TagIndex& tags_;
  const Query query_;
  const bool forward_;
  const std::size_t limit_;
  const std::int64_t end_;
  std::vector<std::unique_ptr<QuerySource>> sources_;
  std::int64_t next_ = 0;
  std::size_t returned_ = 0;
  bool exhausted_ = false;
  std::deque<RecordedEvent> ready_;
  EventView view_;
  Status status_;
};

}  // namespace

Result<std::unique_ptr<AllCursor>> MakeQueryCursor(AllIndex& all, TagIndex& tags,
                                                   const Query& query,
                                                   const ReadQueryOptions& options, Position end) {
  const bool forward = options.direction == Direction::kForward;
  const auto last = static_cast<std::int64_t>(end.value());
  std::int64_t from =
      forward ? std::max<std::int64_t>(
                    options.from ? static_cast<std::int64_t>(options.from->value()) : 1, 1)
              : std::min<std::int64_t>(
                    options.from ? static_cast<std::int64_t>(options.from->value()) : last, last);
  // An item of several tags reads its rarest tag's index (by the counters,
  // one BatchGetItem) and checks the others on the events.
  std::vector<std::string> named;
  for (const auto& item : query.items)
    if (item.tags.size() > 1) named.insert(named.end(), item.tags.begin(), item.tags.end());
  std::map<std::string, std::int64_t> counts;
  if (!named.empty()) {
    auto read = tags.Counters(named);
    if (!read.ok()) return read.status();
    counts = std::move(*read);
  }
  std::vector<std::unique_ptr<QuerySource>> sources;
  std::vector<QueryItem> items = query.items;
  // No items: every event, one scan of $all.
  if (items.empty()) items.push_back(QueryItem{});
  for (const auto& item : items) {
    std::optional<std::string> tag;
    if (!item.tags.empty()) {
      tag = item.tags.front();
      for (const auto& t : item.tags)
        if (counts[t] < counts[*tag]) tag = t;
    }
    sources.push_back(std::make_unique<QuerySource>(all, tags, item, tag, forward, from, last));
  }
  return std::unique_ptr<AllCursor>(
      std::make_unique<QueryCursor>(tags, query, options, last, std::move(sources)));
}

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
