// Counters of the server, rendered in Prometheus text format for /metrics.
// Every member is safe to update from any thread.
#pragma once

#include <indelible/status.h>
#include <indelible/store.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/mutex.h"

namespace indelible::server {

class Metrics {
 public:
  void RecordAppend(std::size_t events, std::size_t bytes, std::chrono::nanoseconds latency);
  void RecordError(ErrorCode code);
  void RecordResponse(unsigned status);
  // Authentication on: a request of this principal, allowed or denied (403).
  void RecordPrincipal(const std::string& principal, bool denied);
  // A request refused 401 (no, bad, expired or revoked credentials).
  void RecordAuthFailure() { auth_failures_.fetch_add(1, std::memory_order_relaxed); }

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
  std::atomic<std::uint64_t> auth_failures_{0};

  struct PrincipalCounts {
    std::atomic<std::uint64_t> requests{0};
    std::atomic<std::uint64_t> denials{0};
  };
  // Past this many principals, the rest count as "other": a label per
  // principal must not grow without bound (JWT subjects are many).
  static constexpr std::size_t kMaxPrincipals = 1000;
  mutable Mutex principals_mu_;
  std::map<std::string, std::unique_ptr<PrincipalCounts>, std::less<>> principals_
      GUARDED_BY(principals_mu_);
};

}  // namespace indelible::server
