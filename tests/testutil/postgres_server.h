// PostgresServer: a real PostgreSQL 15 cluster on a free loopback port, in a
// temporary folder of its own, started and stopped through
// scripts/postgres.sh (the same script the benchmarks use). The URL names
// the database `indelible`, trust auth. The destructor stops it (fast
// shutdown; kills it if that fails) and removes the folder. Not thread-safe:
// one test owns it.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "testutil/temp_dir.h"

namespace indelible::testutil {

class PostgresServer {
 public:
  PostgresServer() : dir_(temp_.Sub("pg")) {
    // As root the script runs the server as the `postgres` user, which must
    // pass through the temp folder (0700, ours) to reach the cluster's own.
    if (::geteuid() == 0) {
      std::filesystem::permissions(temp_.path(), std::filesystem::perms::others_exec,
                                   std::filesystem::perm_options::add);
    }
  }
  ~PostgresServer() {
    if (!Run("stop")) Run("kill");
  }
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Creates the cluster on the first call; starts it again with its data on
  // later ones, on the same port. False if it did not start: output() says
  // why.
  bool Start() {
    if (!Run("start", port_)) return false;
    const auto begin = output_.find("postgresql://");
    if (begin == std::string::npos) return false;
    url_ = output_.substr(begin, output_.find_first_of("\r\n", begin) - begin);
    const auto colon = url_.rfind(':');
    port_ = url_.substr(colon + 1, url_.find('/', colon) - colon - 1);
    return true;
  }
  bool Stop() { return Run("stop"); }  // fast shutdown: clients cut off, all flushed
  bool Kill() { return Run("kill"); }  // SIGKILL, as in a crash; Start() recovers

  // postgresql://postgres@127.0.0.1:PORT/indelible
  const std::string& url() const { return url_; }
  int port() const { return port_.empty() ? 0 : std::stoi(port_); }
  // The cluster's folder: data/, postgres.log, the unix socket.
  const std::string& dir() const { return dir_; }
  // What the script printed (stdout and stderr) the last time it ran.
  const std::string& output() const { return output_; }

 private:
  bool Run(const std::string& command, const std::string& port = "") {
    const std::string line = std::string(INDELIBLE_SOURCE_DIR) + "/scripts/postgres.sh " + command +
                             " '" + dir_ + "' " + port + " 2>&1";
    output_.clear();
    FILE* pipe = ::popen(line.c_str(), "r");
    if (pipe == nullptr) return false;
    char buf[256];
    while (std::fgets(buf, sizeof(buf), pipe) != nullptr) output_ += buf;
    return ::pclose(pipe) == 0;
  }

  TempDir temp_;
  std::string dir_;
  std::string url_;
  std::string port_;
  std::string output_;
};

}  // namespace indelible::testutil
