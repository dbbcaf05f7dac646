// HeadCache: what a store process last knew of each stream it wrote or
// read on DynamoDB (docs/DYNAMODB.md, "Append items"): its head, the first
// version of its newest append item, and the first ids of its newest
// appends (the retry window). With it an append whose writer knows the head
// is one conditional PutItem, with nothing read first.
//
// A cached head may be behind (another process appended since) but is
// never wrong about the past: versions are never removed, and a cached head
// was the end of an append item when it was seen, so an item at head + 1
// can only be an append made on top of it. A write at head + 1 that
// succeeds therefore proves the cache was current; one that fails shows
// the item that is there (ALL_OLD), and the writer reads the stream again.
//
// Concurrency: thread-safe (one mutex; entries are small and copied out).
// Bounded: at most `capacity` streams, the least recently used dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"
#include "indelible/store.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {

// One append the window remembers, with its ids: a retry of it (or of
// part of it) is recognised without a read.
struct WindowAppend {
  std::int64_t first = 0;
  std::vector<EventId> ids;
};

// A stream as a writer sees it.
struct StreamView {
  bool exists = false;
  // The stream still has a tip item of the earlier layout (tip.h); such a
  // stream is converted to append items before it is written
  // (StreamTable::ConvertStream). Never cached.
  bool legacy = false;
  StreamHead head;              // when exists; position 0
  std::int64_t last_first = 0;  // the first version of the newest append item
  // The newest appends, newest last: at most the retry window's appends and
  // ids (StreamTableOptions).
  std::vector<WindowAppend> window;
  // The newest snapshot in items the writer knows of (to mark it
  // superseded when a newer record replaces it).
  std::optional<SnapshotRef> snapshot;
};

class HeadCache {
 public:
  explicit HeadCache(std::size_t capacity) : capacity_(capacity) {}

  std::optional<StreamView> Get(std::string_view stream);
  // Stores `view` unless the cache already holds a later head for the
  // stream (two writers' results arriving out of order).
  void Put(const std::string& stream, const StreamView& view);
  void Forget(std::string_view stream);

 private:
  struct Entry {
    StreamView view;
    std::list<std::string>::iterator use;
  };
  const std::size_t capacity_;
  Mutex mu_;
  std::unordered_map<std::string, Entry> entries_ GUARDED_BY(mu_);
  std::list<std::string> uses_ GUARDED_BY(mu_);  // most recent first
};

}  // namespace indelible::dynamodb
