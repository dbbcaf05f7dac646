// FakeAws: tests/dynamodb/fake_aws.mjs (fakes of STS, IMDSv2 and the
// container credentials endpoint, and a checking, throttling front for
// DynamoDB Local) run as a child process of the test, on free loopback ports.
// Every credential it issues expires after `lifetime_s`; the front refuses
// requests signed with an expired one, with a wrong session token or a bad
// signature, and counts them (Stats()).
//
//   FakeAws fake({.dynamodb = server.endpoint(), .lifetime_s = 20});
//   ASSERT_TRUE(fake.Start()) << fake.output();
//   ... AWS_ENDPOINT_URL_STS=fake.sts_url(), --data dynamodb://127.0.0.1:PORT ...
//   EXPECT_EQ(fake.Stats().at("expired_signatures").as_int64(), 0);
//
// Below it, for the black-box load tests against the fake: IsolatedServer
// (`indelible serve` in an environment given whole), RunAppendLoad (appends
// with client-made ids from several threads), ReadStreamIds, MetricValue.
//
// Needs `node` (20 or later) on PATH. The child reads its stdin until it
// closes: the test keeps the pipe, so the fake goes when the test process
// does, even when it crashes. The destructor closes it, sends SIGTERM and
// reaps the child. Thread-safe after Start(): the control calls go through a
// thread-safe HTTP client.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "net/http_client.h"
#include "net/url.h"

namespace indelible::testutil {

struct FakeAwsOptions {
  // The DynamoDB-compatible server the front forwards to (http://127.0.0.1:P).
  std::string dynamodb{};
  // How long every issued credential lives.
  int lifetime_s = 3600;
  // The token AssumeRoleWithWebIdentity accepts; empty: any.
  std::string web_identity_token{};
  // The Authorization header the container endpoint wants; empty: none.
  std::string container_token{};
  // A long-term key allowed to call AssumeRole, and its secret (when given,
  // the signature of those calls is checked too).
  std::string source_key_id{};
  std::string source_secret{};
  // The region the front wants in the signatures of issued keys; empty: any.
  std::string region{};
};

class FakeAws {
 public:
  explicit FakeAws(FakeAwsOptions options) : options_(std::move(options)) {}
  ~FakeAws() { Stop(); }
  FakeAws(const FakeAws&) = delete;
  FakeAws& operator=(const FakeAws&) = delete;

  static std::string Script() {
    return std::string(INDELIBLE_SOURCE_DIR) + "/tests/dynamodb/fake_aws.mjs";
  }

  // Starts the fake and waits (up to `timeout`) for its ports. False (with
  // why in output()) when node is missing, the script failed, or it was slow.
  bool Start(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::vector<std::string> args = {"node",         Script(),
                                     "--dynamodb",   options_.dynamodb,
                                     "--lifetime-s", std::to_string(options_.lifetime_s)};
    auto add = [&args](const char* flag, const std::string& value) {
      if (value.empty()) return;
      args.push_back(flag);
      args.push_back(value);
    };
    add("--web-identity-token", options_.web_identity_token);
    add("--container-token", options_.container_token);
    add("--source-key-id", options_.source_key_id);
    add("--source-secret", options_.source_secret);
    add("--region", options_.region);

    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0) return Fail("pipe failed");
    if (::pipe2(out, O_CLOEXEC) != 0) {
      ::close(in[0]);
      ::close(in[1]);
      return Fail("pipe failed");
    }
    pid_ = ::fork();
    if (pid_ < 0) return Fail("fork failed");
    if (pid_ == 0) {
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(out[1], STDOUT_FILENO);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp("node", argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    stdin_fd_ = in[1];
    const int stdout_fd = out[0];
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string line;
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{stdout_fd, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
        ::close(stdout_fd);
        return Fail("no ports line within the timeout: " + line);
      }
      char buf[256];
      const ssize_t n = ::read(stdout_fd, buf, sizeof(buf));
      if (n <= 0) {
        ::close(stdout_fd);
        return Fail("node exited before it listened (is node 20+ on PATH? see stderr): " + line);
      }
      line.append(buf, static_cast<std::size_t>(n));
    }
    // It prints nothing more; the pipe stays open so that a write never fails.
    stdout_fd_ = stdout_fd;
    boost::system::error_code ec;
    const boost::json::value ports = boost::json::parse(line, ec);
    if (ec || !ports.is_object()) return Fail("not a ports line: " + line);
    for (const char* name : {"sts", "imds", "container", "dynamodb"}) {
      const auto* port = ports.as_object().if_contains(name);
      if (port == nullptr || !port->is_int64()) return Fail("not a ports line: " + line);
      urls_.push_back("http://127.0.0.1:" + std::to_string(port->as_int64()));
    }
    net::HttpClientOptions o;
    o.endpoint = *net::ParseUrl(dynamodb_url());
    auto client = net::HttpClient::Create(o);
    if (!client.ok()) return Fail(client.status().ToString());
    control_ = std::move(*client);
    return true;
  }

  // Closes its stdin, sends SIGTERM and reaps it. Idempotent.
  void Stop() {
    control_.reset();
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    stdin_fd_ = -1;
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stdout_fd_ = -1;
  }

  // http://127.0.0.1:PORT of each fake.
  const std::string& sts_url() const { return urls_.at(0); }
  const std::string& imds_url() const { return urls_.at(1); }
  const std::string& container_url() const { return urls_.at(2); }
  const std::string& dynamodb_url() const { return urls_.at(3); }
  int dynamodb_port() const {
    return std::stoi(dynamodb_url().substr(dynamodb_url().rfind(':') + 1));
  }

  // {"requests", "actions": {X-Amz-Target: n}, "throttled",
  //  "expired_signatures", "bad_tokens", "bad_signatures", "foreign_keys"
  //  (signed with a key it did not issue: not checked), "unsigned",
  //  "issued": {"sts", "web_identity", "imds", "container"}, "imds_tokens"}.
  // Empty when the fake did not answer.
  boost::json::object Stats() {
    const auto answer = Call(net::http::verb::get, "/__fake/stats", "");
    if (!answer) return {};
    boost::system::error_code ec;
    boost::json::value stats = boost::json::parse(answer->body(), ec);
    return ec || !stats.is_object() ? boost::json::object() : stats.as_object();
  }
  // For the next `seconds`, answers `fraction` of the front's requests with
  // DynamoDB's ThrottlingException instead of forwarding them.
  bool Throttle(double fraction, double seconds) {
    const auto answer = Call(
        net::http::verb::post, "/__fake/throttle",
        boost::json::serialize(boost::json::object{{"fraction", fraction}, {"seconds", seconds}}));
    return answer && answer->result_int() == 200;
  }
  // Zeroes the counters and closes a throttle window; issued keys stay valid.
  bool Reset() {
    const auto answer = Call(net::http::verb::post, "/__fake/reset", "");
    return answer && answer->result_int() == 200;
  }

  const std::string& output() const { return output_; }

 private:
  bool Fail(std::string why) {
    output_ = std::move(why);
    Stop();
    return false;
  }

  // One control request to the front, without retries; nullopt when it did
  // not answer.
  std::optional<net::Response> Call(net::http::verb method, std::string_view target,
                                    std::string body) {
    if (!control_) return std::nullopt;
    net::Request request = control_->MakeRequest(method, target);
    if (!body.empty()) {
      request.set(net::http::field::content_type, "application/json");
      request.body() = std::move(body);
      request.prepare_payload();
    }
    net::Exchange exchange = control_->Send(request, net::RetryPolicy{});
    if (!exchange.ok()) return std::nullopt;
    return exchange.response;
  }

  FakeAwsOptions options_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::vector<std::string> urls_;
  std::unique_ptr<net::HttpClient> control_;
  std::string output_;
};

// `indelible serve` (or any server that prints "listening on http://...")
// in an environment given whole: nothing of the test's own is inherited, so
// the AWS variables and files of the machine it runs on cannot leak in. Its
// stderr goes to `log_file`; LogTail() shows the end of it in a failure
// message. The destructor stops it (SIGTERM, then SIGKILL after 30 s).
class IsolatedServer {
 public:
  IsolatedServer(std::string binary, std::vector<std::string> args, std::vector<std::string> env,
                 std::string log_file)
      : binary_(std::move(binary)),
        args_(std::move(args)),
        env_(std::move(env)),
        log_file_(std::move(log_file)) {}
  ~IsolatedServer() { Stop(); }
  IsolatedServer(const IsolatedServer&) = delete;
  IsolatedServer& operator=(const IsolatedServer&) = delete;

  // The sanitizers' settings of the test process, for the server's env.
  static std::vector<std::string> SanitizerEnv() {
    std::vector<std::string> env;
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"})
      if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
    return env;
  }

  // Starts it and waits (up to `timeout`) until it listens; false when it
  // exited first or was slow (LogTail() says why).
  bool Start(std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return false;
    const int log = ::open(log_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      if (log >= 0) ::dup2(log, STDERR_FILENO);
      std::vector<std::string> all = {binary_};
      all.insert(all.end(), args_.begin(), args_.end());
      std::vector<char*> argv, envp;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      for (auto& e : env_) envp.push_back(e.data());
      envp.push_back(nullptr);
      ::execve(binary_.c_str(), argv.data(), envp.data());
      ::_exit(127);
    }
    if (log >= 0) ::close(log);
    ::close(out[1]);
    stdout_fd_ = out[0];
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const std::string marker = "listening on http://127.0.0.1:";
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{stdout_fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[512];
      const ssize_t n = ::read(stdout_fd_, buf, sizeof(buf));
      if (n <= 0) return false;  // exited before it listened
      output_.append(buf, static_cast<std::size_t>(n));
      const auto at = output_.find(marker);
      const auto end = at == std::string::npos ? at : output_.find('\n', at);
      if (end != std::string::npos) {
        port_ = std::stoi(output_.substr(at + marker.size(), end - at - marker.size()));
        return true;
      }
    }
    return false;
  }

  // SIGTERM and a wait for the exit; the exit status, or -1 when it did not
  // exit by itself in time (then it is killed) or died by a signal.
  int Stop() {
    int code = -1;
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      int status = 0;
      pid_t r = 0;
      while ((r = ::waitpid(pid_, &status, WNOHANG)) == 0 &&
             std::chrono::steady_clock::now() < deadline)
        ::usleep(20000);
      if (r == pid_) {
        code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      } else {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
      }
      pid_ = -1;
    }
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stdout_fd_ = -1;
    return code;
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // What it printed on stdout, and the last `bytes` of its log.
  std::string LogTail(std::size_t bytes = 4000) const {
    std::string log;
    if (FILE* f = std::fopen(log_file_.c_str(), "r")) {
      char buf[4096];
      std::size_t n = 0;
      while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) log.append(buf, n);
      std::fclose(f);
    }
    if (log.size() > bytes) log = "..." + log.substr(log.size() - bytes);
    return "stdout: " + output_ + "\nstderr (" + log_file_ + "): " + log;
  }

 private:
  std::string binary_;
  std::vector<std::string> args_;
  std::vector<std::string> env_;
  std::string log_file_;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
  std::string output_;
};

// ---- Appends over HTTP, for the load tests.

// A random UUID (version 4) from `rng`: a client-made event id, so that a
// retried append is recognised as the same.
inline std::string NewEventId(std::mt19937_64& rng) {
  const std::uint64_t hi = (rng() & ~0xf000ULL) | 0x4000ULL;
  const std::uint64_t lo = (rng() & ~(3ULL << 62)) | (2ULL << 62);
  char text[37];
  std::snprintf(text, sizeof(text), "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xffff),
                static_cast<unsigned long long>(hi & 0xffff),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return text;
}

struct AppendLoadResult {
  std::uint64_t acknowledged = 0;  // 201s
  std::uint64_t failed = 0;        // any other answer, or none
  // Per stream, the ids of its acknowledged appends (one event each).
  std::map<std::string, std::vector<std::string>> ids;
  std::vector<std::string> failures;  // the first few, with why
};

// Appends one event at a time (POST /streams/{stream}, a client-made id)
// from `threads` threads, each to streams of its own ("TAG-T-0" to
// "TAG-T-4"), without client retries, until `until`.
inline AppendLoadResult RunAppendLoad(const std::string& server_url, const std::string& tag,
                                      int threads, std::chrono::steady_clock::time_point until) {
  AppendLoadResult result;
  std::mutex mu;
  net::HttpClientOptions o;
  o.endpoint = *net::ParseUrl(server_url);
  o.request_timeout = std::chrono::seconds(60);
  auto client = net::HttpClient::Create(o);
  if (!client.ok()) {
    result.failed = 1;
    result.failures.push_back(client.status().ToString());
    return result;
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937_64 rng(std::random_device{}());
      for (int n = 0; std::chrono::steady_clock::now() < until; ++n) {
        const std::string stream = tag + "-" + std::to_string(t) + "-" + std::to_string(n % 5);
        const std::string id = NewEventId(rng);
        net::Request request = (*client)->MakeRequest(net::http::verb::post, "/streams/" + stream);
        request.set(net::http::field::content_type, "application/json");
        request.body() = R"({"id":")" + id + R"(","type":"Load.Appended","data":{"n":)" +
                         std::to_string(n) + "}}";
        request.prepare_payload();
        const auto started = std::chrono::steady_clock::now();
        net::Exchange exchange = (*client)->Send(request, net::RetryPolicy{});
        std::lock_guard lock(mu);
        if (exchange.ok() && exchange.response.result_int() == 201) {
          ++result.acknowledged;
          result.ids[stream].push_back(id);
          continue;
        }
        ++result.failed;
        if (result.failures.size() < 10) {
          const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
          result.failures.push_back(
              stream + " after " + std::to_string(ms) + " ms: " +
              (exchange.ok()
                   ? std::to_string(exchange.response.result_int()) + " " + exchange.response.body()
                   : exchange.status.ToString()));
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  return result;
}

// The ids of every event of `stream`, read forward page by page; nullopt
// (with why in *error) when a read failed.
inline std::optional<std::vector<std::string>> ReadStreamIds(const std::string& server_url,
                                                             const std::string& stream,
                                                             std::string* error) {
  net::HttpClientOptions o;
  o.endpoint = *net::ParseUrl(server_url);
  o.request_timeout = std::chrono::seconds(60);
  auto client = net::HttpClient::Create(o);
  if (!client.ok()) return std::nullopt;
  std::vector<std::string> ids;
  std::int64_t from = 0;
  while (true) {
    const net::Request request = (*client)->MakeRequest(
        net::http::verb::get,
        "/streams/" + stream + "?from=" + std::to_string(from) + "&limit=1000");
    net::Exchange exchange = (*client)->Send(request, net::RetryPolicy{});
    if (!exchange.ok() || exchange.response.result_int() != 200) {
      *error = exchange.ok() ? exchange.response.body() : exchange.status.ToString();
      return std::nullopt;
    }
    boost::system::error_code ec;
    const boost::json::value page = boost::json::parse(exchange.response.body(), ec);
    if (ec || !page.is_object()) {
      *error = "not JSON: " + exchange.response.body();
      return std::nullopt;
    }
    for (const auto& event : page.at("events").as_array())
      ids.emplace_back(event.at("id").as_string());
    const auto& next = page.at("nextVersion");
    if (next.is_null()) return ids;
    from = next.to_number<std::int64_t>();
  }
}

// The value of the Prometheus sample `name` (no labels) in `metrics`;
// nullopt when it is not there.
inline std::optional<double> MetricValue(const std::string& metrics, const std::string& name) {
  std::size_t at = 0;
  while ((at = metrics.find(name + " ", at)) != std::string::npos) {
    if (at == 0 || metrics[at - 1] == '\n')
      return std::strtod(metrics.c_str() + at + name.size() + 1, nullptr);
    at += name.size();
  }
  return std::nullopt;
}

}  // namespace indelible::testutil
