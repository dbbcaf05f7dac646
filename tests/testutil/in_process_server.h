// InProcessServer: server::RunServer on a thread of the test process, for
// tests that need a hook no binary has (a store on a failing file system,
// routes that misbehave on purpose). Stop() sends the process SIGTERM, which
// the server handles like `indelible serve` does, and joins: use one per
// test binary at a time.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "server/server.h"
#include "testutil/http_client.h"

namespace indelible::testutil {

// A loopback port nothing listens on now (the kernel's pick for a bind to 0).
inline int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

class InProcessServer {
 public:
  // Serves `store` (which must outlive this) with `options` on a free port.
  InProcessServer(Store& store, ServeOptions options) : port_(FreePort()) {
    options.listen = "127.0.0.1:" + std::to_string(port_);
    thread_ = std::thread([this, &store, options] { status_ = server::RunServer(store, options); });
  }
  ~InProcessServer() { (void)Stop(); }
  InProcessServer(const InProcessServer&) = delete;
  InProcessServer& operator=(const InProcessServer&) = delete;

  int port() const { return port_; }

  // True once /health answers at all (any status), within `timeout`.
  bool AwaitListening(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    HttpClient client(port_, std::chrono::seconds(5));
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (client.Get("/health").status != 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // Stops the server (SIGTERM) and returns what RunServer returned.
  Status Stop() {
    if (thread_.joinable()) {
      ::kill(::getpid(), SIGTERM);
      thread_.join();
    }
    return status_;
  }

 private:
  int port_;
  Status status_;
  std::thread thread_;
};

}  // namespace indelible::testutil
