// ServerStream: one accepted connection, plain TCP or TLS, as one stream
// type for HttpSession and SseSession (Beast's http::async_read/async_write
// and asio::async_write take it like any AsyncStream).
//
// Why one class that holds either, not templates on the stream type (Beast's
// advanced_server_flex): a connection changes hands in the middle of its
// life (Exchange::TakeSocket gives it to an SseSession), and the routes,
// Exchange and both sessions would all become templates in headers, or
// grow a virtual base, to carry the stream type through that hand-over.
// Here the choice is one branch per read or write, next to a system call
// (and, under TLS, a cipher): the plain path calls beast::tcp_stream's own
// operation with the caller's handler, so it costs what it cost before
// (docs/BENCHMARKS.md, "Security: TLS and authentication").
//
// TLS is beast::ssl_stream (asio's ssl::stream behind a flat_stream, which
// joins an HTTP message's header and body buffers into one TLS record
// instead of one record each). Timeouts, cancel and close are always on
// the TCP layer (tcp()): under TLS they end the TLS operation in progress.
//
// Concurrency: like the streams it holds, one read and one write at a time,
// on its executor (the connection's strand).
#pragma once

#include <boost/asio/async_result.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace indelible::server {

class ServerStream {
 public:
  using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
  using executor_type = boost::beast::tcp_stream::executor_type;

  // Plain TCP.
  explicit ServerStream(boost::asio::ip::tcp::socket socket)
      : stream_(std::in_place_type<boost::beast::tcp_stream>, std::move(socket)) {}
  // TLS with `context` (kept alive as long as the stream, so a reload that
  // replaces the server's context leaves this connection's alone). The
  // handshake is the owner's to do (async_handshake).
  ServerStream(boost::asio::ip::tcp::socket socket,
               std::shared_ptr<boost::asio::ssl::context> context)
      : context_(std::move(context)),
        stream_(std::in_place_type<TlsStream>, boost::beast::tcp_stream(std::move(socket)),
                *context_) {}

  ServerStream(ServerStream&&) = default;
  // Moved into place only (construction): a variant of Beast streams
  // cannot be move-assigned.
  ServerStream& operator=(ServerStream&&) = delete;

  bool is_tls() const { return std::holds_alternative<TlsStream>(stream_); }
  executor_type get_executor() { return tcp().get_executor(); }

  // The TCP layer: timeouts (expires_after), cancel, the socket.
  boost::beast::tcp_stream& tcp() {
    if (auto* tls = std::get_if<TlsStream>(&stream_)) return tls->next_layer();
    return std::get<boost::beast::tcp_stream>(stream_);
  }
  boost::asio::ip::tcp::socket& socket() { return tcp().socket(); }
  template <class Duration>
  void expires_after(Duration duration) {
    tcp().expires_after(duration);
  }
  void expires_never() { tcp().expires_never(); }
  void cancel() { tcp().cancel(); }

  // The whole stream (TLS state included) for a new owner; this one is left
  // unconnected on the same executor, so its owner may still post to it.
  ServerStream Release() {
    if (!is_tls()) return ServerStream(tcp().release_socket());
    auto executor = get_executor();
    ServerStream out(std::move(*this));
    stream_.emplace<boost::beast::tcp_stream>(executor);
    return out;
  }

  template <class Buffers, class Token>
  auto async_read_some(const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::beast::error_code, std::size_t)>(
        [this](auto handler, const Buffers& b) {
          if (auto* tls = std::get_if<TlsStream>(&stream_))
            return tls->async_read_some(b, std::move(handler));
          std::get<boost::beast::tcp_stream>(stream_).async_read_some(b, std::move(handler));
        },
        token, buffers);
  }

  template <class Buffers, class Token>
  auto async_write_some(const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::beast::error_code, std::size_t)>(
        [this](auto handler, const Buffers& b) {
          if (auto* tls = std::get_if<TlsStream>(&stream_))
            return tls->async_write_some(b, std::move(handler));
          std::get<boost::beast::tcp_stream>(stream_).async_write_some(b, std::move(handler));
        },
        token, buffers);
  }

  // TLS only: the server side of the handshake, and the close_notify
  // exchange (bounded by the owner's expires_after).
  template <class Handler>
  void async_handshake(Handler&& handler) {
    std::get<TlsStream>(stream_).async_handshake(boost::asio::ssl::stream_base::server,
                                                 std::forward<Handler>(handler));
  }
  template <class Handler>
  void async_shutdown(Handler&& handler) {
    std::get<TlsStream>(stream_).async_shutdown(std::forward<Handler>(handler));
  }

  // After the handshake: the subject of the client's certificate (RFC 2253,
  // "CN=orders-service,O=Acme") if it sent one that verified; else empty.
  std::string VerifiedPeerSubject();

 private:
  // Before stream_: destroyed after it (the SSL object refers to it).
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::variant<boost::beast::tcp_stream, TlsStream> stream_;
};

}  // namespace indelible::server
