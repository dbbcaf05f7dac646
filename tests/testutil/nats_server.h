// NatsServer: a real `nats-server -js` on a free loopback port, started and
// stopped through scripts/nats-server.sh (the same script the benchmark
// uses). The destructor kills it. Not thread-safe: one test owns it.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace indelible::testutil {

class NatsServer {
 public:
  // `dir` holds the server's JetStream data, pid and log.
  explicit NatsServer(std::string dir) : dir_(std::move(dir)) {}
  ~NatsServer() { Run("kill"); }
  NatsServer(const NatsServer&) = delete;
  NatsServer& operator=(const NatsServer&) = delete;

  // Starts it (on its earlier port when restarting); false if it did not.
  bool Start() {
    std::string out;
    const bool ok = Run("start", port_.empty() ? "" : port_, &out);
    if (!ok || out.rfind("nats://", 0) != 0) return false;
    url_ = out.substr(0, out.find_first_of("\r\n"));
    port_ = url_.substr(url_.rfind(':') + 1);
    return true;
  }
  bool Stop() { return Run("stop"); }  // SIGTERM: JetStream flushes
  const std::string& url() const { return url_; }

 private:
  bool Run(const std::string& command, const std::string& port = "", std::string* out = nullptr) {
    const std::string line = std::string(INDELIBLE_SOURCE_DIR) + "/scripts/nats-server.sh " +
                             command + " '" + dir_ + "' " + port;
    FILE* pipe = ::popen(line.c_str(), "r");
    if (pipe == nullptr) return false;
    char buf[256];
    std::string text;
    while (std::fgets(buf, sizeof(buf), pipe) != nullptr) text += buf;
    if (out != nullptr) *out = text;
    return ::pclose(pipe) == 0;
  }

  std::string dir_;
  std::string url_;
  std::string port_;
};

}  // namespace indelible::testutil
