#include "storage/dynamodb/client.h"

#include <fmt/format.h>
#include <zlib.h>

#include <atomic>
#include <boost/asio/ssl/context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "storage/dynamodb/capacity.h"
#include "storage/dynamodb/connection.h"
#include "storage/dynamodb/errors.h"
#include "storage/dynamodb/sigv4.h"

namespace indelible::dynamodb {

namespace ssl = boost::asio::ssl;

ClientOptions ClientOptions::FromUrl(const StoreUrl& url, Credentials credentials) {
  ClientOptions o;
  o.endpoint = url.endpoint;
  o.region = url.region;
  o.credentials = std::move(credentials);
  if (url.connect_timeout) o.connect_timeout = *url.connect_timeout;
  if (url.request_timeout) o.request_timeout = *url.request_timeout;
  if (url.max_attempts) o.retry.max_attempts = *url.max_attempts;
  o.ca_file = url.ca_file;
  return o;
}

namespace {

// What one attempt came to: no answer (transport), or an HTTP answer.
struct Attempt {
  std::optional<Status> transport_error;
  int http_status = 0;
  std::string body;
};

Attempt NoAnswer(Status status) {
  Attempt a;
  a.transport_error = std::move(status);
  return a;
}

// DynamoDB puts a CRC32 of the body in x-amz-crc32, so that a body damaged
// on the way is noticed (and retried) rather than parsed.
bool ChecksumMatches(const Response& response) {
  const auto header = response.find("x-amz-crc32");
  if (header == response.end()) return true;
  const auto& body = response.body();
  const uLong crc =
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  return std::to_string(crc) == std::string_view(header->value());
}

}  // namespace

struct Client::Impl {
  ClientOptions options;
  std::unique_ptr<ssl::context> tls;

  Mutex mu;
  std::vector<std::unique_ptr<Connection>> idle GUARDED_BY(mu);

  std::atomic<std::uint64_t> calls{0}, requests{0}, retries{0}, throttles{0}, connects{0},
      failures{0};
  // Capacity units in thousandths: the answers report halves and tenths.
  std::atomic<std::uint64_t> read_milliunits{0}, write_milliunits{0};

  Result<std::unique_ptr<Connection>> Open() {
    connects.fetch_add(1, std::memory_order_relaxed);
    return Connection::Open(options.endpoint, tls.get(), options.connect_timeout);
  }

  // An idle connection that is still good, or a new one; `reused` says which.
  Result<std::unique_ptr<Connection>> Acquire(bool* reused) {
    {
      MutexLock lock(&mu);
      while (!idle.empty()) {
        // The most recently used first: it is the least likely to have been
        // closed by the server for idling.
        std::unique_ptr<Connection> c = std::move(idle.back());
        idle.pop_back();
        if (c->Reusable()) {
          *reused = true;
          return c;
        }
      }
    }
    *reused = false;
    return Open();
  }

  void Release(std::unique_ptr<Connection> c) {
    if (!c->Reusable()) return;
    MutexLock lock(&mu);
    if (idle.size() < options.max_idle_connections) idle.push_back(std::move(c));
  }

  Request MakeRequest(std::string_view operation, const std::string& body) const {
    Request request(http::verb::post, "/", 11);
    const std::string amz_date = AmzDate(std::chrono::system_clock::now());
    SigningRequest signing;
    signing.method = "POST";
    signing.headers = {{"host", options.endpoint.host_header},
                       {"content-type", "application/x-amz-json-1.0"},
                       {"x-amz-target", options.target_prefix + std::string(operation)}};
    for (auto& header : SigningHeaders(options.credentials, amz_date))
      signing.headers.push_back(std::move(header));
    signing.body = body;
    const Signature signature =
        Sign(signing, options.credentials, options.region, "dynamodb", amz_date);
    for (const auto& [name, value] : signing.headers) request.set(name, value);
    request.set(http::field::authorization, signature.authorization);
    request.set(http::field::user_agent, "indelible/0.1");
    request.keep_alive(true);
    request.body() = body;
    request.prepare_payload();
    return request;
  }

  Attempt Send(std::string_view operation, const std::string& body) {
    const Request request = MakeRequest(operation, body);
    bool reused = false;
    auto connection = Acquire(&reused);
    if (!connection.ok()) return NoAnswer(connection.status());
    Response response;
    requests.fetch_add(1, std::memory_order_relaxed);
    NetError ec = (*connection)->RoundTrip(request, &response, options.request_timeout);
    if (ec && reused && IsClosedByPeer(ec)) {
      // The server closed the idle connection as we sent on it: the request
      // was not handled. Once more on a new connection, at once: not a retry.
      connection = Open();
      if (!connection.ok()) return NoAnswer(connection.status());
      requests.fetch_add(1, std::memory_order_relaxed);
      ec = (*connection)->RoundTrip(request, &response, options.request_timeout);
    }
    if (ec)
      return NoAnswer(Status::Unavailable(
          DescribeTransportError(options.endpoint, ec, options.request_timeout)));
    if (!ChecksumMatches(response))
      return NoAnswer(Status::Unavailable(fmt::format(
          "the answer from {} does not match its x-amz-crc32 checksum", options.endpoint.url)));
    Release(std::move(*connection));
    Attempt answered;
    answered.http_status = static_cast<int>(response.result_int());
    answered.body = std::move(response.body());
    return answered;
  }
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::Create(ClientOptions options) {
  auto impl = std::make_unique<Impl>();
  if (options.endpoint.tls) {
    impl->tls = std::make_unique<ssl::context>(ssl::context::tls_client);
    impl->tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                           ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                           ssl::context::no_tlsv1_1);
    impl->tls->set_default_verify_paths();
    if (!options.ca_file.empty()) {
      boost::system::error_code ec;
      impl->tls->load_verify_file(options.ca_file, ec);
      if (ec)
        return Status::Invalid("ca_file", fmt::format("cannot load certificates from '{}': {}",
                                                      options.ca_file, ec.message()));
    }
  }
  if (options.retry.max_attempts < 1) options.retry.max_attempts = 1;
  impl->options = std::move(options);
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
  thread_local std::mt19937_64 random{std::random_device{}()};
  Reply reply;
  for (int attempt = 1;; ++attempt) {
    reply.attempts = attempt;
    Attempt a = m.Send(operation, body);
    std::optional<Status> error = std::move(a.transport_error);
    // Transport errors are passing (unavailable) unless the server's
    // certificate was refused.
    bool retryable = !error || error->code() == ErrorCode::kUnavailable;
    reply.body.clear();
    reply.error_type.clear();
    if (!error) {
      boost::system::error_code ec;
      boost::json::value doc = boost::json::parse(a.body, ec);
      if (ec || !doc.is_object()) {
        // Neither DynamoDB nor its emulators answer anything but a JSON
        // object; a proxy's HTML page might.
        error =
            Status::Internal(fmt::format("DynamoDB {} at {}: HTTP {} with a body that is not a "
                                         "JSON object: {:.200}",
                                         operation, m.options.endpoint.url, a.http_status, a.body));
        retryable = a.http_status >= 500;
      } else if (a.http_status == 200) {
        reply.status = Status::Ok();
        reply.body = std::move(doc.get_object());
        if (capacity != CapacityKind::kNone)
          (capacity == CapacityKind::kRead ? m.read_milliunits : m.write_milliunits)
              .fetch_add(static_cast<std::uint64_t>(ConsumedUnits(reply.body) * 1000.0 + 0.5),
                         std::memory_order_relaxed);
        return reply;
      } else {
        reply.body = std::move(doc.get_object());
        reply.error_type = ErrorType(reply.body);
        if (IsThrottle(reply.error_type)) m.throttles.fetch_add(1, std::memory_order_relaxed);
        retryable = IsRetryable(a.http_status, reply.error_type);
        error = MapError(m.options.endpoint.url, operation, a.http_status, reply.body);
      }
    }
    if (!retryable || attempt >= m.options.retry.max_attempts) {
      m.failures.fetch_add(1, std::memory_order_relaxed);
      reply.status = attempt == 1 ? std::move(*error)
                                  : Annotate(*error, fmt::format(" (after {} attempts)", attempt));
      return reply;
    }
    m.retries.fetch_add(1, std::memory_order_relaxed);
    std::this_thread::sleep_for(BackoffDelay(m.options.retry, attempt, random()));
  }
}

ClientCounters Client::counters() const {
  const Impl& m = *impl_;
  ClientCounters counters{m.calls.load(),     m.requests.load(), m.retries.load(),
                          m.throttles.load(), m.connects.load(), m.failures.load()};
  counters.read_units = static_cast<double>(m.read_milliunits.load()) / 1000.0;
  counters.write_units = static_cast<double>(m.write_milliunits.load()) / 1000.0;
  return counters;
}

const ClientOptions& Client::options() const { return impl_->options; }

}  // namespace indelible::dynamodb
