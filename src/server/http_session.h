// One HTTP/1.1 connection: reads requests (bounded header and body sizes,
// answering 100-continue), hands each to the router, writes the answers in
// order, and keeps the connection alive between them.
//
// Concurrency: everything runs on the connection's strand. Exchange::Respond
// may be called from any thread; it posts to the strand. One request is in
// flight at a time (no pipelining of handlers): the next is read after the
// answer is written.
#pragma once

#include <array>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>

#include "server/context.h"
#include "server/http.h"

namespace indelible::server {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(boost::asio::ip::tcp::socket socket, ServerContext& context);
  ~HttpSession();

  void Start();
  // Shutdown: an idle connection closes now, a busy one after its answer.
  void Stop();

  // From Exchange.
  void Send(Response response);
  boost::asio::ip::tcp::socket ReleaseSocket();
  ServerContext& context() { return context_; }

 private:
  void ReadHeader();
  void OnHeader(boost::beast::error_code ec);
  void OnBody(boost::beast::error_code ec);
  void Dispatch(Request request);
  // Answers an error found while reading, then closes the connection.
  void Reject(http::status status, const Status& error);
  void RejectBody();
  void Write(Response response);
  void Close();
  void Drain(std::size_t drained);

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  ServerContext& context_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string continue_line_;  // "HTTP/1.1 100 Continue" while being written
  bool busy_ = false;          // a request is being handled or answered
  bool stopping_ = false;
  bool released_ = false;  // the socket went to a streaming answer
  bool closed_ = false;
  std::array<char, 16384> drain_buffer_;
  // For the access log.
  std::chrono::steady_clock::time_point started_;
  std::string method_, target_;
};

}  // namespace indelible::server
