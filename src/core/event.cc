#include "indelible/event.h"

#include <algorithm>

#include "indelible/options.h"

namespace indelible {

RecordedEvent EventView::ToOwned() const {
  return RecordedEvent{id,
                       std::string(stream),
                       version,
                       position,
                       std::string(type),
                       std::string(schema),
                       std::string(content_type),
                       std::string(data),
                       std::string(metadata),
                       timestamp_ms,
                       std::vector<std::string>(tags.begin(), tags.end())};
}

EventView RecordedEvent::view() const {
  return EventView{id,           stream, version,  position,     type, schema,
                   content_type, data,   metadata, timestamp_ms, tags};
}

bool AllFilter::Matches(std::string_view stream, std::string_view type) const {
  auto any_of = [](const std::vector<std::string>& list, auto&& pred) {
    return list.empty() || std::any_of(list.begin(), list.end(), pred);
  };
  return any_of(types, [&](const std::string& t) { return t == type; }) &&
         any_of(categories, [&](const std::string& c) { return c == StreamCategory(stream); }) &&
         any_of(stream_prefixes, [&](const std::string& p) { return stream.starts_with(p); });
}

}  // namespace indelible
