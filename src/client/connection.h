// One HTTP/1.1 connection to the server, used by one thread at a time.
//
// Beast's synchronous calls have no timeouts, so each operation here is
// Beast's asynchronous one run to completion on the connection's own
// io_context, under a tcp_stream deadline: past it the socket is closed and
// the operation fails with beast::error::timeout. To the caller it is a
// blocking call with a time limit.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>

#include "client/url.h"
#include "indelible/result.h"

namespace indelible::client {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;
using NetError = boost::system::error_code;

class Connection {
 public:
  // Resolves and connects within `timeout`. Errors: unavailable.
  static Result<std::unique_ptr<Connection>> Open(const Endpoint& endpoint,
                                                  std::chrono::milliseconds timeout);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends `request` and reads the whole answer (any size), both within
  // `timeout`. On an error the connection is closed and must be dropped.
  NetError RoundTrip(const Request& request, Response* response, std::chrono::milliseconds timeout);

  // Still open, and the server has neither closed it nor sent anything
  // unasked since the last answer: safe to send the next request on it.
  bool Reusable();
  void Close();

  // For streaming answers (Server-Sent Events), which read the body piece by
  // piece with their own waiting.
  boost::asio::io_context& ioc() { return ioc_; }
  boost::beast::tcp_stream& stream() { return stream_; }
  boost::beast::flat_buffer& buffer() { return buffer_; }

  // Runs one asynchronous operation to completion under a deadline.
  // `start` is called with the completion handler to pass to the operation.
  template <class Start>
  NetError RunWithDeadline(Start start, std::chrono::milliseconds timeout) {
    stream_.expires_after(timeout);
    NetError result = boost::asio::error::operation_aborted;
    bool done = false;
    start([&result, &done](NetError ec, std::size_t) {
      result = ec;
      done = true;
    });
    ioc_.restart();
    while (!done && ioc_.run_one() > 0) {
    }
    stream_.expires_never();
    return result;
  }

 private:
  Connection() : stream_(ioc_) {}

  boost::asio::io_context ioc_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
};

// A transport error that means "the server closed this keep-alive
// connection before reading the request": the request was not handled.
bool IsClosedByPeer(const NetError& ec);

// A sentence for a transport error: "cannot connect", "no answer within".
std::string DescribeTransportError(const Endpoint& endpoint, const NetError& ec,
                                   std::chrono::milliseconds timeout);

}  // namespace indelible::client
