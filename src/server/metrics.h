// Counters of the server, rendered in Prometheus text format for /metrics.
// Every member is safe to update from any thread.
#pragma once

#include <indelible/status.h>
#include <indelible/store.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace indelible::server {

class Metrics {
 public:
  void RecordAppend(std::size_t events, std::size_t bytes, std::chrono::nanoseconds latency);
  void RecordError(ErrorCode code);
  void RecordResponse(unsigned status);

  std::atomic<std::int64_t> open_connections{0};
  std::atomic<std::int64_t> subscribers{0};
  // Connections answered 503 and closed at max_connections.
  std::atomic<std::uint64_t> shed_connections{0};

  // The whole text of /metrics, with the store's own counters.
  std::string Render(const Store& store) const;

 private:
  // Upper bounds of the append latency histogram, in seconds.
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,  0.5,   1,    2.5};
  std::atomic<std::uint64_t> appends_{0};
  std::atomic<std::uint64_t> append_events_{0};
  std::atomic<std::uint64_t> append_bytes_{0};
  std::array<std::atomic<std::uint64_t>, kBuckets.size() + 1> latency_buckets_{};
  std::atomic<std::uint64_t> latency_sum_ns_{0};
  std::array<std::atomic<std::uint64_t>, 9> errors_{};     // by ErrorCode
  std::array<std::atomic<std::uint64_t>, 6> responses_{};  // by status class 1xx..5xx, other
};

}  // namespace indelible::server
