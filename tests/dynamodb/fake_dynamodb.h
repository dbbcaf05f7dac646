// FakeDynamoDb: a scripted HTTP server on a free loopback port, for what
// neither emulator can be made to do on demand: throttle, fail with 5xx,
// send a damaged body, not answer, close idle connections. Answers follow
// the script in order, then `{}` with 200 for ever. It counts the
// connections it accepted and the requests it read.
//
// Thread-safe: the server runs on threads of its own (one per connection);
// the test's thread scripts it and reads its counts.
#pragma once

#include <zlib.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <thread>

namespace indelible::aws {

class FakeDynamoDb {
 public:
  struct Answer {
    int status = 200;
    std::string body = "{}";
    // Close the connection after answering, without saying so in the answer
    // (as a server does to an idle keep-alive connection).
    bool close_after = false;
    bool no_answer = false;     // read the request and never answer
    bool bad_checksum = false;  // an x-amz-crc32 that does not match
  };

  FakeDynamoDb() : acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    accepting_ = std::thread([this] { Accept(); });
  }
  ~FakeDynamoDb() {
    stopping_ = true;
    boost::system::error_code ec;
    // Wakes the blocked accept (and every connection's blocked read).
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    accepting_.join();
    std::list<std::thread> threads;
    {
      std::lock_guard lock(mu_);
      for (auto& s : sockets_) ::shutdown(s->native_handle(), SHUT_RDWR);
      threads.swap(threads_);
    }
    for (auto& t : threads) t.join();
  }

  void Script(std::deque<Answer> answers) {
    std::lock_guard lock(mu_);
    script_ = std::move(answers);
  }
  static Answer Throttled() {
    return {400, R"({"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException",)"
                 R"("message":"Rate of requests exceeds the allowed throughput."})"};
  }
  static Answer ServerError() {
    return {500, R"({"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"})"};
  }

  std::string endpoint() const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }
  int connections() const { return connections_; }
  int requests() const { return requests_; }

 private:
  using tcp = boost::asio::ip::tcp;

  void Accept() {
    while (!stopping_) {
      auto socket = std::make_shared<tcp::socket>(ioc_);
      boost::system::error_code ec;
      acceptor_.accept(*socket, ec);
      if (ec || stopping_) return;
      ++connections_;
      std::lock_guard lock(mu_);
      sockets_.push_back(socket);
      threads_.emplace_back([this, socket] { Serve(*socket); });
    }
  }

  void Serve(tcp::socket& socket) {
    namespace http = boost::beast::http;
    boost::beast::flat_buffer buffer;
    while (!stopping_) {
      http::request<http::string_body> request;
      boost::system::error_code ec;
      http::read(socket, buffer, request, ec);
      if (ec) return;
      ++requests_;
      Answer answer;
      {
        std::lock_guard lock(mu_);
        if (!script_.empty()) {
          answer = script_.front();
          script_.pop_front();
        }
      }
      if (answer.no_answer) {
        while (!stopping_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return;
      }
      http::response<http::string_body> response(static_cast<http::status>(answer.status), 11);
      response.set(http::field::content_type, "application/x-amz-json-1.0");
      const uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(answer.body.data()),
                              static_cast<uInt>(answer.body.size()));
      response.set("x-amz-crc32", std::to_string(answer.bad_checksum ? crc + 1 : crc));
      response.keep_alive(true);
      response.body() = answer.body;
      response.prepare_payload();
      http::write(socket, response, ec);
      if (ec || answer.close_after) {
        socket.shutdown(tcp::socket::shutdown_both, ec);
        return;
      }
    }
  }

  boost::asio::io_context ioc_;
  tcp::acceptor acceptor_;
  std::thread accepting_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0}, requests_{0};
  std::mutex mu_;
  std::deque<Answer> script_;
  std::list<std::shared_ptr<tcp::socket>> sockets_;
  std::list<std::thread> threads_;
};

}  // namespace indelible::aws
