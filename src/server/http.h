// The request/response plumbing shared by the routes: one Exchange per
// request, and the Router that maps a method and path to a handler.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/status.h"
#include "server/access.h"

namespace indelible::server {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

class HttpSession;
class ServerStream;

// One request awaiting its answer. Handlers get it on the connection's
// strand and may answer later from any thread (Respond is thread-safe), or
// take the socket over for a streaming answer (Server-Sent Events). An
// exchange dropped without an answer answers 500, so a bug never leaves a
// client hanging.
class Exchange {
 public:
  Exchange(std::shared_ptr<HttpSession> session, Request request, std::vector<std::string> params,
           std::multimap<std::string, std::string> query, std::string request_id);
  ~Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  const Request& request() const { return request_; }
  // Names this request in the answer (X-Request-Id) and in the server's log.
  const std::string& request_id() const { return request_id_; }
  // The path segments the route's "{}" captured, percent-decoded.
  const std::vector<std::string>& params() const { return params_; }
  // Query parameters, percent-decoded; a key may repeat.
  const std::multimap<std::string, std::string>& query() const { return query_; }
  // The last value of a query parameter.
  std::optional<std::string> Query(const std::string& key) const;
  // Every value of a query parameter, comma-separated lists split.
  std::vector<std::string> QueryList(const std::string& key) const;

  void Respond(Response response);
  // An error answer: the status for its code and {error, message, ...}.
  void RespondError(const Status& status);
  // The same with a status code of its own (415 for a wrong content type).
  void RespondError(http::status code, const Status& status);
  // Counts an error answered with a hand-made response.
  void RecordError(ErrorCode code);
  // A JSON answer.
  void RespondJson(http::status status, std::string body);
  // A handler threw: logs it with the request id and answers 500 internal
  // naming the id (if nothing was answered yet).
  void Fail(std::string_view what) noexcept;

  // Takes the connection over (on the strand, inside the handler): the
  // session stops reading requests and no Response may follow. Under TLS,
  // the TLS stream with it (server_stream.h).
  ServerStream TakeSocket();
  // The header lines ("Name: value\r\n" each) the session adds to every
  // answer of this request: X-Request-Id and, for an allowed Origin, CORS.
  // For an answer written over the taken socket.
  std::string AnswerHeaderLines() const;
  // The subject of the client's TLS certificate (RFC 2253,
  // "CN=orders-service,O=Acme") when it sent one that the server's
  // --tls-client-ca verified; empty otherwise (plain HTTP too).
  const std::string& peer_subject() const;

  // Who sent it: null when authentication is off (docs/SECURITY.md).
  const std::shared_ptr<const auth::Principal>& principal() const { return principal_; }
  // The client's address ("127.0.0.1:53412").
  const std::string& source() const { return source_; }
  // An audited route's answer is appended to $audit (with this target:
  // by default the first path parameter) before it is sent.
  void Audit(std::string act, std::string target);
  void SetAuditTarget(std::string target) { audit_target_ = std::move(target); }
  // The audit entry's `detail` (what was set), for acts whose target alone
  // does not say it.
  void SetAuditDetail(std::string detail) { audit_detail_ = std::move(detail); }
  // Set by the session once the credentials are checked.
  void SetPrincipal(std::shared_ptr<const auth::Principal> principal) {
    principal_ = std::move(principal);
  }

 private:
  std::shared_ptr<HttpSession> session_;
  Request request_;
  std::vector<std::string> params_;
  std::multimap<std::string, std::string> query_;
  std::string request_id_;
  bool done_ = false;
  std::shared_ptr<const auth::Principal> principal_;
  std::string source_;
  std::string audit_act_, audit_target_, audit_detail_;
  // The error this exchange answered (RecordError), for $audit's outcome.
  ErrorCode error_ = ErrorCode::kOk;
  // Keeps the I/O threads running while an answer is pending elsewhere (an
  // append on the blocking pool), so shutdown finishes appends in flight.
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
};

using Handler = std::function<void(std::shared_ptr<Exchange>)>;

// Runs a request's work (a handler, or a job it posted to a pool): an
// exception is answered 500 and logged (Exchange::Fail), never allowed to
// end the process. Every request boundary runs its work through this.
template <typename Fn>
void RunGuarded(Exchange& exchange, Fn&& fn) noexcept {
  try {
    fn();
  } catch (const std::exception& e) {
    exchange.Fail(e.what());
  } catch (...) {
    exchange.Fail("an exception of unknown type");
  }
}

// Calls fn(), which returns a Status or a Result: an exception becomes an
// internal error naming it, for jobs on a pool whose result is answered
// elsewhere (an exception escaping a pool's job would end the process).
template <typename Fn>
auto CatchToStatus(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return Status::Internal(std::string("the server failed: ") + e.what());
  } catch (...) {
    return Status::Internal("the server failed: an exception of unknown type");
  }
}

// Routes by method and path pattern: segments are literals or "{}", which
// matches one whole segment and hands it to the handler. Segments arrive
// percent-decoded one by one, so "BANK_ACCOUNT%2F123" is one segment, the
// stream "BANK_ACCOUNT/123".
class Router {
 public:
  // `access`: what the caller needs when authentication is on.
  void Add(http::verb method, std::string_view pattern, Access access, Handler handler);

  struct Match {
    const Handler* handler = nullptr;  // null: see allowed
    const Access* access = nullptr;
    std::vector<std::string> params;
    // Methods the path allows when the method did not match (405); empty
    // when no route has this path (404).
    std::vector<http::verb> allowed;
  };
  Match Find(http::verb method, const std::vector<std::string>& segments) const;

 private:
  struct Route {
    http::verb method;
    std::vector<std::string> segments;  // "{}" captures
    Access access;
    Handler handler;
  };
  std::vector<Route> routes_;
};

// The status code for an error code of our vocabulary.
http::status HttpStatusFor(ErrorCode code);

}  // namespace indelible::server
