// The fixtures of the authentication and authorization tests (issue 19,
// docs/SECURITY.md): a server process whose stdout and stderr are both kept
// (a secret must appear in neither; a warning must appear on stderr) and
// whose listen address and environment the test chooses, and AuthServerTest:
// `indelible serve --auth` on a fresh folder with a bootstrap admin key and a
// roles file of user-defined roles, with helpers to make keys and to take
// the store's state as the admin sees it.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "blackbox/server_fixture.h"
#include "testutil/cli_runner.h"

extern char** environ;

namespace indelible {

// A child process with its stdout and stderr in files (so a chatty child
// never blocks on a full pipe), an environment of the test's choosing, and
// a wait for "listening on http://HOST:PORT" on stdout. The destructor
// kills it. Not thread-safe.
class Launched {
 public:
  // `env`: "NAME=VALUE" entries that replace or add to the test's own
  // environment; "NAME" alone removes NAME.
  Launched(std::string binary, std::vector<std::string> args, std::string dir,
           std::vector<std::string> env = {})
      : binary_(std::move(binary)),
        args_(std::move(args)),
        out_(dir + "/stdout"),
        err_(dir + "/stderr"),
        env_(std::move(env)) {}
  ~Launched() { Kill(); }
  Launched(const Launched&) = delete;
  Launched& operator=(const Launched&) = delete;

  // Starts it; true once it printed where it listens, false if it exited
  // first (exit_code() says how) or did not listen within `timeout`.
  bool Start(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    std::vector<std::string> environment;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      const std::string name = entry.substr(0, entry.find('='));
      bool replaced = false;
      for (const std::string& mine : env_)
        replaced = replaced || mine.substr(0, mine.find('=')) == name;
      if (!replaced) environment.push_back(entry);
    }
    for (const std::string& mine : env_)
      if (mine.find('=') != std::string::npos) environment.push_back(mine);
    std::vector<std::string> all = {binary_};
    all.insert(all.end(), args_.begin(), args_.end());
    std::vector<char*> argv, envp;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : environment) envp.push_back(e.data());
    envp.push_back(nullptr);
    const int out_fd = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int err_fd = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out_fd < 0 || err_fd < 0) return false;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(out_fd, STDOUT_FILENO);
      ::dup2(err_fd, STDERR_FILENO);
      ::execve(binary_.c_str(), argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(out_fd);
    ::close(err_fd);
    if (pid_ < 0) return false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const std::string marker = "listening on http";
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string text = out();
      if (auto at = text.find(marker); at != std::string::npos) {
        const auto end = text.find('\n', at);
        const auto colon = text.rfind(':', end);
        if (end != std::string::npos && colon != std::string::npos && colon > at) {
          port_ = std::stoi(text.substr(colon + 1, end - colon - 1));
          return true;
        }
      }
      if (Exited(std::chrono::milliseconds(0))) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // True once the process exited (waiting up to `timeout`); exit_code()
  // then holds its exit status (-1 if a signal ended it).
  bool Exited(std::chrono::milliseconds timeout) {
    if (pid_ <= 0) return true;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    do {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return true;
      }
      if (timeout.count() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (std::chrono::steady_clock::now() < deadline);
    return false;
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::optional<int> exit_code() const { return exit_code_; }
  std::string out() const { return testutil::Slurp(out_); }
  std::string err() const { return testutil::Slurp(err_); }
  std::string output() const { return "stdout:\n" + out() + "\nstderr:\n" + err(); }

 private:
  std::string binary_;
  std::vector<std::string> args_;
  std::string out_, err_;
  std::vector<std::string> env_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::optional<int> exit_code_;
};

// The user-defined roles of these tests: one per shape of rule.
inline constexpr std::string_view kRolesFile = R"({"roles": {
  "orders-writer": [{"allow": ["write", "read"], "categories": ["orders"]}],
  "analyst": [{"allow": ["read", "subscribe"], "prefixes": ["orders-"]}, {"allow": ["metrics"]}],
  "orders-ops": [{"allow": ["consumers", "read"], "categories": ["orders"]}],
  "key-manager": [{"allow": ["keys", "read"]}]
}})";

inline Headers Bearer(const std::string& key) { return {{"Authorization", "Bearer " + key}}; }

// A key of the right shape whose id no store holds.
inline constexpr std::string_view kUnknownKey =
    "idl_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

// `status` with the body {"error":"unauthorized","message":...} every 401
// and 403 carries, and on a 401 a WWW-Authenticate: Bearer challenge.
inline ::testing::AssertionResult IsRefusal(const HttpResponse& response, unsigned status) {
  if (!IsError(response, status, "unauthorized"))
    return ::testing::AssertionFailure() << "expected " << status << " unauthorized, got "
                                         << response.status << " " << response.body;
  const auto challenge = response.Header("WWW-Authenticate");
  if (status == 401 && (!challenge || !challenge->starts_with("Bearer")))
    return ::testing::AssertionFailure() << "a 401 without WWW-Authenticate: Bearer";
  return ::testing::AssertionSuccess();
}

// The value of the Prometheus sample `name` (with its labels, if any) in
// `text`; -1 if absent.
inline double Sample(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

// `indelible serve --auth` on a fresh folder, with an admin key made by
// --bootstrap-key-file and the roles of kRolesFile.
class AuthServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(RolesFile()) << kRolesFile;
    StartAuth();
  }

  std::string RolesFile() const { return tmp_.Sub("roles.json"); }
  std::string KeyFile() const { return tmp_.Sub("admin.key"); }
  std::string Data() const { return tmp_.Sub("data"); }

  // Starts (or restarts) `serve --store file:DATA --listen 127.0.0.1:0
  // --auth --bootstrap-key-file KEY --roles-file ROLES` with `extra`.
  void StartAuth(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {
        "serve",        "--store",   "file:" + Data(),       "--listen", "127.0.0.1:0", "--auth",
        "--roles-file", RolesFile(), "--bootstrap-key-file", KeyFile()};
    args.insert(args.end(), extra.begin(), extra.end());
    StartWith(args);
    std::ifstream in(KeyFile());
    std::getline(in, admin_);
    ASSERT_TRUE(admin_.starts_with("idl_")) << "no admin key in " << KeyFile();
  }

  // Starts `indelible <args>` as this test's server.
  void StartWith(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    server_.reset();
    http_.reset();
    server_ = std::make_unique<Launched>(INDELIBLE_PATH, args, tmp_.path().string(), env);
    ASSERT_TRUE(server_->Start()) << "the server did not start: " << server_->output();
    http_ = std::make_unique<HttpClient>(server_->port());
  }

  HttpClient& http() { return *http_; }
  Launched& server() { return *server_; }
  const std::string& admin() const { return admin_; }

  // A new key made by the admin over HTTP; its whole "idl_..." string.
  std::string MakeKey(const std::string& name, const std::vector<std::string>& roles,
                      const std::string& extra_json = "") {
    std::string body = R"({"name":")" + name + R"(","roles":[)";
    for (std::size_t i = 0; i < roles.size(); ++i) body += (i > 0 ? ",\"" : "\"") + roles[i] + "\"";
    body += "]" + extra_json + "}";
    const HttpResponse made = http().Post("/keys", body, Bearer(admin_));
    EXPECT_EQ(made.status, 201u) << made.body;
    const json::value parsed = made.Json();
    return parsed.is_object() ? StringOf(parsed.as_object(), "key") : "";
  }

  // An append by the admin; its position.
  std::int64_t AppendAsAdmin(const std::string& stream, const std::string& type = "Happened") {
    std::string path = stream;
    for (auto at = path.find('/'); at != std::string::npos; at = path.find('/', at))
      path.replace(at, 1, "%2F");
    const HttpResponse appended = http().Post("/streams/" + path, EventJson(type), Bearer(admin_));
    EXPECT_EQ(appended.status, 201u) << stream << ": " << appended.body;
    const json::value body = appended.Json();
    return body.is_object() ? IntOf(body.as_object(), "position") : -1;
  }

  // Every event of $all as `key` sees it, page by page.
  std::vector<json::object> AllAs(const std::string& key, const std::string& query = "") {
    std::vector<json::object> out;
    std::int64_t from = 1;
    for (int pages = 0; pages < 1000; ++pages) {
      const HttpResponse page =
          http().Get("/all?limit=10000&from=" + std::to_string(from) + query, Bearer(key));
      EXPECT_EQ(page.status, 200u) << page.body;
      const json::value body = page.Json();
      const std::vector<json::object> events = EventsOf(body);
      out.insert(out.end(), events.begin(), events.end());
      const std::int64_t next = body.is_object() ? IntOf(body.as_object(), "next") : -1;
      if (events.empty() || page.status != 200 || next <= from) return out;
      from = next;
    }
    return out;
  }

  // The $audit events of type `type` ("audit.stream.delete"), as the admin
  // reads them.
  std::vector<json::object> AuditOf(const std::string& type) {
    std::vector<json::object> out;
    const HttpResponse read = http().Get("/streams/$audit?limit=10000", Bearer(admin_));
    if (read.status == 404) return out;
    EXPECT_EQ(read.status, 200u) << read.body;
    for (const json::object& event : EventsOf(read.Json()))
      if (StringOf(event, "type") == type) out.push_back(event);
    return out;
  }

  // What the store holds as the admin sees it: every event of $all but the
  // audit trail's records of refusals (the failed authentications a 401
  // may append, by design; the refused acts a 403 from a handler appends,
  // see KnownDefectARefusedActIsWrittenToTheAuditTrail), the consumer
  // groups with their progress, and the keys without their last use
  // (recorded by an accepted request, in the background).
  std::string Snapshot() {
    std::string out;
    for (const json::object& event : AllAs(admin_)) {
      const json::value* data = event.if_contains("data");
      if (StringOf(event, "stream") == "$audit" && data != nullptr && data->is_object() &&
          Member(*data, "outcome") == "\"unauthorized\"")
        continue;
      out += std::to_string(IntOf(event, "position")) + " " + StringOf(event, "stream") + " " +
             StringOf(event, "type") + " " + StringOf(event, "id") + "\n";
    }
    const json::value groups = http().Get("/consumers", Bearer(admin_)).Json();
    if (groups.is_object() && groups.as_object().contains("consumers"))
      for (const json::value& group : groups.at("consumers").as_array()) {
        const json::object& g = group.as_object();
        out += "group " + StringOf(g, "group") + " " + std::to_string(IntOf(g, "checkpoint")) +
               " " + std::to_string(IntOf(g, "inFlight")) + " " + Member(g, "blocked") + " " +
               Member(g, "parked") + "\n";
      }
    const json::value keys = http().Get("/keys", Bearer(admin_)).Json();
    if (keys.is_object() && keys.as_object().contains("keys"))
      for (const json::value& key : keys.at("keys").as_array()) {
        json::object k = key.as_object();
        k.erase("lastUsed");
        out += "key " + json::serialize(k) + "\n";
      }
    return out;
  }

  // The lines of `after` not in `before` ("+ ...") and those gone ("- ..."):
  // empty when the store is unchanged.
  static std::string Changes(const std::string& before, const std::string& after) {
    const auto lines = [](const std::string& text) {
      std::multiset<std::string> out;
      std::istringstream in(text);
      for (std::string line; std::getline(in, line);) out.insert(line);
      return out;
    };
    const auto b = lines(before), a = lines(after);
    std::string out;
    for (const std::string& line : a)
      if (!b.contains(line)) out += "+ " + line + "\n";
    for (const std::string& line : b)
      if (!a.contains(line)) out += "- " + line + "\n";
    return out;
  }

  testutil::TempDir tmp_;
  std::unique_ptr<Launched> server_;
  std::unique_ptr<HttpClient> http_;
  std::string admin_;
};

}  // namespace indelible
