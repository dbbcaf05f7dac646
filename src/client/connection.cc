#include "client/connection.h"

#include <fmt/format.h>
#include <poll.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>

namespace indelible::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

Result<std::unique_ptr<Connection>> Connection::Open(const Endpoint& endpoint,
                                                     std::chrono::milliseconds timeout) {
  std::unique_ptr<Connection> connection(new Connection());
  NetError ec;
  tcp::resolver resolver(connection->ioc_);
  const auto addresses = resolver.resolve(endpoint.host, endpoint.port, ec);
  if (ec)
    return Status::Unavailable(fmt::format("cannot resolve '{}': {}", endpoint.host, ec.message()));
  ec = connection->RunWithDeadline(
      [&](auto handler) {
        connection->stream_.async_connect(
            addresses, [handler](NetError e, const tcp::endpoint&) mutable { handler(e, 0); });
      },
      timeout);
  if (ec) return Status::Unavailable(DescribeTransportError(endpoint, ec, timeout));
  connection->stream_.socket().set_option(tcp::no_delay(true), ec);  // small requests: no delay
  return connection;
}

Connection::~Connection() { Close(); }

NetError Connection::RoundTrip(const Request& request, Response* response,
                               std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  NetError ec = RunWithDeadline(
      [&](auto handler) { http::async_write(stream_, request, std::move(handler)); }, timeout);
  if (!ec) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);  // pages are as large as the caller asked for
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    ec = RunWithDeadline(
        [&](auto handler) { http::async_read(stream_, buffer_, parser, std::move(handler)); },
        std::max(left, std::chrono::milliseconds(1)));
    if (!ec) *response = parser.release();
  }
  if (ec || !response->keep_alive()) Close();
  return ec;
}

bool Connection::Reusable() {
  if (!stream_.socket().is_open() || buffer_.size() > 0) return false;
  // Readable while idle means the server closed it (EOF) or sent junk.
  pollfd p{stream_.socket().native_handle(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

void Connection::Close() {
  NetError ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
}

bool IsClosedByPeer(const NetError& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe;
}

std::string DescribeTransportError(const Endpoint& endpoint, const NetError& ec,
                                   std::chrono::milliseconds timeout) {
  if (ec == beast::error::timeout)
    return fmt::format("no answer from {} within {} ms", endpoint.url, timeout.count());
  if (ec == asio::error::connection_refused)
    return fmt::format("cannot connect to {}: connection refused (is `indelible serve` running?)",
                       endpoint.url);
  return fmt::format("connection to {} failed: {}", endpoint.url, ec.message());
}

}  // namespace indelible::client
