#include "entities/outbox.h"

#include <array>
#include <boost/json.hpp>
#include <cstdint>

namespace indelible::entities {
namespace json = boost::json;

namespace {

// splitmix64's finalizer: a cheap, well-mixed 64-bit hash. Not a security
// boundary, only distinct, stable ids.
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

EventId OutboundId(const EventId& cause, std::size_t k) {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  for (int i = 0; i < 8; ++i) hi = (hi << 8) | cause.bytes()[static_cast<std::size_t>(i)];
  for (int i = 8; i < 16; ++i) lo = (lo << 8) | cause.bytes()[static_cast<std::size_t>(i)];
  // "outbox" salt: the k-th outbound id never equals the cause's own id.
  const std::uint64_t salt = 0x6f7574626f780000ULL + k;
  const std::uint64_t a = Mix(hi ^ Mix(salt));
  const std::uint64_t b = Mix(lo ^ Mix(a ^ salt));
  std::array<std::uint8_t, 16> bytes{};
  for (int i = 0; i < 8; ++i) {
    bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(a >> (56 - 8 * i));
    bytes[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(b >> (56 - 8 * i));
  }
  bytes[6] = static_cast<std::uint8_t>((bytes[6] & 0x0f) | 0x40);  // version 4 layout
  bytes[8] = static_cast<std::uint8_t>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return EventId(bytes);
}

EventData OutboxEvent(const PublishedEvent& published, std::string_view cause_metadata,
                      std::string_view stream, StreamVersion cause_version) {
  const std::string causation = published.causation_id.ToString();
  json::object metadata;
  metadata["causationId"] = causation;
  // Keep the command's correlation id, so a consumer can follow the chain.
  // Not brace-initialised: json::value{x} is an initializer list, the array [x].
  json::value correlation = json::string(causation);
  boost::system::error_code ec;
  json::value cause = json::parse(cause_metadata, ec);
  if (!ec && cause.is_object()) {
    if (const json::value* id = cause.as_object().if_contains("correlationId"); id != nullptr)
      correlation = *id;
  }
  metadata["correlationId"] = correlation;
  metadata["entityStream"] = stream;
  metadata["entityVersion"] = cause_version.value();

  EventData event;
  event.id = published.id;
  event.type = published.type;
  event.data = published.data;
  event.metadata = json::serialize(metadata);
  return event;
}

}  // namespace indelible::entities
