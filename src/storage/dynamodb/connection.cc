#include "storage/dynamodb/connection.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core/error.hpp>

namespace indelible::dynamodb {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

template <class Start>
NetError Connection::RunWithDeadline(Start start, std::chrono::milliseconds timeout) {
  tcp().expires_after(timeout);
  NetError result = asio::error::operation_aborted;
  bool done = false;
  start([&result, &done](NetError ec, auto&&...) {
    result = ec;
    done = true;
  });
  ioc_.restart();
  while (!done && ioc_.run_one() > 0) {
  }
  tcp().expires_never();
  return result;
}

Result<std::unique_ptr<Connection>> Connection::Open(const Endpoint& endpoint,
                                                     asio::ssl::context* tls,
                                                     std::chrono::milliseconds timeout) {
  std::unique_ptr<Connection> c(new Connection());
  if (endpoint.tls) {
    if (tls == nullptr) return Status::Internal("an https endpoint needs a TLS context");
    c->tls_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(c->ioc_, *tls);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const auto left = [&] {
    return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now()),
                    std::chrono::milliseconds(1));
  };
  NetError ec;
  tcp::resolver resolver(c->ioc_);
  const auto addresses = resolver.resolve(endpoint.host, endpoint.port, ec);
  if (ec)
    return Status::Unavailable(fmt::format("cannot resolve '{}': {}", endpoint.host, ec.message()));
  ec = c->RunWithDeadline(
      [&](auto handler) {
        c->tcp().async_connect(addresses,
                               [handler](NetError e, const tcp::endpoint&) mutable { handler(e); });
      },
      left());
  if (ec) return Status::Unavailable(DescribeTransportError(endpoint, ec, timeout));
  c->tcp().socket().set_option(tcp::no_delay(true), ec);  // small requests: no delay
  if (c->tls_) {
    // SNI carries host names only, never addresses (RFC 6066).
    asio::ip::make_address(endpoint.host, ec);
    if (ec && !SSL_set_tlsext_host_name(c->tls_->native_handle(), endpoint.host.c_str()))
      return Status::Internal("cannot set the TLS server name");
    c->tls_->set_verify_mode(asio::ssl::verify_peer);
    c->tls_->set_verify_callback(asio::ssl::host_name_verification(endpoint.host));
    ec = c->RunWithDeadline(
        [&](auto handler) {
          c->tls_->async_handshake(asio::ssl::stream_base::client, std::move(handler));
        },
        left());
    if (ec == beast::error::timeout)
      return Status::Unavailable(DescribeTransportError(endpoint, ec, timeout));
    if (ec.category() == asio::error::get_ssl_category() &&
        ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_CERTIFICATE_VERIFY_FAILED) {
      // Not a passing trouble: a retry would meet the same certificate.
      // The host name check (asio's callback) fails without a verdict of
      // its own: OpenSSL then says "unspecified".
      const long verdict = SSL_get_verify_result(c->tls_->native_handle());
      return Status::Unauthorized(fmt::format(
          "the certificate of {} is not trusted for '{}': {}; ca_file= adds a trusted CA",
          endpoint.url, endpoint.host,
          verdict == X509_V_OK || verdict == X509_V_ERR_UNSPECIFIED
              ? "it names another host"
              : X509_verify_cert_error_string(verdict)));
    }
    if (ec)
      return Status::Unavailable(
          fmt::format("TLS handshake with {} failed: {}", endpoint.url, ec.message()));
  }
  return c;
}

Connection::~Connection() { Close(); }

NetError Connection::RoundTrip(const Request& request, Response* response,
                               std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  NetError ec = WithStream([&](auto& stream) {
    return RunWithDeadline(
        [&](auto handler) { http::async_write(stream, request, std::move(handler)); }, timeout);
  });
  if (!ec) {
    http::response_parser<http::string_body> parser;
    // A Query or Scan page is at most 1 MB of items; BatchGetItem 16 MB.
    parser.body_limit(64 << 20);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    ec = WithStream([&](auto& stream) {
      return RunWithDeadline(
          [&](auto handler) { http::async_read(stream, buffer_, parser, std::move(handler)); },
          std::max(left, std::chrono::milliseconds(1)));
    });
    if (!ec) *response = parser.release();
  }
  if (ec || !response->keep_alive()) Close();
  return ec;
}

bool Connection::Reusable() {
  if (!tcp().socket().is_open() || buffer_.size() > 0) return false;
  // Readable while idle means the server closed it (EOF, or a TLS
  // close_notify) or sent something unasked.
  pollfd p{tcp().socket().native_handle(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

void Connection::Close() {
  // No TLS close_notify: the connection is dropped, not handed back.
  NetError ignored;
  tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
  tcp().socket().close(ignored);
}

bool IsClosedByPeer(const NetError& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::ssl::error::stream_truncated;
}

std::string DescribeTransportError(const Endpoint& endpoint, const NetError& ec,
                                   std::chrono::milliseconds timeout) {
  if (ec == beast::error::timeout)
    return fmt::format("no answer from {} within {} ms", endpoint.url, timeout.count());
  if (ec == asio::error::connection_refused)
    return fmt::format("cannot connect to {}: connection refused", endpoint.url);
  return fmt::format("connection to {} failed: {}", endpoint.url, ec.message());
}

}  // namespace indelible::dynamodb
