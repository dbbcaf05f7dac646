// The DynamoDB store's cursors: pages of events fetched on demand, held as
// owned events so that a view stays valid until Next(). Each belongs to one
// thread, as every EventCursor.
#pragma once

#include <memory>
#include <string>

#include "indelible/store.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/stream_table.h"

namespace indelible::dynamodb {

// A stream from `from` to `high` (forward) or down to `low` (backward), in
// pages of StreamTable::ReadStream. `first_page` is what the opening read
// already fetched (forward only; may be empty).
std::unique_ptr<StreamCursor> MakeStreamCursor(StreamTable& table, std::string stream,
                                               const ReadStreamOptions& options, std::int64_t from,
                                               std::int64_t low, std::int64_t high,
                                               std::vector<RecordedEvent> first_page);

// $all from options.from through `end`, filtered, in pages of AllIndex::Read.
std::unique_ptr<AllCursor> MakeAllCursor(AllIndex& index, const ReadAllOptions& options,
                                         Position end);

}  // namespace indelible::dynamodb
