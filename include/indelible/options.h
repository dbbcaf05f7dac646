// Options for opening a store and for individual operations. Each option says
// its default and what it costs or risks.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "indelible/query.h"
#include "indelible/types.h"

namespace indelible {

enum class Durability : std::uint8_t {
  // Default. An append is acknowledged only after its bytes are synced to
  // disk (fdatasync); concurrent appends share one sync (group commit). An
  // acknowledged append survives kill -9 and power loss.
  kSync,
  // Opt-in. An append is acknowledged once written to the operating system;
  // a background thread syncs every StoreOptions::sync_interval. Survives
  // kill -9 of the process, but a power loss or kernel crash can lose the
  // appends acknowledged during the last interval (never half a commit).
  kInterval,
};

struct Limits {
  // Largest event (data + metadata + type + schema + content type). The
  // default is DynamoDB's item limit, so a store can move to that backend.
  std::size_t max_event_bytes = 400 * 1024;
  // Largest append or commit, all events together.
  std::size_t max_append_bytes = 4 * 1024 * 1024;
  // Most events in one append or commit.
  std::size_t max_append_events = 1000;
  // Largest state record (AppendRequest::state): DynamoDB's item limit too.
  std::size_t max_state_bytes = 400 * 1024;
};

struct StoreOptions {
  Durability durability = Durability::kSync;
  // Used with Durability::kInterval only.
  std::chrono::milliseconds sync_interval{100};
  Limits limits;
  // Embedded engine: create the data folder if it does not exist. When false,
  // opening a missing folder fails with not_found.
  bool create_if_missing = true;
  // Embedded engine: open as a read-only follower of the folder, which
  // another process (or store) may be writing to. Commits fail with
  // invalid; reads see what the writer had committed when the follower last
  // caught up, which WaitForCommit does every 100 ms while it waits. Used by
  // the CLI's read verbs (read, all, tail, export, check) so they never lock
  // a writer out of the folder.
  bool follower = false;
  // Embedded engine: RocksDB block cache size. Reads of recent events are
  // served from it and from the OS page cache.
  std::size_t block_cache_bytes = 64 * 1024 * 1024;
  // Stores that other processes write too (DynamoDB, an embedded
  // follower): how old this process's copy of the streams' retention
  // settings may get before a read refreshes it (docs/RETENTION.md). A
  // store's own metadata writes apply at once.
  std::chrono::milliseconds metadata_refresh{1000};
  // Crypto-shredding (docs/RETENTION.md): the master keys, 32 bytes each,
  // that wrap the subjects' keys. The first wraps new keys; the others
  // only unwrap (keys being rotated out: Store::RewrapSubjectKeys). Empty:
  // an event that declares a subject is refused, and sealed events read
  // as they are stored (their ciphertext).
  std::vector<std::string> master_keys;
  // Top-level metadata fields sealed with the data of an event that
  // declares a subject (e.g. "ip", "user"); the others stay readable.
  std::vector<std::string> sealed_metadata_fields;
};

struct CommitOptions {
  // Honour EventData::timestamp_ms (import of an export). Off: the store
  // stamps every event with the commit time.
  bool keep_timestamps = false;
  // Allow appends to streams and event types starting with '$'. Internal use
  // (tombstones, parked streams); user input never sets it.
  bool allow_reserved = false;
  // Set by the store's checks, whatever the caller set: every event of the
  // commit came without an id and got one the store made (a random UUID
  // v4, 122 bits from the system's CSPRNG), so none can be a retry of a
  // stored event and a backend may skip looking them up.
  bool ids_made_by_store = false;
  // Fail the whole commit, writing nothing, if an event matching the
  // condition's query was written after its position (query.h, docs/DCB.md).
  // Checked with the expectations in one atomic step on every backend.
  std::optional<AppendCondition> condition;
  // Import of a stream whose versions below this one were removed before
  // its export (retention and a scavenge, or an erasure): the commit's one
  // append, expecting no_stream, starts the stream at this version, as if
  // a scavenge had removed the versions below it (reads start there;
  // docs/RETENTION.md, "Export and import"). Where the backend can remove
  // events (embedded, DynamoDB; invalid on others, a remote store too).
  std::optional<StreamVersion> start_version;
};

struct ReadStreamOptions {
  Direction direction = Direction::kForward;
  // First version to return (inclusive). Default: 0 forward, the last
  // version backward.
  std::optional<StreamVersion> from;
  std::size_t limit = SIZE_MAX;
  // Read a deleted stream anyway (audit). Off: a deleted stream is not_found.
  bool include_deleted = false;
  // The events as stored: not upcast by a SchemaStore (schemas.h), and
  // sealed events not opened (their ciphertext; redacted once shredded).
  bool raw = false;
};

// Filters for $all. Within a list any entry may match; across lists all must.
// An empty list matches everything.
struct AllFilter {
  std::vector<std::string> categories;       // StreamCategory(stream) equals one
  std::vector<std::string> stream_prefixes;  // stream starts with one
  std::vector<std::string> types;            // event type equals one

  bool empty() const { return categories.empty() && stream_prefixes.empty() && types.empty(); }
  bool Matches(std::string_view stream, std::string_view type) const;
};

struct ReadAllOptions {
  // First position to return (inclusive). 0 or 1: from the beginning.
  Position from{0};
  std::size_t limit = SIZE_MAX;
  AllFilter filter;
  // Most events the read looks at, matching the filter or not: the cursor
  // ends there and next_position() is past them, so a filter that matches
  // little costs a bounded scan per read (the server's /all).
  std::size_t max_scan = SIZE_MAX;
  // The events as stored: not upcast by a SchemaStore (schemas.h), and
  // sealed events not opened (their ciphertext; redacted once shredded).
  bool raw = false;
};

// Progress of a long operation (check, import): done and total units, total
// 0 when unknown. Called from the operation's own thread.
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

}  // namespace indelible
