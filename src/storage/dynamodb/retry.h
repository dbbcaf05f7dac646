// When to try a DynamoDB request again: exponential back-off with full
// jitter (the AWS Architecture Blog's "Exponential Backoff and Jitter"):
// before retry n (1, 2, ...) wait a uniformly random time in
// [0, min(cap, base * 2^(n-1))]. Random waits spread the clients that a
// throttle stopped together, so they do not come back together.
//
// A value type; BackoffDelay is a pure function: safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>

namespace indelible::dynamodb {

struct RetryPolicy {
  // Attempts in all, the first one included; 1 turns retries off.
  int max_attempts = 10;
  std::chrono::milliseconds base{25};
  std::chrono::milliseconds cap{5000};
};

// The wait before retry `retry` (1-based), drawn with `random` (any 64-bit
// value, e.g. from std::mt19937_64).
std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int retry, std::uint64_t random);

// The ceiling BackoffDelay draws below for `retry`: min(cap, base * 2^(retry-1)).
std::chrono::milliseconds BackoffCeiling(const RetryPolicy& policy, int retry);

}  // namespace indelible::dynamodb
