// InProcessServer: server::RunServer on a thread of the test process, for
// tests that need a hook no binary has (a store on a failing file system,
// routes that misbehave on purpose). Stop() sends the process SIGTERM, which
// the server handles like `indelible serve` does, and joins: use one per
// test binary at a time.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <string>
#include <thread>

#include "server/server.h"
#include "testutil/http_client.h"

namespace indelible::testutil {

class InProcessServer {
 public:
  // Serves `store` (which must outlive this) with `options` on a port the
  // server binds itself (port 0: no other process can take it in between);
  // returns once it accepts, or once it failed (port() is 0 then).
  InProcessServer(Store& store, ServeOptions options) {
    std::promise<int> bound;
    auto bound_port = bound.get_future();
    options.listen = "127.0.0.1:0";
    thread_ = std::thread([this, &store, &bound, options]() mutable {
      bool listened = false;  // the callback runs on this thread
      options.on_listening = [&](std::uint16_t port) {
        listened = true;
        bound.set_value(port);
      };
      status_ = server::RunServer(store, options);
      if (!listened) bound.set_value(0);  // the constructor still waits
    });
    port_ = bound_port.get();
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
  int port_ = 0;
  Status status_;
  std::thread thread_;
};

}  // namespace indelible::testutil
