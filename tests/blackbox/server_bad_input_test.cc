// `indelible serve` against bad input (docs/HTTP.md, "Errors"): each gets
// its 4xx and a JSON {error, message}; afterwards nothing was written, the
// server still answers, and a client that did nothing wrong kept its
// connection.
#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "server_fixture.h"

namespace indelible {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The error's `field` and `message`, lower-case, to look for what it names.
std::string Explanation(const HttpResponse& response) {
  return Lower(Member(response.Json(), "field") + " " + Member(response.Json(), "message"));
}

class BadInputTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_EQ(Append("s", "[" + EventJson("A") + "," + EventJson("B") + "]").status, 201u);
    control_ = std::make_unique<HttpClient>(port());
    ASSERT_EQ(control_->Get("/health").status, 200u);
  }

  // Stream "s" still has its two events and nothing else was written; the
  // server answers the bystander on the connection it had from the start.
  void TearDown() override {
    if (HasFatalFailure() || !control_) return;
    EXPECT_EQ(control_->Get("/health").status, 200u);
    EXPECT_EQ(control_->connects(), 1) << "the bystander lost its connection";
    EXPECT_EQ(HeadVersion("s"), 1);
    EXPECT_EQ(ReadAll().size(), 2u + written_);
  }

  std::unique_ptr<HttpClient> control_;
  std::size_t written_ = 0;  // events a test wrote on purpose
};

TEST_F(BadInputTest, MalformedBodiesAre400) {
  const char* bodies[] = {
      R"({"type":)",
      "not json",
      "",
      "[]",
      "[1]",
      R"("Deposited")",
      "42",
      "null",
      R"([{"type":"T"}, 7])",
      R"({"type":7})",
      R"({"type":"T","metadata":"x"})",
      "{\"type\":\"T\",\"data\":\"\xff\xfe\"}",  // not UTF-8
      R"({"type":"T","contentType":"application/octet-stream","dataEncoding":"base64",)"
      R"("data":"!!not base64!!"})",
  };
  for (const char* body : bodies) {
    EXPECT_TRUE(IsError(Append("s", body), 400, "invalid")) << body;
  }
  // Where one field is wrong, the answer names it.
  const std::pair<std::string, std::string> fields[] = {
      {R"({"data":{}})", "type"},
      {R"([{"type":"T"},{"data":{}}])", "type"},
      {R"({"type":"T","id":"not-a-uuid"})", "id"},
      {R"({"type":"T","id":"0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a1"})", "id"},
      {R"({"type":"T","metadata":[1]})", "metadata"},
  };
  for (const auto& [body, field] : fields) {
    HttpResponse r = Append("s", body);
    EXPECT_TRUE(IsError(r, 400, "invalid")) << body;
    EXPECT_NE(Member(r.Json(), "field").find(field), std::string::npos) << body << " " << r.body;
  }
}

TEST_F(BadInputTest, BadStreamNamesAre400) {
  const std::string names[] = {
      "%24x", "$x", std::string(257, 'a'), "a%01b", "a%1Fb", "a%0Ab", "a%ZZ", "a%FF%FE", "%24all",
  };
  for (const auto& name : names) {
    EXPECT_TRUE(IsError(Append(name, EventJson("T")), 400, "invalid")) << name;
  }
  EXPECT_NE(Explanation(Append("%24x", EventJson("T"))).find("reserved"), std::string::npos);
  // The longest name there may be.
  EXPECT_EQ(Append(std::string(256, 'a'), EventJson("T")).status, 201u);
  written_ = 1;
}

TEST_F(BadInputTest, BadVersionHeadersAre400NamingTheHeader) {
  const char* if_match[] = {"1",    "\"-1\"", "W/\"1\"", "abc",     "\"1\", \"2\"",
                            "\"\"", "\"1x\"", "'1'",     "\"1.0\"", "-1"};
  for (const char* value : if_match) {
    HttpResponse r = Append("s", EventJson("T"), {{"If-Match", value}});
    EXPECT_TRUE(IsError(r, 400, "invalid")) << value;
    EXPECT_NE(Explanation(r).find("if-match"), std::string::npos) << value << " " << r.body;
    EXPECT_TRUE(IsError(http().Delete("/streams/s", {{"If-Match", value}}), 400, "invalid"))
        << value;
  }
  const char* if_none_match[] = {"abc", "W/\"1\"", "\"1\", \"2\"", "-1"};
  for (const char* value : if_none_match) {
    HttpResponse r = Append("s", EventJson("T"), {{"If-None-Match", value}});
    EXPECT_TRUE(IsError(r, 400, "invalid")) << value;
    EXPECT_NE(Explanation(r).find("if-none-match"), std::string::npos) << value << " " << r.body;
  }
  HttpResponse both = Append("s", EventJson("T"), {{"If-Match", "\"1\""}, {"If-None-Match", "*"}});
  EXPECT_TRUE(IsError(both, 400, "invalid"));
  EXPECT_NE(Explanation(both).find("if-"), std::string::npos) << both.body;
}

TEST_F(BadInputTest, BadQueryParametersAre400NamingTheParameter) {
  const std::pair<const char*, const char*> queries[] = {
      {"/streams/s?limit=0", "limit"},
      {"/streams/s?limit=abc", "limit"},
      {"/streams/s?limit=10001", "limit"},
      {"/streams/s?limit=-1", "limit"},
      {"/streams/s?direction=sideways", "direction"},
      {"/streams/s?from=-1", "from"},
      {"/streams/s?from=abc", "from"},
      {"/all?limit=0", "limit"},
      {"/all?limit=10001", "limit"},
      {"/all?from=-1", "from"},
      {"/all?from=x", "from"},
      {"/all?waitMs=60001", "waitms"},
      {"/all?waitMs=-1", "waitms"},
      {"/all?waitMs=soon", "waitms"},
  };
  for (const auto& [target, name] : queries) {
    HttpResponse r = http().Get(target);
    EXPECT_TRUE(IsError(r, 400, "invalid")) << target;
    EXPECT_NE(Explanation(r).find(name), std::string::npos) << target << " " << r.body;
  }
  // The limits themselves are fine.
  EXPECT_EQ(http().Get("/streams/s?limit=10000").status, 200u);
  EXPECT_EQ(http().Get("/all?limit=1&from=1").status, 200u);
}

TEST_F(BadInputTest, EventOrAppendOverItsLimitIs413) {
  const std::string big(401 * 1024, 'x');
  EXPECT_TRUE(IsError(Append("s", EventJson("T", "\"" + big + "\"")), 413, "too_large"));
  std::string over = "[";  // 11 events of 390 KiB: each fits, all do not
  for (int i = 0; i < 11; ++i) {
    over += (i ? "," : "") + EventJson("T", "\"" + std::string(390 * 1024, 'y') + "\"");
  }
  EXPECT_TRUE(IsError(Append("s", over + "]"), 413, "too_large"));
  std::string many = "[";
  for (int i = 0; i < 1001; ++i) many += (i ? "," : "") + EventJson("T");
  HttpResponse r = Append("s", many + "]");
  EXPECT_TRUE(IsError(r, 413, "too_large"));
}

TEST_F(BadInputTest, WhatFitsTheLimitsIsWritten) {
  EXPECT_EQ(Append("fits", EventJson("T", "\"" + std::string(300 * 1024, 'x') + "\"")).status,
            201u);
  std::string ten = "[";
  for (int i = 0; i < 10; ++i) {
    ten += (i ? "," : "") + EventJson("T", "\"" + std::string(390 * 1024, 'y') + "\"");
  }
  EXPECT_EQ(Append("fits", ten + "]").status, 201u);
  std::string thousand = "[";
  for (int i = 0; i < 1000; ++i) thousand += (i ? "," : "") + EventJson("T");
  EXPECT_EQ(Append("fits", thousand + "]").status, 201u);
  written_ = 1011;
}

TEST_F(BadInputTest, BodyOverTheLimitIs413WithoutReadingIt) {
  testutil::RawConnection raw(port());
  ASSERT_TRUE(raw.connected());
  // Claims 100 MiB and sends 1 KiB: the answer must not wait for the rest.
  raw.Send(
      "POST /streams/s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
      "Content-Length: 104857600\r\n\r\n[" +
      EventJson("T", "\"" + std::string(1024, 'z') + "\""));
  HttpResponse r = raw.ReadResponse(Millis(20000));
  EXPECT_TRUE(IsError(r, 413, "too_large")) << r.error;
}

TEST_F(BadInputTest, HeadersOver64KiBAre431) {
  testutil::RawConnection one(port());
  ASSERT_TRUE(one.connected());
  one.Send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + std::string(70 * 1024, 'a') +
           "\r\n\r\n");
  HttpResponse r = one.ReadResponse();
  EXPECT_TRUE(IsError(r, 431, "too_large")) << r.error;

  testutil::RawConnection many(port());
  ASSERT_TRUE(many.connected());
  std::string request = "POST /streams/s HTTP/1.1\r\nHost: localhost\r\n";
  for (int i = 0; i < 80; ++i)
    request += "X-H" + std::to_string(i) + ": " + std::string(1000, 'b') + "\r\n";
  const std::string body = EventJson("T");
  request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n\r\n" + body;
  many.Send(request);
  HttpResponse m = many.ReadResponse();
  EXPECT_TRUE(IsError(m, 431, "too_large")) << m.error;
}

TEST_F(BadInputTest, WrongMethodIs405WithAllow) {
  auto allowed = [](const HttpResponse& r) {
    std::set<std::string> out;
    std::istringstream list(r.Header("Allow").value_or(""));
    std::string method;
    while (std::getline(list, method, ',')) {
      method.erase(0, method.find_first_not_of(' '));
      method.erase(method.find_last_not_of(' ') + 1);
      out.insert(method);
    }
    return out;
  };
  HttpResponse put =
      http().Request("PUT", "/streams/s", {{"Content-Type", "application/json"}}, EventJson("T"));
  EXPECT_TRUE(IsError(put, 405, "invalid"));
  const std::set<std::string> stream_methods = allowed(put);
  for (const char* method : {"GET", "POST", "DELETE"}) {
    EXPECT_TRUE(stream_methods.count(method)) << method << " missing from Allow of /streams/s";
  }
  EXPECT_FALSE(stream_methods.count("PUT"));
  const std::pair<const char*, const char*> get_only[] = {
      {"POST", "/streams/s/head"}, {"POST", "/all"}, {"DELETE", "/health"}, {"POST", "/metrics"},
      {"PATCH", "/subscribe/all"},
  };
  for (const auto& [method, target] : get_only) {
    HttpResponse r = http().Request(method, target, {{"Content-Type", "application/json"}}, "{}");
    EXPECT_TRUE(IsError(r, 405, "invalid")) << method << " " << target;
    EXPECT_TRUE(allowed(r).count("GET"))
        << method << " " << target << ": " << r.Header("Allow").value_or("no Allow");
  }
}

TEST_F(BadInputTest, WriteThatIsNotJsonIs415) {
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "application/xml"}) {
    EXPECT_TRUE(IsError(Append("s", EventJson("T"), {{"Content-Type", type}}), 415, "invalid"))
        << type;
  }
}

// (`/` leads to the web console: server_console_test.cc.)
TEST_F(BadInputTest, UnknownRouteIs404) {
  for (const char* target : {"/nope", "/stream", "/streams/s/tail", "/streams/s/head/x",
                             "/all/more", "/v2/streams/s", "/console/x/y"}) {
    EXPECT_TRUE(IsError(http().Get(target), 404, "not_found")) << target;
  }
}

TEST_F(BadInputTest, GarbageOnTheSocketIsAnswered400OrClosed) {
  const std::string payloads[] = {
      std::string("\x00\x01\x02garbage\r\n\r\n", 14),
      "GET /health HTTP/1.1\r\nHost test\r\n\r\n",
      "POST /streams/s HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n{}",
      "POST /streams/s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
      "GARBAGE\r\n\r\n",
      std::string(100, '\xff') + "\r\n\r\n",
  };
  for (const auto& payload : payloads) {
    testutil::RawConnection raw(port());
    ASSERT_TRUE(raw.connected());
    raw.Send(payload);
    HttpResponse r = raw.ReadResponse();
    EXPECT_TRUE(r.status == 400 || (r.status == 0 && r.error.find("closed") != std::string::npos))
        << payload << " -> " << r.status << " " << r.error << r.body;
  }
  // A request cut off in the middle of its body, then the client leaves.
  {
    testutil::RawConnection raw(port());
    raw.Send(
        "POST /streams/s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        "Content-Length: 100\r\n\r\n{\"type\":\"T\"");
  }
  EXPECT_EQ(http().Get("/health").status, 200u);
}

}  // namespace
}  // namespace indelible
