// net::HttpClient and net::Connection against real servers on loopback:
// ScriptedServer over plain HTTP and over TLS with certificates made here
// (a CA and a certificate for 127.0.0.1), and a listener that never answers.
#include "net/http_client.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <string>

#include "scripted_server.h"
#include "testutil/temp_dir.h"
#include "testutil/test_certificates.h"

namespace indelible::net {
namespace {

using std::chrono::milliseconds;

// One CA and server certificate for the whole suite: openssl takes a while.
class Certificates : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string output;
    ASSERT_TRUE(made_.Make(dir_.path().string(), &output))
        << "openssl could not make the certificates (scripts/install-deps.sh):\n"
        << output;
  }
  static const testutil::TestCertificates& Get() { return made_; }

 private:
  testutil::TempDir dir_;
  static testutil::TestCertificates made_;
};
testutil::TestCertificates Certificates::made_;
const auto* const kCertificates = ::testing::AddGlobalTestEnvironment(new Certificates);

std::unique_ptr<HttpClient> MakeClient(const std::string& url, const std::string& ca_file = "",
                                       milliseconds timeout = milliseconds(2000)) {
  HttpClientOptions o;
  o.endpoint = *ParseUrl(url);
  o.ca_file = ca_file;
  o.connect_timeout = timeout;
  o.request_timeout = timeout;
  auto client = HttpClient::Create(o);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return std::move(*client);
}

Exchange Get(HttpClient& client, const RetryPolicy& policy = {}) {
  return client.Send(client.MakeRequest(http::verb::get, "/x"), policy);
}

// A policy that retries 503s quickly.
RetryPolicy RetryUnavailable(int attempts) {
  RetryPolicy policy;
  policy.max_attempts = attempts;
  policy.base = milliseconds(1);
  policy.cap = milliseconds(5);
  policy.retry_answer = [](const Response& r) {
    return r.result() == http::status::service_unavailable;
  };
  return policy;
}

// A TCP listener that accepts (the kernel does, from its backlog) and then
// never reads, writes or handshakes.
class Silent {
 public:
  Silent() : acceptor_(ioc_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {}
  int port() const { return acceptor_.local_endpoint().port(); }

 private:
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
};

TEST(Https, TrustedThroughTheCaFileOnOneConnection) {
  ScriptedServer server(Certificates::Get().cert, Certificates::Get().key);
  server.Script({ScriptedServer::Reply(200, "first"), ScriptedServer::Reply(200, "second")});
  auto client = MakeClient(server.url(), Certificates::Get().ca);
  Exchange first = Get(*client);
  ASSERT_TRUE(first.ok()) << first.status.ToString();
  EXPECT_EQ(first.response.body(), "first");
  Exchange second = Get(*client);
  ASSERT_TRUE(second.ok()) << second.status.ToString();
  EXPECT_EQ(second.response.body(), "second");
  EXPECT_EQ(server.connections(), 1);  // one handshake, then keep-alive
  EXPECT_EQ(client->counters().connects, 1u);
  EXPECT_EQ(client->counters().requests, 2u);
}

TEST(Https, UntrustedCertificateIsUnauthorizedAndNotRetried) {
  ScriptedServer server(Certificates::Get().cert, Certificates::Get().key);
  auto client = MakeClient(server.url());  // the system's CAs only
  RetryPolicy policy = RetryUnavailable(5);
  policy.retry_transport = true;
  Exchange e = Get(*client, policy);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status.code(), ErrorCode::kUnauthorized) << e.status.ToString();
  EXPECT_NE(e.status.message().find("is not trusted for '127.0.0.1': unable to get local issuer"),
            std::string::npos)
      << e.status.message();
  EXPECT_EQ(e.attempts, 1);
  EXPECT_EQ(server.requests(), 0);
}

TEST(Https, CertificateForAnotherNameIsUnauthorized) {
  // Same server, same trusted CA, reached as "localhost": the certificate
  // names 127.0.0.1 only.
  ScriptedServer server(Certificates::Get().cert, Certificates::Get().key);
  auto client = MakeClient(server.url("localhost"), Certificates::Get().ca);
  Exchange e = Get(*client);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status.code(), ErrorCode::kUnauthorized) << e.status.ToString();
  EXPECT_NE(e.status.message().find("not trusted for 'localhost': it names another host"),
            std::string::npos)
      << e.status.message();
}

TEST(Https, MissingCaFileIsInvalid) {
  HttpClientOptions o;
  o.endpoint = *ParseUrl("https://127.0.0.1:1");
  o.ca_file = "/nonexistent/ca.pem";
  auto client = HttpClient::Create(o);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(client.status().field(), "ca_file");
}

TEST(Https, StreamedBodyIsReadPieceByPiece) {
  ScriptedServer server(Certificates::Get().cert, Certificates::Get().key);
  ScriptedServer::Answer stream;
  stream.pieces = {"data: one\n\n", "data: two\n\n", "data: three\n\n"};
  stream.pause = milliseconds(50);
  server.Script({stream});
  auto client = MakeClient(server.url(), Certificates::Get().ca);
  auto connection = client->OpenConnection();
  ASSERT_TRUE(connection.ok()) << connection.status().ToString();
  Connection& c = **connection;
  ASSERT_FALSE(c.Send(client->MakeRequest(http::verb::get, "/subscribe"), milliseconds(2000)));
  StreamParser parser;
  parser.body_limit(boost::none);
  ASSERT_FALSE(c.ReadHeader(parser, milliseconds(2000)));
  EXPECT_EQ(parser.get()[http::field::content_type], "text/event-stream");
  std::string body;
  char chunk[64];
  int waits = 0;  // calls that came back with the read still outstanding
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool reading = false;
  while (body.find("three") == std::string::npos && std::chrono::steady_clock::now() < give_up) {
    if (!reading) {
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof(chunk);
      reading = true;
    }
    auto read = c.ReadSomeUntil(parser, std::chrono::steady_clock::now() + milliseconds(5));
    if (!read) {
      ++waits;
      continue;
    }
    reading = false;
    ASSERT_TRUE(!*read || *read == http::error::need_buffer) << read->message();
    body.append(chunk, sizeof(chunk) - parser.get().body().size);
  }
  EXPECT_EQ(body, "data: one\n\ndata: two\n\ndata: three\n\n");
  EXPECT_GT(waits, 0) << "the pieces came 50 ms apart: some waits must have timed out";
  c.Close();
}

TEST(Timeouts, ServerThatNeverAnswers) {
  ScriptedServer server;
  ScriptedServer::Answer silent;
  silent.no_answer = true;
  server.Script({silent});
  auto client = MakeClient(server.url(), "", milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  Exchange e = Get(*client);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status.code(), ErrorCode::kUnavailable);
  EXPECT_NE(e.status.message().find("no answer from " + server.url() + " within 200 ms"),
            std::string::npos)
      << e.status.message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(Timeouts, TlsHandshakeThatNeverCompletes) {
  Silent silent;
  auto client =
      MakeClient("https://127.0.0.1:" + std::to_string(silent.port()), "", milliseconds(200));
  Exchange e = Get(*client);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status.code(), ErrorCode::kUnavailable);
  EXPECT_NE(e.status.message().find("within 200 ms"), std::string::npos) << e.status.message();
}

TEST(Timeouts, RefusedConnectionSaysSo) {
  int port = 0;
  {
    Silent closed;  // a port that was free a moment ago
    port = closed.port();
  }
  HttpClientOptions o;
  o.endpoint = *ParseUrl("http://127.0.0.1:" + std::to_string(port));
  o.refused_hint = "is it running?";
  auto client = HttpClient::Create(o);
  ASSERT_TRUE(client.ok());
  Exchange e = Get(**client);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status.message().find("cannot connect to http://127.0.0.1:" + std::to_string(port) +
                                    ": connection refused (is it running?)"),
            std::string::npos)
      << e.status.message();
}

TEST(Pool, TwoRequestsOneConnection) {
  ScriptedServer server;
  auto client = MakeClient(server.url());
  ASSERT_TRUE(Get(*client).ok());
  ASSERT_TRUE(Get(*client).ok());
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(server.requests(), 2);
  EXPECT_EQ(client->counters().connects, 1u);
}

TEST(Pool, ConnectionLeftBySilentServerIsNotReused) {
  ScriptedServer server;
  ScriptedServer::Answer silent;
  silent.no_answer = true;
  server.Script({silent});
  // The timeout must fire for the silent answer, and not for the next one
  // on a loaded machine: 1 s.
  auto client = MakeClient(server.url(), "", milliseconds(1000));
  ASSERT_FALSE(Get(*client).ok());  // timed out: that connection is dropped
  ASSERT_TRUE(Get(*client).ok());
  EXPECT_EQ(server.connections(), 2);
}

TEST(Retry, UnavailableIsRetriedWhenThePolicySaysSo) {
  ScriptedServer server;
  server.Script({ScriptedServer::Reply(503, "busy"), ScriptedServer::Reply(200, "done")});
  auto client = MakeClient(server.url());
  Exchange e = Get(*client, RetryUnavailable(3));
  ASSERT_TRUE(e.ok()) << e.status.ToString();
  EXPECT_EQ(e.response.result_int(), 200u);
  EXPECT_EQ(e.response.body(), "done");
  EXPECT_EQ(e.attempts, 2);
  EXPECT_EQ(server.requests(), 2);
  EXPECT_EQ(client->counters().retries, 1u);
}

TEST(Retry, UnavailableIsAnAnswerWhenThePolicyDoesNotRetry) {
  ScriptedServer server;
  server.Script({ScriptedServer::Reply(503, "busy"), ScriptedServer::Reply(200, "done")});
  auto client = MakeClient(server.url());
  Exchange e = Get(*client);  // the default policy: one attempt
  ASSERT_TRUE(e.ok()) << e.status.ToString();
  EXPECT_EQ(e.response.result_int(), 503u);
  EXPECT_EQ(e.attempts, 1);
  EXPECT_EQ(server.requests(), 1);
}

TEST(Retry, AttemptsRunOutOnTheLastAnswer) {
  ScriptedServer server;
  server.Script({ScriptedServer::Reply(503, "1"), ScriptedServer::Reply(503, "2"),
                 ScriptedServer::Reply(503, "3")});
  auto client = MakeClient(server.url());
  Exchange e = Get(*client, RetryUnavailable(2));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e.response.body(), "2");
  EXPECT_EQ(e.attempts, 2);
}

TEST(Retry, TransportFailuresOnlyWhenAllowed) {
  ScriptedServer server;
  ScriptedServer::Answer silent;
  silent.no_answer = true;
  server.Script({silent, ScriptedServer::Reply(200, "second")});
  auto client = MakeClient(server.url(), "", milliseconds(1000));  // as above
  RetryPolicy policy = RetryUnavailable(3);
  policy.retry_transport = true;
  Exchange e = Get(*client, policy);
  ASSERT_TRUE(e.ok()) << e.status.ToString();
  EXPECT_EQ(e.response.body(), "second");
  EXPECT_EQ(e.attempts, 2);

  server.Script({silent, ScriptedServer::Reply(200, "never asked")});
  e = Get(*client, RetryUnavailable(3));  // retry_transport off: a lost answer is final
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.attempts, 1);
}

}  // namespace
}  // namespace indelible::net
