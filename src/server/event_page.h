// EventPage: the JSON of one page of events (a stream read, an /all page)
// under a byte budget. One rule for every page: an event that would take
// the page, its closing text included, past `max_bytes` is not added and
// starts the next page, except the first (a page always holds one event,
// or paging would never move on).
#pragma once

#include <indelible/event.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace indelible::server {

class EventPage {
 public:
  // `head` opens the page up to its array: `{"events":[`.
  EventPage(std::string head, std::size_t max_bytes)
      : body_(std::move(head)), max_bytes_(max_bytes) {}

  // Adds the event; false (and nothing added) when it does not fit.
  bool Add(const EventView& event);

  std::size_t events() const { return events_; }
  // Closes the array with `tail` (`],"next":7}`) and gives the body.
  std::string Finish(std::string_view tail) &&;

 private:
  // Room kept for the closing text: `],"nextVersion":` and a 20-digit number.
  static constexpr std::size_t kTailBytes = 40;

  std::string body_;
  const std::size_t max_bytes_;
  std::size_t events_ = 0;
};

}  // namespace indelible::server
