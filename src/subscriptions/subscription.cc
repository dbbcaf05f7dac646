#include <indelible/subscription.h>

#include <algorithm>
#include <utility>

namespace indelible {
namespace {

Status Validate(const SubscriptionOptions& options) {
  if (options.page_events == 0)
    return Status::Invalid("page_events", "a subscription page must hold at least one event");
  if (options.page_bytes == 0)
    return Status::Invalid("page_bytes", "a subscription page must hold at least one byte");
  if (options.max_scan == 0)
    return Status::Invalid("max_scan", "a subscription read must look at one event at least");
  if (options.query) {
    if (!options.stream.empty())
      return Status::Invalid("query", "a query subscription reads $all; leave the stream empty");
    if (!options.filter.empty())
      return Status::Invalid("filter", "a query subscription takes no filter beside its query");
    return ValidateQuery(*options.query);
  }
  if (options.stream.empty()) return Status::Ok();
  if (!options.filter.empty())
    return Status::Invalid("filter",
                           "filters apply to $all subscriptions; a stream subscription "
                           "delivers every event of its stream");
  // Reserved names are allowed: `$parked-<group>` streams are read this way.
  return ValidateStreamName(options.stream, /*allow_reserved=*/true);
}

std::size_t PayloadBytes(const EventView& event) {
  return event.data.size() + event.metadata.size() + event.type.size() + event.stream.size();
}

}  // namespace

Subscription::Subscription(Store& store, SubscriptionOptions options)
    : store_(store),
      options_(std::move(options)),
      invalid_(Validate(options_)),
      position_(options_.after) {}

Result<SubscriptionBatch> Subscription::Next(std::chrono::milliseconds timeout) {
  if (!invalid_.ok()) return invalid_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    // Read LastPosition before the page: a commit that lands after the read
    // is then past `last`, so the wait below returns at once instead of
    // sleeping through it.
    const Position last = store_.LastPosition();
    auto batch = ReadPage();
    if (!batch.ok()) return batch.status();
    if (!batch->events.empty()) {
      if (batch->caught_up) caught_up_ = true;
      return batch;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!batch->caught_up) {
      // A scan budget of skipped events: read on while there is time.
      if (now >= deadline) return batch;
      continue;
    }
    if (!caught_up_) {
      caught_up_ = true;  // the caught-up signal comes at once, even empty
      return batch;
    }
    if (now >= deadline) return batch;
    store_.WaitForCommit(std::max(last, position_),
                         std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) +
                             std::chrono::milliseconds(1));
  }
}

Result<SubscriptionBatch> Subscription::ReadPage() {
  // A stream's events carry positions only where they are assigned at
  // commit; elsewhere (DynamoDB) a stream subscription reads $all, keeping
  // the stream's events alone.
  if (options_.query) return ReadQueryPage();
  if (options_.stream.empty() || !store_.traits().positions_at_commit) return ReadAllPage();
  return ReadStreamPage();
}

Result<SubscriptionBatch> Subscription::ReadAllPage() {
  ReadAllOptions read;
  read.from = position_.next();
  read.limit = options_.page_events;
  read.filter = options_.filter;
  read.max_scan = options_.max_scan;
  if (!options_.stream.empty()) read.filter.stream_prefixes = {options_.stream};
  auto cursor = store_.ReadAll(read);
  if (!cursor.ok()) return cursor.status();
  SubscriptionBatch batch;
  std::size_t bytes = 0, matched = 0;
  bool full_by_bytes = false;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    ++matched;
    if (!options_.stream.empty() && event.stream != options_.stream) continue;
    batch.events.push_back(event.ToOwned());
    bytes += PayloadBytes(event);
    if (bytes >= options_.page_bytes) {
      full_by_bytes = true;
      break;
    }
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  // The cursor's resume point is past the events the filter skipped too,
  // so a checkpoint does not make the next read scan them again.
  const Position scanned = full_by_bytes ? batch.events.back().position
                                         : Position((*cursor)->next_position().value() - 1);
  // A read that spanned max_scan positions may have stopped at the budget
  // rather than at the end: not caught up, and the next read goes on from
  // there (at worst one more read that finds the end). Each such page moves
  // position_ on by max_scan, so this cannot loop in place.
  const bool budget_spent =
      scanned > position_ && scanned.value() - position_.value() >= options_.max_scan;
  position_ = std::max(position_, scanned);
  batch.caught_up = !full_by_bytes && matched < options_.page_events && !budget_spent;
  return batch;
}

Result<SubscriptionBatch> Subscription::ReadQueryPage() {
  ReadQueryOptions read;
  read.from = position_.next();
  read.limit = options_.page_events;
  auto cursor = store_.ReadQuery(*options_.query, read);
  if (!cursor.ok()) return cursor.status();
  SubscriptionBatch batch;
  std::size_t bytes = 0;
  bool full_by_bytes = false;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    batch.events.push_back(event.ToOwned());
    bytes += PayloadBytes(event);
    if (bytes >= options_.page_bytes) {
      full_by_bytes = true;
      break;
    }
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  // Past the events the query skipped too, as for a filtered $all read.
  const Position scanned = full_by_bytes ? batch.events.back().position
                                         : Position((*cursor)->next_position().value() - 1);
  position_ = std::max(position_, scanned);
  batch.caught_up = !full_by_bytes && batch.events.size() < options_.page_events;
  return batch;
}

Result<SubscriptionBatch> Subscription::ReadStreamPage() {
  ReadStreamOptions read;
  read.from = next_version_;
  read.limit = options_.page_events;
  read.include_deleted = true;  // deliver the tombstone and a restarted life
  auto cursor = store_.ReadStream(options_.stream, read);
  if (!cursor.ok()) {
    // Not written yet: nothing to deliver until it is.
    if (cursor.status().code() == ErrorCode::kNotFound) return SubscriptionBatch{{}, true};
    return cursor.status();
  }
  SubscriptionBatch batch;
  std::size_t bytes = 0, read_events = 0;
  bool full_by_bytes = false;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    next_version_ = StreamVersion(event.version.value() + 1);
    ++read_events;
    // A resumed subscription starts reading the stream at version 0 and
    // skips what it delivered before (versions do not map to positions).
    if (event.position <= position_) continue;
    batch.events.push_back(event.ToOwned());
    position_ = event.position;
    bytes += PayloadBytes(event);
    if (bytes >= options_.page_bytes) {
      full_by_bytes = true;
      break;
    }
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  batch.caught_up = !full_by_bytes && read_events < options_.page_events;
  return batch;
}

}  // namespace indelible
