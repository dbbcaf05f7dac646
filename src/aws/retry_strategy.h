// The AWS SDKs' "standard" retry mode (the SDKs and Tools reference guide,
// "Retry behavior"), as aws::Client applies it to every call:
//
//   - What is retried, by kind: throttles (ThrottlingException,
//     ProvisionedThroughputExceededException, ...: errors.h IsThrottle);
//     transient failures (no answer, a lost connection, HTTP 5xx); and
//     other passing troubles (TransactionConflictException, a body that
//     fails its checksum). Every other error is final at once.
//   - Back-off: full jitter, a random wait in [0, min(cap, base * 2^(n-1))]
//     before retry n, with base 500 ms for throttles (the SDKs' throttling
//     base: a throttled table needs time, not a quick second try) and 25 ms
//     otherwise (DynamoDB's base in the SDKs), cap 20 s.
//   - A retry quota, one per client: a bucket of 500 tokens; a retry takes
//     5 (10 after a transient failure, which is likelier to be a dead
//     endpoint); a call that succeeds gives back what its last retry took,
//     or 1 token when it needed no retry, up to 500. An empty bucket means
//     no more retries until calls succeed again: a failing service is not
//     hammered by every caller's whole ladder of attempts.
//   - At most `max_attempts` attempts, and none started, nor a back-off
//     waited, past the call's deadline.
//
// Concurrency: RetryQuota is thread-safe (one mutex-free atomic); the rest
// are values and pure functions.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

namespace indelible::aws {

enum class RetryKind {
  kNone,       // final: not worth another attempt
  kThrottle,   // the service refused for rate
  kTransient,  // no answer, a lost connection, HTTP 5xx
  kOther,      // a transaction conflict, a damaged body
};

struct RetryOptions {
  // Attempts in all, the first one included; 1 turns retries off.
  int max_attempts = 10;
  std::chrono::milliseconds base{25};
  std::chrono::milliseconds throttle_base{500};
  std::chrono::milliseconds cap{20000};
  // The quota's tokens; 0 turns the quota off.
  int quota = 500;
  // The longest a call may take, retries and waits included; unset: bounded
  // by max_attempts alone.
  std::optional<std::chrono::milliseconds> deadline{};
};

// The wait before retry `retry` (1-based) after a failure of `kind`, drawn
// with `random` (any 64-bit value).
std::chrono::milliseconds RetryDelay(const RetryOptions& options, RetryKind kind, int retry,
                                     std::uint64_t random);

class RetryQuota {
 public:
  static constexpr int kRetryCost = 5;
  static constexpr int kTransientRetryCost = 10;
  static constexpr int kNoRetryIncrement = 1;

  explicit RetryQuota(int capacity) : capacity_(capacity), tokens_(capacity) {}

  // Takes the tokens a retry after `kind` costs: the amount taken, or 0 when
  // the bucket holds too few (then no retry). Always the cost, taking
  // nothing, when the quota is off (capacity 0).
  int Acquire(RetryKind kind);
  // A call succeeded: `last_retry_cost` is what its last retry took (0 when
  // it needed none).
  void Release(int last_retry_cost);

  int tokens() const { return tokens_.load(std::memory_order_relaxed); }
  int capacity() const { return capacity_; }

 private:
  const int capacity_;
  std::atomic<int> tokens_;
};

}  // namespace indelible::aws
