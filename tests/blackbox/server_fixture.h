// ServerTest: the real `indelible serve` on a free loopback port and a fresh
// store folder per test, with the JSON helpers the server tests share.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdint>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "testutil/http_client.h"
#include "testutil/server_process.h"
#include "testutil/temp_dir.h"

namespace indelible {

namespace json = boost::json;
using testutil::Headers;
using testutil::HttpClient;
using testutil::HttpResponse;
using testutil::Millis;

// A member of a JSON object as JSON text ("<missing>" when absent), so that
// a failed assertion prints what it saw.
inline std::string Member(const json::value& value, std::string_view key) {
  if (!value.is_object()) return "<not an object: " + json::serialize(value) + ">";
  const json::value* member = value.as_object().if_contains(key);
  return member ? json::serialize(*member) : "<missing>";
}

// The events of a stream read or an /all page (none if there is no array).
inline std::vector<json::object> EventsOf(const json::value& value) {
  std::vector<json::object> out;
  if (!value.is_object()) return out;
  const json::value* events = value.as_object().if_contains("events");
  if (events == nullptr || !events->is_array()) return out;
  for (const auto& event : events->as_array()) {
    if (event.is_object()) out.push_back(event.as_object());
  }
  return out;
}

inline std::int64_t IntOf(const json::object& object, std::string_view key) {
  const json::value* member = object.if_contains(key);
  return member && member->is_int64() ? member->as_int64() : -1;
}

inline std::string StringOf(const json::object& object, std::string_view key) {
  const json::value* member = object.if_contains(key);
  return member && member->is_string() ? std::string(member->as_string()) : "<not a string>";
}

// A random version 4 UUID in canonical form.
inline std::string NewUuid() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const std::uint64_t hi = (random() & ~0xf000ULL) | 0x4000ULL;
  const std::uint64_t lo = (random() & ~(3ULL << 62)) | (2ULL << 62);
  char text[37];
  std::snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return text;
}

// An event as a client sends it.
inline std::string EventJson(std::string_view type, std::string_view data = "{}",
                             std::string_view id = "") {
  std::string out = "{\"type\":\"" + std::string(type) + "\",\"data\":" + std::string(data);
  if (!id.empty()) out += ",\"id\":\"" + std::string(id) + "\"";
  return out + "}";
}

// `status` and an error body {error: kind, message} with a message.
inline ::testing::AssertionResult IsError(const HttpResponse& response, unsigned status,
                                          std::string_view kind) {
  const json::value body = response.Json();
  const std::string message = Member(body, "message");
  if (response.status == status && Member(body, "error") == "\"" + std::string(kind) + "\"" &&
      message.size() > 2 && message[0] == '"') {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << status << " " << kind << ", got "
                                       << response.status << " " << response.body << response.error;
}

inline std::string Quoted(std::int64_t version) { return "\"" + std::to_string(version) + "\""; }

// The resident memory of a process in KiB (VmRSS), 0 if unknown.
inline long RssKiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }

  // (Re)starts the server on Data() with `extra` flags after "serve --store".
  void Start(const std::vector<std::string>& extra = {}) { StartOn("file:" + Data(), extra); }

  // (Re)starts the server on the store at `url` with `extra` flags.
  void StartOn(const std::string& url, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"serve", "--store", url};
    args.insert(args.end(), extra.begin(), extra.end());
    if (server_) server_->Kill();
    server_ = std::make_unique<testutil::ServerProcess>(INDELIBLE_PATH, args);
    http_.reset();
    ASSERT_TRUE(server_->Start()) << "the server did not start: " << server_->output();
    http_ = std::make_unique<HttpClient>(server_->port());
  }

  testutil::ServerProcess& server() { return *server_; }
  HttpClient& http() { return *http_; }
  int port() const { return server_->port(); }
  std::string Data() const { return tmp_.Sub("data"); }

  // POST /streams/{path}; `path` is already percent-encoded.
  HttpResponse Append(std::string_view path, std::string_view body, const Headers& headers = {}) {
    return http().Post("/streams/" + std::string(path), body, headers);
  }

  // The stream's last version from /head; -1 if it has none (404).
  std::int64_t HeadVersion(std::string_view path) {
    const HttpResponse head = http().Get("/streams/" + std::string(path) + "/head");
    if (head.status == 404) return -1;
    EXPECT_EQ(head.status, 200u) << head.body << head.error;
    const json::value body = head.Json();
    return body.is_object() ? IntOf(body.as_object(), "version") : -2;
  }

  // Every event of $all, page by page.
  std::vector<json::object> ReadAll() {
    std::vector<json::object> out;
    std::int64_t from = 1;
    for (;;) {
      const HttpResponse page = http().Get("/all?limit=10000&from=" + std::to_string(from));
      EXPECT_EQ(page.status, 200u) << page.body << page.error;
      const std::vector<json::object> events = EventsOf(page.Json());
      if (events.empty() || page.status != 200) return out;
      out.insert(out.end(), events.begin(), events.end());
      from = IntOf(events.back(), "position") + 1;
    }
  }

  testutil::TempDir tmp_;
  std::unique_ptr<testutil::ServerProcess> server_;
  std::unique_ptr<HttpClient> http_;
};

}  // namespace indelible
