// HttpClient: requests to one HTTP(S) server over a pool of keep-alive
// connections, with the retry policy each call chooses (retry.h).
//
// Concurrency: thread-safe. A call borrows an idle connection (the most
// recently used first: the least likely to have been closed by the server
// for idling), or opens one when none is idle, and gives it back after the
// answer has been read when it is still Reusable(): N threads calling at
// once use N connections, and up to `max_idle_connections` stay open.
//
// Lifetime: connections from OpenConnection() hold the TLS context
// themselves and may outlive the client; destroying the client closes the
// idle connections.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "indelible/result.h"
#include "net/connection.h"
#include "net/retry.h"
#include "net/tls.h"
#include "net/url.h"

namespace indelible::net {

struct HttpClientOptions {
  Endpoint endpoint;  // ParseUrl("https://host:port")
  // PEM certificates trusted besides the system's (https only): a private
  // CA, or a test server's own. Empty: the system's store alone.
  std::string ca_file;
  // The client's certificate and key (PEM) for servers that ask for one
  // (mutual TLS; https only). Empty: none.
  std::string cert_file;
  std::string key_file;
  // Resolving, connecting and the TLS handshake, together.
  std::chrono::milliseconds connect_timeout{3000};
  // Sending one request and reading its whole answer (each attempt).
  std::chrono::milliseconds request_timeout{10000};
  std::size_t max_idle_connections = 8;
  // The largest answer body read whole; nullopt: no limit.
  std::optional<std::uint64_t> body_limit;
  // Added to "connection refused" messages, e.g. "is `indelible serve` running?".
  std::string refused_hint;
  // The Authorization header of every request MakeRequest makes ("Bearer
  // ..."); empty: none.
  std::string authorization;
};

// The outcome of one call, retries included.
struct [[nodiscard]] Exchange {
  // ok: `response` is the server's answer, whatever its HTTP status (the
  // last one when retries ran out). Otherwise there was no answer:
  // unavailable (transport; "(after N attempts)" when retried), or
  // unauthorized (the server's certificate was refused).
  Status status;
  Response response;
  int attempts = 0;

  bool ok() const { return status.ok(); }
};

// What a client has done since it was made. Monotonic.
struct HttpCounters {
  std::uint64_t requests = 0;  // requests sent, every attempt and resend counted
  std::uint64_t retries = 0;   // attempts after the first
  std::uint64_t connects = 0;  // connections opened
};

class HttpClient {
 public:
  // Errors: invalid (field "ca_file") when ca_file cannot be loaded.
  static Result<std::unique_ptr<HttpClient>> Create(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // A request for `target` (path and query, without the endpoint's base
  // path, which this adds) with Host, User-Agent and keep-alive set.
  Request MakeRequest(http::verb method, std::string_view target,
                      std::string_view user_agent = "indelible/0.1") const;

  // Sends `request` under `policy`, each attempt within request_timeout +
  // `extra` (a long poll's wait).
  Exchange Send(const Request& request, const RetryPolicy& policy,
                std::chrono::milliseconds extra = std::chrono::milliseconds(0));
  // The same, with the request made afresh for every attempt (AWS signs
  // each one with the time it is sent).
  Exchange Send(const std::function<Request()>& make_request, const RetryPolicy& policy,
                std::chrono::milliseconds extra = std::chrono::milliseconds(0));

  // Opens one connection and keeps it idle in the pool: says now whether the
  // server is there. Errors: as Connection::Open.
  Status Connect();

  // A new connection of the caller's own, outside the pool: for streaming
  // answers. Errors: as Connection::Open.
  Result<std::unique_ptr<Connection>> OpenConnection();

  HttpCounters counters() const;
  const HttpClientOptions& options() const { return options_; }
  const Endpoint& endpoint() const { return options_.endpoint; }

 private:
  HttpClient(HttpClientOptions options, std::shared_ptr<TlsContext> tls);
  // An idle connection that is still good, or a new one; `*reused` says which.
  Result<std::unique_ptr<Connection>> Acquire(bool* reused);
  void Release(std::unique_ptr<Connection> connection);
  // One attempt: an answer, or why there was none.
  Exchange Attempt(const Request& request, const RetryPolicy& policy,
                   std::chrono::milliseconds timeout);
  Status TransportError(const NetError& ec, std::chrono::milliseconds timeout) const;

  const HttpClientOptions options_;
  const std::shared_ptr<TlsContext> tls_;  // null for http://

  Mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_ GUARDED_BY(mu_);

  std::atomic<std::uint64_t> requests_{0}, retries_{0}, connects_{0};
};

}  // namespace indelible::net
