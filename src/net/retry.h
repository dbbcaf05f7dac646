// When to send a request again: a policy the caller chooses, because only it
// knows what is safe to repeat and which answers are passing troubles.
//
// Waits are exponential back-off with full jitter (the AWS Architecture
// Blog's "Exponential Backoff and Jitter"): before retry n (1, 2, ...) wait a
// uniformly random time in [0, min(cap, base * 2^(n-1))]. Random waits spread
// the clients that one overload stopped together, so they do not come back
// together.
//
// A value type; BackoffDelay is a pure function: safe from any thread.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

namespace indelible::net {

struct RetryPolicy {
  // Attempts in all, the first one included; 1 turns retries off.
  int max_attempts = 1;
  std::chrono::milliseconds base{25};
  std::chrono::milliseconds cap{5000};
  // An answer worth another attempt (a 503, a throttle its body names).
  // Called once for every answer, the last attempt's too, so it may count
  // what it sees. Unset: every answer is final.
  std::function<bool(const boost::beast::http::response<boost::beast::http::string_body>&)>
      retry_answer;
  // A failure without an answer (cannot connect, connection lost, no answer
  // within the timeout) is worth another attempt. The request may have been
  // handled before its answer was lost: only for requests safe to repeat.
  // A refused certificate (unauthorized) is never retried.
  bool retry_transport = false;
  // A reused keep-alive connection that the server had closed meanwhile
  // (its idle timeout) fails before the server read the request: send it
  // once more at once, on a new connection. Not counted as an attempt.
  bool resend_on_stale_connection = true;
  // No attempt starts after it, an attempt's answer is waited for until it
  // at the latest, and no back-off is waited that would end past it (the
  // call then fails unavailable, "deadline"). Unset: none.
  std::optional<std::chrono::steady_clock::time_point> deadline{};
};

// The wait before retry `retry` (1-based), drawn with `random` (any 64-bit
// value, e.g. from std::mt19937_64).
std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int retry, std::uint64_t random);

// The ceiling BackoffDelay draws below for `retry`: min(cap, base * 2^(retry-1)).
std::chrono::milliseconds BackoffCeiling(const RetryPolicy& policy, int retry);

}  // namespace indelible::net
