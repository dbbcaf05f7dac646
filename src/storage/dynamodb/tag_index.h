// Tags on DynamoDB (docs/DYNAMODB.md, "Tags, queries and conditional
// appends"): two kinds of item per tag t in the events table, in the
// partition `stream = "$tag:" + t`, which no user stream can have ('$' is
// reserved), which carries no `lk` (never listed) and no `n` (the indexer's
// change-record reader skips it):
//
//   version = -1   the counter: `c` (N), how many events carrying t were
//                  ever committed. Every commit that writes such events adds
//                  to it in the commit's own transaction, so it never misses
//                  an event and never counts one that is not stored
//   version = P    a page of the tag index, P >= 1 the first position of the
//                  $all chunk it was written with (in the same transaction:
//                  all_index.h, AllIndex::WriteChunk): `r` (B) the chunk's
//                  events carrying t in position order, each its position
//                  (from P), its append item's key (stream, first version),
//                  its place in the append, and its type (varints,
//                  length-prefixed strings); `k` (N) how many events carry t
//                  at positions up to the page's last one; `m` (N) the
//                  page's entries. So entry i of a page has k - m + i + 1.
//
// The implementation lives in all_index.cc (beside the chunks it is
// written with) and cursors.cc (the query cursor).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/client.h"
#include "indelible/query.h"
#include "indelible/result.h"
#include "indelible/store.h"

namespace indelible::dynamodb {

inline constexpr std::string_view kTagPartitionPrefix = "$tag:";
inline constexpr std::int64_t kTagCounterVersion = -1;
inline constexpr std::string_view kTagCounterAttribute = "c";
// TransactWriteItems takes 100 items: a commit's puts and its tags'
// counters, and a chunk with its tags' pages, share them.
inline constexpr std::size_t kMaxTransactItems = 100;

std::string TagPartition(std::string_view tag);
bool IsTagPartition(std::string_view stream);

// One tagged event in a page of the tag index.
struct TagEntry {
  std::int64_t position = 0;
  std::string stream;
  std::int64_t append_first = 0;  // its append item's version
  std::int64_t offset = 0;        // its place in the append: version append_first + offset
  std::string type;
  std::int64_t k = 0;  // events carrying the tag at positions <= position
};

struct TagPage {
  std::string tag;
  std::int64_t position = 0;  // the sort key: the chunk's first position
  std::vector<TagEntry> entries;
  std::int64_t k() const { return entries.empty() ? 0 : entries.back().k; }
};

boost::json::object TagPageItem(const TagPage& page);
Result<TagPage> ParseTagPage(std::string_view tag, const boost::json::object& item);

// Reads of the tag items. Thread-safe (the Client is); the Client must
// outlive it.
class TagIndex {
 public:
  TagIndex(aws::Client& client, std::string events_table)
      : client_(client), events_table_(std::move(events_table)) {}

  // The counters of `tags` (0 for a tag never committed): one BatchGetItem
  // per 100 tags, consistent.
  Result<std::map<std::string, std::int64_t>> Counters(const std::vector<std::string>& tags);
  // K_t(P): how many events carrying `tag` the index holds at positions up
  // to `position` (0 if none): one consistent Query, Limit 1.
  Result<std::int64_t> CountThrough(std::string_view tag, std::int64_t position);
  // Up to `limit` pages of `tag` in sort-key order from `from` (forward:
  // keys >= from; backward: keys <= from).
  Result<std::vector<TagPage>> Pages(std::string_view tag, std::int64_t from, bool forward,
                                     int limit);
  // The page holding `position`: the greatest key <= position; nullopt if none.
  Result<std::optional<TagPage>> PageAtOrBefore(std::string_view tag, std::int64_t position);

  const std::string& table() const { return events_table_; }
  aws::Client& client() { return client_; }

 private:
  aws::Client& client_;
  std::string events_table_;
};

// ReadQuery on DynamoDB (docs/DYNAMODB.md): items with tags read the tag
// index of their rarest tag (by its counter), items of types alone scan
// $all; the candidates merged in position order, each event fetched from
// its append item and checked against the whole query. `end`: the last
// position the cursor may show (the chain's end when it was made).
class AllIndex;
Result<std::unique_ptr<AllCursor>> MakeQueryCursor(AllIndex& all, TagIndex& tags,
                                                   const Query& query,
                                                   const ReadQueryOptions& options, Position end);

}  // namespace indelible::dynamodb
