#include "storage/dynamodb/index_rebuild.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <queue>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/text.h"
#include "storage/dynamodb/change_stream.h"
#include "storage/dynamodb/indexer.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {
namespace {

// Events read ahead per stream while merging: the rebuild holds at most this
// many events of each stream that still has events to add.
constexpr std::size_t kPageEvents = 256;
// Events gathered before they are chained (as chunks of AllIndex::kInlineBytes).
constexpr std::size_t kWriteEvents = 1000;
constexpr std::size_t kWriteBytes = 256 << 10;
// How long a change record may take to reach the stream after its write:
// the catch-up reads past what arrived this long after the scan. Records
// reach the stream in well under a second.
constexpr auto kRecordsArrive = std::chrono::seconds(2);
// How long an indexer whose lease ran out has to hand the index over
// before the rebuild takes it (an idle one notices within its state_check,
// 1 s by default).
constexpr auto kIdleHandover = std::chrono::seconds(3);

std::string RandomOwner() {
  std::random_device device;
  return fmt::format("rebuild-{:08x}{:08x}", device(), device());
}

using Heads = std::map<std::string, StreamHead>;

// One stream's events still to be indexed: a page in hand, the rest read
// when the page runs out.
struct Pending {
  std::string stream;
  std::int64_t next = 0;  // the next version to read from the table
  std::int64_t head = 0;  // the last version to index
  std::deque<RecordedEvent> page;
};

class Rebuild {
 public:
  Rebuild(StreamTable& events, AllIndex& index, aws::Client& streams, const std::string& stream_arn,
          const RebuildOptions& options)
      : events_(events),
        index_(index),
        streams_(streams),
        stream_arn_(stream_arn),
        options_(options),
        owner_(options.owner.empty() ? RandomOwner() : options.owner) {}

  Result<RebuildReport> Run() {
    if (Status s = TakeLease(); !s.ok()) return s;
    // Where the change stream ends before the scan: every append whose
    // record comes before it is in the scan; the catch-up reads the rest.
    auto end = StreamEnd();
    if (!end.ok()) return end.status();
    auto heads = events_.ScanHeads();
    if (!heads.ok()) return heads.status();
    const auto scanned = std::chrono::steady_clock::now();
    report_.streams = heads->size();
    if (options_.after_scan) options_.after_scan();
    if (Status s = KeepValidPrefix(*heads); !s.ok()) return s;
    if (Status s = AddMissing(*heads); !s.ok()) return s;
    return CatchUp(*heads, std::move(*end), scanned);
  }

 private:
  static Status Refused() {
    return Status::Unavailable(
        "another $all indexer wrote the index during the rebuild (one that did not notice the "
        "rebuild in time, or of an earlier release): run the rebuild again");
  }

  // Writes `after` as the checkpoint, fenced on the one last written, as
  // this rebuild's; a lease_until other than 0 (0: hand the lease back)
  // becomes a renewed lease.
  Status WriteState(IndexerState after) {
    after.owner = owner_;
    if (after.lease_until != 0) after.lease_until = UnixMillisNow() + options_.lease.count();
    Status written = index_.WriteCheckpoint(current_, &after);
    if (written.code() == ErrorCode::kConflict) return Refused();
    if (!written.ok()) return written;
    current_ = std::move(after);
    return Status::Ok();
  }

  // Chains `events` (positions current_.next, ...) as chunks of inline
  // events, each within AllIndex::kInlineBytes (an event at least).
  Status WriteEvents(const std::vector<RecordedEvent>& events) {
    std::size_t i = 0;
    while (i < events.size()) {
      Chunk chunk;
      chunk.position = current_.next;
      chunk.owner = owner_;
      chunk.lease_until = UnixMillisNow() + options_.lease.count();
      std::int64_t bytes = 200;  // keys, n, o, l and the attribute names
      // Consecutive versions of one stream make one entry. A removed
      // event is kept as a reference, which reads as removed again (its
      // item is gone and its version below the floor).
      auto add = [&](const RecordedEvent& event, bool in_chunk) {
        ChunkEntry* last = chunk.entries.empty() ? nullptr : &chunk.entries.back();
        if (last != nullptr && last->in_chunk == in_chunk && last->ref.stream == event.stream &&
            last->ref.first + last->ref.count == event.version.value()) {
          ++last->ref.count;
        } else {
          chunk.entries.push_back(
              ChunkEntry{AppendRef{event.stream, event.version.value(), 1}, in_chunk});
        }
        ++chunk.count;
      };
      for (; i < events.size(); ++i) {
        const RecordedEvent& event = events[i];
        if (IsRemoved(event)) {
          bytes += 8 + static_cast<std::int64_t>(event.stream.size());
          add(event, /*in_chunk=*/false);
          continue;
        }
        const std::int64_t adds = 4 + AllIndex::ItemBytes(EventItem(event)) +
                                  static_cast<std::int64_t>(event.stream.size()) + 32;
        if (!chunk.inline_events.empty() && bytes + adds > AllIndex::kInlineBytes) break;
        bytes += adds;
        add(event, /*in_chunk=*/true);
        chunk.inline_events.push_back(event);
      }
      Status written = index_.WriteChunk(chunk);
      if (written.code() == ErrorCode::kConflict) return Refused();
      if (!written.ok()) return written;
      current_.Apply(chunk);
    }
    return Status::Ok();
  }

  Status RenewIfDue() {
    if (UnixMillisNow() < current_.lease_until - options_.lease.count() / 2) return Status::Ok();
    return WriteState(current_);
  }

  // Step 1: the lease, from a live indexer by asking it to hand the index
  // over: the state is marked `rebuilding` with the holder's lease left as
  // it is; the holder notices within its state_check (indexer.h), writes no
  // more, and hands the lease back; an indexer that crashed lets it run out.
  Status TakeLease() {
    const auto deadline = std::chrono::steady_clock::now() + options_.handover_timeout;
    std::string asked;  // the holder asked to hand over
    std::chrono::steady_clock::time_point asked_at;
    for (;;) {
      auto state = index_.LoadState();
      if (!state.ok()) return state.status();
      current_ = std::move(*state);
      const std::int64_t now = UnixMillisNow();
      const bool held = current_.owner != owner_ && current_.lease_until > now;
      // An indexer whose lease ran out without handing it back may only be
      // idle (a lease lasts from its last chunk): it is asked too, and has
      // kIdleHandover to answer before it is taken for gone.
      const bool may_be_alive =
          !current_.owner.empty() && current_.owner != owner_ && current_.lease_until != 0 &&
          !current_.owner.starts_with("rebuild-") &&
          (asked != current_.owner || std::chrono::steady_clock::now() - asked_at < kIdleHandover);
      if (!held && !may_be_alive) {
        IndexerState after = current_;
        after.rebuilding = true;
        after.owner = owner_;
        after.lease_until = now + options_.lease.count();
        Status written = index_.WriteCheckpoint(current_, &after);
        if (written.code() == ErrorCode::kConflict) continue;  // another wrote: look again
        if (!written.ok()) return written;
        current_ = std::move(after);
        return Status::Ok();
      }
      if (held && current_.owner.starts_with("rebuild-"))
        return Status::Unavailable(fmt::format(
            "another rebuild of $all ('{}') holds the index for {} ms more: wait for it to "
            "finish",
            current_.owner, current_.lease_until - now));
      if (asked != current_.owner || !current_.rebuilding) {
        IndexerState request = current_;
        request.rebuilding = true;
        Status written = index_.WriteCheckpoint(current_, &request);
        if (written.code() == ErrorCode::kConflict) continue;
        if (!written.ok()) return written;
        if (asked != current_.owner) asked_at = std::chrono::steady_clock::now();
        asked = current_.owner;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        // Take the request back, unless the state moved on since.
        IndexerState after = current_;
        if (current_.rebuilding) {
          after.rebuilding = false;
          (void)index_.WriteCheckpoint(current_, &after);
        }
        return Status::Unavailable(fmt::format(
            "the $all indexer '{}' did not hand the index over in {} s (an indexer of an earlier "
            "release does not): stop the processes that index the store (indexer=1), or upgrade "
            "them, and run the rebuild again",
            current_.owner,
            std::chrono::duration_cast<std::chrono::seconds>(options_.handover_timeout).count()));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // The place after the last record of every shard, read from the index's
  // own places when they are of this stream (less to read).
  Result<std::map<std::string, ShardProgress>> StreamEnd() {
    auto shards = ListShards(streams_, stream_arn_);
    if (!shards.ok()) return shards.status();
    const bool same_stream = current_.stream_arn == stream_arn_;
    std::map<std::string, ShardProgress> end;
    for (const ShardInfo& shard : *shards) {
      ShardProgress from;
      if (auto known = current_.shards.find(shard.id);
          same_stream && known != current_.shards.end())
        from = known->second;
      auto read = ReadShardToEnd(streams_, stream_arn_, shard.id, from);
      if (!read.ok()) return read.status();
      end[shard.id] = *read;
      if (Status s = RenewIfDue(); !s.ok()) return s;
    }
    return end;
  }

  // Step 3: the stored index from position 1, kept while each event is
  // the next version of its stream and the table has it.
  Status KeepValidPrefix(const Heads& heads) {
    const std::int64_t last = current_.next - 1;
    std::int64_t position = 1;
    bool valid = true;
    while (valid && position <= last) {
      auto page = index_.ReadAsStored(
          Position(static_cast<std::uint64_t>(position)),
          static_cast<std::size_t>(std::min<std::int64_t>(1000, last - position + 1)));
      if (!page.ok()) return page.status();
      if (page->empty()) break;
      for (const RecordedEvent& event : *page) {
        auto head = heads.find(event.stream);
        auto known = indexed_.find(event.stream);
        std::int64_t expected = known == indexed_.end() ? 0 : known->second + 1;
        if (known == indexed_.end() && event.version.value() > 0) {
          // A stream a scavenge cut (scavenge.h) may begin at any version
          // up to its floor: those below were removed before it was
          // indexed here.
          auto floor = events_.Floor(event.stream);
          if (!floor.ok()) return floor.status();
          if (*floor && event.version.value() <= **floor) expected = event.version.value();
        }
        if (static_cast<std::int64_t>(event.position.value()) != position || head == heads.end() ||
            event.version.value() != expected || expected > head->second.version.value()) {
          valid = false;
          break;
        }
        indexed_[event.stream] = expected;
        if (++position > last) break;
      }
      if (Status s = RenewIfDue(); !s.ok()) return s;
    }
    report_.kept = static_cast<std::uint64_t>(position - 1);
    // Items past the kept part go, as far as the old chain went and a block
    // beyond (a chunk must not find one in its place). The chunk holding
    // the first wrong position goes too, and is written again with the
    // kept events it held.
    std::int64_t cut = position;
    std::vector<RecordedEvent> kept_in_cut_chunk;
    if (position <= last) {
      auto start = index_.ChunkStart(position);
      if (!start.ok()) return start.status();
      if (*start && **start < position) {
        cut = **start;
        auto kept = index_.ReadAsStored(Position(static_cast<std::uint64_t>(cut)),
                                        static_cast<std::size_t>(position - cut));
        if (!kept.ok()) return kept.status();
        for (RecordedEvent& event : *kept)
          if (static_cast<std::int64_t>(event.position.value()) < position)
            kept_in_cut_chunk.push_back(std::move(event));
        if (static_cast<std::int64_t>(kept_in_cut_chunk.size()) != position - cut)
          return Status::Internal("$all index: the kept part of a chunk could not be read again");
      }
    }
    auto removed = index_.RemoveFrom(cut, std::max(last, cut) + (std::int64_t{1} << kBlockBits));
    if (!removed.ok()) return removed.status();
    report_.removed = *removed - (kept_in_cut_chunk.empty() ? 0 : 1);
    if (cut == current_.next) return Status::Ok();
    // Cut the index: readers see only the kept part until the rebuild adds
    // the rest.
    current_.next = cut;
    if (Status s = WriteEvents(kept_in_cut_chunk); !s.ok()) return s;
    return WriteState(current_);
  }

  Status Refill(Pending& p) {
    const auto n = static_cast<std::size_t>(
        std::min<std::int64_t>(static_cast<std::int64_t>(kPageEvents), p.head - p.next + 1));
    auto read = events_.ReadStream(p.stream, StreamVersion(p.next), n);
    if (!read.ok()) return read.status();
    // Versions a scavenge removed: the read starts at the stream's floor.
    if (!read->empty() && read->front().version.value() > p.next) {
      p.next = read->front().version.value();
      while (!read->empty() && read->back().version.value() > p.head) read->pop_back();
      if (read->empty()) {
        p.next = p.head + 1;
        return Status::Ok();
      }
      const auto left = static_cast<std::size_t>(p.head - p.next + 1);
      if (read->size() > left) read->resize(left);
      for (RecordedEvent& event : *read) p.page.push_back(std::move(event));
      p.next += static_cast<std::int64_t>(read->size());
      return Status::Ok();
    }
    if (read->size() != n)
      return Status::Internal(fmt::format("stream '{}': versions {} to {} are not all in the table",
                                          Printable(p.stream), p.next, p.next + n - 1));
    for (RecordedEvent& event : *read) p.page.push_back(std::move(event));
    p.next += static_cast<std::int64_t>(n);
    return Status::Ok();
  }

  // Step 4: merge the streams' missing events by timestamp.
  Status AddMissing(const Heads& heads) {
    std::vector<Pending> pending;
    std::uint64_t total = 0;
    for (const auto& [stream, head] : heads) {
      auto known = indexed_.find(stream);
      const std::int64_t next = known == indexed_.end() ? 0 : known->second + 1;
      if (next > head.version.value()) continue;
      pending.push_back(Pending{stream, next, head.version.value(), {}});
      total += static_cast<std::uint64_t>(head.version.value() - next + 1);
    }
    if (options_.progress) options_.progress(0, total);
    // Orders by the front event's (timestamp, stream, version), smallest on
    // top: commit order as the writers' clocks saw it, version order within
    // a stream whatever the clocks said.
    auto later = [&](std::size_t a, std::size_t b) {
      const RecordedEvent& x = pending[a].page.front();
      const RecordedEvent& y = pending[b].page.front();
      if (x.timestamp_ms != y.timestamp_ms) return x.timestamp_ms > y.timestamp_ms;
      return x.stream > y.stream;
    };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> order(later);
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (Status s = Refill(pending[i]); !s.ok()) return s;
      order.push(i);
      if (Status s = RenewIfDue(); !s.ok()) return s;
    }
    std::vector<RecordedEvent> chunk;
    std::size_t chunk_bytes = 0;
    std::int64_t next_position = current_.next;
    auto flush = [&]() -> Status {
      if (Status s = WriteEvents(chunk); !s.ok()) return s;
      if (Status s = RenewIfDue(); !s.ok()) return s;
      report_.added += chunk.size();
      chunk.clear();
      chunk_bytes = 0;
      if (options_.progress) options_.progress(report_.added, total);
      return Status::Ok();
    };
    while (!order.empty()) {
      const std::size_t i = order.top();
      order.pop();
      Pending& p = pending[i];
      RecordedEvent event = std::move(p.page.front());
      p.page.pop_front();
      event.position = Position(static_cast<std::uint64_t>(next_position++));
      chunk_bytes += event.data.size() + event.metadata.size() + 256;
      chunk.push_back(std::move(event));
      if (p.page.empty() && p.next <= p.head)
        if (Status s = Refill(p); !s.ok()) return s;
      if (!p.page.empty()) order.push(i);
      if (chunk.size() >= kWriteEvents || chunk_bytes >= kWriteBytes)
        if (Status s = flush(); !s.ok()) return s;
    }
    if (!chunk.empty()) return flush();
    return Status::Ok();
  }

  // Step 6: from the stream's end as it was before the scan, the
  // indexer's own passes under this rebuild's lease, skipping the appends
  // the rebuild took from the table, until they reach the stream's end at
  // least kRecordsArrive after the scan; then a second scan checks that
  // every head is in $all, and the lease goes back with the catch-up's place.
  Result<RebuildReport> CatchUp(const Heads& heads, std::map<std::string, ShardProgress> end,
                                std::chrono::steady_clock::time_point scanned) {
    IndexerState after = current_;
    after.stream_arn = stream_arn_;
    after.shards = std::move(end);
    after.lease_until = 1;  // renewed by WriteState
    if (Status s = WriteState(std::move(after)); !s.ok()) return s;
    IndexerOptions catch_up;
    catch_up.stream_arn = stream_arn_;
    catch_up.owner = owner_;
    catch_up.lease = options_.lease;
    catch_up.batch = std::chrono::milliseconds(0);
    catch_up.finish_rebuild = true;
    for (const auto& [stream, head] : heads) catch_up.skip_through[stream] = head.version.value();
    Indexer indexer(streams_, index_, std::move(catch_up));
    auto run_until_caught_up = [&](std::chrono::steady_clock::time_point not_before) -> Status {
      for (int failures = 0;;) {
        auto pass = indexer.Pass();
        if (!pass.ok()) {
          // Retried like the indexer's, but not for ever.
          if (pass.status().code() == ErrorCode::kInternal || ++failures == 20)
            return pass.status();
          std::this_thread::sleep_for(std::chrono::milliseconds(100) * failures);
          continue;
        }
        failures = 0;
        if (Status s = indexer.Flush().status(); !s.ok()) return s;
        if (indexer.caught_up() && std::chrono::steady_clock::now() >= not_before)
          return Status::Ok();
        if (*pass == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    };
    if (Status s = run_until_caught_up(scanned + kRecordsArrive); !s.ok()) return s;
    // Every append made before the second scan has its record read by now:
    // a head $all lacks reached the table without a change record (the
    // stream was off), which no catch-up can repair.
    auto again = events_.ScanHeads();
    if (!again.ok()) return again.status();
    const auto rescanned = std::chrono::steady_clock::now();
    if (Status s = run_until_caught_up(rescanned + kRecordsArrive); !s.ok()) return s;
    for (const auto& [stream, head] : *again) {
      std::int64_t indexed = -1;
      if (auto rebuilt = heads.find(stream); rebuilt != heads.end())
        indexed = rebuilt->second.version.value();
      if (auto caught = indexer.written_heads().find(stream);
          caught != indexer.written_heads().end())
        indexed = std::max(indexed, caught->second);
      if (indexed >= head.version.value()) continue;
      return Status::Unavailable(fmt::format(
          "stream '{}' is at version {} and $all holds it to {} after the rebuild: appends "
          "reached the table without change records (was the stream off?). The index stays "
          "marked `rebuilding`; run the rebuild again",
          Printable(stream), head.version.value(), indexed));
    }
    if (Status s = indexer.FinishRebuild(); !s.ok()) {
      if (s.code() == ErrorCode::kConflict) return Refused();
      return s;
    }
    report_.caught_up = indexer.stats().events;
    report_.last = indexer.last_position();
    return report_;
  }

  StreamTable& events_;
  AllIndex& index_;
  aws::Client& streams_;
  const std::string& stream_arn_;
  const RebuildOptions& options_;
  const std::string owner_;
  IndexerState current_;                                   // as last written (or read)
  std::unordered_map<std::string, std::int64_t> indexed_;  // stream -> last version kept
  RebuildReport report_;
};

}  // namespace

Result<RebuildReport> RebuildIndex(StreamTable& events, AllIndex& index, aws::Client& streams,
                                   const std::string& stream_arn, const RebuildOptions& options) {
  return Rebuild(events, index, streams, stream_arn, options).Run();
}

}  // namespace indelible::dynamodb
