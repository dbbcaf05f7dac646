// One keep-alive connection that sends a request and reads its answer,
// blocking: for the benchmark's untimed set-up and bookkeeping requests
// (the timed phases drive their connections asynchronously).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "asio_names.h"

class BlockingConnection {
 public:
  // `headers` go with every request (credentials).
  explicit BlockingConnection(const tcp::endpoint& endpoint,
                              std::vector<std::pair<std::string, std::string>> headers = {})
      : socket_(ioc_), headers_(std::move(headers)) {
    socket_.connect(endpoint);
    socket_.set_option(tcp::no_delay(true));
  }
  // Sends and reads one exchange; the status and body of the answer.
  http::response<http::string_body> Send(http::verb verb, const std::string& target,
                                         std::string body = {}) {
    http::request<http::string_body> request(verb, target, 11);
    request.set(http::field::host, "127.0.0.1");
    for (const auto& [name, value] : headers_) request.set(name, value);
    if (!body.empty()) request.set(http::field::content_type, "application/json");
    request.body() = std::move(body);
    request.prepare_payload();
    http::write(socket_, request);
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    http::read(socket_, buffer_, parser);
    return parser.release();
  }

 private:
  asio::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
  std::vector<std::pair<std::string, std::string>> headers_;
};
