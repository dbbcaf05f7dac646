// ScriptedServer: a real HTTP/1.1 server on a free loopback port, plain or
// TLS (Boost.Beast over OpenSSL, with the certificate and key it is given),
// for what a test must make a server do on demand: answer 503, never
// answer, stream a body piece by piece. Answers follow the script in order,
// then 200 "ok" for ever. It counts the connections it accepted and the
// requests it read.
//
// Thread-safe: the server runs on threads of its own (one per connection);
// the test's thread scripts it and reads its counts.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace indelible::net {

class ScriptedServer {
 public:
  struct Answer {
    int status = 200;
    std::string body = "ok";
    bool no_answer = false;  // read the request and never answer
    // Streamed: a chunked body sent piece by piece, `pause` apart, then the
    // connection stays open until the server stops.
    std::vector<std::string> pieces;
    std::chrono::milliseconds pause{0};
  };

  // Plain HTTP; with `cert` and `key` (PEM files), HTTPS.
  explicit ScriptedServer(const std::string& cert = "", const std::string& key = "")
      : acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    if (!cert.empty()) {
      tls_ = std::make_unique<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
      tls_->use_certificate_chain_file(cert);
      tls_->use_private_key_file(key, boost::asio::ssl::context::pem);
    }
    accepting_ = std::thread([this] { Accept(); });
  }
  ~ScriptedServer() {
    stopping_ = true;
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

  static Answer Reply(int status, std::string body) {
    Answer answer;
    answer.status = status;
    answer.body = std::move(body);
    return answer;
  }

  void Script(std::deque<Answer> answers) {
    std::lock_guard lock(mu_);
    script_ = std::move(answers);
  }
  int port() const { return acceptor_.local_endpoint().port(); }
  std::string url(const std::string& host = "127.0.0.1") const {
    return (tls_ ? "https://" : "http://") + host + ":" + std::to_string(port());
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
      threads_.emplace_back([this, socket] {
        if (!tls_) return Serve(*socket);
        boost::asio::ssl::stream<tcp::socket&> stream(*socket, *tls_);
        boost::system::error_code handshake;
        stream.handshake(boost::asio::ssl::stream_base::server, handshake);
        if (!handshake) Serve(stream);
      });
    }
  }

  template <class Stream>
  void Serve(Stream& stream) {
    namespace http = boost::beast::http;
    boost::beast::flat_buffer buffer;
    while (!stopping_) {
      http::request<http::string_body> request;
      boost::system::error_code ec;
      http::read(stream, buffer, request, ec);
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
      if (answer.no_answer || !answer.pieces.empty()) {
        if (!answer.pieces.empty()) StreamPieces(stream, answer);
        while (!stopping_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return;
      }
      http::response<http::string_body> response(static_cast<http::status>(answer.status), 11);
      response.set(http::field::content_type, "text/plain");
      response.keep_alive(true);
      response.body() = answer.body;
      response.prepare_payload();
      http::write(stream, response, ec);
      if (ec) return;
    }
  }

  template <class Stream>
  void StreamPieces(Stream& stream, const Answer& answer) {
    namespace http = boost::beast::http;
    http::response<http::empty_body> header(http::status::ok, 11);
    header.set(http::field::content_type, "text/event-stream");
    header.chunked(true);
    http::response_serializer<http::empty_body> serializer(header);
    boost::system::error_code ec;
    http::write_header(stream, serializer, ec);
    for (const std::string& piece : answer.pieces) {
      if (ec || stopping_) return;
      std::this_thread::sleep_for(answer.pause);
      boost::asio::write(stream, http::make_chunk(boost::asio::buffer(piece)), ec);
    }
  }

  boost::asio::io_context ioc_;
  tcp::acceptor acceptor_;
  std::unique_ptr<boost::asio::ssl::context> tls_;
  std::thread accepting_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0}, requests_{0};
  std::mutex mu_;
  std::deque<Answer> script_;
  std::list<std::shared_ptr<tcp::socket>> sockets_;
  std::list<std::thread> threads_;
};

}  // namespace indelible::net
