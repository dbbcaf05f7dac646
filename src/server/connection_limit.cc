#include "server/connection_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <memory>
#include <string>

#include "api/wire.h"
#include "server/context.h"
#include "server/http_session.h"

namespace indelible::server {

std::size_t RaiseDescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur == RLIM_INFINITY) return 1 << 20;
  return static_cast<std::size_t>(limit.rlim_cur);
}

std::size_t DefaultMaxConnections(std::size_t descriptor_limit) {
  return std::max<std::size_t>(16, descriptor_limit / 4 * 3);
}

bool EvictIdleConnection(ServerContext& context) {
  // The longest idle is found by a scan (only at the cap) and claimed, so a
  // burst of accepts evicts a different connection each time.
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::shared_ptr<HttpSession> oldest;
    std::int64_t oldest_since = 0;
    {
      MutexLock lock(&context.live_mu);
      for (auto& [_, weak] : context.sessions) {
        auto session = weak.lock();
        if (!session) continue;
        const std::int64_t since = session->idle_since_ns();
        if (since > 0 && (!oldest || since < oldest_since)) {
          oldest = std::move(session);
          oldest_since = since;
        }
      }
    }
    if (!oldest) return false;
    if (!oldest->ClaimForEviction(oldest_since)) continue;  // it got busy meanwhile
    oldest->Evict();
    return true;
  }
  return false;
}

void ShedConnection(boost::asio::ip::tcp::socket socket) {
  static const std::string kAnswer = [] {
    const std::string body = api::StatusToJson(
        Status::Unavailable("the server is at its connection limit (--max-connections); retry in "
                            "a moment or raise the limit"));
    return "HTTP/1.1 503 Service Unavailable\r\nServer: indelible\r\n"
           "Content-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n"
           "Content-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }();
  // Half-close after the answer and discard what the client still sends
  // for a moment: closing with unread data would reset the connection and
  // could destroy the answer before the client reads it.
  struct Shed {
    explicit Shed(boost::asio::ip::tcp::socket s)
        : socket(std::move(s)), timer(socket.get_executor()) {}
    boost::asio::ip::tcp::socket socket;
    boost::asio::steady_timer timer;
    std::array<char, 4096> sink;
    std::size_t drained = 0;
    void Close() {
      boost::system::error_code ignored;
      timer.cancel();
      socket.close(ignored);
    }
    static void Drain(std::shared_ptr<Shed> self) {
      self->socket.async_read_some(boost::asio::buffer(self->sink),
                                   [self](boost::system::error_code ec, std::size_t n) {
                                     self->drained += n;
                                     if (ec || self->drained > (1 << 16)) return self->Close();
                                     Drain(self);
                                   });
    }
  };
  auto shed = std::make_shared<Shed>(std::move(socket));
  boost::asio::async_write(shed->socket, boost::asio::buffer(kAnswer),
                           [shed](boost::system::error_code ec, std::size_t) {
                             if (ec) return shed->Close();
                             shed->socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
                             shed->timer.expires_after(std::chrono::seconds(1));
                             shed->timer.async_wait([shed](boost::system::error_code) {
                               boost::system::error_code ignored;
                               shed->socket.close(ignored);
                             });
                             Shed::Drain(shed);
                           });
}

}  // namespace indelible::server
