#include "aws/retry_strategy.h"

#include <algorithm>

namespace indelible::aws {

std::chrono::milliseconds RetryDelay(const RetryOptions& options, RetryKind kind, int retry,
                                     std::uint64_t random) {
  std::chrono::milliseconds ceiling =
      kind == RetryKind::kThrottle ? options.throttle_base : options.base;
  // Doubling stops at the cap, so that large retry counts cannot overflow.
  for (int i = 1; i < retry && ceiling < options.cap; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, options.cap);
  const auto span = static_cast<std::uint64_t>(ceiling.count()) + 1;
  return std::chrono::milliseconds(static_cast<std::int64_t>(random % span));
}

int RetryQuota::Acquire(RetryKind kind) {
  const int cost = kind == RetryKind::kTransient ? kTransientRetryCost : kRetryCost;
  if (capacity_ == 0) return cost;
  int tokens = tokens_.load(std::memory_order_relaxed);
  do {
    if (tokens < cost) return 0;
  } while (!tokens_.compare_exchange_weak(tokens, tokens - cost, std::memory_order_relaxed));
  return cost;
}

void RetryQuota::Release(int last_retry_cost) {
  if (capacity_ == 0) return;
  const int amount = last_retry_cost > 0 ? last_retry_cost : kNoRetryIncrement;
  int tokens = tokens_.load(std::memory_order_relaxed);
  while (tokens < capacity_ &&
         !tokens_.compare_exchange_weak(tokens, std::min(capacity_, tokens + amount),
                                        std::memory_order_relaxed)) {
  }
}

}  // namespace indelible::aws
