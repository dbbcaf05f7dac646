// indelible-static-server: the yardstick of the HTTP benchmarks. The least
// an HTTP server on Boost.Beast can do per request: parse it and answer a
// fixed small JSON body, keep-alive, with the same I/O threading as
// `indelible serve` (one thread per core). GET /streams/{s}/head is judged
// against this in the same run.
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket socket) : stream_(std::move(socket)) {}
  void Read() {
    request_ = {};
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return;
                       self->Write();
                     });
  }

 private:
  void Write() {
    response_ = http::response<http::string_body>(http::status::ok, request_.version());
    response_.set(http::field::content_type, "application/json");
    response_.body() = R"({"stream":"static","version":0,"position":1,"deleted":false})";
    response_.keep_alive(request_.keep_alive());
    response_.prepare_payload();
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (!ec) self->Read();
                      });
  }
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

void Accept(tcp::acceptor& acceptor, asio::io_context& ioc) {
  acceptor.async_accept(asio::make_strand(ioc), [&](beast::error_code ec, tcp::socket socket) {
    if (!ec) {
      socket.set_option(tcp::no_delay(true));
      std::make_shared<Session>(std::move(socket))->Read();
    }
    Accept(acceptor, ioc);
  });
}

int main() {
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  asio::io_context ioc(threads);
  tcp::acceptor acceptor(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::printf("listening on http://127.0.0.1:%u\n", acceptor.local_endpoint().port());
  std::fflush(stdout);
  Accept(acceptor, ioc);
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&] { ioc.run(); });
  ioc.run();
}
