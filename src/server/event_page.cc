#include "server/event_page.h"

#include <utility>

#include "core/event_json.h"

namespace indelible::server {

bool EventPage::Add(const EventView& event) {
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

std::string EventPage::Finish(std::string_view tail) && {
  body_ += tail;
  return std::move(body_);
}

}  // namespace indelible::server
