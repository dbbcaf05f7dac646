// One HTTP/1.1 connection: reads requests (bounded header and body sizes
// and times, answering 100-continue), screens each (request_screen.h),
// hands it to the router, writes the answers in order, and keeps the
// connection alive between them unless the client said Connection: close
// (or spoke HTTP/1.0 without keep-alive).
//
// Timeouts: between requests a connection may be idle for idle_timeout;
// once a request's first byte arrived, its headers must be complete within
// header_timeout and its body within body_timeout. Under TLS the handshake
// comes first, within header_timeout, and a close sends close_notify and
// waits a bounded moment for the client's (Close).
//
// Concurrency: everything runs on the connection's strand. Exchange::Respond
// may be called from any thread; it posts to the strand. One request is in
// flight at a time (no pipelining of handlers): the next is read after the
// answer is written.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "server/context.h"
#include "server/http.h"
#include "server/server_stream.h"

namespace indelible::server {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // `stream` plain or TLS (before its handshake, which Start begins).
  HttpSession(ServerStream stream, ServerContext& context);
  ~HttpSession();

  void Start();
  // Shutdown: an idle connection closes now, a busy one after its answer.
  void Stop();
  // Making room at max_connections (from any thread): idle_since_ns() is
  // when it began to wait for a request's first byte (<= 0: busy, or
  // already claimed); ClaimForEviction(seen) takes it, once, if it is still
  // idle since `seen`; then Evict() closes it unless a request arrived.
  std::int64_t idle_since_ns() const;
  bool ClaimForEviction(std::int64_t idle_since_ns);
  void Evict();

  // From Exchange.
  void Send(Response response);
  ServerStream ReleaseSocket();
  // Exchange::AnswerHeaderLines: what Write adds to every answer.
  std::string AnswerHeaderLines() const;
  ServerContext& context() { return context_; }
  // The client's address ("127.0.0.1:53412"), for logs and $audit.
  const std::string& remote_address() const { return remote_address_; }
  // The verified client certificate's subject (RFC 2253); empty without
  // one. Set by the handshake, before the first request.
  const std::string& peer_subject() const { return peer_subject_; }

 private:
  void Handshake();
  void ReadHeader();
  void OnFirstBytes(boost::beast::error_code ec, std::size_t bytes);
  void ReadHeaderRest();
  void OnHeader(boost::beast::error_code ec);
  void OnBody(boost::beast::error_code ec);
  void Dispatch(Request request);
  // Runs the matched route once its caller is known (authentication on):
  // answers 401 or 403 instead when it must.
  void Authorize(std::shared_ptr<Exchange> exchange, const Router::Match& match,
                 Result<auth::Principal> principal);
  // Answers an error found while reading, then closes the connection.
  void Reject(http::status status, const Status& error);
  void RejectBody();
  void Write(Response response);
  void Close();
  void CloseTls();
  void CloseTcp();
  void Drain(std::size_t drained);
  void Uncount();

  static constexpr std::int64_t kEvicting = -1;

  ServerStream stream_;
  boost::beast::flat_buffer buffer_;
  ServerContext& context_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string continue_line_;  // "HTTP/1.1 100 Continue" while being written
  bool busy_ = false;          // a request is being handled or answered
  bool keep_alive_ = false;    // the request in hand allows another after it
  bool head_ = false;          // the request in hand is a HEAD: answers carry no body
  std::string request_id_;     // of the request in hand
  std::vector<std::pair<http::field, std::string>> cors_;  // for its answer
  // Waiting for a request's first byte since (0: not idle); read by Evict's
  // caller from the accept thread.
  std::atomic<std::int64_t> idle_since_ns_{0};
  std::atomic<bool> counted_{true};  // in metrics.open_connections
  bool evicted_ = false;             // closed to make room: nothing to drain
  bool stopping_ = false;
  bool released_ = false;  // the socket went to a streaming answer
  bool closed_ = false;
  bool tls_up_ = false;  // the TLS handshake succeeded: close with close_notify
  std::string peer_subject_;
  std::array<char, 16384> drain_buffer_;
  std::string remote_address_;
  // For the access log.
  std::chrono::steady_clock::time_point started_;
  std::string method_, target_;
};

}  // namespace indelible::server
