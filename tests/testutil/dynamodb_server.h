// DynamoDbServer: a real DynamoDB-compatible server on a free loopback
// port, in a temporary folder of its own, started and stopped through
// scripts/dynamodb.sh (which fetches it into its cache on first use):
// "local" is AWS's DynamoDB Local (Java), "dynalite" the Node.js one. The
// destructor stops it (kills it if that fails) and removes the folder. Not
// thread-safe: one test (or test suite) owns it.
//
// Neither server checks signatures or keys, but requests must be signed in
// the right shape: any access key does.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "testutil/temp_dir.h"

namespace indelible::testutil {

// Runs a shell command line; its exit status (-1 when it could not be
// started), with what it printed (stdout and stderr) in *output.
inline int RunCommand(const std::string& line, std::string* output) {
  output->clear();
  FILE* pipe = ::popen(("(" + line + ") 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[256];
  while (std::fgets(buf, sizeof(buf), pipe) != nullptr) *output += buf;
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string DynamoDbScript() {
  return std::string(INDELIBLE_SOURCE_DIR) + "/scripts/dynamodb.sh";
}

class DynamoDbServer {
 public:
  // kind: "local" or "dynalite". in_memory: the data lives in the server's
  // memory (faster; lost on Stop) rather than in dir()/data.
  explicit DynamoDbServer(std::string kind, bool in_memory = true)
      : kind_(std::move(kind)), in_memory_(in_memory), dir_(temp_.Sub("dynamodb")) {}
  ~DynamoDbServer() {
    if (attached_) return;
    if (!Run("stop")) Run("kill");
  }

  // A server someone else started and stops (the ctest fixture below):
  // endpoint() is `endpoint`; Start, Stop and Kill are not for it.
  static std::unique_ptr<DynamoDbServer> Attach(std::string kind, const std::string& endpoint) {
    auto server = std::make_unique<DynamoDbServer>(std::move(kind));
    server->attached_ = true;
    server->endpoint_ = endpoint;
    server->port_ = endpoint.substr(endpoint.rfind(':') + 1);
    return server;
  }
  DynamoDbServer(const DynamoDbServer&) = delete;
  DynamoDbServer& operator=(const DynamoDbServer&) = delete;

  // Starts the server; a second Start after Stop uses the same port. False
  // if it did not start: output() says why (no Java, npm could not fetch).
  bool Start() {
    if (!Run("start " + kind_, port_)) return false;
    // The last line: http://127.0.0.1:PORT, or https:// when the script
    // was asked for TLS (INDELIBLE_DYNAMODB_TLS_DIR).
    auto begin = output_.rfind("://127.0.0.1:");
    if (begin == std::string::npos) return false;
    begin = output_.find_last_of("\n", begin) + 1;  // npos + 1 == 0
    endpoint_ = output_.substr(begin, output_.find_first_of("\r\n", begin) - begin);
    port_ = endpoint_.substr(endpoint_.rfind(':') + 1);
    return true;
  }
  bool Stop() { return Run("stop"); }  // SIGTERM, and waits until it is gone
  bool Kill() { return Run("kill"); }  // SIGKILL, as in a crash

  const std::string& kind() const { return kind_; }
  // http://127.0.0.1:PORT (https:// with INDELIBLE_DYNAMODB_TLS_DIR)
  const std::string& endpoint() const { return endpoint_; }
  int port() const { return port_.empty() ? 0 : std::stoi(port_); }
  // The server's folder: data/, server.log, server.pid.
  const std::string& dir() const { return dir_; }
  // What the script printed (stdout and stderr) the last time it ran.
  const std::string& output() const { return output_; }

 private:
  bool Run(const std::string& command, const std::string& port = "") {
    std::string line = in_memory_ ? "INDELIBLE_DYNAMODB_IN_MEMORY=1 " : "";
    if (command.starts_with("start")) {
      line += DynamoDbScript() + " " + command + " '" + dir_ + "' " + port;
    } else {
      line += DynamoDbScript() + " " + command + " '" + dir_ + "'";
    }
    return RunCommand(line, &output_) == 0;
  }

  TempDir temp_;
  std::string kind_;
  bool in_memory_;
  std::string dir_;
  std::string endpoint_;
  std::string port_;
  std::string output_;
  bool attached_ = false;
};

// One in-memory server of `kind` per test process, started on first use and
// stopped at exit, for suites whose tests each make their own tables. Its
// endpoint() is empty (and output() says why) when it did not start.
//
// Under ctest, one DynamoDB Local serves the whole run (a JVM start per test
// process would cost seconds each): the fixture in tests/CMakeLists.txt
// starts it and names the file holding its endpoint in
// INDELIBLE_DYNAMODB_LOCAL_ENDPOINT_FILE. Tables are named per test, so the
// suites do not meet.
inline DynamoDbServer& SharedDynamoDbServer(const std::string& kind) {
  static std::map<std::string, std::unique_ptr<DynamoDbServer>> servers;
  auto& server = servers[kind];
  if (!server) {
    const char* file = std::getenv("INDELIBLE_DYNAMODB_LOCAL_ENDPOINT_FILE");
    std::string endpoint;
    if (kind == "local" && file != nullptr) {
      std::ifstream in(file);
      std::getline(in, endpoint);
    }
    if (!endpoint.empty()) {
      server = DynamoDbServer::Attach(kind, endpoint);
    } else {
      server = std::make_unique<DynamoDbServer>(kind);
      server->Start();
    }
  }
  return *server;
}

// At exit, deletes the tables named by the prefixes a process handed out
// on the server ctest shares (a server of the process's own goes with it):
// DynamoDB Local slows down as tables pile up on one instance (a TTL pass
// over each table with TTL on, and index jobs queued behind those passes,
// on a pool of ten threads), by minutes late in a full run.
inline void DropTablesAtExit(const std::string& endpoint, const std::string& prefix) {
  static std::vector<std::pair<std::string, std::string>>* drops = nullptr;
  if (drops == nullptr) {
    drops = new std::vector<std::pair<std::string, std::string>>();
    std::atexit([] {
      for (const auto& [at, names] : *drops) {
        std::string output;
        RunCommand(DynamoDbScript() + " drop-tables '" + at + "' '" + names + "'", &output);
      }
    });
  }
  drops->emplace_back(endpoint, prefix);
}

// The dynamodb:// URL of a store on the shared DynamoDB Local for the test
// that is running: test credentials set in the environment (the emulator
// checks none), tables named by `tag`, the test's name and a number drawn
// per process (so that `ctest --repeat` starts on empty tables), and `extra`
// parameters after the region ("&indexer=0"). Empty when the server could
// not be started; the failure is reported to the test.
inline std::string DynamoDbTestUrl(std::string_view tag, std::string_view extra = "") {
  ::setenv("AWS_ACCESS_KEY_ID", "test", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "test", 1);
  auto& server = SharedDynamoDbServer("local");
  if (server.endpoint().empty()) {
    ADD_FAILURE() << "DynamoDB Local did not start: " << server.output();
    return "";
  }
  static const unsigned run = std::random_device()() % 100000;
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  const std::string prefix = std::string(tag) + "_" + name + "_" + std::to_string(run) + "_";
  if (std::getenv("INDELIBLE_DYNAMODB_LOCAL_ENDPOINT_FILE") != nullptr)
    DropTablesAtExit(server.endpoint(), prefix);
  return "dynamodb://127.0.0.1:" + std::to_string(server.port()) + "?region=us-east-1&tls=0" +
         std::string(extra) + "&prefix=" + prefix;
}

}  // namespace indelible::testutil
