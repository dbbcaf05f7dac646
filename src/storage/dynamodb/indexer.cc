#include "storage/dynamodb/indexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "core/clock.h"
#include "core/text.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/change_records.h"
#include "storage/dynamodb/change_stream.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

using Clock = std::chrono::steady_clock;

// The shard listing is asked for again after this long, or at once when a
// shard closes (its children appear then).
constexpr auto kShardListAge = std::chrono::seconds(10);
// GetRecords' most records per call (the API's own maximum).
constexpr std::int64_t kRecordsPerCall = 1000;

// What an entry adds to a chunk item: its packed reference (a
// length-prefixed stream name and varints: AllIndex's format), and for
// inline events their maps in `e`.
std::int64_t VarintBytes(std::uint64_t v) {
  std::int64_t bytes = 1;
  for (; v >= 0x80; v >>= 7) ++bytes;
  return bytes;
}
// What a chunk's tag pages may hold beside its first append's: a
// transaction takes 4 MB.
constexpr std::int64_t kTagPageBudget = 1 << 20;

std::int64_t EntryBytes(const AppendRef& ref) {
  return VarintBytes(ref.stream.size()) + static_cast<std::int64_t>(ref.stream.size()) +
         VarintBytes(static_cast<std::uint64_t>(ref.first)) +
         VarintBytes(static_cast<std::uint64_t>(ref.count) * 2 + 1);
}
std::int64_t InlineEventBytes(const RecordedEvent& event) {
  return 1 + 3 + AllIndex::ItemBytes(EventItem(event));
}

// A shard whose unread records are older than this is near the stream's
// 24-hour retention (docs/DYNAMODB.md, "Watching the index").
constexpr std::int64_t kNearRetentionMs = 20 * 3600 * 1000;
// Failed passes in a row before the health report says "failing".
constexpr std::uint64_t kFailingAfter = 3;

// When a change record was made (Unix ms): DynamoDB Streams' approximate
// creation time, in seconds; else its append's commit time.
std::int64_t RecordMillis(const json::object* change, std::int64_t fallback) {
  const json::value* at = change ? change->if_contains("ApproximateCreationDateTime") : nullptr;
  double seconds = 0;
  if (at != nullptr && at->is_double()) seconds = at->get_double();
  if (at != nullptr && at->is_int64()) seconds = static_cast<double>(at->get_int64());
  return seconds > 0 ? static_cast<std::int64_t>(seconds * 1000) : fallback;
}

}  // namespace

void CommitTracker::Committed(const std::string& stream, std::int64_t first, std::int64_t last,
                              std::int64_t commit_ms) {
  MutexLock lock(&mu_);
  auto it = waiting_.find(stream);
  if (it == waiting_.end()) {
    std::int64_t indexed = first - 1;
    if (auto recent = recent_.find(stream); recent != recent_.end())
      indexed = std::max(indexed, recent->second);
    if (last <= indexed || waiting_.size() >= kMaxStreams) return;
    it = waiting_.emplace(stream, Waiting{indexed, {}}).first;
  }
  if (last <= it->second.indexed) return;
  it->second.commits.emplace(last, commit_ms);  // the first report of an append keeps its time
}

void CommitTracker::Indexed(const std::string& stream, std::int64_t last) {
  MutexLock lock(&mu_);
  auto [recent, added] = recent_.try_emplace(stream, last);
  if (!added) {
    recent->second = std::max(recent->second, last);
  } else {
    recent_order_.push_back(stream);
    if (recent_order_.size() > kRecent) {
      recent_.erase(recent_order_.front());
      recent_order_.pop_front();
    }
  }
  auto it = waiting_.find(stream);
  if (it == waiting_.end()) return;
  Waiting& w = it->second;
  w.indexed = std::max(w.indexed, last);
  w.commits.erase(w.commits.begin(), w.commits.upper_bound(last));
  if (w.commits.empty()) waiting_.erase(it);
}

void CommitTracker::Clear() {
  MutexLock lock(&mu_);
  waiting_.clear();
}

bool CommitTracker::empty() const {
  MutexLock lock(&mu_);
  return waiting_.empty();
}

CommitTracker::Lag CommitTracker::lag() const {
  MutexLock lock(&mu_);
  Lag out;
  for (const auto& entry : waiting_) {
    const Waiting& w = entry.second;
    if (w.commits.empty()) continue;
    out.events += static_cast<std::uint64_t>(w.commits.rbegin()->first - w.indexed);
    std::int64_t oldest = w.commits.begin()->second;
    for (const auto& commit : w.commits) oldest = std::min(oldest, commit.second);
    if (out.oldest_commit_ms == 0 || oldest < out.oldest_commit_ms) out.oldest_commit_ms = oldest;
  }
  return out;
}

Indexer::Indexer(aws::Client& streams, AllIndex& index, IndexerOptions options)
    : streams_(streams), index_(index), options_(std::move(options)) {}

Indexer::~Indexer() { Stop(); }

void Indexer::SetStatus(Status status) {
  MutexLock lock(&mu_);
  status_ = std::move(status);
}

Status Indexer::status() const {
  MutexLock lock(&mu_);
  return status_;
}

IndexerStats Indexer::stats() const {
  IndexerStats stats;
  stats.events = events_.load();
  stats.writes = writes_.load();
  stats.chunks = chunks_.load();
  stats.get_records = get_records_.load();
  stats.lag_ms = lag_ms_.load();
  stats.owner = owner_.load();
  stats.races_lost = races_lost_.load();
  return stats;
}

void Indexer::Publish(const IndexerState& state) {
  const auto last = state.last_position().value();
  if (last_position_.load() == last) return;
  {
    MutexLock lock(&mu_);
    last_position_.store(last);
  }
  changed_.SignalAll();
}

Position Indexer::WaitFor(Position after, std::chrono::milliseconds timeout) {
  MutexLock lock(&mu_);
  changed_.WaitFor(&mu_, timeout,
                   [&]() REQUIRES(mu_) { return last_position_.load() > after.value() || stop_; });
  return Position(last_position_.load());
}

void Indexer::Nudge() {
  {
    MutexLock lock(&mu_);
    nudged_ = true;
  }
  changed_.SignalAll();
}

// What was read and not written is dropped: it is read again from the
// chain's place.
void Indexer::Forget() {
  pending_.clear();
  iterators_.clear();
  indexed_heads_.clear();
  read_places_.clear();
  if (state_) read_places_ = state_->shards;
}

Status Indexer::LoadState() {
  auto seen = [this](const Chunk& chunk) { SeeChunk(chunk); };
  auto loaded = index_.LoadState(seen);
  if (!loaded.ok()) {
    state_.reset();
    Forget();
    return loaded.status();
  }
  // Chunks between what the lag last saw and the checkpoint: read them
  // only when commits of this process wait (rare: after a lost race, a
  // rebuild), else they would wait for ever. A chain that is not there
  // (a rebuild cut it) or too long to read forgets them.
  // A rebuild moves positions (it may cut the chain and write it again)
  // while this process follows: once it completed, every commit this
  // process knew of before is indexed, in chunks it may not have seen.
  if (loaded->rebuilding) saw_rebuilding_ = true;
  if (loaded->next < seen_next_ || (saw_rebuilding_ && !loaded->rebuilding)) {
    tracker_.Clear();
    saw_rebuilding_ = loaded->rebuilding;
  }
  if (!tracker_.empty() && seen_next_ > 0 && seen_next_ < loaded->checkpoint_next) {
    auto skipped = index_.ChainFrom(seen_next_, loaded->checkpoint_next - 1, 1000);
    if (skipped.ok() && !skipped->empty() && skipped->back().end() >= loaded->checkpoint_next) {
      for (const Chunk& chunk : *skipped) SeeChunk(chunk);
    } else {
      tracker_.Clear();
    }
  }
  seen_next_ = loaded->next;
  state_ = std::move(*loaded);
  Forget();
  Publish(*state_);
  return Status::Ok();
}

void Indexer::SeeChunk(const Chunk& chunk) {
  for (const ChunkEntry& entry : chunk.entries)
    tracker_.Indexed(entry.ref.stream, entry.ref.first + entry.ref.count - 1);
  seen_next_ = std::max(seen_next_, chunk.end());
}

Status Indexer::ListShards() {
  auto shards = dynamodb::ListShards(streams_, options_.stream_arn);
  if (!shards.ok()) return shards.status();
  shards_ = std::move(*shards);
  shards_listed_ = Clock::now();
  return Status::Ok();
}

Status Indexer::WriteCheckpoint(bool release, bool end_rebuild) {
  IndexerState after = *state_;
  // Shards with nothing waiting: where reading reached, past records that
  // added nothing (so that the place never falls behind the stream's 24 h).
  // (No structured bindings: clang 14 cannot capture them in a lambda.)
  for (const auto& entry : read_places_) {
    const std::string& id = entry.first;
    const bool waiting = std::any_of(pending_.begin(), pending_.end(),
                                     [&](const Pending& p) { return p.shard == id; });
    if (!waiting) after.shards[id] = entry.second;
  }
  // Forget shards that are read and gone from the listing.
  if (!shards_.empty())
    for (auto it = after.shards.begin(); it != after.shards.end();) {
      const bool listed = std::any_of(shards_.begin(), shards_.end(),
                                      [&](const ShardInfo& s) { return s.id == it->first; });
      it = it->second.done && !listed ? after.shards.erase(it) : std::next(it);
    }
  after.stream_arn = options_.stream_arn;
  after.owner = options_.owner;
  if (release) after.lease_until = 0;
  // A rebuild's mark stays until its catch-up ends it; an owner handing the
  // index over to a rebuild keeps it too.
  after.rebuilding = end_rebuild ? false : state_->rebuilding;
  Status written = index_.WriteCheckpoint(*state_, &after);
  if (!written.ok()) {
    lost_race_ = written.code() == ErrorCode::kConflict;
    return written;
  }
  writes_.fetch_add(1);
  state_ = std::move(after);
  chunks_since_checkpoint_ = 0;
  checkpointed_at_ = Clock::now();
  return Status::Ok();
}

Result<std::vector<TagPage>> Indexer::TagPages(const Chunk& chunk, std::size_t taken) {
  std::vector<TagPage> pages;
  std::map<std::string, std::size_t> page_of;  // tag -> index in pages
  std::int64_t position = chunk.position;
  for (std::size_t i = 0; i < taken; ++i) {
    const Pending& p = pending_[i];
    // Events of inline pieces (a tip of the earlier layout, a record split
    // into parts) carry no tags: tags came with append items.
    for (const auto& t : p.tagged)
      for (const auto& tag : t.tags) {
        auto [it, added] = page_of.emplace(tag, pages.size());
        if (added) pages.push_back(TagPage{tag, chunk.position, {}});
        pages[it->second].entries.push_back(
            TagEntry{position + t.offset, p.ref.stream, p.ref.first, t.offset, t.type, 0});
      }
    position += p.ref.count;
  }
  if (pages.empty()) return pages;
  // The running counts go on from the chain's: known here when this
  // indexer wrote the chunk before, else the tag's last page before it.
  if (tag_counts_next_ != chunk.position) tag_counts_.clear();
  TagIndex tags = index_.tags();
  for (TagPage& page : pages) {
    std::int64_t k = 0;
    if (auto known = tag_counts_.find(page.tag); known != tag_counts_.end()) {
      k = known->second;
    } else {
      auto counted = tags.CountThrough(page.tag, chunk.position - 1);
      if (!counted.ok()) return counted.status();
      k = *counted;
    }
    for (TagEntry& entry : page.entries) entry.k = ++k;
  }
  return pages;
}

Status Indexer::WritePending(bool all, std::size_t* indexed) {
  while (!pending_.empty()) {
    Chunk chunk;
    chunk.position = state_->next;
    chunk.owner = options_.owner;
    chunk.lease_until = UnixMillisNow() + options_.lease.count();
    // The places the chunk may carry, for its size: every shard read.
    Chunk skeleton = chunk;
    skeleton.count = std::int64_t{1} << 40;
    for (const auto& [id, place] : read_places_) skeleton.places[id] = place;
    const std::int64_t base = AllIndex::ItemBytes(index_.ChunkItem(skeleton));
    std::int64_t bytes = base;
    bool any_inline = false;
    std::set<std::string> chunk_tags;
    std::int64_t tag_bytes = 0;
    std::size_t taken = 0;        // whole pieces from the front
    std::optional<Pending> part;  // and the front part of the next, when it was split
    for (; taken < pending_.size(); ++taken) {
      const Pending& p = pending_[taken];
      std::int64_t adds = EntryBytes(p.ref);
      for (const RecordedEvent& event : p.events) adds += InlineEventBytes(event);
      const std::int64_t limit =
          any_inline || p.in_chunk ? AllIndex::kInlineBytes : AllIndex::kReferenceBytes;
      // The chunk's tag pages go in its transaction: at most 99 tags, and
      // well under its 4 MB (a commit writes at most 99 tags, so one
      // append always fits).
      std::set<std::string> tags_after = chunk_tags;
      std::int64_t tag_bytes_after = tag_bytes;
      for (const auto& t : p.tagged)
        for (const auto& tag : t.tags) {
          tags_after.insert(tag);
          tag_bytes_after += static_cast<std::int64_t>(p.ref.stream.size() + t.type.size()) + 12;
        }
      if (taken > 0 &&
          (tags_after.size() + 1 > kMaxTransactItems || tag_bytes_after > kTagPageBudget))
        break;
      if (bytes + adds <= limit || (taken == 0 && !p.in_chunk)) {
        bytes += adds;
        chunk_tags = std::move(tags_after);
        tag_bytes = tag_bytes_after;
        any_inline = any_inline || p.in_chunk;
        continue;
      }
      // A record of more inline events than a chunk takes goes in parts,
      // at least one event to a chunk.
      if (p.in_chunk) {
        std::size_t fit = 0;
        std::int64_t part_bytes = bytes + EntryBytes(p.ref);
        while (fit < p.events.size() &&
               ((fit == 0 && taken == 0) ||
                part_bytes + InlineEventBytes(p.events[fit]) <= AllIndex::kInlineBytes))
          part_bytes += InlineEventBytes(p.events[fit++]);
        if (fit > 0) {
          part = p;
          part->events.resize(fit);
        }
      }
      break;
    }
    const bool full = taken < pending_.size();
    if (!full && !all) return Status::Ok();  // waits for more, or for its time

    // The chunk: the pieces taken, in order, and the split part.
    std::map<std::string, ShardProgress> last_place;
    auto add = [&](const Pending& p, bool whole) {
      ChunkEntry entry;
      entry.in_chunk = p.in_chunk;
      if (p.in_chunk) {
        entry.ref = AppendRef{p.ref.stream, p.events.front().version.value(),
                              static_cast<std::int64_t>(p.events.size())};
        for (const RecordedEvent& event : p.events) chunk.inline_events.push_back(event);
      } else {
        entry.ref = p.ref;
      }
      chunk.count += entry.ref.count;
      chunk.entries.push_back(std::move(entry));
      const std::int64_t through = p.part_from + static_cast<std::int64_t>(p.events.size());
      last_place[p.shard] =
          whole ? ShardProgress{p.sequence, 0, false} : ShardProgress{p.before, through, false};
    };
    for (std::size_t i = 0; i < taken; ++i) add(pending_[i], true);
    if (part) add(*part, false);
    if (chunk.entries.empty()) return Status::Internal("an empty $all chunk");
    // Shards with nothing left waiting after this chunk: where reading
    // reached (records after the last append that added nothing, a closed
    // shard's end).
    for (const auto& entry : read_places_) {
      const std::string& id = entry.first;
      const bool waiting =
          std::any_of(pending_.begin() + static_cast<std::ptrdiff_t>(taken), pending_.end(),
                      [&](const Pending& p) { return p.shard == id; });
      if (!waiting && state_->shards[id] != entry.second) last_place[id] = entry.second;
    }
    chunk.places = std::move(last_place);

    auto tag_pages = TagPages(chunk, taken);
    if (!tag_pages.ok()) return tag_pages.status();
    if (options_.before_chunk_write && !options_.before_chunk_write(chunk, *tag_pages)) {
      state_.reset();
      return Status::Unavailable("the indexer stopped before its chunk (a test's crash)");
    }
    Status written = index_.WriteChunk(chunk, *tag_pages);
    if (!written.ok()) {
      tag_counts_.clear();
      // Another indexer chained a chunk here (conflict), or the outcome is
      // unknown: what this indexer read is dropped and it starts again from
      // the chain as stored.
      lost_race_ = written.code() == ErrorCode::kConflict;
      if (!lost_race_) state_.reset();
      return written;
    }
    for (const TagPage& page : *tag_pages) tag_counts_[page.tag] = page.k();
    tag_counts_next_ = chunk.end();
    writes_.fetch_add(1);
    chunks_.fetch_add(1);
    events_.fetch_add(static_cast<std::uint64_t>(chunk.count));
    *indexed += static_cast<std::size_t>(chunk.count);
    ++chunks_since_checkpoint_;
    const std::int64_t newest = part ? part->timestamp_ms : pending_[taken - 1].timestamp_ms;
    lag_ms_.store(UnixMillisNow() - newest);
    newest_indexed_ms_.store(std::max(newest_indexed_ms_.load(), newest));
    state_->Apply(chunk);
    SeeChunk(chunk);
    if (options_.finish_rebuild)
      for (const ChunkEntry& entry : chunk.entries) {
        std::int64_t& head = written_heads_[entry.ref.stream];
        head = std::max(head, entry.ref.first + entry.ref.count - 1);
      }
    owner_.store(true);
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(taken));
    if (part) {
      Pending& rest = pending_.front();
      rest.part_from += static_cast<std::int64_t>(part->events.size());
      rest.events.erase(rest.events.begin(),
                        rest.events.begin() + static_cast<std::ptrdiff_t>(part->events.size()));
    }
    Publish(*state_);
  }
  return Status::Ok();
}

Result<std::size_t> Indexer::LostRace(std::size_t indexed) {
  // Another indexer wrote first: a chunk where this one would have put its
  // own (they found the lease free together, or this one's ran out), or a
  // checkpoint (a claim on the lease, a rebuild). Its write stands; this one
  // follows from the stored state, as any indexer that finds the lease held
  // does. Not a failure: nothing is retried or reported. (A write of our
  // own applied before its answer was lost meets the same conflict; the
  // reload then finds our chunk and our lease and carries on.)
  lost_race_ = false;
  races_lost_.fetch_add(1);
  owner_.store(false);
  if (Status s = LoadState(); !s.ok()) return s;
  SetStatus(Status::Ok());
  return indexed;
}

Result<std::size_t> Indexer::ReadShard(const ShardInfo& shard) {
  ShardProgress& place = read_places_[shard.id];
  std::string iterator;
  if (auto it = iterators_.find(shard.id); it != iterators_.end()) iterator = it->second;
  const bool fresh = iterator.empty();
  if (fresh) {
    json::object request{{"StreamArn", options_.stream_arn}, {"ShardId", shard.id}};
    if (place.sequence.empty()) {
      request["ShardIteratorType"] = "TRIM_HORIZON";
    } else {
      request["ShardIteratorType"] = "AFTER_SEQUENCE_NUMBER";
      request["SequenceNumber"] = place.sequence;
    }
    aws::Reply reply = streams_.Call("GetShardIterator", request);
    if (!reply.ok()) return reply.status;
    iterator = StringAt(reply.body, "ShardIterator");
  }
  get_records_.fetch_add(1);
  const std::int64_t asked_at = UnixMillisNow();
  aws::Reply reply =
      streams_.Call("GetRecords", {{"ShardIterator", iterator}, {"Limit", kRecordsPerCall}});
  iterators_.erase(shard.id);
  if (reply.error_type == "ExpiredIteratorException") return std::size_t{0};  // a new one next
  // DynamoDB Local answers TrimmedDataAccessException for an iterator taken
  // on a shard that had no record yet (aws/aws-sdk-java#2923): only one
  // taken fresh after a stored place means the records are gone.
  if (reply.error_type == "TrimmedDataAccessException" && (!fresh || place.sequence.empty()))
    return std::size_t{0};
  if (reply.error_type == "TrimmedDataAccessException")
    return Status::Internal(fmt::format(
        "the change stream no longer holds records the $all index needs (shard {} after {}): "
        "the indexer was stopped longer than the stream keeps them (24 h); rebuild the index",
        shard.id, place.sequence));
  if (!reply.ok()) return reply.status;
  const auto* records = reply.body.if_contains("Records");
  if (records == nullptr || !records->is_array())
    return Status::Internal("GetRecords answered without Records");

  const auto now = Clock::now();
  std::int64_t last_record_ms = asked_at;
  for (const auto& value : records->get_array()) {
    if (!value.is_object()) return Status::Internal("GetRecords answered a non-object record");
    const json::object* change = ObjectAt(value.get_object(), "dynamodb");
    const std::string sequence = change ? StringAt(*change, "SequenceNumber") : "";
    if (sequence.empty()) return Status::Internal("a change record without a SequenceNumber");
    last_record_ms = RecordMillis(change, last_record_ms);
    auto appended = AppendedBy(value.get_object());
    if (!appended.ok()) return appended.status();
    // A rebuild's catch-up: an append the rebuild took from the table.
    if (*appended && options_.finish_rebuild) {
      auto rebuilt = options_.skip_through.find((*appended)->stream);
      if (rebuilt != options_.skip_through.end() && (*appended)->last() <= rebuilt->second)
        appended->reset();
    }
    if (*appended) {
      Appended& a = **appended;
      // The last version indexed before: read in this pass, else written by
      // this catch-up, else the rebuild's.
      std::optional<std::int64_t> before;
      if (auto known = indexed_heads_.find(a.stream); known != indexed_heads_.end())
        before = known->second;
      else if (auto written = written_heads_.find(a.stream); written != written_heads_.end())
        before = written->second;
      else if (auto rebuilt = options_.skip_through.find(a.stream);
               options_.finish_rebuild && rebuilt != options_.skip_through.end())
        before = rebuilt->second;
      if (before && place.part == 0 && a.first - 1 != *before)
        return Status::Internal(fmt::format(
            "gap in stream '{}': a change appends from version {} but {} was indexed last",
            Printable(a.stream), a.first, *before));
      const auto total = static_cast<std::int64_t>(a.events.size());
      if (place.part < total) {
        tracker_.Committed(a.stream, a.first + place.part, a.last(), a.events.back().timestamp_ms);
        Pending p;
        p.shard = shard.id;
        p.sequence = sequence;
        p.before = place.sequence;
        p.part_from = place.part;
        p.total = total;
        p.ref = AppendRef{a.stream, a.first, total};
        // A reference names a whole append item; events a tip holds, or the
        // rest of a record indexed in part, go into the chunk.
        p.in_chunk = !a.in_item || place.part > 0;
        p.read_at = now;
        p.timestamp_ms = a.events.back().timestamp_ms;
        if (p.in_chunk) {
          p.events.assign(std::make_move_iterator(a.events.begin() + place.part),
                          std::make_move_iterator(a.events.end()));
        } else {
          for (std::size_t i = 0; i < a.events.size(); ++i)
            if (!a.events[i].tags.empty())
              p.tagged.push_back(Pending::Tagged{static_cast<std::int64_t>(i), a.events[i].type,
                                                 std::move(a.events[i].tags)});
        }
        pending_.push_back(std::move(p));
      }
      indexed_heads_[a.stream] = a.last();
    }
    place.sequence = sequence;
    place.part = 0;
  }
  const std::size_t read = records->get_array().size();
  if (read > 0) read_records_ = true;
  // Unread records are at most as old as the last one read, when more wait;
  // else as old as this read.
  unread_since_ms_[shard.id] =
      read >= static_cast<std::size_t>(kRecordsPerCall) ? last_record_ms : asked_at;
  if (read >= static_cast<std::size_t>(kRecordsPerCall)) caught_up_ = false;
  const auto* next = reply.body.if_contains("NextShardIterator");
  const bool closed = next == nullptr || !next->is_string() || next->get_string().empty();
  if (closed) {
    place.done = true;
    shards_listed_ = {};  // its children are readable now
    unread_since_ms_.erase(shard.id);
    caught_up_ = false;  // the children come next
  }
  // Not an iterator of a shard still empty to us: DynamoDB Local's would
  // fail (above) once the first record comes.
  if (!closed && !place.sequence.empty()) iterators_[shard.id] = std::string(next->get_string());
  return records->get_array().size();
}

Result<std::size_t> Indexer::Flush() {
  std::size_t indexed = 0;
  if (!state_ || pending_.empty()) return indexed;
  lost_race_ = false;
  if (Status s = WritePending(/*all=*/true, &indexed); !s.ok())
    return lost_race_ ? LostRace(indexed) : Result<std::size_t>(s);
  return indexed;
}

Status Indexer::Prime() {
  Status loaded = LoadState();
  Observe(loaded.ok() ? Result<std::size_t>(std::size_t{0}) : Result<std::size_t>(loaded));
  return loaded;
}

Result<std::size_t> Indexer::Pass() {
  auto result = PassOnce();
  Observe(result);
  return result;
}

void Indexer::ViewState() {
  if (!state_) return;
  MutexLock lock(&mu_);
  view_.known = true;
  view_.owner = state_->owner;
  view_.lease_until = state_->lease_until;
  view_.rebuilding = state_->rebuilding;
}

void Indexer::Observe(const Result<std::size_t>& result) {
  if (!owner_.load()) unread_since_ms_.clear();  // only the owner reads the stream
  ViewState();
  MutexLock lock(&mu_);
  view_.stopped = stopped_for_good_;
  if (!result.ok() && !waiting_for_rebuild_) {
    ++view_.errors;
    ++view_.consecutive_errors;
    view_.last_error = result.status().ToString();
  } else if (result.ok()) {
    view_.consecutive_errors = 0;
  }
  view_.unread_since_ms = unread_since_ms_;
}

Result<bool> Indexer::CheckpointMoved() {
  auto rev = index_.ReadRev();
  if (!rev.ok()) return rev.status();
  return *rev > state_->rev;
}

void Indexer::HandOverToRebuild() {
  Forget();
  if (Status s = WriteCheckpoint(/*release=*/true); s.ok())
    fmt::print(stderr,
               "indelible: the $all indexer handed the index over to a rebuild "
               "(`indelible rebuild-index`) at position {}\n",
               state_->next - 1);
  owner_.store(false);
}

Result<std::size_t> Indexer::PassOnce() {
  read_records_ = false;
  waiting_for_rebuild_ = false;
  if (stopped_for_good_) return status();
  bool loaded = false;
  if (!state_) {
    if (Status s = LoadState(); !s.ok()) return s;
    loaded = true;
  } else {
    if (options_.follow_only || state_->owner != options_.owner) {
      // Not the owner: the chain may have grown.
      auto seen = [this](const Chunk& chunk) { SeeChunk(chunk); };
      auto followed = index_.Follow(&*state_, seen);
      if (!followed.ok()) return followed.status();
      if (*followed > 0) {
        Forget();
        Publish(*state_);
      }
    }
    if (Clock::now() - state_checked_ >= options_.state_check) {
      // Has another written a checkpoint: a rebuild asking for the index or
      // handing it back, an indexer that took a lease this one thought it
      // held? Chunks alone do not say.
      state_checked_ = Clock::now();
      auto moved = CheckpointMoved();
      if (!moved.ok()) return moved.status();
      if (*moved) {
        if (Status s = LoadState(); !s.ok()) return s;
        loaded = true;
      }
    }
  }
  std::int64_t now = UnixMillisNow();
  auto held_by_another = [&] {
    return options_.follow_only || (state_->owner != options_.owner && state_->lease_until > now);
  };
  if (held_by_another()) {
    // Another indexer holds the lease: follow its progress.
    owner_.store(false);
    return std::size_t{0};
  }
  if (!loaded && state_->earlier_format) {
    // About to take the lease over from an indexer of the earlier release:
    // from its state as stored (its items, followed one by one, moved no
    // shard place here). Otherwise the claim's fence finds any checkpoint
    // written since (another claim, a rebuild).
    if (Status s = LoadState(); !s.ok()) return s;
    now = UnixMillisNow();
    if (held_by_another()) {
      owner_.store(false);
      return std::size_t{0};
    }
  }
  if (state_->rebuilding && !(options_.finish_rebuild && state_->owner == options_.owner)) {
    waiting_for_rebuild_ = true;
    ViewState();  // for the health report: the state is dropped below
    if (state_->owner == options_.owner && !options_.follow_only) {
      // A rebuild asks for the index (index_rebuild.h): what was read and
      // not written is dropped (the rebuild takes it from the table) and
      // the lease handed back at the chain's place (once).
      if (state_->lease_until != 0) HandOverToRebuild();
      state_.reset();
      return Status::Unavailable(
          "a rebuild of the $all index (`indelible rebuild-index`) asked for the index: this "
          "indexer handed it over and waits until the rebuild completes");
    }
    // A rebuild stopped half-way (its lease ran out): the index may lack
    // events, and the change stream's place is the rebuild's to set.
    state_.reset();
    return Status::Unavailable(
        "a rebuild of the $all index did not finish: run `indelible rebuild-index` again; "
        "indexing waits until one completes");
  }
  if (!state_->stream_arn.empty() && state_->stream_arn != options_.stream_arn) {
    stopped_for_good_ = true;
    Status s = Status::Internal(fmt::format(
        "the events table's change stream was replaced (the $all index read {}, the table now "
        "has {}): events written in between are not in $all; rebuild the index",
        state_->stream_arn, options_.stream_arn));
    SetStatus(s);
    return s;
  }
  std::size_t indexed = 0;
  lost_race_ = false;
  if (state_->owner != options_.owner || state_->earlier_format) {
    // The lease is free: take it, with a checkpoint naming this indexer. Of
    // several that try at once one writes; the others follow it. (A
    // checkpoint of the earlier release's format is replaced before any
    // chunk: that release's indexer then stops rather than write over one.)
    IndexerState claim = *state_;
    state_->lease_until = now + options_.lease.count();
    if (Status s = WriteCheckpoint(/*release=*/false); !s.ok()) {
      state_ = std::move(claim);
      return lost_race_ ? LostRace(indexed) : Result<std::size_t>(s);
    }
  }
  owner_.store(true);
  if (Clock::now() - shards_listed_ > kShardListAge)
    if (Status s = ListShards(); !s.ok()) return s;

  caught_up_ = true;
  for (const ShardInfo& shard : shards_) {
    if (read_places_[shard.id].done) continue;
    const bool parent_listed = std::any_of(
        shards_.begin(), shards_.end(), [&](const ShardInfo& s) { return s.id == shard.parent; });
    if (!shard.parent.empty() && parent_listed && !read_places_[shard.parent].done) {
      caught_up_ = false;
      continue;
    }
    auto read = ReadShard(shard);
    if (!read.ok()) {
      caught_up_ = false;
      if (read.status().code() == ErrorCode::kInternal) {
        stopped_for_good_ = true;
        SetStatus(read.status());
      }
      state_.reset();  // start again from what is stored
      Forget();
      return read.status();
    }
  }
  const bool due = !pending_.empty() && (options_.batch.count() == 0 ||
                                         Clock::now() - pending_.front().read_at >= options_.batch);
  if (Status s = WritePending(/*all=*/due, &indexed); !s.ok())
    return lost_race_ ? LostRace(indexed) : Result<std::size_t>(s);
  // The checkpoint, now and then: after many chunks, or a while after a
  // chunk or a place moved. Nothing is written while nothing moves.
  bool moved = chunks_since_checkpoint_ > 0;
  for (const auto& [id, place] : read_places_)
    if (!moved && pending_.empty() && state_->shards[id] != place) moved = true;
  if (chunks_since_checkpoint_ >= options_.checkpoint_chunks ||
      (moved && Clock::now() - checkpointed_at_ >= options_.checkpoint_every))
    if (Status s = WriteCheckpoint(/*release=*/false); !s.ok())
      return lost_race_ ? LostRace(indexed) : Result<std::size_t>(s);
  SetStatus(Status::Ok());
  return indexed;
}

Status Indexer::FinishRebuild() {
  const std::uint64_t races = races_lost_.load();
  auto flushed = Flush();
  if (!flushed.ok()) return flushed.status();
  if (races_lost_.load() != races || !state_ || state_->owner != options_.owner)
    return Status::Unavailable(
        "another $all indexer wrote the index during the rebuild's catch-up: run the rebuild "
        "again");
  return WriteCheckpoint(/*release=*/true, /*end_rebuild=*/true);
}

IndexHealth Indexer::Health() const {
  IndexHealth health;
  const std::int64_t now = UnixMillisNow();
  View view;
  {
    MutexLock lock(&mu_);
    view = view_;
  }
  health.last_position = last_position();
  health.indexer_id = options_.owner;
  health.indexes = !options_.follow_only;
  health.lease_owner = view.owner;
  health.lease_until_ms = view.lease_until;
  health.lease_held = !options_.follow_only && owner_.load();
  health.errors = view.errors;
  health.consecutive_errors = view.consecutive_errors;
  health.last_error = view.last_error;
  health.newest_indexed_commit_ms = newest_indexed_ms_.load();
  const CommitTracker::Lag waiting = tracker_.lag();
  health.lag_events = waiting.events;
  if (waiting.oldest_commit_ms > 0)
    health.lag_seconds =
        static_cast<double>(std::max<std::int64_t>(0, now - waiting.oldest_commit_ms)) / 1000.0;
  std::string near_retention;
  for (const auto& [id, since] : view.unread_since_ms) {
    IndexShardHealth shard;
    shard.id = id;
    shard.unread_age_seconds = static_cast<double>(std::max<std::int64_t>(0, now - since)) / 1000.0;
    shard.near_retention = now - since > kNearRetentionMs;
    if (shard.near_retention && near_retention.empty()) near_retention = id;
    health.oldest_unread_age_seconds =
        std::max(health.oldest_unread_age_seconds, shard.unread_age_seconds);
    health.shards.push_back(std::move(shard));
  }
  const bool lease_live = view.lease_until > now;
  if (view.stopped) {
    health.state = "stopped";
    health.reason = view.last_error;
  } else if (view.rebuilding) {
    health.state = "rebuilding";
    if (lease_live && view.owner.starts_with("rebuild-"))
      health.reason = fmt::format(
          "`indelible rebuild-index` ({}) is rebuilding $all; indexing goes on when it completes",
          view.owner);
    else if (lease_live)
      health.reason =
          fmt::format("a rebuild of $all asked the indexer {} to hand the index over", view.owner);
    else
      health.reason =
          "a rebuild of $all did not finish: run `indelible rebuild-index` again; nothing is "
          "indexed until one completes";
  } else if (view.consecutive_errors >= kFailingAfter) {
    health.state = "failing";
    health.reason = view.last_error;
  } else if (!view.known) {
    health.state = "failing";
    health.reason =
        view.last_error.empty() ? "the index's state was not read yet" : view.last_error;
  } else if (health.lease_held) {
    health.state = "indexing";
  } else if (options_.follow_only && !lease_live && health.lag_events > 0) {
    health.state = "stopped";
    health.reason = fmt::format(
        "no process indexes $all: {} and {} events of this process wait; run a process with "
        "indexer=1 (this one has indexer=0)",
        view.owner.empty() ? std::string("no indexer ever held its lease")
                           : fmt::format("the lease of {} ran out {} s ago", view.owner,
                                         std::max<std::int64_t>(0, now - view.lease_until) / 1000),
        health.lag_events);
  } else {
    health.state = "following";
  }
  if (!near_retention.empty() && health.reason.empty())
    health.reason = fmt::format(
        "unread change records of shard {} are over 20 hours old: the stream keeps them 24 "
        "hours, and past that only `indelible rebuild-index` repairs $all",
        near_retention);
  return health;
}

void Indexer::Loop() {
  int failures = 0;
  auto idle_wait = options_.poll_interval;
  for (;;) {
    auto indexed = Pass();
    if (!indexed.ok()) {
      // Said once per kind of failure, not once per retry.
      if (indexed.status().ToString() != status().ToString() || stopped_for_good_)
        fmt::print(stderr, "indelible: the $all indexer {}: {}\n",
                   stopped_for_good_ ? "stopped" : "failed (retrying)",
                   indexed.status().ToString());
      if (stopped_for_good_) return;
      SetStatus(indexed.status());
      ++failures;
    } else {
      failures = 0;
    }
    std::chrono::milliseconds wait = idle_wait;
    if (failures > 0) {
      wait = std::min(std::chrono::milliseconds(5000),
                      options_.poll_interval * (1 << std::min(failures, 6)));
    } else if (read_records_) {
      idle_wait = options_.poll_interval;
      wait = std::chrono::milliseconds(0);
    } else {
      // Idle: ask less and less often, up to idle_poll_max.
      idle_wait = std::min(options_.idle_poll_max, idle_wait * 2);
    }
    if (!pending_.empty()) {
      // What waits is written when its time comes.
      const auto due = std::chrono::duration_cast<std::chrono::milliseconds>(
          pending_.front().read_at + options_.batch - Clock::now());
      wait = read_records_ ? std::max(std::chrono::milliseconds(0), due)
                           : std::clamp(due, std::chrono::milliseconds(0), wait);
    }
    // While a chunk waits for its time, a commit's nudge does not wake the
    // loop: what it wrote joins that chunk when the time comes, and waking
    // for each would ask the change stream once an append (a billed
    // Streams read each) for nothing sooner in $all.
    const bool holding = !pending_.empty();
    MutexLock lock(&mu_);
    changed_.WaitFor(&mu_, wait, [&]() REQUIRES(mu_) { return stop_ || (nudged_ && !holding); });
    if (nudged_) idle_wait = options_.poll_interval;
    nudged_ = false;
    if (stop_) return;
  }
}

void Indexer::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void Indexer::Stop() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  changed_.SignalAll();
  if (!thread_.joinable()) return;
  thread_.join();
  // Write what was read, and hand the lease back, so that another store's
  // indexer takes over at once rather than once it runs out: a short-lived
  // process (a CLI verb) would otherwise stall $all for a lease after it
  // exits.
  if (state_ && state_->owner == options_.owner && !options_.follow_only && !stopped_for_good_) {
    (void)Flush();
    if (state_ && state_->owner == options_.owner) (void)WriteCheckpoint(/*release=*/true);
    state_.reset();
    owner_.store(false);
  }
}

}  // namespace indelible::dynamodb
