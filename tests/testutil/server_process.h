// ServerProcess: a real `indelible serve` (or `indelible-todo`) started as a
// child process on a free loopback port, for black-box tests.
//
// The server is started with `--listen 127.0.0.1:0`; it binds a free port
// and prints "listening on http://127.0.0.1:PORT" (https:// under TLS) on
// stdout once it accepts connections. Start() waits for that line. The destructor kills the server
// (SIGKILL) if a test did not stop it. Not thread-safe: one test owns it.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace indelible::testutil {

class ServerProcess {
 public:
  // `binary` is the executable; `args` follow it, e.g.
  // {"serve", "--store", "file:/tmp/x"}. "--listen 127.0.0.1:0" is added.
  ServerProcess(std::string binary, std::vector<std::string> args)
      : binary_(std::move(binary)), args_(std::move(args)) {}
  ~ServerProcess() { Kill(); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Starts the server and waits (up to `timeout`) until it listens. Returns
  // false (with what it printed in output()) if it exited or timed out.
  bool Start(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return false;
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      std::vector<std::string> all = {binary_};
      all.insert(all.end(), args_.begin(), args_.end());
      all.push_back("--listen");
      all.push_back("127.0.0.1:0");
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(binary_.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    stdout_fd_ = out[0];
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const std::string marker = "://127.0.0.1:";
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{stdout_fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) > 0) {
        char buf[512];
        const ssize_t n = ::read(stdout_fd_, buf, sizeof(buf));
        if (n <= 0) return false;  // exited before listening
        output_.append(buf, static_cast<std::size_t>(n));
        const auto line = output_.find("listening on http");
        if (auto at = output_.find(marker, line);
            line != std::string::npos && at != std::string::npos) {
          const auto end = output_.find('\n', at);
          if (end == std::string::npos) continue;
          scheme_ = output_.substr(line + 13, at - line - 13);
          port_ = std::stoi(output_.substr(at + marker.size(), end - at - marker.size()));
          return true;
        }
      }
    }
    return false;
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // http://127.0.0.1:PORT, or https:// when the server said so.
  std::string url() const { return scheme_ + "://127.0.0.1:" + std::to_string(port_); }
  const std::string& output() const { return output_; }

  // SIGTERM, then waits up to `timeout` for a clean exit. Returns the exit
  // status (WEXITSTATUS), or nullopt if it did not exit in time or died by
  // a signal.
  std::optional<int> Terminate(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    if (pid_ <= 0) return std::nullopt;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        CloseStdout();
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        return std::nullopt;
      }
      ::usleep(10000);
    }
    return std::nullopt;
  }

  // kill -9 and reap.
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    CloseStdout();
  }

 private:
  void CloseStdout() {
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stdout_fd_ = -1;
  }

  std::string binary_;
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
  std::string scheme_ = "http";
  std::string output_;
};

}  // namespace indelible::testutil
