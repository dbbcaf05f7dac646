// One HTTP/1.1 connection to a server, plain (http://) or TLS (https://),
// used by one thread at a time (HttpClient's pool hands it out; a streaming
// reader owns its own).
//
// Every operation has a time limit. Beast's synchronous calls have none, so
// each one here is Beast's asynchronous operation run to completion on the
// connection's own io_context under a deadline: past it the socket is
// closed and the operation fails with beast::error::timeout. To the caller
// it is a blocking call with a time limit.
//
// TLS: the server's certificate must chain to a CA the context trusts
// (tls.h) and name the host of the URL (RFC 2818: DNS names, or IP
// addresses for a URL that gives an address); SNI carries the host name.
#pragma once

#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "indelible/result.h"
#include "net/tls.h"
#include "net/url.h"

namespace indelible::net {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;
using NetError = boost::system::error_code;
// An answer read piece by piece (Server-Sent Events): before each read the
// caller points the body at its own buffer; need_buffer then means "full".
using StreamParser = http::response_parser<http::buffer_body>;

class Connection {
 public:
  // Resolves, connects and, for https, completes the TLS handshake, all
  // within `timeout`. `tls` is needed for https and ignored for http; the
  // connection keeps it. Errors: unavailable ("cannot connect to URL: ...",
  // "no answer from URL within N ms"); unauthorized when the server's
  // certificate is not trusted or names another host (no retry can cure it).
  static Result<std::unique_ptr<Connection>> Open(const Endpoint& endpoint,
                                                  std::shared_ptr<TlsContext> tls,
                                                  std::chrono::milliseconds timeout);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends `request` and reads the whole answer, both within `timeout`; a
  // body past `body_limit` bytes (nullopt: none) is an error. On an error,
  // or an answer that closes the connection, the connection is closed and
  // must be dropped.
  NetError RoundTrip(const Request& request, Response* response, std::chrono::milliseconds timeout,
                     std::optional<std::uint64_t> body_limit);

  // Streaming answers, a step at a time, each within its own time limit:
  // send the request, read the answer's header, then the body piece by piece.
  NetError Send(const Request& request, std::chrono::milliseconds timeout);
  NetError ReadHeader(StreamParser& parser, std::chrono::milliseconds timeout);
  NetError ReadSome(StreamParser& parser, std::chrono::milliseconds timeout);
  // Like ReadSome, but gives up waiting at `until` without giving up the
  // read: nullopt means it is still outstanding, and the next call (with the
  // same parser and body buffer, which must stay valid) continues it. So a
  // caller with a short timeout never tears down a long-lived stream.
  std::optional<NetError> ReadSomeUntil(StreamParser& parser,
                                        std::chrono::steady_clock::time_point until);

  // Still open, with no read outstanding, and the server has neither closed
  // it nor sent anything unasked since the last answer: safe to send the
  // next request on it.
  bool Reusable();
  // Closes the socket (no TLS close_notify: the connection is dropped, not
  // handed back) and lets an outstanding read finish with an error.
  void Close();

 private:
  struct Impl;
  explicit Connection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A transport error that means "the server closed this keep-alive
// connection before reading the request": the request was not handled.
bool IsClosedByPeer(const NetError& ec);

// "no answer from URL within N ms", "cannot connect to URL: connection refused".
std::string DescribeTransportError(const Endpoint& endpoint, const NetError& ec,
                                   std::chrono::milliseconds timeout);

}  // namespace indelible::net
