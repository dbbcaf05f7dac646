// One HTTP/1.1 connection to a DynamoDB endpoint, plain or TLS, used by one
// thread at a time (the client's pool hands it out).
//
// Beast's synchronous calls have no timeouts, so each operation is Beast's
// asynchronous one run to completion on the connection's own io_context,
// under a tcp_stream deadline: past it the socket is closed and the
// operation fails with beast::error::timeout. To the caller it is a blocking
// call with a time limit.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <memory>

#include "indelible/result.h"
#include "storage/dynamodb/url.h"

namespace indelible::dynamodb {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;
using NetError = boost::system::error_code;

class Connection {
 public:
  // Resolves, connects and (https) completes the TLS handshake, verifying
  // the server's certificate and name with `tls`, all within `timeout`.
  // `tls` must outlive the connection; null for http://. Errors:
  // unavailable; unauthorized when the server's certificate is not trusted
  // or names another host.
  static Result<std::unique_ptr<Connection>> Open(const Endpoint& endpoint,
                                                  boost::asio::ssl::context* tls,
                                                  std::chrono::milliseconds timeout);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends `request` and reads the whole answer, both within `timeout`. On
  // an error, or an answer that closes the connection, the connection is
  // closed and must be dropped.
  NetError RoundTrip(const Request& request, Response* response, std::chrono::milliseconds timeout);

  // Still open, and the server has neither closed it nor sent anything
  // unasked since the last answer: safe to send the next request on it.
  bool Reusable();

 private:
  Connection() : plain_(ioc_) {}
  void Close();

  // Runs one asynchronous operation to completion under a deadline.
  // `start` is called with the completion handler to pass to the operation.
  template <class Start>
  NetError RunWithDeadline(Start start, std::chrono::milliseconds timeout);
  // Calls `f` with the stream requests travel on: TLS over TCP, or TCP.
  template <class F>
  auto WithStream(F f) {
    return tls_ ? f(*tls_) : f(plain_);
  }
  boost::beast::tcp_stream& tcp() { return tls_ ? tls_->next_layer() : plain_; }

  boost::asio::io_context ioc_;
  boost::beast::tcp_stream plain_;  // unused once tls_ owns the socket
  std::unique_ptr<boost::beast::ssl_stream<boost::beast::tcp_stream>> tls_;
  boost::beast::flat_buffer buffer_;
};

// A transport error that means "the server closed this keep-alive
// connection before reading the request": the request was not handled.
bool IsClosedByPeer(const NetError& ec);

// "no answer from URL within N ms", "cannot connect to URL: connection refused".
std::string DescribeTransportError(const Endpoint& endpoint, const NetError& ec,
                                   std::chrono::milliseconds timeout);

}  // namespace indelible::dynamodb
