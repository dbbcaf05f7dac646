// Hostile clients against the real `indelible serve` (issue 17): slowloris,
// oversized headers, pipelined garbage, invalid UTF-8 and lone surrogates,
// deep JSON, huge numbers, duplicate keys, NUL bytes, encoded slashes and
// dots, thousands of idle connections, clients that vanish mid-body, and the
// front door's Host, Origin and Content-Type rules. Each gets a 4xx with a
// JSON {error, message} or a closed connection, nothing is written, and a
// well-behaved client on its own connection is served throughout.
#include <sys/resource.h>
#include <sys/socket.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "blackbox/server_fixture.h"

namespace indelible {
namespace {

using namespace std::chrono_literals;
using testutil::RawConnection;
using testutil::Socket;
using Clock = std::chrono::steady_clock;

// A 4xx with an error body {error, message}, or no answer at all (the
// server closed the connection).
::testing::AssertionResult IsRefusal(const HttpResponse& response) {
  if (response.status == 0) return ::testing::AssertionSuccess() << "closed: " << response.error;
  const json::value body = response.Json();
  const std::string error = Member(body, "error");
  const std::string message = Member(body, "message");
  if (response.status >= 400 && response.status < 500 && error.size() > 2 && error[0] == '"' &&
      message.size() > 2 && message[0] == '"')
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected a 4xx {error, message} or a close, got "
                                       << response.status << " " << response.body.substr(0, 500);
}

// The bytes of the "data" member of the first event in a read, exactly as
// the server sent them (parsing would hide a changed number).
std::string RawData(const std::string& read_body) {
  const auto start = read_body.find("\"data\":");
  const auto end = read_body.find(",\"metadata\":", start);
  if (start == std::string::npos || end == std::string::npos) return "<no data in the read>";
  return read_body.substr(start + 7, end - start - 7);
}

// A well-behaved client on a thread: a fresh connection per round, an
// append to "normal" and the read of what it wrote, until stopped.
class NormalClient {
 public:
  explicit NormalClient(int port) : thread_([this, port] { Run(port); }) {}
  ~NormalClient() { Stop(); }

  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int served() const { return served_; }
  std::vector<std::string> failures() {
    std::lock_guard lock(mu_);
    return failures_;
  }

 private:
  void Run(int port) {
    // The first round always runs: Stop() may come before this thread is
    // first scheduled (a short hostile phase on a busy machine), and the
    // test asks whether a client is served during and after the attack,
    // not whether the thread started in time.
    for (int round = 0; round < 5000 && (round == 0 || !stop_); ++round) {
      HttpClient client(port, 10s);
      const std::string data = "{\"round\":" + std::to_string(round) + "}";
      const HttpResponse post = client.Post("/streams/normal", EventJson("Normal", data));
      const json::value written = post.Json();
      const std::int64_t version =
          written.is_object() ? IntOf(written.as_object(), "lastVersion") : -1;
      if (post.status != 201 || version < 0) {
        Fail("round " + std::to_string(round) + ": POST answered " + std::to_string(post.status) +
             " " + post.body + post.error);
      } else {
        const HttpResponse read =
            client.Get("/streams/normal?limit=1&from=" + std::to_string(version));
        if (read.status != 200 || RawData(read.body) != data)
          Fail("round " + std::to_string(round) + ": GET answered " + std::to_string(read.status) +
               " " + read.body.substr(0, 300) + read.error);
        else
          ++served_;
      }
      std::this_thread::sleep_for(100ms);
    }
  }
  void Fail(std::string why) {
    std::lock_guard lock(mu_);
    failures_.push_back(std::move(why));
  }

  std::atomic<bool> stop_{false};
  std::atomic<int> served_{0};
  std::mutex mu_;
  std::vector<std::string> failures_;
  std::thread thread_;
};

class HostileClientTest : public ServerTest {
 protected:
  // A short header timeout keeps the slowloris cases short.
  void SetUp() override { Start({"--header-timeout-ms", "2000"}); }

  void TearDown() override {
    if (!server_) return;
    HttpClient fresh(port(), 10s);
    EXPECT_EQ(fresh.Get("/health").status, 200u) << "the server is down after the test";
  }

  // The normal client stopped, was served at least once and never failed.
  void ExpectServed(NormalClient& normal) {
    normal.Stop();
    EXPECT_GT(normal.served(), 0) << "the normal client was never served";
    for (const std::string& failure : normal.failures())
      ADD_FAILURE() << "the normal client was not served: " << failure;
  }

  // One append and its read back, on a connection of its own.
  void ExpectNormalClientServed() {
    NormalClient normal(port());
    std::this_thread::sleep_for(50ms);
    ExpectServed(normal);
  }

  // $all holds events of `allowed` streams ("normal" always) only.
  void ExpectOnlyWritesTo(std::set<std::string> allowed = {}) {
    allowed.insert("normal");
    for (const json::object& event : ReadAll())
      EXPECT_TRUE(allowed.count(StringOf(event, "stream")))
          << "a hostile request wrote: " << json::serialize(event);
  }

  // The stream at `path` (percent-encoded) has no events: 404, or 400 for a
  // name that cannot exist.
  void ExpectNoStream(const std::string& path) {
    const HttpResponse head = http().Get("/streams/" + path + "/head");
    EXPECT_TRUE(head.status == 404 || head.status == 400)
        << path << " exists: " << head.status << " " << head.body;
  }

  // indelible_http_connections_open from /metrics, -1 if absent.
  double OpenConnections() {
    HttpClient client(port(), 10s);
    const HttpResponse metrics = client.Get("/metrics");
    const std::string name = "\nindelible_http_connections_open ";
    const auto at = metrics.body.find(name);
    if (at == std::string::npos) return -1;
    return std::stod(metrics.body.substr(at + name.size(), 32));
  }

  // Polls until at most `most` connections are open (up to 15 s); returns
  // the last count.
  double WaitForOpenAtMost(double most) {
    double open = OpenConnections();
    for (int i = 0; i < 150 && open > most; ++i) {
      std::this_thread::sleep_for(100ms);
      open = OpenConnections();
    }
    return open;
  }

  // A raw request (one connection) with `body` and its Content-Length.
  HttpResponse Raw(const std::string& head, const std::string& body = "") {
    RawConnection raw(port());
    if (!raw.connected()) return HttpResponse{0, "cannot connect", {}, {}, false};
    std::string request = head;
    if (!body.empty() || head.rfind("POST", 0) == 0)
      request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    raw.Send(request + "\r\n" + body, 10s);
    return raw.ReadResponse(10s);
  }
};

std::string PostHead(const std::string& target) {
  return "POST " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n";
}

// --- Slow clients -----------------------------------------------------------

TEST_F(HostileClientTest, SlowHeadersAndASlowBodyAreCutOff) {
  NormalClient normal(port());
  // Headers one byte a second: the 2 s header timeout closes it.
  RawConnection headers(port());
  ASSERT_TRUE(headers.Send("POST /streams/slow HTTP/1.1\r\n"));
  const std::string rest =
      "Host: localhost\r\nContent-Type: application/json\r\nX-Pad: " + std::string(100, 'a') +
      "\r\n";
  // A body one byte a second after complete headers: the body timeout
  // (60 s, fixed) closes it.
  const std::string body = EventJson("Slow");
  RawConnection trickle(port());
  ASSERT_TRUE(trickle.Send(PostHead("/streams/slowbody") + "Content-Length: 100000\r\n\r\n" +
                           body.substr(0, 1)));
  const auto started = Clock::now();
  std::optional<Clock::duration> headers_closed, body_closed;
  // Sends the next byte (false if the server closed the connection).
  const auto trickle_one = [](RawConnection& raw, std::string_view bytes, std::size_t i) {
    return raw.Send(bytes.substr(i % bytes.size(), 1), 1s) && !raw.WaitForClose(1ms);
  };
  for (std::size_t i = 0; i < 80 && !(headers_closed && body_closed); ++i) {
    if (!headers_closed && !trickle_one(headers, rest, i)) headers_closed = Clock::now() - started;
    if (!body_closed && !trickle_one(trickle, std::string_view(body).substr(1), i))
      body_closed = Clock::now() - started;
    std::this_thread::sleep_for(1s);
  }
  ASSERT_TRUE(headers_closed) << "a client sending its headers a byte a second kept its "
                                 "connection for 80 s";
  EXPECT_LT(*headers_closed, 8s) << "with --header-timeout-ms 2000";
  ASSERT_TRUE(body_closed) << "a client sending its body a byte a second kept its connection "
                              "for 80 s";
  EXPECT_LT(*body_closed, 70s) << "the body timeout is 60 s";
  ExpectServed(normal);
  ExpectNoStream("slow");
  ExpectNoStream("slowbody");
  ExpectOnlyWritesTo();
}

// --- Oversized headers and request lines ------------------------------------

TEST_F(HostileClientTest, HeadersOver64KiBAre431AndNothingIsWritten) {
  const std::string body = EventJson("Big");
  const HttpResponse one_huge =
      Raw(PostHead("/streams/big") + "X-Huge: " + std::string(70 * 1024, 'h') + "\r\n", body);
  EXPECT_TRUE(IsError(one_huge, 431, "too_large"));
  std::string many;
  for (int i = 0; i < 2000; ++i)
    many += "X-Small-" + std::to_string(i) + ": 0123456789012345678901234567890123\r\n";
  const HttpResponse many_small = Raw(PostHead("/streams/big") + many, body);
  EXPECT_TRUE(IsError(many_small, 431, "too_large"));
  // A request line of 100 KiB: the line counts as header bytes.
  const HttpResponse long_target = Raw(PostHead("/streams/" + std::string(100 * 1024, 't')), body);
  EXPECT_TRUE(IsRefusal(long_target));
  EXPECT_NE(long_target.status, 0u) << "no answer to a 100 KiB request line";
  const HttpResponse long_query =
      Raw("GET /all?prefix=" + std::string(100 * 1024, 'q') + " HTTP/1.1\r\nHost: localhost\r\n");
  EXPECT_TRUE(IsRefusal(long_query));
  ExpectNormalClientServed();
  ExpectNoStream("big");
  ExpectOnlyWritesTo();
}

// --- Pipelined garbage ------------------------------------------------------

// Binary junk: NUL, bytes above 0x7F, a TLS record start, blank lines.
std::string Junk() {
  constexpr char kBytes[] = "\x00\xff\xfe\x01GARBAGE\x7f\x80\r\n\x16\x03\x01\x02\x00\r\n\r\n";
  return std::string(kBytes, sizeof(kBytes) - 1);
}

TEST_F(HostileClientTest, AValidRequestThenBinaryJunkOnOneConnection) {
  RawConnection raw(port());
  ASSERT_TRUE(raw.Send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n" + Junk()));
  EXPECT_EQ(raw.ReadResponse().status, 200u);
  EXPECT_TRUE(IsRefusal(raw.ReadResponse(5s)));
  EXPECT_TRUE(raw.WaitForClose(5s)) << "the connection stayed open after garbage";
  ExpectNormalClientServed();
  ExpectOnlyWritesTo();
}

TEST_F(HostileClientTest, FiftyPipelinedAppendsAreAnsweredInOrderThenGarbageIsRefused) {
  std::string pipeline;
  for (int i = 0; i < 50; ++i) {
    const std::string body = EventJson("Piped", "{\"i\":" + std::to_string(i) + "}");
    pipeline +=
        PostHead("/streams/pipe") +
        (i == 0 ? std::string("If-None-Match: *\r\n") : "If-Match: " + Quoted(i - 1) + "\r\n") +
        "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  // Then a request that frames badly but carries an event, then junk.
  const std::string forged = EventJson("Forged");
  pipeline += PostHead("/streams/pipe") + "Content-Length: 1x\r\n\r\n" + forged + Junk();
  RawConnection raw(port());
  ASSERT_TRUE(raw.Send(pipeline));
  for (int i = 0; i < 50; ++i) {
    const HttpResponse answer = raw.ReadResponse();
    ASSERT_EQ(answer.status, 201u) << "request " << i << ": " << answer.body << answer.error;
    const json::value body = answer.Json();
    ASSERT_TRUE(body.is_object());
    EXPECT_EQ(IntOf(body.as_object(), "lastVersion"), i) << "answered out of order";
  }
  EXPECT_TRUE(IsRefusal(raw.ReadResponse(5s)));
  EXPECT_TRUE(raw.WaitForClose(5s)) << "the connection stayed open after garbage";
  EXPECT_EQ(HeadVersion("pipe"), 49) << "the garbage after the valid requests wrote";
  ExpectNormalClientServed();
  ExpectOnlyWritesTo({"pipe"});
}

// --- Invalid UTF-8 and lone surrogates --------------------------------------

TEST_F(HostileClientTest, InvalidUtf8InStreamNamesIsRefused) {
  // Bad continuation, a lone 0xFF, an encoded surrogate (CESU), an overlong
  // '/', a code point past U+10FFFF, a truncated sequence.
  for (const std::string name :
       {"bad%C3%28name", "%FF", "a%ED%A0%80", "x%C0%AFy", "%F4%90%80%80", "trunc%E2%82"}) {
    EXPECT_TRUE(IsError(Append(name, EventJson("T")), 400, "invalid")) << name;
    ExpectNoStream(name);
  }
  // Raw bytes above 0x7F in the target, not percent-encoded.
  const HttpResponse raw = Raw(PostHead("/streams/raw\xff\xfe"), EventJson("T"));
  EXPECT_TRUE(IsRefusal(raw));
  ExpectNormalClientServed();
  ExpectOnlyWritesTo();
}

TEST_F(HostileClientTest, InvalidUtf8AndLoneSurrogatesInEventsAreRefused) {
  const std::vector<std::string> bodies = {
      // Raw invalid bytes inside JSON strings.
      "{\"type\":\"A\xff\",\"data\":{}}",
      "{\"type\":\"\xc3\x28\",\"data\":{}}",
      "{\"type\":\"T\",\"data\":{\"k\":\"\xed\xa0\x80\"}}",
      "{\"type\":\"T\",\"data\":\"\xc0\xaf\"}",
      "{\"type\":\"T\",\"data\":{},\"metadata\":{\"m\":\"\xff\"}}",
      "{\"type\":\"T\",\"data\":{\"\xfe\":1}}",
      "{\"type\":\"T\",\"schema\":\"V\xff\",\"data\":{}}",
      // Lone surrogate escapes.
      R"({"type":"\ud800","data":{}})",
      R"({"type":"\udc00x","data":{}})",
      R"({"type":"T","data":"\ud800"})",
      R"({"type":"T","data":{"k":"\udc00x"}})",
      R"({"type":"T","data":{"\ud800":1}})",
      R"({"type":"T","data":["\ud800\u0041"]})",
      R"({"type":"T","data":{},"metadata":{"m":"\udc00"}})",
  };
  for (const std::string& body : bodies)
    EXPECT_TRUE(IsError(Append("u8", body), 400, "invalid")) << body;
  ExpectNoStream("u8");
  // A lone surrogate escape is not a name either (the name from the path
  // is bytes; these are their UTF-8 forms).
  for (const std::string name : {"%ED%A0%80", "%ED%B0%80x"})
    EXPECT_TRUE(IsError(Append(name, EventJson("T")), 400, "invalid")) << name;
  ExpectNormalClientServed();
  ExpectOnlyWritesTo();
}

// --- Deep JSON --------------------------------------------------------------

TEST_F(HostileClientTest, JsonNested100000DeepIsRefusedWithoutACrash) {
  constexpr int kDepth = 100000;
  const std::string arrays = std::string(kDepth, '[') + std::string(kDepth, ']');
  std::string objects;
  for (int i = 0; i < kDepth; ++i) objects += "{\"\":";
  objects += "1" + std::string(kDepth, '}');
  NormalClient normal(port());
  for (const std::string* deep : {&arrays, static_cast<const std::string*>(&objects)}) {
    EXPECT_TRUE(IsError(Append("deep", EventJson("Deep", *deep)), 400, "invalid"))
        << deep->substr(0, 10) << "... in data";
    EXPECT_TRUE(IsError(
        Append("deep", "{\"type\":\"Deep\",\"data\":{},\"metadata\":{\"m\":" + *deep + "}}"), 400,
        "invalid"))
        << deep->substr(0, 10) << "... in metadata";
    EXPECT_TRUE(IsError(Append("deep", *deep), 400, "invalid")) << "the whole body";
    EXPECT_EQ(http().Get("/health").status, 200u);
  }
  ExpectServed(normal);
  ExpectNoStream("deep");
  ExpectOnlyWritesTo();
}

// --- Numbers out of range ---------------------------------------------------

TEST_F(HostileClientTest, HugeNumbersInDataAreRefusedOrStoredAsSent) {
  int n = 0;
  for (const std::string data :
       {"1e400", "-1e400", "123456789012345678901234567890", "{\"n\":1e400}",
        "[-123456789012345678901234567890]", "1.00000000000000000000000000001"}) {
    const std::string stream = "num-" + std::to_string(n++);
    const HttpResponse answer = Append(stream, EventJson("Num", data));
    if (answer.status == 400) {
      EXPECT_TRUE(IsError(answer, 400, "invalid"));
      ExpectNoStream(stream);
      continue;
    }
    ASSERT_EQ(answer.status, 201u) << data << ": " << answer.body;
    const HttpResponse read = http().Get("/streams/" + stream);
    ASSERT_EQ(read.status, 200u) << read.body;
    EXPECT_EQ(RawData(read.body), data)
        << "the server accepted data " << data << " and stored something else";
  }
  EXPECT_EQ(http().Get("/health").status, 200u);
}

TEST_F(HostileClientTest, HugeNumbersAsVersionsAndPositionsAre400) {
  ASSERT_EQ(Append("s", EventJson("T")).status, 201u);
  for (const std::string n : {"1e400", "-1e400", "123456789012345678901234567890",
                              "9223372036854775808", "-9223372036854775809"}) {
    EXPECT_TRUE(
        IsError(Append("s", EventJson("T"), {{"If-Match", "\"" + n + "\""}}), 400, "invalid"))
        << "If-Match " << n;
    for (const std::string target :
         {"/streams/s?from=", "/streams/s?limit=", "/all?from=", "/all?limit=", "/all?waitMs="})
      EXPECT_TRUE(IsError(http().Get(target + n), 400, "invalid")) << target << n;
    for (const std::string target : {"/subscribe/all?from=", "/subscribe/streams/s?from="}) {
      testutil::SseReader sse(port(), target + n);
      ASSERT_TRUE(sse.ReadHead()) << target << n;
      EXPECT_EQ(sse.status(), 400u) << target << n;
    }
    testutil::SseReader resumed(port(), "/subscribe/all", {{"Last-Event-ID", n}});
    ASSERT_TRUE(resumed.ReadHead());
    EXPECT_EQ(resumed.status(), 400u) << "Last-Event-ID " << n;
  }
  EXPECT_EQ(HeadVersion("s"), 0) << "an append with a bad If-Match wrote";
  ExpectNormalClientServed();
  ExpectOnlyWritesTo({"s"});
}

// Positions at and past the end of int64: nothing comes after them, so a
// subscription sends no event (or the request is refused), and the server
// neither crashes nor wraps around to the start.
TEST_F(HostileClientTest, ExtremePositionsNeitherCrashNorReplay) {
  ASSERT_EQ(Append("s", EventJson("T")).status, 201u);
  const std::string max = "9223372036854775807";
  EXPECT_EQ(Append("s", EventJson("T"), {{"If-Match", "\"" + max + "\""}}).status, 409u);
  const std::vector<std::pair<std::string, Headers>> subscriptions = {
      {"/subscribe/all", {{"Last-Event-ID", max}}},
      {"/subscribe/all", {{"Last-Event-ID", "9223372036854775808"}}},
      {"/subscribe/all", {{"Last-Event-ID", "18446744073709551615"}}},
      {"/subscribe/streams/s", {{"Last-Event-ID", "18446744073709551615"}}},
      {"/subscribe/all?from=" + max, {}},
      {"/subscribe/streams/s?from=" + max, {}},
  };
  for (const auto& [target, headers] : subscriptions) {
    const std::string what =
        target + (headers.empty() ? "" : " Last-Event-ID: " + headers.front().second);
    testutil::SseReader sse(port(), target, headers);
    ASSERT_TRUE(sse.ReadHead()) << what;
    if (sse.status() != 200) {
      EXPECT_EQ(sse.status(), 400u) << what;
      continue;
    }
    const auto message = sse.NextMessage(1s);
    EXPECT_FALSE(message.has_value()) << what << " sent event id " << message->id;
    sse.Close();
    HttpClient fresh(port(), 10s);
    if (fresh.Get("/health").status != 200) {
      // Report it, then go on with the other cases on a new server.
      ADD_FAILURE() << "the server died after " << what;
      Start({"--header-timeout-ms", "2000"});
    }
  }
  for (const std::string& target : {"/all?from=" + max, "/streams/s?from=" + max})
    EXPECT_EQ(EventsOf(http().Get(target).Json()).size(), 0u) << target;
  EXPECT_EQ(HeadVersion("s"), 0);
}

// --- Duplicate keys ---------------------------------------------------------

TEST_F(HostileClientTest, DuplicateKeysAreRefusedOrStoredAsSent) {
  const HttpResponse types = Append("dup", R"({"type":"A","type":"B","data":{}})");
  if (types.status == 201) {
    const HttpResponse read = http().Get("/streams/dup");
    const auto events = EventsOf(read.Json());
    ADD_FAILURE() << "an event with two types was accepted and stored with type "
                  << (events.empty() ? "<none>" : StringOf(events.front(), "type"));
  } else {
    EXPECT_TRUE(IsError(types, 400, "invalid"));
    ExpectNoStream("dup");
  }
  for (const std::string data : {R"({"k":1,"k":2})", R"([{"a":"x","a":"y"}])"}) {
    const HttpResponse answer = Append("dupdata", EventJson("Dup", data));
    if (answer.status != 201) {
      EXPECT_TRUE(IsError(answer, 400, "invalid")) << data;
      continue;
    }
    const HttpResponse read = http().Get("/streams/dupdata?limit=1&direction=backward");
    EXPECT_EQ(RawData(read.body), data) << "data with a duplicate key was stored changed";
  }
  const HttpResponse two_data = Append("dup2", R"({"type":"A","data":1,"data":2})");
  if (two_data.status == 201) {
    ADD_FAILURE() << "an event with two data members was accepted; stored data "
                  << RawData(http().Get("/streams/dup2").body);
  } else {
    EXPECT_TRUE(IsError(two_data, 400, "invalid"));
  }
}

// --- NUL bytes --------------------------------------------------------------

TEST_F(HostileClientTest, NulBytesAreRefused) {
  const std::string nul(1, '\0');
  const std::string body = EventJson("T");
  // Raw NUL in the request line, a header value and a header name.
  EXPECT_TRUE(
      IsRefusal(Raw("POST /streams/nul" + nul +
                        "x HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n",
                    body)));
  EXPECT_TRUE(IsRefusal(Raw(PostHead("/streams/nul") + "X-A: a" + nul + "b\r\n", body)));
  EXPECT_TRUE(IsRefusal(Raw(PostHead("/streams/nul") + "X-" + nul + "A: b\r\n", body)));
  EXPECT_TRUE(IsRefusal(Raw("GET /health" + nul + " HTTP/1.1\r\nHost: localhost\r\n")));
  // %00 in a stream name.
  for (const std::string name : {"nul%00", "%00", "a%00b"}) {
    EXPECT_TRUE(IsError(Append(name, body), 400, "invalid")) << name;
    ExpectNoStream(name);
  }
  // An escaped NUL in type or schema: control characters are not allowed
  // there (core/append_validation.cc); a raw NUL in a JSON string is not
  // JSON at all.
  EXPECT_TRUE(IsError(Append("nul", R"({"type":"A\u0000B","data":{}})"), 400, "invalid"));
  EXPECT_TRUE(
      IsError(Append("nul", R"({"type":"T","schema":"\u0000","data":{}})"), 400, "invalid"));
  EXPECT_TRUE(IsError(Append("nul", "{\"type\":\"A" + nul + "B\",\"data\":{}}"), 400, "invalid"));
  EXPECT_TRUE(IsError(Append("nul", "{\"type\":\"T\",\"data\":\"" + nul + "\"}"), 400, "invalid"));
  ExpectNoStream("nul");
  ExpectNormalClientServed();
  ExpectOnlyWritesTo();
}

// --- Encoded slashes and dots -----------------------------------------------

TEST_F(HostileClientTest, AnEncodedSlashIsPartOfOneStreamName) {
  for (const std::string path : {"a%2Fb", "a%2fb"}) {
    const HttpResponse written = Append(path, EventJson("T"));
    ASSERT_EQ(written.status, 201u) << path << ": " << written.body;
    EXPECT_EQ(written.Header("Location").value_or(""), "/streams/a%2Fb");
  }
  const HttpResponse read = http().Get("/streams/a%2Fb");
  ASSERT_EQ(read.status, 200u);
  const auto events = EventsOf(read.Json());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(StringOf(events[0], "stream"), "a/b");
  EXPECT_EQ(StringOf(events[1], "stream"), "a/b");
  // A real slash is another route: none.
  EXPECT_TRUE(IsError(http().Get("/streams/a/b"), 404, "not_found"));
  EXPECT_TRUE(IsError(Append("a/b", EventJson("T")), 404, "not_found"));
  ExpectNoStream("a");
  ExpectNoStream("b");
  EXPECT_EQ(HeadVersion("a%2Fb"), 1);
  ExpectOnlyWritesTo({"a/b"});
}

TEST_F(HostileClientTest, DotDotIsANameNeverAPath) {
  const std::filesystem::path root = tmp_.path();
  const auto listing = [](const std::filesystem::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      names.insert(entry.path().filename().string());
    return names;
  };
  const std::set<std::string> root_before = listing(root);
  const std::set<std::string> parent_before = listing(root.parent_path());
  std::set<std::string> stored;
  std::size_t dotdots = 0;
  for (const std::string path : {"%2e%2e", "..", "%2E%2E%2F%2E%2E%2Fescape",
                                 "..%2F..%2F..%2Fescape2", "%2e%2e%2fdata", ".", "%2e"}) {
    const HttpResponse answer = Append(path, EventJson("T"));
    if (answer.status == 201) {
      const json::value body = answer.Json();
      if (body.is_object()) stored.insert(StringOf(body.as_object(), "stream"));
      if (body.is_object() && StringOf(body.as_object(), "stream") == "..") ++dotdots;
      continue;
    }
    // A raw "/../" may be refused or routed nowhere; never served as a file.
    EXPECT_TRUE(IsRefusal(answer)) << path;
  }
  // Raw dot segments in the request line.
  EXPECT_TRUE(IsRefusal(Raw(PostHead("/streams/../../escape3"), EventJson("T"))));
  EXPECT_TRUE(IsRefusal(Raw(PostHead("/../streams/x"), EventJson("T"))));
  for (const std::string& name : stored)
    EXPECT_TRUE(name == ".." || name == "." || name.find("escape") != std::string::npos ||
                name == "../data")
        << "stored under an unexpected name: " << name;
  if (stored.count("..")) {
    const HttpResponse read = http().Get("/streams/%2e%2e");
    EXPECT_EQ(read.status, 200u);
    EXPECT_EQ(EventsOf(read.Json()).size(), dotdots) << "'..' and '%2e%2e' are one stream";
  }
  EXPECT_EQ(listing(root), root_before) << "something was written beside the data folder";
  // The parent is shared (the system's temporary folder, where tests
  // running beside this one come and go): nothing the requests named may
  // have appeared there.
  for (const std::string& name : listing(root.parent_path())) {
    if (parent_before.count(name)) continue;
    EXPECT_TRUE(name.find("escape") == std::string::npos && name != "data")
        << "written outside the test's folder: " << name;
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(Data()))
    EXPECT_EQ(entry.path().filename().string().find("escape"), std::string::npos)
        << "a stream name became a file: " << entry.path();
  ExpectNormalClientServed();
  stored.insert({"..", "."});
  ExpectOnlyWritesTo(stored);
}

// --- Thousands of idle connections ------------------------------------------

void RaiseOwnDescriptorLimit() {
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  limit.rlim_cur = limit.rlim_max;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &limit), 0);
  ASSERT_GT(limit.rlim_cur, 3500u) << "the hard descriptor limit is too low for this test";
}

class IdleConnectionsTest : public HostileClientTest {
 protected:
  // 1500 connections that sent nothing and 1500 idle after one request,
  // while a normal client is served; then all close and the server's count
  // of open connections drops back.
  void Flood(double least_open_while_held, double most_open_while_held) {
    NormalClient normal(port());
    const auto deadline = Clock::now() + 60s;
    std::vector<std::unique_ptr<Socket>> silent;
    std::vector<std::unique_ptr<HttpClient>> kept;
    int answered = 0, connected = 0;
    for (int i = 0; i < 1500 && Clock::now() < deadline; ++i) {
      silent.push_back(std::make_unique<Socket>());
      connected += silent.back()->Connect(port()) ? 1 : 0;
      kept.push_back(std::make_unique<HttpClient>(port(), 10s));
      answered += kept.back()->Get("/health").status == 200 ? 1 : 0;
    }
    EXPECT_EQ(connected, 1500) << "not every connection could be opened in 60 s";
    EXPECT_EQ(answered, 1500) << "a client that got in was not answered";
    std::this_thread::sleep_for(1500ms);  // evicted ones finish closing
    const double open = OpenConnections();
    EXPECT_GE(open, least_open_while_held);
    // At the cap, the connection that asks is counted when it is accepted,
    // and the idle one it evicts only once that one's cancel has run on its
    // own strand (connection_limit.h): the answer may count both (CI saw
    // 501 of 500 once).
    EXPECT_LE(open, most_open_while_held + 1);
    RecordProperty("open_while_held", std::to_string(open));
    // A client after the flood, besides the one on the thread.
    HttpClient late(port(), 10s);
    EXPECT_EQ(late.Post("/streams/late", EventJson("Late")).status, 201u);
    EXPECT_EQ(late.Get("/streams/late").status, 200u);
    ExpectServed(normal);
    silent.clear();
    kept.clear();
    late.Close();
    const double after = WaitForOpenAtMost(2);
    EXPECT_LE(after, 2) << "connections stayed counted as open after the clients closed";
    ExpectOnlyWritesTo({"late"});
  }
};

TEST_F(IdleConnectionsTest, ThreeThousandIdleConnectionsWithDefaultFlags) {
  RaiseOwnDescriptorLimit();
  Start();
  // The cap is three quarters of the raised descriptor limit (well above
  // 3000 here): every connection stays open.
  Flood(3000, 1e9);
}

TEST_F(IdleConnectionsTest, ThreeThousandIdleConnectionsAgainstACapOf500) {
  RaiseOwnDescriptorLimit();
  Start({"--max-connections", "500"});
  Flood(1, 500);
}

// --- Clients that vanish mid-body -------------------------------------------

TEST_F(HostileClientTest, ClientsThatVanishMidBodyWriteNothing) {
  NormalClient normal(port());
  const std::string head = PostHead("/streams/vanish") + "Content-Length: 100000\r\n\r\n";
  std::string partial = "[" + EventJson("Vanish");
  while (partial.size() < 1000) partial += "," + EventJson("Vanish");
  partial.resize(1000);
  const auto deadline = Clock::now() + 60s;
  int sent = 0;
  for (int i = 0; i < 200 && Clock::now() < deadline; ++i) {
    Socket socket;
    ASSERT_TRUE(socket.Connect(port()));
    sent += socket.SendAll(head + partial, 5s) ? 1 : 0;
    if (i % 2 == 0) {
      // A reset (RST) instead of a clean close.
      const linger reset{1, 0};
      ::setsockopt(socket.fd(), SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    }
    socket.Close();
  }
  EXPECT_EQ(sent, 200);
  ExpectServed(normal);
  ExpectNoStream("vanish");
  const double open = WaitForOpenAtMost(2);
  EXPECT_LE(open, 2) << "vanished clients are still counted as open connections";
  ExpectOnlyWritesTo();
}

// --- The front door ---------------------------------------------------------

TEST_F(HostileClientTest, ForeignHostForeignOriginAndMissingContentTypeAreRefused) {
  const std::string body = EventJson("Forged");
  EXPECT_TRUE(IsError(Raw("POST /streams/door HTTP/1.1\r\nHost: evil.example\r\n"
                          "Content-Type: application/json\r\n",
                          body),
                      403, "unauthorized"));
  EXPECT_TRUE(
      IsError(Raw("GET /streams/door HTTP/1.1\r\nHost: evil.example\r\n"), 403, "unauthorized"));
  EXPECT_TRUE(
      IsError(Append("door", body, {{"Origin", "https://evil.example"}}), 403, "unauthorized"));
  EXPECT_TRUE(
      IsError(Raw("POST /streams/door HTTP/1.1\r\nHost: localhost\r\n", body), 415, "invalid"));
  ExpectNoStream("door");
  ExpectNormalClientServed();
  ExpectOnlyWritesTo();
}

}  // namespace
}  // namespace indelible
