#include "storage/dynamodb/change_records.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "core/text.h"
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

Result<std::optional<Appended>> TipUpdate(std::string stream, const json::object& change,
                                          const json::object& image) {
  Appended out;
  out.stream = std::move(stream);
  auto after = ParseTip(out.stream, image);
  if (!after.ok()) return after.status();
  const std::int64_t new_head = after->head.version.value();
  std::int64_t from = 0;
  if (const json::object* old_image = ObjectAt(change, "OldImage")) {
    auto before = ParseTip(out.stream, *old_image);
    if (!before.ok()) return before.status();
    from = before->head.version.value() + 1;
  }
  if (new_head < from) return std::optional<Appended>();  // head unchanged
  out.first = from;
  for (auto& append : after->appends)
    for (auto& event : append.events)
      if (event.version.value() >= from) out.events.push_back(std::move(event));
  // The append's own attribute is in the new image: it was written by this
  // very update. Anything else is damage, not a race.
  if (static_cast<std::int64_t>(out.events.size()) != new_head - from + 1)
    return Status::Internal(
        fmt::format("the change record of stream '{}' (head {} -> {}) holds {} of its events",
                    Printable(out.stream), from - 1, new_head, out.events.size()));
  return std::optional<Appended>(std::move(out));
}

}  // namespace

Result<std::optional<Appended>> AppendedBy(const json::object& record) {
  const json::object* change = ObjectAt(record, "dynamodb");
  if (change == nullptr) return Status::Internal("a change record without `dynamodb`");
  const json::object* keys = ObjectAt(*change, "Keys");
  if (keys == nullptr) return Status::Internal("a change record without Keys");
  const json::object* stream_key = ObjectAt(*keys, kStreamKey);
  auto version = GetN(*keys, kVersionKey);
  if (stream_key == nullptr || !version)
    return Status::Internal("a change record without a stream or version key");
  const json::object* image = ObjectAt(*change, "NewImage");
  if (image == nullptr) return std::optional<Appended>();  // a removal
  if (*version == kTipVersion) return TipUpdate(StringAt(*stream_key, "S"), *change, *image);
  // An append item is written once: its INSERT is the append; a later
  // MODIFY (a state record) or an event item of the earlier layout adds
  // nothing.
  if (*version < 0 || ObjectAt(*change, "OldImage") != nullptr ||
      Member(*image, kCountAttribute) == nullptr)
    return std::optional<Appended>();
  auto item = ParseAppendItem(*image);
  if (!item.ok()) return item.status();
  Appended out;
  out.stream = item->events.front().stream;
  out.first = item->first;
  out.events = std::move(item->events);
  out.in_item = true;
  return std::optional<Appended>(std::move(out));
}

}  // namespace indelible::dynamodb
