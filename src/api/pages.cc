// api/pages.h: stream and $all pages, written as one string.
#include "api/pages.h"

#include <cstdint>
#include <limits>
#include <utility>

#include "core/event_json.h"

namespace indelible::api {

bool EventPageWriter::Add(const EventView& event) {
  const std::size_t before = body_.size();
  if (events_ > 0) body_ += ',';
  AppendEventJson(event, &body_);
  if (events_ > 0 && body_.size() + kTailBytes > max_bytes_) {
    body_.resize(before);
    return false;
  }
  ++events_;
  return true;
}

std::string EventPageWriter::Close(std::string_view tail) && {
  body_ += tail;
  return std::move(body_);
}

StreamPageWriter::StreamPageWriter(std::string_view stream, std::size_t max_bytes)
    : EventPageWriter(R"({"stream":)" + QuoteJson(stream) + R"(,"events":[)", max_bytes) {}

std::string StreamPageWriter::Finish(std::optional<StreamVersion> next) && {
  return std::move(*this).Close(R"(],"nextVersion":)" +
                                (next ? std::to_string(next->value()) : std::string("null")) + "}");
}

AllPageWriter::AllPageWriter(std::size_t max_bytes)
    : EventPageWriter(R"({"events":[)", max_bytes) {}

std::string AllPageWriter::Finish(Position next) && {
  return std::move(*this).Close(R"(],"next":)" + std::to_string(next.value()) + "}");
}

std::string StreamPageToJson(const StreamPage& page) {
  StreamPageWriter writer(page.stream, std::numeric_limits<std::size_t>::max());
  for (const RecordedEvent& event : page.events) writer.Add(event.view());
  return std::move(writer).Finish(page.next_version);
}

std::string AllPageToJson(const AllPage& page) {
  AllPageWriter writer(std::numeric_limits<std::size_t>::max());
  for (const RecordedEvent& event : page.events) writer.Add(event.view());
  return std::move(writer).Finish(page.next);
}

}  // namespace indelible::api
