// TlsProxy: a TLS-terminating proxy on a free loopback port in front of a
// plain TCP server (`indelible serve`, which has no TLS of its own yet:
// issue 19), so that clients can be tested over real https end to end. It
// relays bytes both ways and knows nothing of HTTP.
//
// Thread-safe to construct and destroy from the test's thread; everything
// else runs on one thread of its own.
#pragma once

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <memory>
#include <string>
#include <thread>

namespace indelible::testutil {

class TlsProxy {
 public:
  // `cert` and `key`: the PEM files the proxy presents (test_certificates.h).
  TlsProxy(const std::string& cert, const std::string& key, int backend_port)
      : tls_(boost::asio::ssl::context::tls_server),
        acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}),
        backend_port_(backend_port) {
    tls_.use_certificate_chain_file(cert);
    tls_.use_private_key_file(key, boost::asio::ssl::context::pem);
    Accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~TlsProxy() {
    ioc_.stop();
    thread_.join();
  }
  TlsProxy(const TlsProxy&) = delete;
  TlsProxy& operator=(const TlsProxy&) = delete;

  int port() const { return acceptor_.local_endpoint().port(); }
  std::string url(const std::string& host = "127.0.0.1") const {
    return "https://" + host + ":" + std::to_string(port());
  }

 private:
  using tcp = boost::asio::ip::tcp;
  using Error = boost::system::error_code;

  // One client connection and its connection to the backend.
  struct Session : std::enable_shared_from_this<Session> {
    Session(tcp::socket socket, boost::asio::ssl::context& tls)
        : client(std::move(socket), tls), backend(client.get_executor()) {}

    void Start(int backend_port) {
      auto self = shared_from_this();
      client.async_handshake(boost::asio::ssl::stream_base::server, [self, backend_port](Error e) {
        if (e) return self->Close();
        const tcp::endpoint to(boost::asio::ip::make_address("127.0.0.1"),
                               static_cast<unsigned short>(backend_port));
        self->backend.async_connect(to, [self](Error c) {
          if (c) return self->Close();
          self->Up();
          self->Down();
        });
      });
    }
    void Up() {  // client -> backend
      auto self = shared_from_this();
      client.async_read_some(boost::asio::buffer(up), [self](Error e, std::size_t n) {
        if (e) return self->Close();
        boost::asio::async_write(self->backend, boost::asio::buffer(self->up.data(), n),
                                 [self](Error w, std::size_t) {
                                   if (w) return self->Close();
                                   self->Up();
                                 });
      });
    }
    void Down() {  // backend -> client
      auto self = shared_from_this();
      backend.async_read_some(boost::asio::buffer(down), [self](Error e, std::size_t n) {
        if (e) return self->Close();
        boost::asio::async_write(self->client, boost::asio::buffer(self->down.data(), n),
                                 [self](Error w, std::size_t) {
                                   if (w) return self->Close();
                                   self->Down();
                                 });
      });
    }
    void Close() {
      Error ignored;
      backend.close(ignored);
      client.lowest_layer().close(ignored);
    }

    boost::asio::ssl::stream<tcp::socket> client;
    tcp::socket backend;
    std::array<char, 16 * 1024> up{};
    std::array<char, 16 * 1024> down{};
  };

  void Accept() {
    acceptor_.async_accept([this](Error e, tcp::socket socket) {
      if (e) return;
      std::make_shared<Session>(std::move(socket), tls_)->Start(backend_port_);
      Accept();
    });
  }

  // Declared before the io_context, so that sessions still held by pending
  // handlers go (with the io_context) before the TLS context they use.
  boost::asio::ssl::context tls_;
  boost::asio::io_context ioc_;
  tcp::acceptor acceptor_;
  const int backend_port_;
  std::thread thread_;
};

}  // namespace indelible::testutil
