// StreamTable::ScanHeads: the streams of a table and their heads, for the
// $all rebuild (index_rebuild.h).
#include <boost/json.hpp>

#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/batch_get.h"
#include "storage/dynamodb/stream_table.h"
#include "storage/dynamodb/tag_index.h"

namespace indelible::dynamodb {
namespace json = boost::json;

Result<std::map<std::string, StreamHead>> StreamTable::ScanHeads() {
  // Every item (a Scan reads them all anyway): a stream's head is its
  // tip's, or else its newest append item's end. Whole items, since the
  // head's `deleted` is the type of an append's last event.
  std::map<std::string, StreamHead> heads;
  std::map<std::string, std::int64_t> newest_first;  // stream -> newest item's version
  std::map<std::string, bool> has_tip;
  json::object request{{"TableName", options_.table}, {"ConsistentRead", true}};
  Status scanned = ScanItems(client_, std::move(request), [&](const json::object& item) -> Status {
    auto name = GetS(item, kStreamKey);
    auto version = GetN(item, kVersionKey);
    if (!name || !version)
      return Status::Internal("an item in " + options_.table + " without its keys");
    std::string stream(*name);
    if (*version < 0) return Status::Ok();            // a snapshot part, a tag's counter
    if (IsTagPartition(stream)) return Status::Ok();  // the tag index: not a stream
    if (*version == kTipVersion) {
      auto tip = ParseTip(stream, item);
      if (!tip.ok()) return tip.status();
      has_tip[stream] = true;
      heads.insert_or_assign(stream, StreamHead{tip->head.version, Position(0), tip->head.deleted,
                                                tip->head.first_version});
      return Status::Ok();
    }
    if (has_tip[stream]) return Status::Ok();
    auto known = newest_first.find(stream);
    if (known != newest_first.end() && known->second > *version) return Status::Ok();
    auto parsed = ParseAppendItem(item);
    if (!parsed.ok()) return parsed.status();
    newest_first[stream] = *version;
    heads.insert_or_assign(stream, StreamHead{StreamVersion(parsed->last()), Position(0),
                                              parsed->events.back().type == kDeletedEventType,
                                              StreamVersion(parsed->life_first)});
    return Status::Ok();
  });
  if (!scanned.ok()) return scanned;
  return heads;
}

}  // namespace indelible::dynamodb
