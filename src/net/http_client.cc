#include "net/http_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <thread>

namespace indelible::net {

using std::chrono::milliseconds;

Result<std::unique_ptr<HttpClient>> HttpClient::Create(HttpClientOptions options) {
  std::shared_ptr<TlsContext> tls;
  if (options.endpoint.tls) {
    auto context = MakeTlsContext(options.ca_file, options.cert_file, options.key_file);
    if (!context.ok()) return context.status();
    tls = std::move(*context);
  }
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(options), std::move(tls)));
}

HttpClient::HttpClient(HttpClientOptions options, std::shared_ptr<TlsContext> tls)
    : options_(std::move(options)), tls_(std::move(tls)) {}

HttpClient::~HttpClient() = default;

Request HttpClient::MakeRequest(http::verb method, std::string_view target,
                                std::string_view user_agent) const {
  Request request(method, options_.endpoint.base_path + std::string(target), 11);
  request.set(http::field::host, options_.endpoint.host_header);
  request.set(http::field::user_agent, user_agent);
  if (!options_.authorization.empty())
    request.set(http::field::authorization, options_.authorization);
  request.keep_alive(true);
  return request;
}

Exchange HttpClient::Send(const Request& request, const RetryPolicy& policy, milliseconds extra) {
  return Send([&request] { return request; }, policy, extra);
}

Exchange HttpClient::Send(const std::function<Request()>& make_request, const RetryPolicy& policy,
                          milliseconds extra) {
  const milliseconds timeout = options_.request_timeout + extra;
  thread_local std::mt19937_64 random{std::random_device{}()};
  for (int attempt = 1;; ++attempt) {
    milliseconds attempt_timeout = timeout;
    if (policy.deadline) {
      const auto left = std::chrono::duration_cast<milliseconds>(*policy.deadline -
                                                                 std::chrono::steady_clock::now());
      if (left <= milliseconds(0)) {
        Exchange late;
        late.attempts = attempt - 1;
        late.status = Status::Unavailable(fmt::format(
            "{}: the call's deadline passed before attempt {}", options_.endpoint.url, attempt));
        return late;
      }
      attempt_timeout = std::min(attempt_timeout, left);
    }
    Exchange exchange = Attempt(make_request(), policy, attempt_timeout);
    exchange.attempts = attempt;
    const bool retry =
        exchange.ok() ? policy.retry_answer && policy.retry_answer(exchange.response)
                      : policy.retry_transport && exchange.status.code() == ErrorCode::kUnavailable;
    if (!retry || attempt >= policy.max_attempts) {
      if (!exchange.ok() && attempt > 1 && exchange.status.code() == ErrorCode::kUnavailable)
        exchange.status = Status::Unavailable(
            fmt::format("{} (after {} attempts)", exchange.status.message(), attempt));
      return exchange;
    }
    const milliseconds delay = BackoffDelay(policy, attempt, random());
    if (policy.deadline && std::chrono::steady_clock::now() + delay >= *policy.deadline) {
      if (!exchange.ok())
        exchange.status = Status::Unavailable(fmt::format("{} (deadline reached after {} attempts)",
                                                          exchange.status.message(), attempt));
      return exchange;
    }
    retries_.fetch_add(1, std::memory_order_relaxed);
    std::this_thread::sleep_for(delay);
  }
}

Exchange HttpClient::Attempt(const Request& request, const RetryPolicy& policy,
                             milliseconds timeout) {
  Exchange exchange;
  bool reused = false;
  auto connection = Acquire(&reused);
  if (!connection.ok()) {
    exchange.status = connection.status();
    return exchange;
  }
  requests_.fetch_add(1, std::memory_order_relaxed);
  NetError ec = (*connection)->RoundTrip(request, &exchange.response, timeout, options_.body_limit);
  if (ec && reused && policy.resend_on_stale_connection && IsClosedByPeer(ec)) {
    // Not a retry: the server never read the request.
    connection = OpenConnection();
    if (!connection.ok()) {
      exchange.status = connection.status();
      return exchange;
    }
    requests_.fetch_add(1, std::memory_order_relaxed);
    ec = (*connection)->RoundTrip(request, &exchange.response, timeout, options_.body_limit);
  }
  if (ec) {
    exchange.status = TransportError(ec, timeout);
    return exchange;
  }
  Release(std::move(*connection));
  return exchange;
}

Status HttpClient::Connect() {
  auto connection = OpenConnection();
  if (!connection.ok()) return connection.status();
  Release(std::move(*connection));
  return Status::Ok();
}

Result<std::unique_ptr<Connection>> HttpClient::OpenConnection() {
  connects_.fetch_add(1, std::memory_order_relaxed);
  auto connection = Connection::Open(options_.endpoint, tls_, options_.connect_timeout);
  if (!connection.ok() && !options_.refused_hint.empty() &&
      connection.status().code() == ErrorCode::kUnavailable &&
      connection.status().message().ends_with("connection refused"))
    return Status::Unavailable(
        fmt::format("{} ({})", connection.status().message(), options_.refused_hint));
  return connection;
}

Result<std::unique_ptr<Connection>> HttpClient::Acquire(bool* reused) {
  {
    MutexLock lock(&mu_);
    while (!idle_.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      if (connection->Reusable()) {
        *reused = true;
        return connection;
      }
    }
  }
  *reused = false;
  return OpenConnection();
}

void HttpClient::Release(std::unique_ptr<Connection> connection) {
  if (!connection->Reusable()) return;
  MutexLock lock(&mu_);
  if (idle_.size() < options_.max_idle_connections) idle_.push_back(std::move(connection));
}

Status HttpClient::TransportError(const NetError& ec, milliseconds timeout) const {
  return Status::Unavailable(DescribeTransportError(options_.endpoint, ec, timeout));
}

HttpCounters HttpClient::counters() const {
  return {requests_.load(std::memory_order_relaxed), retries_.load(std::memory_order_relaxed),
          connects_.load(std::memory_order_relaxed)};
}

}  // namespace indelible::net
