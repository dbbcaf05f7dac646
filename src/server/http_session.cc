#include "server/http_session.h"

#include <fmt/format.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/url/parse.hpp>
#include <cstdio>

#include "api/wire.h"
#include "auth/audit.h"
#include "core/clock.h"
#include "core/event_json.h"
#include "server/request_screen.h"
#include "server/routes.h"

namespace indelible::server {

namespace beast = boost::beast;
namespace asio = boost::asio;

namespace {

// Request ids: a number per server process, unique within it, with the
// process's start time so that ids from two runs in one log differ.
std::string NextRequestId() {
  static const std::uint64_t epoch = static_cast<std::uint64_t>(
      std::chrono::system_clock::now().time_since_epoch() / std::chrono::milliseconds(1));
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("{:x}-{}", epoch, counter.fetch_add(1, std::memory_order_relaxed) + 1);
}

// Failed authentications from one address within a minute: the 10th,
// 100th, 1000th... go to the audit trail as one "auth.failures" entry each,
// so a guessing burst is on record without one append per guess.
void NoteAuthFailure(ServerContext& context, const std::string& source,
                     const std::string& request_id) {
  constexpr auto kWindow = std::chrono::seconds(60);
  const auto now = std::chrono::steady_clock::now();
  std::uint64_t count = 0;
  {
    MutexLock lock(&context.failures_mu);
    if (context.failures.size() > 10000) context.failures.clear();  // bounded memory
    const std::string address = source.substr(0, source.rfind(':'));
    ServerContext::Failures& failures = context.failures[address];
    if (now - failures.window_start >= kWindow) failures = {now, 0};
    count = ++failures.count;
  }
  bool power_of_ten = count >= 10;
  for (std::uint64_t c = count; power_of_ten && c > 1; c /= 10) power_of_ten = c % 10 == 0;
  if (!power_of_ten) return;
  auth::AuditEntry entry{
      "auth.failures",
      "anonymous",
      source,
      "",
      "unauthorized",
      401,
      request_id,
      fmt::format("{} failed authentications from this address within 60 s", count)};
  asio::post(context.blocking, [&context, entry = std::move(entry)] {
    (void)CatchToStatus([&] { return auth::AppendAudit(context.store, entry); });
  });
}

}  // namespace

HttpSession::HttpSession(ServerStream stream, ServerContext& context)
    : stream_(std::move(stream)), context_(context) {
  context_.metrics.open_connections.fetch_add(1, std::memory_order_relaxed);
  beast::error_code ec;
  const auto remote = stream_.socket().remote_endpoint(ec);
  if (!ec) remote_address_ = fmt::format("{}:{}", remote.address().to_string(), remote.port());
}

HttpSession::~HttpSession() {
  Uncount();
  MutexLock lock(&context_.live_mu);
  context_.sessions.erase(this);
}

void HttpSession::Start() {
  {
    MutexLock lock(&context_.live_mu);
    context_.sessions[this] = weak_from_this();
  }
  asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    if (self->stream_.is_tls()) return self->Handshake();
    self->ReadHeader();
  });
}

// The handshake has the headers' time: a client that connects and sends
// nothing, or a byte a second, is cut off as early as one that does so in
// its headers. What fails here (plaintext HTTP, SSLv3 to TLS 1.1, no
// client certificate when one is required, an untrusted one) just closes:
// OpenSSL has sent its alert, and there is no HTTP to answer in.
void HttpSession::Handshake() {
  stream_.expires_after(context_.options.header_timeout);
  stream_.async_handshake([self = shared_from_this()](beast::error_code ec) {
    if (ec) return self->Close();
    self->tls_up_ = true;
    self->peer_subject_ = self->stream_.VerifiedPeerSubject();
    self->ReadHeader();
  });
}

void HttpSession::Stop() {
  asio::post(stream_.get_executor(), [self = shared_from_this()] {
    self->stopping_ = true;
    // Idle between requests, a header read is pending: cancel it and let
    // OnHeader close. Closing here would start a second read on the stream.
    if (!self->busy_ && !self->released_ && !self->closed_) self->stream_.cancel();
  });
}

// Counted from construction until the connection closes or goes to a
// streaming answer (which counts itself): the cap compares with this, so a
// closing connection that drains for a moment no longer takes a place.
void HttpSession::Uncount() {
  if (counted_.exchange(false)) context_.metrics.open_connections.fetch_sub(1);
}

bool HttpSession::ClaimForEviction(std::int64_t idle_since_ns) {
  return idle_since_ns > 0 && idle_since_ns_.compare_exchange_strong(idle_since_ns, kEvicting);
}

void HttpSession::Evict() {
  asio::post(stream_.get_executor(), [self = shared_from_this()] {
    // Still claimed on the strand (a request's first bytes did not arrive
    // meanwhile): cancel the wait for them, which closes (OnFirstBytes).
    if (self->idle_since_ns_.load() == kEvicting && !self->released_ && !self->closed_) {
      self->stopping_ = true;
      self->evicted_ = true;
      self->stream_.cancel();
    }
  });
}

std::int64_t HttpSession::idle_since_ns() const {
  return idle_since_ns_.load(std::memory_order_relaxed);
}

// Between requests: wait up to idle_timeout for the next request's first
// bytes (unless they came with the last one), then give its headers
// header_timeout. One timer for both would let a slow client trickle its
// headers for the whole idle time.
void HttpSession::ReadHeader() {
  if (stopping_ || context_.stopping.load()) return Close();
  busy_ = false;
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(context_.options.max_header_bytes));
  parser_->body_limit(2 * context_.options.limits.max_append_bytes);
  if (buffer_.size() > 0) return ReadHeaderRest();
  idle_since_ns_.store(std::chrono::steady_clock::now().time_since_epoch().count());
  stream_.expires_after(context_.options.idle_timeout);
  stream_.async_read_some(buffer_.prepare(4096),
                          [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                            self->OnFirstBytes(ec, n);
                          });
}

void HttpSession::OnFirstBytes(beast::error_code ec, std::size_t bytes) {
  idle_since_ns_.store(0);
  if (ec) return Close();  // idle too long, evicted, stopped, or gone
  buffer_.commit(bytes);
  ReadHeaderRest();
}

void HttpSession::ReadHeaderRest() {
  stream_.expires_after(context_.options.header_timeout);
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnHeader(ec); });
}

void HttpSession::OnHeader(beast::error_code ec) {
  busy_ = true;
  started_ = std::chrono::steady_clock::now();
  request_id_ = NextRequestId();
  cors_.clear();
  if (ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
      ec == asio::error::operation_aborted || ec == beast::error::timeout ||
      ec == asio::error::eof || ec == asio::ssl::error::stream_truncated)
    return Close();
  if (ec == http::error::header_limit)
    return Reject(http::status::request_header_fields_too_large,
                  Status::TooLarge("headers", fmt::format("request headers exceed {} bytes",
                                                          context_.options.max_header_bytes)));
  if (ec == http::error::body_limit) return RejectBody();
  if (ec)
    return Reject(http::status::bad_request,
                  Status::Invalid("request", "malformed HTTP request: " + ec.message()));
  const auto& header = parser_->get();
  method_ = std::string(header.method_string());
  head_ = header.method() == http::verb::head;
  target_ = std::string(header.target());
  // curl and others wait for this before sending a body larger than 1 KiB.
  if (beast::iequals(header[http::field::expect], "100-continue")) {
    continue_line_ = fmt::format("HTTP/1.{} 100 Continue\r\n\r\n", header.version() % 10);
    asio::async_write(stream_, asio::buffer(continue_line_),
                      [self = shared_from_this()](beast::error_code ec2, std::size_t) {
                        if (ec2) return self->Close();
                        self->stream_.expires_after(self->context_.options.body_timeout);
                        http::async_read(
                            self->stream_, self->buffer_, *self->parser_,
                            [self](beast::error_code ec3, std::size_t) { self->OnBody(ec3); });
                      });
    return;
  }
  stream_.expires_after(context_.options.body_timeout);
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec2, std::size_t) { self->OnBody(ec2); });
}

void HttpSession::OnBody(beast::error_code ec) {
  if (ec == http::error::body_limit) return RejectBody();
  if (ec == asio::error::connection_reset || ec == asio::error::operation_aborted ||
      ec == http::error::end_of_stream || ec == beast::error::timeout ||
      ec == asio::ssl::error::stream_truncated)
    return Close();
  if (ec)
    return Reject(http::status::bad_request,
                  Status::Invalid("request", "malformed HTTP request: " + ec.message()));
  stream_.expires_never();
  // Read before the message moves out of the parser (Connection: close,
  // HTTP/1.0 without keep-alive).
  keep_alive_ = parser_->get().keep_alive();
  Dispatch(parser_->release());
}

void HttpSession::Dispatch(Request request) {
  auto target = boost::urls::parse_origin_form(request.target());
  if (!target) {
    return Reject(http::status::bad_request,
                  Status::Invalid("target", "the request target is not a valid path and query"));
  }
  if (auto refusal = ScreenRequest(request, context_.screen)) {
    context_.metrics.RecordError(refusal->error.code());
    Response response(refusal->status, request.version());
    response.set(http::field::content_type, "application/json");
    response.body() = api::StatusToJson(refusal->error);
    // The body (if any) was read: the connection stays usable.
    return Write(std::move(response));
  }
  {
    Response cors(http::status::no_content, request.version());
    AddCorsHeaders(request, context_.screen, cors);
    for (const auto& field : cors) cors_.emplace_back(field.name(), std::string(field.value()));
    if (IsPreflight(request)) return Write(std::move(cors));
  }
  std::vector<std::string> segments;
  for (auto segment : target->segments()) segments.push_back(std::string(segment));
  std::multimap<std::string, std::string> query;
  for (auto param : target->params())
    query.emplace(std::string(param.key), param.has_value ? std::string(param.value) : "");

  const Router& router = context_.router;
  Router::Match match = router.Find(request.method(), segments);
  // HEAD is GET without the body (RFC 9110, 9.3.2) wherever no route of
  // its own takes it: the handler sees the HEAD and answers as for a GET,
  // Write drops the body.
  if (head_ && match.handler == nullptr) {
    if (Router::Match get = router.Find(http::verb::get, segments); get.handler != nullptr)
      match = std::move(get);
  }
  auto exchange =
      std::make_shared<Exchange>(shared_from_this(), std::move(request), std::move(match.params),
                                 std::move(query), request_id_);
  if (match.handler != nullptr) {
    if (!context_.require_auth || match.access->scope == Access::Scope::kOpen) {
      Exchange& guarded = *exchange;
      return RunGuarded(guarded, [&] { (*match.handler)(std::move(exchange)); });
    }
    const Request& sent = exchange->request();
    auth::Credentials credentials{std::string(sent[http::field::authorization]),
                                  std::string(sent["X-Api-Key"]), peer_subject_};
    const std::int64_t now = UnixMillisNow();
    if (auto fast = context_.auth->TryFast(credentials, now))
      return Authorize(std::move(exchange), match, std::move(*fast));
    // An API key not in the cache: its record is read off the I/O thread
    // (on DynamoDB, a request), and the route goes on on this strand.
    asio::post(context_.reads, [self = shared_from_this(), exchange = std::move(exchange),
                                match = std::move(match), credentials = std::move(credentials),
                                now]() mutable {
      Result<auth::Principal> principal =
          CatchToStatus([&] { return self->context_.auth->Authenticate(credentials, now); });
      asio::post(self->stream_.get_executor(),
                 [self, exchange = std::move(exchange), match = std::move(match),
                  principal = std::move(principal)]() mutable {
                   self->Authorize(std::move(exchange), match, std::move(principal));
                 });
    });
    return;
  }
  if (match.allowed.empty())
    return exchange->RespondError(Status::NotFound(
        fmt::format("no route for {} {}; docs/HTTP.md lists the routes", method_, target_)));
  std::string allow;
  for (http::verb v : match.allowed) {
    if (!allow.empty()) allow += ", ";
    allow += std::string(http::to_string(v));
    if (v == http::verb::get) allow += ", HEAD";
  }
  Response response(http::status::method_not_allowed, exchange->request().version());
  response.set(http::field::allow, allow);
  response.set(http::field::content_type, "application/json");
  const Status error = Status::Invalid("method", fmt::format("{} is not allowed on {}; allowed: {}",
                                                             method_, target->path(), allow));
  context_.metrics.RecordError(error.code());
  response.body() = api::StatusToJson(error);
  exchange->Respond(std::move(response));
}

void HttpSession::Authorize(std::shared_ptr<Exchange> exchange, const Router::Match& match,
                            Result<auth::Principal> principal) {
  if (!principal.ok()) {
    NoteAuthFailure(context_, remote_address_, request_id_);
    context_.metrics.RecordAuthFailure();
    exchange->RecordError(ErrorCode::kUnauthorized);
    Response response(http::status::unauthorized, exchange->request().version());
    response.set(http::field::www_authenticate, R"(Bearer realm="indelible")");
    response.set(http::field::content_type, "application/json");
    response.body() = api::StatusToJson(principal.status());
    return exchange->Respond(std::move(response));
  }
  auto caller = std::make_shared<const auth::Principal>(std::move(*principal));
  if (auto denied = CheckAccess(*match.access, *caller, exchange->params())) {
    context_.metrics.RecordPrincipal(caller->name, /*denied=*/true);
    return exchange->RespondError(http::status::forbidden, *denied);
  }
  context_.metrics.RecordPrincipal(caller->name, /*denied=*/false);
  if (!caller->key_id.empty() && context_.auth->keys().UseDue(caller->key_id, UnixMillisNow()))
    asio::post(context_.blocking, [&context = context_, id = caller->key_id] {
      context.auth->keys().RecordUse(id, UnixMillisNow());
    });
  exchange->SetPrincipal(std::move(caller));
  if (!match.access->audit.empty()) exchange->Audit(match.access->audit, {});
  Exchange& guarded = *exchange;
  RunGuarded(guarded, [&] { (*match.handler)(std::move(exchange)); });
}

void HttpSession::Send(Response response) {
  asio::post(stream_.get_executor(),
             [self = shared_from_this(), r = std::move(response)]() mutable {
               self->Write(std::move(r));
             });
}

void HttpSession::RejectBody() {
  Reject(http::status::payload_too_large,
         Status::TooLarge("body", fmt::format("the request body is larger than {} bytes (twice the "
                                              "append limit); split the append",
                                              2 * context_.options.limits.max_append_bytes)));
}

void HttpSession::Reject(http::status status, const Status& error) {
  context_.metrics.RecordError(error.code());
  Response response(status, 11);
  response.set(http::field::content_type, "application/json");
  response.body() = api::StatusToJson(error);
  // The rest of the request was not read: the connection cannot be reused.
  response.keep_alive(false);
  stopping_ = true;
  keep_alive_ = false;
  Write(std::move(response));
}

namespace {

// A header value a client can parse: no CR, LF or NUL (which would split
// or end the header), and not absurdly long.
bool SafeHeaderValue(std::string_view value) {
  return value.size() <= 8192 &&
         value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

}  // namespace

void HttpSession::Write(Response response) {
  if (released_) return;
  for (const auto& field : response) {
    if (SafeHeaderValue(field.value())) continue;
    const std::string name(field.name_string());
    response = Response(http::status::internal_server_error, response.version());
    response.set(http::field::content_type, "application/json");
    response.body() = api::StatusToJson(Status::Internal(
        fmt::format("the server made an invalid value for the response header '{}' (request id {})",
                    name.substr(0, 64), request_id_)));
    std::fprintf(stderr, "indelible: request %s: invalid response header '%s' replaced by a 500\n",
                 request_id_.c_str(), name.substr(0, 64).c_str());
    break;
  }
  const bool closing = stopping_ || context_.stopping.load() || !keep_alive_;
  response.set(http::field::server, "indelible");
  if (!request_id_.empty()) response.set("X-Request-Id", request_id_);
  for (const auto& [name, value] : cors_) response.set(name, value);
  response.keep_alive(!closing);
  response.prepare_payload();
  if (head_) {
    // The length the GET's body would have, and no body.
    const std::size_t length = response.body().size();
    response.body().clear();
    if (response.has_content_length()) response.content_length(length);
  }
  context_.metrics.RecordResponse(response.result_int());
  if (context_.options.log_requests) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_)
            .count();
    std::string line = fmt::format(
        R"({{"method":{},"target":{},"status":{},"bytes":{},"ms":{:.3f}}})", QuoteJson(method_),
        QuoteJson(target_), response.result_int(), response.body().size(), ms);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  auto message = std::make_shared<Response>(std::move(response));
  stream_.expires_after(std::chrono::seconds(60));
  http::async_write(
      stream_, *message,
      [self = shared_from_this(), message, closing](beast::error_code ec, std::size_t) {
        if (ec || closing) return self->Close();
        self->ReadHeader();
      });
}

std::string HttpSession::AnswerHeaderLines() const {
  std::string lines = fmt::format("X-Request-Id: {}\r\n", request_id_);
  for (const auto& [name, value] : cors_)
    lines += fmt::format("{}: {}\r\n", std::string_view(http::to_string(name)), value);
  return lines;
}

ServerStream HttpSession::ReleaseSocket() {
  released_ = true;
  Uncount();
  stream_.expires_never();
  return stream_.Release();
}

// Closes after a last answer. The peer may still be sending (a body we
// refused): closing with unread data would reset the connection and could
// destroy the answer before the peer reads it, so half-close, then read and
// discard for a moment (bounded in time and bytes) before closing.
void HttpSession::Close() {
  if (released_ || closed_) return;
  closed_ = true;
  Uncount();
  if (tls_up_ && !evicted_) return CloseTls();
  CloseTcp();
}

// TLS first says it is done (close_notify, so the client knows the last
// answer came whole) and waits for the client's close_notify for at most a
// second (a client that sends more, or nothing, ends the wait early or by
// the timer); then the TCP close as for plain HTTP.
void HttpSession::CloseTls() {
  tls_up_ = false;
  stream_.expires_after(std::chrono::seconds(1));
  stream_.async_shutdown([self = shared_from_this()](beast::error_code) { self->CloseTcp(); });
}

void HttpSession::CloseTcp() {
  beast::error_code ec;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  if (ec || evicted_) {  // an evicted connection sent nothing to drain
    stream_.socket().close(ec);
    return;
  }
  Drain(0);
}

void HttpSession::Drain(std::size_t drained) {
  constexpr std::size_t kMaxDrainBytes = 1 << 20;
  // The TCP layer's bytes, TLS records or not: only their count matters.
  stream_.expires_after(std::chrono::seconds(1));
  stream_.tcp().async_read_some(
      asio::buffer(drain_buffer_),
      [self = shared_from_this(), drained](beast::error_code ec, std::size_t n) {
        if (ec || drained + n > kMaxDrainBytes) {
          beast::error_code ignored;
          self->stream_.socket().close(ignored);
          return;
        }
        self->Drain(drained + n);
      });
}

}  // namespace indelible::server
