#include "aws/client.h"

#include <fmt/format.h>
#include <zlib.h>

#include <atomic>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include "aws/capacity.h"
#include "aws/errors.h"
#include "aws/sigv4.h"
#include "core/mutex.h"
#include "net/http_client.h"

namespace indelible::aws {

namespace http = net::http;

namespace {

// DynamoDB puts a CRC32 of the body in x-amz-crc32, so that a body damaged
// on the way is noticed (and retried) rather than parsed.
bool ChecksumMatches(const net::Response& response) {
  const auto header = response.find("x-amz-crc32");
  if (header == response.end()) return true;
  const auto& body = response.body();
  const uLong crc =
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  return std::to_string(crc) == std::string_view(header->value());
}

// The answer's body as a JSON object; nullopt when it is not one.
std::optional<boost::json::object> ParseObject(const std::string& body) {
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(body, ec);
  if (ec || !doc.is_object()) return std::nullopt;
  return std::move(doc.get_object());
}

}  // namespace

RetryOptions DefaultRetryOptions() { return RetryOptions{}; }

struct Client::Impl {
  ClientOptions options;
  std::unique_ptr<net::HttpClient> http;
  std::shared_ptr<CredentialsProvider> provider;
  std::unique_ptr<RetryQuota> quota;
  std::atomic<std::uint64_t> calls{0}, throttles{0}, failures{0}, retries{0}, quota_refusals{0},
      deadline_failures{0}, credential_failures{0};
  // Capacity units in thousandths: the answers report halves and tenths.
  std::atomic<std::uint64_t> read_milliunits{0}, write_milliunits{0};
  // A call is a network round trip: a lock per call costs nothing beside it.
  mutable Mutex operations_mu;
  std::map<std::string, OperationCounters, std::less<>> operations GUARDED_BY(operations_mu);

  // Signed anew for every attempt: a signature carries the time it was made.
  net::Request MakeRequest(std::string_view operation, const std::string& body,
                           const Credentials& credentials) const {
    net::Request request = http->MakeRequest(http::verb::post, "/");
    const std::string amz_date = AmzDate(std::chrono::system_clock::now());
    SigningRequest signing;
    signing.method = "POST";
    signing.path = std::string(request.target());
    signing.headers = {{"host", options.endpoint.host_header},
                       {"content-type", "application/x-amz-json-1.0"},
                       {"x-amz-target", options.target_prefix + std::string(operation)}};
    for (auto& header : SigningHeaders(credentials, amz_date))
      signing.headers.push_back(std::move(header));
    signing.body = body;
    const Signature signature =
        Sign(signing, credentials, options.region, options.service, amz_date);
    for (const auto& [name, value] : signing.headers) request.set(name, value);
    request.set(http::field::authorization, signature.authorization);
    request.body() = body;
    request.prepare_payload();
    return request;
  }

  // What kind of failure an attempt met (retry_strategy.h), counting the
  // throttles it sees on the way.
  RetryKind Classify(const net::Exchange& exchange) {
    if (!exchange.ok())
      return exchange.status.code() == ErrorCode::kUnavailable ? RetryKind::kTransient
                                                               : RetryKind::kNone;
    const net::Response& answer = exchange.response;
    if (!ChecksumMatches(answer)) return RetryKind::kOther;
    const int status = static_cast<int>(answer.result_int());
    if (status == 200) return RetryKind::kNone;
    const auto error = ParseObject(answer.body());
    // Neither DynamoDB nor its emulators answer anything but a JSON
    // object; a proxy's HTML page might.
    if (!error) return status >= 500 ? RetryKind::kTransient : RetryKind::kNone;
    const std::string type = ErrorType(*error);
    if (IsThrottle(type)) {
      throttles.fetch_add(1, std::memory_order_relaxed);
      return RetryKind::kThrottle;
    }
    if (status >= 500) return RetryKind::kTransient;
    return IsRetryable(status, type) ? RetryKind::kOther : RetryKind::kNone;
  }

  // The attempts of one call, as retry_strategy.h has them: the last
  // attempt's exchange, or why none was sent.
  net::Exchange Attempts(std::string_view operation, const std::string& body, Status* refused) {
    thread_local std::mt19937_64 random{std::random_device{}()};
    const auto start = std::chrono::steady_clock::now();
    net::RetryPolicy once;
    once.max_attempts = 1;
    once.retry_transport = false;
    once.resend_on_stale_connection = true;
    if (options.retry.deadline) once.deadline = start + *options.retry.deadline;
    int last_cost = 0;
    for (int attempt = 1;; ++attempt) {
      auto signer = provider->Current();
      if (!signer.ok()) {
        credential_failures.fetch_add(1, std::memory_order_relaxed);
        *refused = signer.status();
        net::Exchange none;
        none.attempts = attempt - 1;
        return none;
      }
      net::Exchange exchange =
          http->Send([&] { return MakeRequest(operation, body, **signer); }, once);
      exchange.attempts = attempt;
      const RetryKind kind = Classify(exchange);
      if (kind == RetryKind::kNone) {
        if (exchange.ok() && exchange.response.result_int() == 200) quota->Release(last_cost);
        return exchange;
      }
      if (attempt >= options.retry.max_attempts) return exchange;
      const auto delay = RetryDelay(options.retry, kind, attempt, random());
      if (once.deadline && std::chrono::steady_clock::now() + delay >= *once.deadline) {
        deadline_failures.fetch_add(1, std::memory_order_relaxed);
        *refused = Status::Unavailable(fmt::format("the call's deadline of {} ms was reached",
                                                   options.retry.deadline->count()));
        return exchange;
      }
      const int cost = quota->Acquire(kind);
      if (cost == 0) {
        quota_refusals.fetch_add(1, std::memory_order_relaxed);
        *refused = Status::Unavailable(
            fmt::format("the retry quota is spent ({} tokens; the service failed too often lately)",
                        quota->capacity()));
        return exchange;
      }
      last_cost = cost;
      retries.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::sleep_for(delay);
    }
  }

  // The reply for the last attempt's answer.
  Status Decode(std::string_view operation, const net::Response& answer, Reply* reply) {
    const std::string& url = options.endpoint.url;
    if (!ChecksumMatches(answer))
      return Status::Unavailable(
          fmt::format("the answer from {} does not match its x-amz-crc32 checksum", url));
    const int status = static_cast<int>(answer.result_int());
    auto doc = ParseObject(answer.body());
    if (!doc)
      return Status::Internal(
          fmt::format("{} {} at {}: HTTP {} with a body that is not a JSON "
                      "object: {:.200}",
                      options.service, operation, url, status, answer.body()));
    reply->body = std::move(*doc);
    if (status != 200) {
      reply->error_type = ErrorType(reply->body);
      return MapError(url, operation, status, reply->body);
    }
    return Status::Ok();
  }

  // Adds a call's reply to the totals and to its operation's counters.
  void Count(std::string_view operation, CapacityKind capacity, const boost::json::object& request,
             const Reply& reply) {
    const double units =
        reply.ok() && capacity != CapacityKind::kNone ? ConsumedUnits(reply.body) : 0;
    if (units > 0)
      (capacity == CapacityKind::kRead ? read_milliunits : write_milliunits)
          .fetch_add(static_cast<std::uint64_t>(units * 1000.0 + 0.5), std::memory_order_relaxed);
    // Estimated whether or not the client counts what answers report: it
    // asks DynamoDB nothing more.
    const RefusedWrite refused =
        !reply.ok() && !reply.error_type.empty() &&
                CapacityKindOf(operation) == CapacityKind::kWrite
            ? RefusedWriteEstimate(operation, reply.error_type, request, reply.body)
            : RefusedWrite{};
    MutexLock lock(&operations_mu);
    auto it = operations.find(operation);
    if (it == operations.end()) {
      OperationCounters counters;
      counters.operation = std::string(operation);
      it = operations.emplace(counters.operation, std::move(counters)).first;
    }
    OperationCounters& counters = it->second;
    ++counters.calls;
    (capacity == CapacityKind::kRead ? counters.read_units : counters.write_units) += units;
    if (refused.refused) {
      ++counters.condition_failures;
      counters.estimated_write_units += refused.estimated_write_units;
    }
  }
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::Create(ClientOptions options) {
  net::HttpClientOptions http;
  http.endpoint = options.endpoint;
  http.ca_file = options.ca_file;
  http.connect_timeout = options.connect_timeout;
  http.request_timeout = options.request_timeout;
  http.max_idle_connections = options.max_idle_connections;
  // A Query or Scan page is at most 1 MB of items; BatchGetItem 16 MB.
  http.body_limit = 64 << 20;
  auto client = net::HttpClient::Create(std::move(http));
  if (!client.ok()) return client.status();
  auto impl = std::make_unique<Impl>();
  if (options.retry.max_attempts < 1) options.retry.max_attempts = 1;
  impl->provider = options.credentials_provider ? options.credentials_provider
                                                : StaticCredentials(options.credentials);
  impl->quota = std::make_unique<RetryQuota>(std::max(0, options.retry.quota));
  impl->options = std::move(options);
  impl->http = std::move(*client);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Reply Client::Call(std::string_view operation, const boost::json::object& request) {
  Impl& m = *impl_;
  m.calls.fetch_add(1, std::memory_order_relaxed);
  const CapacityKind capacity =
      m.options.count_capacity ? CapacityKindOf(operation) : CapacityKind::kNone;
  const std::string body = capacity == CapacityKind::kNone
                               ? boost::json::serialize(request)
                               : AskConsumedCapacity(boost::json::serialize(request));
  Status stopped;  // why retries stopped early, when they did
  net::Exchange exchange = m.Attempts(operation, body, &stopped);
  Reply reply;
  reply.attempts = exchange.attempts;
  if (reply.attempts == 0) {
    reply.status = std::move(stopped);  // nothing was sent
  } else {
    reply.status =
        exchange.ok() ? m.Decode(operation, exchange.response, &reply) : std::move(exchange.status);
  }
  m.Count(operation, capacity, request, reply);
  if (!reply.ok()) {
    m.failures.fetch_add(1, std::memory_order_relaxed);
    if (reply.attempts > 0 && (reply.attempts > 1 || !stopped.ok()))
      reply.status =
          Annotate(reply.status, fmt::format(" (after {} attempt{}{}{})", reply.attempts,
                                             reply.attempts == 1 ? "" : "s",
                                             stopped.ok() ? "" : "; ", stopped.message()));
  }
  return reply;
}

ClientCounters Client::counters() const {
  const Impl& m = *impl_;
  const net::HttpCounters http = m.http->counters();
  ClientCounters counters;
  counters.calls = m.calls.load();
  counters.requests = http.requests;
  counters.retries = m.retries.load();
  counters.quota_refusals = m.quota_refusals.load();
  counters.deadline_failures = m.deadline_failures.load();
  counters.credential_failures = m.credential_failures.load();
  counters.throttles = m.throttles.load();
  counters.connects = http.connects;
  counters.failures = m.failures.load();
  counters.read_units = static_cast<double>(m.read_milliunits.load()) / 1000.0;
  counters.write_units = static_cast<double>(m.write_milliunits.load()) / 1000.0;
  MutexLock lock(&m.operations_mu);
  counters.operations.reserve(m.operations.size());
  for (const auto& [name, operation] : m.operations) counters.operations.push_back(operation);
  return counters;
}

const ClientOptions& Client::options() const { return impl_->options; }

}  // namespace indelible::aws
