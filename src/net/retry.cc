#include "net/retry.h"

#include <algorithm>

namespace indelible::net {

std::chrono::milliseconds BackoffCeiling(const RetryPolicy& policy, int retry) {
  // Doubling stops at the cap, so that large retry counts cannot overflow.
  std::chrono::milliseconds ceiling = policy.base;
  for (int i = 1; i < retry && ceiling < policy.cap; ++i) ceiling *= 2;
  return std::min(ceiling, policy.cap);
}

std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int retry, std::uint64_t random) {
  const auto ceiling = static_cast<std::uint64_t>(BackoffCeiling(policy, retry).count());
  return std::chrono::milliseconds(static_cast<std::int64_t>(random % (ceiling + 1)));
}

}  // namespace indelible::net
