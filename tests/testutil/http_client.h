// A small synchronous HTTP/1.1 client for black-box tests of `indelible
// serve`, on plain loopback sockets with Boost.Beast doing the HTTP framing:
//
//   HttpClient     one keep-alive connection; a request at a time.
//   RawConnection  a socket that sends exactly the bytes it is given
//                  (malformed requests, lying Content-Length, huge headers).
//   SseReader      a Server-Sent Events subscription read incrementally,
//                  message by message, each read with a timeout.
//
// Nothing here throws or aborts on a network error: a request that gets no
// answer comes back with status 0 and `error` saying why, so a test asserts
// on it like any other outcome. None of these classes is thread-safe; give
// each thread its own.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace indelible::testutil {

using Headers = std::vector<std::pair<std::string, std::string>>;
using Millis = std::chrono::milliseconds;

struct HttpResponse {
  unsigned status = 0;  // 0: no (complete) answer; `error` says why
  std::string error;
  Headers headers;
  std::string body;
  bool keep_alive = false;

  // The value of the first header of that name (case-insensitive).
  std::optional<std::string> Header(std::string_view name) const;
  // The body as JSON; null if it is not JSON.
  boost::json::value Json() const;
};

// A connected TCP socket to 127.0.0.1:port with timed reads and writes.
class Socket {
 public:
  Socket() = default;
  ~Socket() { Close(); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  // Connects; `rcvbuf` > 0 sets SO_RCVBUF first (a small receive window).
  bool Connect(int port, int rcvbuf = 0);
  void Close();
  bool is_open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  // Writes all of `bytes`; false if the peer closed or reset, or on timeout.
  bool SendAll(std::string_view bytes, Millis timeout);
  // Appends what arrives (waiting up to `timeout` for the first byte) to
  // `out`. Returns the byte count, 0 at end of stream or on a reset (then
  // peer_closed() is true), -1 on timeout.
  long RecvSome(std::string& out, Millis timeout);
  bool peer_closed() const { return peer_closed_; }
  // True if the peer has closed a connection that looks idle.
  bool LooksClosed() const;

 private:
  int fd_ = -1;
  bool peer_closed_ = false;
};

// Sends one request on a keep-alive connection and reads its answer. It
// reconnects before a request when the server closed the connection (after
// `Connection: close`, or an idle close); it never resends a request.
class HttpClient {
 public:
  explicit HttpClient(int port, Millis timeout = Millis(60000)) : port_(port), timeout_(timeout) {}

  HttpResponse Request(std::string_view method, std::string_view target,
                       const Headers& headers = {}, std::string_view body = {});
  HttpResponse Get(std::string_view target, const Headers& headers = {}) {
    return Request("GET", target, headers);
  }
  // Content-Type: application/json unless `headers` names one.
  HttpResponse Post(std::string_view target, std::string_view body, const Headers& headers = {});
  HttpResponse Delete(std::string_view target, const Headers& headers = {}) {
    return Request("DELETE", target, headers);
  }

  // TCP connections opened so far (1 for a session that kept alive).
  int connects() const { return connects_; }
  void Close() { socket_.Close(); }

 private:
  int port_;
  Millis timeout_;
  Socket socket_;
  std::string leftover_;  // bytes read past the last response
  int connects_ = 0;
};

// Reads one HTTP response from `socket`, starting with the bytes in
// `buffer` and leaving any bytes past the response there; `to_head`: the
// answer to a HEAD, whose Content-Length has no body after it.
HttpResponse ReadResponse(Socket& socket, std::string& buffer, Millis timeout,
                          bool to_head = false);

// A socket that sends raw bytes: for requests no well-behaved client makes.
class RawConnection {
 public:
  explicit RawConnection(int port) { connected_ = socket_.Connect(port); }
  bool connected() const { return connected_; }
  // False if the server closed or reset the connection before taking it all.
  bool Send(std::string_view bytes, Millis timeout = Millis(10000)) {
    return socket_.SendAll(bytes, timeout);
  }
  // The next response (status 0 if the server closed without one).
  HttpResponse ReadResponse(Millis timeout = Millis(10000)) {
    return testutil::ReadResponse(socket_, buffer_, timeout);
  }
  // Waits up to `timeout` for the server to close the connection, throwing
  // away what it sends. True if it closed.
  bool WaitForClose(Millis timeout);

 private:
  Socket socket_;
  std::string buffer_;
  bool connected_ = false;
};

// One item of an event stream: a message (id/event/data fields, data lines
// joined with '\n') or a comment (the text after ':', one space dropped).
struct SseItem {
  bool comment = false;
  std::string id;
  std::string event;
  std::string data;
};

// A GET of an event stream. The constructor connects (with a receive buffer
// of `rcvbuf` bytes if > 0) and sends the request but reads nothing, so a
// reader that never calls Next() is a client that stopped reading.
class SseReader {
 public:
  SseReader(int port, std::string_view target, const Headers& headers = {}, int rcvbuf = 0);
  ~SseReader();
  SseReader(const SseReader&) = delete;
  SseReader& operator=(const SseReader&) = delete;

  // Reads the response header (Next() does that first too). False if none
  // came; then status() is 0.
  bool ReadHead(Millis timeout = Millis(10000));
  unsigned status() const { return head_.status; }
  const HttpResponse& head() const { return head_; }
  // The next item, or nullopt on timeout or at the end of the stream.
  std::optional<SseItem> Next(Millis timeout);
  // The next message, skipping comments (kept in comments()).
  std::optional<SseItem> NextMessage(Millis timeout);
  // The server ended the stream or closed the connection.
  bool ended() const { return ended_; }
  // The whole body of a non-200 answer (an error JSON).
  std::string ReadErrorBody(Millis timeout = Millis(10000));
  // Every comment seen so far, in order.
  const std::vector<std::string>& comments() const { return comments_; }
  // Closes the connection (the client goes away).
  void Close() { socket_.Close(); }

 private:
  struct Parser;
  bool Fill(Millis timeout);  // reads more of the body into text_
  std::optional<SseItem> TakeItem();

  Socket socket_;
  std::unique_ptr<Parser> parser_;
  std::string raw_;   // bytes from the socket the parser has not taken
  std::string text_;  // event-stream text not yet split into lines
  HttpResponse head_;
  bool ended_ = false;
  SseItem pending_;
  bool pending_fields_ = false;
  std::vector<std::string> comments_;
};

}  // namespace indelible::testutil
