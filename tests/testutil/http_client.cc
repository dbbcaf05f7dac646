#include "testutil/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <cerrno>
#include <sstream>

namespace indelible::testutil {
namespace {

namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using StringParser = http::response_parser<http::string_body>;

Millis Left(Clock::time_point deadline) {
  return std::chrono::duration_cast<Millis>(deadline - Clock::now());
}

int PollMillis(Millis timeout) {
  return static_cast<int>(
      std::max<Millis::rep>(0, std::min<Millis::rep>(timeout.count(), 1 << 30)));
}

void Configure(StringParser& parser) {
  parser.eager(true);
  parser.body_limit(boost::none);
  parser.header_limit(1 << 20);
}

// Hands the parser what it can take from the front of `buffer`. False (and
// `error`) if the bytes are not HTTP.
bool Feed(StringParser& parser, std::string& buffer, std::string& error) {
  while (!buffer.empty() && !parser.is_done()) {
    boost::beast::error_code ec;
    const std::size_t n = parser.put(boost::asio::buffer(buffer.data(), buffer.size()), ec);
    buffer.erase(0, n);
    if (ec == http::error::need_more) return true;
    if (ec) {
      error = ec.message();
      return false;
    }
    if (n == 0) return true;
  }
  return true;
}

void CopyHead(const http::response<http::string_body>& message, HttpResponse& out) {
  out.status = message.result_int();
  for (const auto& field : message) {
    out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  out.keep_alive = message.keep_alive();
}

}  // namespace

std::optional<std::string> HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key.size() == name.size() && ::strncasecmp(key.data(), name.data(), key.size()) == 0) {
      return value;
    }
  }
  return std::nullopt;
}

boost::json::value HttpResponse::Json() const {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(body, ec);
  if (ec) return nullptr;
  return value;
}

bool Socket::Connect(int port, int rcvbuf) {
  Close();
  peer_closed_ = false;
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return false;
  if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    Close();
    return false;
  }
  return true;
}

void Socket::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Socket::SendAll(std::string_view bytes, Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!bytes.empty()) {
    if (fd_ < 0) return false;
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, PollMillis(Left(deadline))) <= 0) return false;
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

long Socket::RecvSome(std::string& out, Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (fd_ < 0 || peer_closed_) return 0;
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, PollMillis(Left(deadline)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return -1;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      return n;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    peer_closed_ = true;  // end of stream, or a reset
    return 0;
  }
}

bool Socket::LooksClosed() const {
  if (fd_ < 0) return true;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  char c;
  const ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

HttpResponse ReadResponse(Socket& socket, std::string& buffer, Millis timeout, bool to_head) {
  HttpResponse out;
  StringParser parser;
  Configure(parser);
  parser.skip(to_head);  // an answer to HEAD has a length and no body
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (!Feed(parser, buffer, out.error)) {
      out.error = "not an HTTP response: " + out.error;
      return out;
    }
    if (parser.is_done()) break;
    const long n = socket.RecvSome(buffer, std::max(Millis(0), Left(deadline)));
    if (n < 0) {
      out.error = "no complete response within the timeout";
      return out;
    }
    if (n == 0) {
      boost::beast::error_code ec;
      if (parser.is_header_done()) parser.put_eof(ec);
      if (parser.is_header_done() && !ec && parser.is_done()) break;
      out.error = "the server closed the connection without a complete response";
      return out;
    }
  }
  CopyHead(parser.get(), out);
  out.body = std::move(parser.get().body());
  return out;
}

HttpResponse HttpClient::Request(std::string_view method, std::string_view target,
                                 const Headers& headers, std::string_view body) {
  if (socket_.is_open() && socket_.LooksClosed()) socket_.Close();
  if (!socket_.is_open()) {
    leftover_.clear();
    if (!socket_.Connect(port_)) {
      HttpResponse refused;
      refused.error = "cannot connect";
      return refused;
    }
    ++connects_;
  }
  http::request<http::string_body> request;
  request.version(11);
  request.method_string(method);
  request.target(target);
  request.set(http::field::host, "127.0.0.1:" + std::to_string(port_));
  bool has_length = false;
  for (const auto& [name, value] : headers) {
    request.insert(name, value);
    has_length = has_length || ::strcasecmp(name.c_str(), "Content-Length") == 0;
  }
  request.body() = std::string(body);
  if (!has_length && (!body.empty() || method == "POST" || method == "PUT")) {
    request.content_length(body.size());
  }
  std::ostringstream wire;
  wire << request;
  // A server may answer before taking a whole body (413): read either way.
  const bool sent = socket_.SendAll(wire.str(), timeout_);
  HttpResponse response = ReadResponse(socket_, leftover_, timeout_, method == "HEAD");
  if (!sent && response.status == 0) response.error = "send failed; " + response.error;
  if (response.status == 0 || !response.keep_alive) socket_.Close();
  return response;
}

HttpResponse HttpClient::Post(std::string_view target, std::string_view body,
                              const Headers& headers) {
  for (const auto& header : headers) {
    if (::strcasecmp(header.first.c_str(), "Content-Type") == 0) {
      return Request("POST", target, headers, body);
    }
  }
  Headers with_type = headers;
  with_type.emplace_back("Content-Type", "application/json");
  return Request("POST", target, with_type, body);
}

bool RawConnection::WaitForClose(Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    std::string discard;
    if (socket_.RecvSome(discard, std::max(Millis(0), Left(deadline))) == 0) return true;
  }
  return false;
}

struct SseReader::Parser {
  StringParser parser;
};

SseReader::SseReader(int port, std::string_view target, const Headers& headers, int rcvbuf)
    : parser_(std::make_unique<Parser>()) {
  Configure(parser_->parser);
  if (!socket_.Connect(port, rcvbuf)) {
    head_.error = "cannot connect";
    ended_ = true;
    return;
  }
  std::string request = "GET " + std::string(target) +
                        " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                        "\r\nAccept: text/event-stream\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  request += "\r\n";
  if (!socket_.SendAll(request, Millis(10000))) head_.error = "cannot send the request";
}

SseReader::~SseReader() = default;

bool SseReader::ReadHead(Millis timeout) {
  if (head_.status != 0) return true;
  auto& parser = parser_->parser;
  const auto deadline = Clock::now() + timeout;
  while (!parser.is_header_done() && !ended_) {
    const long n = socket_.RecvSome(raw_, std::max(Millis(0), Left(deadline)));
    if (n < 0) return false;
    if (n == 0) ended_ = true;
    if (!Feed(parser, raw_, head_.error)) ended_ = true;
  }
  if (parser.is_header_done()) CopyHead(parser.get(), head_);
  return head_.status != 0;
}

bool SseReader::Fill(Millis timeout) {
  auto& parser = parser_->parser;
  auto take = [&] {
    text_ += parser.get().body();
    parser.get().body().clear();
  };
  if (parser.is_done()) {
    take();
    ended_ = true;
    return false;
  }
  const long n = socket_.RecvSome(raw_, timeout);
  if (n < 0) return false;
  std::string error;
  if (!Feed(parser, raw_, error)) ended_ = true;
  if (n == 0) {
    boost::beast::error_code ec;
    parser.put_eof(ec);
    ended_ = true;
  }
  take();
  if (parser.is_done()) ended_ = true;
  return true;
}

std::optional<SseItem> SseReader::TakeItem() {
  std::size_t start = 0;
  std::optional<SseItem> out;
  while (!out) {
    const std::size_t newline = text_.find('\n', start);
    if (newline == std::string::npos) break;
    std::string line = text_.substr(start, newline - start);
    start = newline + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (pending_fields_) out = std::exchange(pending_, SseItem{});
      pending_fields_ = false;
      continue;
    }
    const std::size_t colon = line.find(':');
    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    const std::string field = line.substr(0, colon);
    if (field.empty()) {
      comments_.push_back(value);
      out = SseItem();
      out->comment = true;
      out->data = value;
    } else if (field == "data") {
      if (pending_fields_ && !pending_.data.empty()) pending_.data += '\n';
      pending_.data += value;
      pending_fields_ = true;
    } else if (field == "id") {
      pending_.id = value;
      pending_fields_ = true;
    } else if (field == "event") {
      pending_.event = value;
      pending_fields_ = true;
    }
  }
  text_.erase(0, start);
  return out;
}

std::optional<SseItem> SseReader::Next(Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  if (head_.status == 0 && !ReadHead(timeout)) return std::nullopt;
  for (;;) {
    // Body bytes may already be parsed (they can arrive with the head):
    // use them before waiting on the socket for more.
    text_ += parser_->parser.get().body();
    parser_->parser.get().body().clear();
    if (auto item = TakeItem()) return item;
    if (ended_ || Clock::now() >= deadline) return std::nullopt;
    Fill(std::max(Millis(0), Left(deadline)));
  }
}

std::optional<SseItem> SseReader::NextMessage(Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    auto item = Next(std::max(Millis(0), Left(deadline)));
    if (!item || !item->comment) return item;
  }
}

std::string SseReader::ReadErrorBody(Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  if (head_.status == 0) ReadHead(timeout);
  while (!ended_ && Clock::now() < deadline) Fill(std::max(Millis(0), Left(deadline)));
  return std::exchange(text_, "");
}

}  // namespace indelible::testutil
