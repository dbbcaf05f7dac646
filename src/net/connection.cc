#include "net/connection.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace indelible::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using std::chrono::milliseconds;

struct Connection::Impl {
  explicit Impl(std::shared_ptr<TlsContext> context)
      : tls_context(std::move(context)), plain(ioc) {}

  // Runs one asynchronous operation to completion under a deadline.
  // `start` is called with the completion handler to pass to the operation.
  template <class Start>
  NetError RunWithDeadline(Start start, milliseconds timeout) {
    tcp().expires_after(timeout);
    NetError result = asio::error::operation_aborted;
    bool done = false;
    start([&result, &done](NetError ec, auto&&...) {
      result = ec;
      done = true;
    });
    ioc.restart();
    while (!done && ioc.run_one() > 0) {
    }
    tcp().expires_never();
    return result;
  }

  // Calls `f` with the stream requests travel on: TLS over TCP, or TCP.
  template <class F>
  auto WithStream(F f) {
    return tls ? f(*tls) : f(plain);
  }
  beast::tcp_stream& tcp() { return tls ? tls->next_layer() : plain; }

  asio::io_context ioc;
  std::shared_ptr<TlsContext> tls_context;
  beast::tcp_stream plain;  // unused once tls owns the socket
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;
  // The read ReadSomeUntil left outstanding, and its outcome once done.
  bool reading = false;
  bool read_done = false;
  NetError read_ec;
};

namespace {

// The handshake failed on the certificate: say why, in the words a user can
// act on. Not a passing trouble: a retry would meet the same certificate.
Status CertificateRefused(const Endpoint& endpoint, SSL* ssl) {
  // The host name check (asio's callback) fails without a verdict of its
  // own: OpenSSL then says "unspecified".
  const long verdict = SSL_get_verify_result(ssl);
  return Status::Unauthorized(
      fmt::format("the certificate of {} is not trusted for '{}': {}; ca_file adds a trusted CA",
                  endpoint.url, endpoint.host,
                  verdict == X509_V_OK || verdict == X509_V_ERR_UNSPECIFIED
                      ? "it names another host"
                      : X509_verify_cert_error_string(verdict)));
}

}  // namespace

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<Connection>> Connection::Open(const Endpoint& endpoint,
                                                     std::shared_ptr<TlsContext> tls,
                                                     milliseconds timeout) {
  if (endpoint.tls && tls == nullptr)
    return Status::Internal("an https endpoint needs a TLS context");
  auto impl = std::make_unique<Impl>(endpoint.tls ? std::move(tls) : nullptr);
  Impl& c = *impl;
  if (endpoint.tls)
    c.tls = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(c.ioc, *c.tls_context);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const auto left = [&] {
    return std::max(
        std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now()),
        milliseconds(1));
  };
  NetError ec;
  tcp::resolver resolver(c.ioc);
  const auto addresses = resolver.resolve(endpoint.host, endpoint.port, ec);
  if (ec)
    return Status::Unavailable(fmt::format("cannot resolve '{}': {}", endpoint.host, ec.message()));
  ec = c.RunWithDeadline(
      [&](auto handler) {
        c.tcp().async_connect(addresses,
                              [handler](NetError e, const tcp::endpoint&) mutable { handler(e); });
      },
      left());
  if (ec) return Status::Unavailable(DescribeTransportError(endpoint, ec, timeout));
  c.tcp().socket().set_option(tcp::no_delay(true), ec);  // small requests: no delay
  if (c.tls) {
    // SNI carries host names only, never addresses (RFC 6066).
    asio::ip::make_address(endpoint.host, ec);
    if (ec && !SSL_set_tlsext_host_name(c.tls->native_handle(), endpoint.host.c_str()))
      return Status::Internal("cannot set the TLS server name");
    c.tls->set_verify_mode(asio::ssl::verify_peer);
    c.tls->set_verify_callback(asio::ssl::host_name_verification(endpoint.host));
    ec = c.RunWithDeadline(
        [&](auto handler) {
          c.tls->async_handshake(asio::ssl::stream_base::client, std::move(handler));
        },
        left());
    if (ec == beast::error::timeout)
      return Status::Unavailable(DescribeTransportError(endpoint, ec, timeout));
    if (ec.category() == asio::error::get_ssl_category() &&
        ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_CERTIFICATE_VERIFY_FAILED)
      return CertificateRefused(endpoint, c.tls->native_handle());
    if (ec)
      return Status::Unavailable(
          fmt::format("TLS handshake with {} failed: {}", endpoint.url, ec.message()));
  }
  return std::unique_ptr<Connection>(new Connection(std::move(impl)));
}

Connection::~Connection() { Close(); }

NetError Connection::RoundTrip(const Request& request, Response* response, milliseconds timeout,
                               std::optional<std::uint64_t> body_limit) {
  Impl& c = *impl_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  NetError ec = Send(request, timeout);
  if (!ec) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(body_limit ? boost::optional<std::uint64_t>(*body_limit) : boost::none);
    const auto left =
        std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    ec = c.WithStream([&](auto& stream) {
      return c.RunWithDeadline(
          [&](auto handler) { http::async_read(stream, c.buffer, parser, std::move(handler)); },
          std::max(left, milliseconds(1)));
    });
    if (!ec) *response = parser.release();
  }
  if (ec || !response->keep_alive()) Close();
  return ec;
}

NetError Connection::Send(const Request& request, milliseconds timeout) {
  Impl& c = *impl_;
  return c.WithStream([&](auto& stream) {
    return c.RunWithDeadline(
        [&](auto handler) { http::async_write(stream, request, std::move(handler)); }, timeout);
  });
}

NetError Connection::ReadHeader(StreamParser& parser, milliseconds timeout) {
  Impl& c = *impl_;
  return c.WithStream([&](auto& stream) {
    return c.RunWithDeadline(
        [&](auto handler) {
          http::async_read_header(stream, c.buffer, parser, std::move(handler));
        },
        timeout);
  });
}

NetError Connection::ReadSome(StreamParser& parser, milliseconds timeout) {
  Impl& c = *impl_;
  return c.WithStream([&](auto& stream) {
    return c.RunWithDeadline(
        [&](auto handler) { http::async_read_some(stream, c.buffer, parser, std::move(handler)); },
        timeout);
  });
}

std::optional<NetError> Connection::ReadSomeUntil(StreamParser& parser,
                                                  std::chrono::steady_clock::time_point until) {
  Impl& c = *impl_;
  if (!c.reading) {
    c.reading = true;
    c.read_done = false;
    c.WithStream([&](auto& stream) {
      http::async_read_some(stream, c.buffer, parser, [&c](NetError ec, std::size_t) {
        c.read_ec = ec;
        c.read_done = true;
      });
      return 0;
    });
  }
  c.ioc.restart();
  c.ioc.poll();  // what has arrived already, even when `until` has passed
  if (!c.read_done) c.ioc.run_until(until);
  if (!c.read_done) return std::nullopt;
  c.reading = false;
  return c.read_ec;
}

bool Connection::Reusable() {
  Impl& c = *impl_;
  if (c.reading || !c.tcp().socket().is_open() || c.buffer.size() > 0) return false;
  // Readable while idle means the server closed it (EOF, or a TLS
  // close_notify) or sent something unasked.
  pollfd p{c.tcp().socket().native_handle(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

void Connection::Close() {
  Impl& c = *impl_;
  NetError ignored;
  c.tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
  c.tcp().socket().close(ignored);
  if (c.reading) {  // let the aborted read finish before its buffers go
    c.ioc.restart();
    c.ioc.run();
    c.reading = false;
  }
}

bool IsClosedByPeer(const NetError& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::ssl::error::stream_truncated;
}

std::string DescribeTransportError(const Endpoint& endpoint, const NetError& ec,
                                   milliseconds timeout) {
  if (ec == beast::error::timeout)
    return fmt::format("no answer from {} within {} ms", endpoint.url, timeout.count());
  if (ec == asio::error::connection_refused)
    return fmt::format("cannot connect to {}: connection refused", endpoint.url);
  return fmt::format("connection to {} failed: {}", endpoint.url, ec.message());
}

}  // namespace indelible::net
