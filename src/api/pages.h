// Stream and $all pages as the server writes them (docs/HTTP.md, "Reading";
// their decoders are in wire.h). The read path's fast path: each event's
// stored JSON (core's AppendEventJson) is appended to the one string that
// becomes the body, never through a JSON document.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/api.h"
#include "indelible/event.h"
#include "indelible/types.h"

namespace indelible::api {

// The events of one page under a byte budget. One rule for every page: an
// event that would take the page, its closing text included, past
// `max_bytes` is not added and starts the next page, except the first (a
// page always holds one event, or paging would never move on).
class EventPageWriter {
 public:
  // Adds the event; false (and nothing added) when it does not fit.
  bool Add(const EventView& event);
  std::size_t events() const { return events_; }

 protected:
  // `head` opens the page up to its array: `{"events":[`.
  EventPageWriter(std::string head, std::size_t max_bytes)
      : body_(std::move(head)), max_bytes_(max_bytes) {}
  // Closes the array with `tail` (`],"next":7}`) and gives the body.
  std::string Close(std::string_view tail) &&;

 private:
  // Room kept for the closing text: `],"nextVersion":` and a 20-digit number.
  static constexpr std::size_t kTailBytes = 40;

  std::string body_;
  std::size_t max_bytes_;
  std::size_t events_ = 0;
};

// GET /streams/{stream}: {stream, events, nextVersion}.
class StreamPageWriter : public EventPageWriter {
 public:
  StreamPageWriter(std::string_view stream, std::size_t max_bytes);
  // `next`: where the next page starts; nullopt (null) when no event is left.
  std::string Finish(std::optional<StreamVersion> next) &&;
};

// GET /all: {events, next}.
class AllPageWriter : public EventPageWriter {
 public:
  explicit AllPageWriter(std::size_t max_bytes);
  std::string Finish(Position next) &&;
};

// A whole page at once, with no byte budget (last_version goes in the
// ETag, not the body).
std::string StreamPageToJson(const StreamPage& page);
std::string AllPageToJson(const AllPage& page);

}  // namespace indelible::api
