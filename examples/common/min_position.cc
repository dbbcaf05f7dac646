#include "min_position.h"

#include <charconv>
#include <cstdint>
#include <string>

namespace examples {

indelible::Status AwaitMinPosition(
    const indelible::HttpRequest& request,
    const std::function<bool(indelible::Position, std::chrono::milliseconds)>& wait_for,
    std::chrono::milliseconds timeout) {
  auto it = request.query.find("minPosition");
  if (it == request.query.end()) return indelible::Status::Ok();
  const std::string& text = it->second;
  std::uint64_t position = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), position);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return indelible::Status::Invalid(
        "minPosition",
        "minPosition must be a position (a non-negative integer) that a write "
        "answered, like 42");
  if (!wait_for(indelible::Position(position), timeout))
    return indelible::Status::Unavailable("the read model has not reached position " + text +
                                          " within " + std::to_string(timeout.count()) +
                                          " ms; retry");
  return indelible::Status::Ok();
}

}  // namespace examples
