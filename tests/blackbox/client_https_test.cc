// The C++ client and the CLI over https, end to end: the real `indelible
// serve` behind a TLS-terminating proxy (testutil/tls_proxy.h; the
// server's own TLS is server_tls_test.cc) with a certificate for 127.0.0.1
// signed by a CA made here. Appends, reads, a Server-Sent Events
// subscription and OpenRemoteStore travel over real TLS; without the CA, or
// by another host name, the client refuses the server.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>

#include "blackbox/https_round_trip.h"
#include "indelible/client.h"
#include "testutil/cli_runner.h"
#include "testutil/server_process.h"
#include "testutil/temp_dir.h"
#include "testutil/test_certificates.h"
#include "testutil/tls_proxy.h"

namespace indelible {
namespace {

using std::chrono::milliseconds;

using testutil::Event;

class ClientHttpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string output;
    ASSERT_TRUE(certificates_.Make(tmp_.Sub(""), &output)) << output;
    server_ = std::make_unique<testutil::ServerProcess>(
        INDELIBLE_PATH, std::vector<std::string>{"serve", "--store", "file:" + tmp_.Sub("data")});
    ASSERT_TRUE(server_->Start()) << "the server did not start: " << server_->output();
    proxy_ = std::make_unique<testutil::TlsProxy>(certificates_.cert, certificates_.key,
                                                  server_->port());
  }

  ClientOptions Trusting() const {
    ClientOptions options;
    options.ca_file = certificates_.ca;
    options.timeout = milliseconds(5000);
    return options;
  }

  testutil::TempDir tmp_;
  testutil::TestCertificates certificates_;
  std::unique_ptr<testutil::ServerProcess> server_;
  std::unique_ptr<testutil::TlsProxy> proxy_;
};

TEST_F(ClientHttpsTest, AppendReadAndSubscribeOverTls) {
  auto client = Client::Connect(proxy_->url(), Trusting());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_EQ((*client)->url(), proxy_->url());
  testutil::AppendReadAndSubscribe(**client);
}

TEST_F(ClientHttpsTest, RemoteStoreOverTls) {
  auto store = OpenRemoteStore(proxy_->url(), Trusting());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Append("acc-1", Expected::no_stream(), {Event("Opened")}).ok());
  auto head = (*store)->Head("acc-1");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->version, StreamVersion(0));
}

TEST_F(ClientHttpsTest, UntrustedOrMisnamedServerIsRefused) {
  auto untrusted = Client::Connect(proxy_->url());  // the system's CAs only
  ASSERT_FALSE(untrusted.ok());
  EXPECT_EQ(untrusted.status().code(), ErrorCode::kUnauthorized) << untrusted.status().ToString();
  EXPECT_NE(untrusted.status().message().find("is not trusted"), std::string::npos);

  auto misnamed = Client::Connect(proxy_->url("localhost"), Trusting());
  ASSERT_FALSE(misnamed.ok());
  EXPECT_EQ(misnamed.status().code(), ErrorCode::kUnauthorized);
  EXPECT_NE(misnamed.status().message().find("it names another host"), std::string::npos)
      << misnamed.status().message();
}

TEST_F(ClientHttpsTest, CliTakesHttpsUrlsAndACaFile) {
  const std::string global = "--url " + proxy_->url() + " --ca-file " + certificates_.ca;
  auto appended =
      testutil::RunCli(INDELIBLE_PATH, global,
                       "append acc-9 --type Opened --data '{}' --expected no_stream", "", tmp_);
  ASSERT_EQ(appended.exit_code, 0) << appended.err;
  auto read = testutil::RunCli(INDELIBLE_PATH, global, "read acc-9", "", tmp_);
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_NE(read.out.find("Opened"), std::string::npos) << read.out;

  auto refused = testutil::RunCli(INDELIBLE_PATH, "--url " + proxy_->url(), "read acc-9", "", tmp_);
  EXPECT_EQ(refused.exit_code, 7) << refused.err;  // unauthorized
  EXPECT_NE(refused.err.find("not trusted"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace indelible
