// `indelible serve --tls-cert/--tls-key` end to end (docs/SECURITY.md,
// "TLS"): the real binary with certificates made by `openssl` here, spoken
// to by the C++ client, the CLI, `openssl s_client`, raw TCP, and a small
// keep-alive Beast client (TlsConnection) for what the C++ client hides:
// which connection a request travelled on and the server's certificate.
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <signal.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "blackbox/https_round_trip.h"
#include "indelible/client.h"
#include "server/server_stream.h"
#include "server/tls_context.h"
#include "testutil/cli_runner.h"
#include "testutil/server_process.h"
#include "testutil/temp_dir.h"
#include "testutil/test_certificates.h"

namespace indelible {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using std::chrono::milliseconds;
using tcp = asio::ip::tcp;

using testutil::Event;

// One keep-alive HTTPS connection, synchronous. `error` says what failed.
class TlsConnection {
 public:
  TlsConnection(int port, const std::string& ca, const std::string& cert = "",
                const std::string& key = "")
      : context_(ssl::context::tls_client) {
    beast::error_code ec;
    context_.load_verify_file(ca, ec);
    if (!ec && !cert.empty()) context_.use_certificate_chain_file(cert, ec);
    if (!ec && !key.empty()) context_.use_private_key_file(key, ssl::context::pem, ec);
    context_.set_verify_mode(ssl::verify_peer);
    // After the context is complete: the stream copies its certificate.
    stream_.emplace(ioc_, context_);
    if (!ec)
      stream_->next_layer().connect(
          tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)),
          ec);
    if (!ec) stream_->handshake(ssl::stream_base::client, ec);
    if (ec) error = "connect or handshake: " + ec.message();
  }

  bool ok() const { return error.empty(); }

  // The answer's status, or 0 with `error` set.
  unsigned Request(http::verb method, const std::string& target, const std::string& body = "") {
    if (!ok()) return 0;
    http::request<http::string_body> request(method, target, 11);
    request.set(http::field::host, "127.0.0.1");
    if (!body.empty()) request.set(http::field::content_type, "application/json");
    request.body() = body;
    request.prepare_payload();
    beast::error_code ec;
    http::write(*stream_, request, ec);
    http::response<http::string_body> response;
    if (!ec) http::read(*stream_, buffer_, response, ec);
    if (ec) {
      error = "request: " + ec.message();
      return 0;
    }
    last_body = response.body();
    return response.result_int();
  }

  // The serial of the server's certificate, -1 without one.
  long PeerSerial() {
    X509* cert = SSL_get1_peer_certificate(stream_->native_handle());
    if (cert == nullptr) return -1;
    const long serial = ASN1_INTEGER_get(X509_get_serialNumber(cert));
    X509_free(cert);
    return serial;
  }

  std::string error;
  std::string last_body;

 private:
  asio::io_context ioc_;
  ssl::context context_;
  std::optional<ssl::stream<tcp::socket>> stream_;
  beast::flat_buffer buffer_;
};

// What a shell command printed (stdout and stderr) and its exit status.
struct Shell {
  int status;
  std::string output;
};
Shell RunShell(const std::string& command) {
  Shell shell{-1, ""};
  FILE* pipe = ::popen(("(" + command + ") 2>&1").c_str(), "r");
  if (pipe == nullptr) return shell;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), pipe) != nullptr) shell.output += buf;
  const int status = ::pclose(pipe);
  shell.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return shell;
}

class ServerTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string output;
    ASSERT_TRUE(certificates_.Make(tmp_.Sub(""), &output)) << output;
    ASSERT_TRUE(certificates_.MakeClient(&output)) << output;
  }

  void Start(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {
        "serve",     "--store",        "file:" + tmp_.Sub("data"), "--tls-cert", certificates_.cert,
        "--tls-key", certificates_.key};
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = std::make_unique<testutil::ServerProcess>(INDELIBLE_PATH, args);
    ASSERT_TRUE(server_->Start()) << "the server did not start: " << server_->output();
    ASSERT_EQ(server_->url().rfind("https://", 0), 0u) << server_->output();
  }

  ClientOptions Trusting() const {
    ClientOptions options;
    options.ca_file = certificates_.ca;
    options.timeout = milliseconds(5000);
    return options;
  }

  // `openssl s_client` to the server with `flags`; it sends nothing.
  Shell SClient(const std::string& flags) {
    return RunShell("openssl s_client -connect 127.0.0.1:" + std::to_string(server_->port()) +
                    " -CAfile '" + certificates_.ca + "' " + flags + " </dev/null");
  }

  testutil::TempDir tmp_;
  testutil::TestCertificates certificates_;
  std::unique_ptr<testutil::ServerProcess> server_;
};

TEST_F(ServerTlsTest, ClientAppendsReadsAndSubscribesOverHttps) {
  Start();
  auto client = Client::Connect(server_->url(), Trusting());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  testutil::AppendReadAndSubscribe(**client);
  client->reset();
  EXPECT_EQ(server_->Terminate(), 0);
}

TEST_F(ServerTlsTest, CliTakesTheHttpsUrlAndTheCaFile) {
  Start();
  const std::string global = "--url " + server_->url() + " --ca-file " + certificates_.ca;
  auto appended =
      testutil::RunCli(INDELIBLE_PATH, global,
                       "append acc-9 --type Opened --data '{}' --expected no_stream", "", tmp_);
  ASSERT_EQ(appended.exit_code, 0) << appended.err;
  auto read = testutil::RunCli(INDELIBLE_PATH, global, "read acc-9", "", tmp_);
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_NE(read.out.find("Opened"), std::string::npos) << read.out;
}

TEST_F(ServerTlsTest, ClientRefusesAServerItsCaDidNotSign) {
  Start();
  auto untrusted = Client::Connect(server_->url());  // the system's CAs only
  ASSERT_FALSE(untrusted.ok());
  EXPECT_EQ(untrusted.status().code(), ErrorCode::kUnauthorized) << untrusted.status().ToString();
  // Another CA (the client CA) does not vouch for it either.
  ClientOptions other = Trusting();
  other.ca_file = certificates_.client_ca;
  auto wrong = Client::Connect(server_->url(), other);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), ErrorCode::kUnauthorized) << wrong.status().ToString();
}

TEST_F(ServerTlsTest, OnlyTls12And13AreSpoken) {
  Start();
  // SECLEVEL=0 so the client side really offers the old versions.
  for (const char* old : {"-tls1", "-tls1_1"}) {
    const Shell shell = SClient(std::string(old) + " -cipher 'DEFAULT@SECLEVEL=0'");
    EXPECT_NE(shell.status, 0) << old << " was accepted: " << shell.output;
    EXPECT_NE(shell.output.find("alert protocol version"), std::string::npos) << shell.output;
    EXPECT_NE(shell.output.find("Cipher is (NONE)"), std::string::npos) << shell.output;
  }
  for (const char* good : {"-tls1_2", "-tls1_3"}) {
    const Shell shell = SClient(good);
    EXPECT_EQ(shell.status, 0) << good << ": " << shell.output;
    EXPECT_NE(shell.output.find("Verify return code: 0 (ok)"), std::string::npos) << shell.output;
  }
  // TLS 1.2 with a cipher outside the list (CBC, no forward secrecy).
  EXPECT_NE(SClient("-tls1_2 -cipher AES128-SHA").status, 0);
}

TEST_F(ServerTlsTest, PlaintextHttpGetsNoHttpAnswerAndTheServerStaysUp) {
  Start();
  for (int i = 0; i < 3; ++i) {
    asio::io_context ioc;
    tcp::socket socket(ioc);
    socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                 static_cast<unsigned short>(server_->port())));
    const std::string request = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    asio::write(socket, asio::buffer(request));
    std::string answer;
    beast::error_code ec;
    char buf[1024];
    for (;;) {
      const std::size_t n = socket.read_some(asio::buffer(buf), ec);
      if (ec) break;
      answer.append(buf, n);
    }
    EXPECT_EQ(answer.find("HTTP/"), std::string::npos) << answer;
  }
  TlsConnection tls(server_->port(), certificates_.ca);
  EXPECT_EQ(tls.Request(http::verb::get, "/health"), 200u) << tls.error;
}

TEST_F(ServerTlsTest, MutualTlsRequiresACertificateFromTheClientCa) {
  Start({"--tls-client-ca", certificates_.client_ca, "--tls-require-client-cert"});
  {
    TlsConnection none(server_->port(), certificates_.ca);
    // TLS 1.3: the client's side of the handshake may end before the
    // server's refusal arrives; then the first request meets it.
    EXPECT_EQ(none.ok() ? none.Request(http::verb::get, "/health") : 0u, 0u);
  }
  {
    TlsConnection wrong_ca(server_->port(), certificates_.ca, tmp_.Sub("other-client.pem"),
                           tmp_.Sub("other-client.key"));
    EXPECT_EQ(wrong_ca.ok() ? wrong_ca.Request(http::verb::get, "/health") : 0u, 0u);
  }
  TlsConnection with(server_->port(), certificates_.ca, certificates_.client_cert,
                     certificates_.client_key);
  ASSERT_TRUE(with.ok()) << with.error;
  EXPECT_EQ(with.Request(http::verb::get, "/health"), 200u) << with.error;
  EXPECT_EQ(with.Request(http::verb::post, "/streams/mtls-1", R"({"type":"T","data":{}})"), 201u)
      << with.error << with.last_body;
  // s_client with the certificate.
  EXPECT_NE(
      SClient("-cert '" + certificates_.client_cert + "' -key '" + certificates_.client_key + "'")
          .output.find("Verify return code: 0 (ok)"),
      std::string::npos);

  // The C++ client and the CLI with --cert/--key (ClientOptions::cert_file).
  auto refused = Client::Connect(server_->url(), Trusting());
  if (refused.ok()) {  // TLS 1.3: the refusal may come with the first request
    EXPECT_FALSE((*refused)->Head("mtls-1").ok());
  }
  ClientOptions with_cert = Trusting();
  with_cert.cert_file = certificates_.client_cert;
  with_cert.key_file = certificates_.client_key;
  auto client = Client::Connect(server_->url(), with_cert);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_TRUE((*client)->Append("mtls-2", Expected::no_stream(), {Event("T")}).ok());
  const std::string global = "--url " + server_->url() + " --ca-file " + certificates_.ca;
  auto cli = testutil::RunCli(
      INDELIBLE_PATH,
      global + " --cert " + certificates_.client_cert + " --key " + certificates_.client_key,
      "read mtls-2", "", tmp_);
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_NE(cli.out.find(" T "), std::string::npos) << cli.out;
  auto cli_refused = testutil::RunCli(INDELIBLE_PATH, global, "read mtls-2", "", tmp_);
  EXPECT_NE(cli_refused.exit_code, 0) << cli_refused.out;
}

TEST_F(ServerTlsTest, OptionalClientCertificatesStillLetOthersIn) {
  Start({"--tls-client-ca", certificates_.client_ca});
  TlsConnection none(server_->port(), certificates_.ca);
  EXPECT_EQ(none.Request(http::verb::get, "/health"), 200u) << none.error;
  TlsConnection with(server_->port(), certificates_.ca, certificates_.client_cert,
                     certificates_.client_key);
  EXPECT_EQ(with.Request(http::verb::get, "/health"), 200u) << with.error;
}

TEST_F(ServerTlsTest, BadFilesStopTheStartNamingTheFile) {
  const std::string garbage = tmp_.Sub("garbage.pem");
  std::FILE* f = std::fopen(garbage.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("not a certificate\n", f);
  std::fclose(f);
  const std::string serve = "serve --store memory: --listen 127.0.0.1:0 ";
  auto bad_cert = testutil::RunCli(
      "timeout 20 " INDELIBLE_PATH, "",
      serve + "--tls-cert " + garbage + " --tls-key " + certificates_.key, "", tmp_);
  EXPECT_NE(bad_cert.exit_code, 0);
  EXPECT_NE(bad_cert.exit_code, 124) << "it served";
  EXPECT_NE(bad_cert.err.find(garbage), std::string::npos) << bad_cert.err;
  EXPECT_NE(bad_cert.err.find("PEM"), std::string::npos) << bad_cert.err;
  EXPECT_EQ(bad_cert.out.find("listening"), std::string::npos) << bad_cert.out;
  // A key that is not the certificate's.
  auto mismatch = testutil::RunCli(
      "timeout 20 " INDELIBLE_PATH, "",
      serve + "--tls-cert " + certificates_.cert + " --tls-key " + certificates_.client_key, "",
      tmp_);
  EXPECT_NE(mismatch.exit_code, 0);
  EXPECT_NE(mismatch.exit_code, 124) << "it served";
  EXPECT_NE(mismatch.err.find(certificates_.client_key), std::string::npos) << mismatch.err;
  // An expired certificate: every client would refuse it.
  std::string expired_cert, expired_key, output;
  ASSERT_TRUE(certificates_.Reissue(4343, &expired_cert, &expired_key, &output, -1)) << output;
  auto expired = testutil::RunCli(
      "timeout 20 " INDELIBLE_PATH, "",
      serve + "--tls-cert " + expired_cert + " --tls-key " + expired_key, "", tmp_);
  EXPECT_NE(expired.exit_code, 0);
  EXPECT_NE(expired.exit_code, 124) << "it served";
  EXPECT_NE(expired.err.find(expired_cert + "' expired on"), std::string::npos) << expired.err;
}

// Several connections keep appending while the certificate is replaced and
// SIGHUP sent: every request succeeds on its first connection, and a new
// connection meets the new certificate. A reload of a broken file keeps the
// certificate in use.
TEST_F(ServerTlsTest, SighupReloadsTheCertificateWithoutDroppingConnections) {
  Start();
  constexpr int kWriters = 4;
  std::atomic<bool> stop{false};
  std::atomic<int> succeeded{0};
  std::vector<std::string> failures(kWriters);
  std::vector<int> counts(kWriters, 0);
  std::vector<std::thread> writers;
  const int port = server_->port();
  const std::string ca = certificates_.ca;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      TlsConnection connection(port, ca);
      const std::string target = "/streams/reload-" + std::to_string(w);
      while (!stop.load()) {
        const unsigned status =
            connection.Request(http::verb::post, target, R"({"type":"T","data":{}})");
        if (status != 201) {
          failures[w] = std::to_string(status) + " " + connection.error + connection.last_body;
          return;
        }
        ++counts[w];
        succeeded.fetch_add(1);
      }
    });
  }
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       succeeded.load() < 20 && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(milliseconds(10));
  EXPECT_GE(succeeded.load(), 20) << "the writers stopped succeeding before the reload";

  EXPECT_EQ(TlsConnection(port, ca).PeerSerial() > 1000, false);
  std::string new_cert, new_key, output;
  ASSERT_TRUE(certificates_.Reissue(4242, &new_cert, &new_key, &output)) << output;
  std::filesystem::rename(new_key, certificates_.key);
  std::filesystem::rename(new_cert, certificates_.cert);
  ASSERT_EQ(::kill(server_->pid(), SIGHUP), 0);
  long serial = -1;
  for (int i = 0; i < 200 && serial != 4242; ++i) {
    std::this_thread::sleep_for(milliseconds(25));
    serial = TlsConnection(port, ca).PeerSerial();
  }
  EXPECT_EQ(serial, 4242) << "a new connection did not get the reloaded certificate";
  const int at_reload = succeeded.load();
  // A certificate file that no longer loads: the reload is refused and the
  // server goes on with the one it has.
  std::FILE* f = std::fopen(certificates_.cert.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("truncated\n", f);
  std::fclose(f);
  ASSERT_EQ(::kill(server_->pid(), SIGHUP), 0);
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(TlsConnection(port, ca).PeerSerial(), 4242);
  // An expired certificate with its key: refused the same way.
  ASSERT_TRUE(certificates_.Reissue(4343, &new_cert, &new_key, &output, -1)) << output;
  std::filesystem::rename(new_key, certificates_.key);
  std::filesystem::rename(new_cert, certificates_.cert);
  ASSERT_EQ(::kill(server_->pid(), SIGHUP), 0);
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(TlsConnection(port, ca).PeerSerial(), 4242) << "the expired certificate was taken";
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       succeeded.load() < at_reload + 20 && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(milliseconds(10));
  EXPECT_GE(succeeded.load(), at_reload + 20) << "the writers stopped succeeding after the reload";
  stop = true;
  for (auto& t : writers) t.join();
  for (int w = 0; w < kWriters; ++w) {
    EXPECT_EQ(failures[w], "") << "writer " << w;
    EXPECT_GT(counts[w], 0) << "writer " << w;
  }
  // Every acknowledged append is there, on the connection it began on.
  TlsConnection check(port, ca);
  for (int w = 0; w < kWriters; ++w) {
    EXPECT_EQ(check.Request(http::verb::get, "/streams/reload-" + std::to_string(w) + "/head"),
              200u);
    EXPECT_NE(check.last_body.find("\"version\":" + std::to_string(counts[w] - 1)),
              std::string::npos)
        << check.last_body;
  }
  EXPECT_EQ(server_->Terminate(), 0);
}

// The subject a verified client certificate leaves on the connection (what
// Exchange::peer_subject() gives authentication), in-process: the
// server's own ServerStream and context, and TlsConnection as the client.
TEST_F(ServerTlsTest, VerifiedClientCertificateSubjectIsRfc2253) {
  ServeTls tls;
  tls.cert_file = certificates_.cert;
  tls.key_file = certificates_.key;
  tls.client_ca_file = certificates_.client_ca;
  auto context = server::MakeServerTlsContext(tls);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  for (const bool with_cert : {true, false}) {
    asio::io_context ioc;
    tcp::acceptor acceptor(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    std::optional<server::ServerStream> stream;
    std::string subject = "<no handshake>";
    acceptor.async_accept([&](beast::error_code ec, tcp::socket socket) {
      ASSERT_FALSE(ec) << ec.message();
      stream.emplace(std::move(socket), *context);
      stream->async_handshake([&](beast::error_code ec2) {
        ASSERT_FALSE(ec2) << ec2.message();
        subject = stream->VerifiedPeerSubject();
      });
    });
    const int port = acceptor.local_endpoint().port();
    std::thread client([&] {
      TlsConnection connection(port, certificates_.ca, with_cert ? certificates_.client_cert : "",
                               with_cert ? certificates_.client_key : "");
      EXPECT_TRUE(connection.ok()) << connection.error;
    });
    ioc.run_for(std::chrono::seconds(10));
    client.join();
    EXPECT_EQ(subject, with_cert ? "O=Acme,CN=orders-service" : "");
  }
}

}  // namespace
}  // namespace indelible
