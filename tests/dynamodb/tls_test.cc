// https: dynalite serving TLS with a certificate made here for 127.0.0.1,
// signed by a CA made here. The client trusts it only through ca_file, and
// checks the name as well as the chain. (DynamoDB Local has no TLS.)
#include <gtest/gtest.h>

#include <cstdlib>

#include "aws/client.h"
#include "testutil/dynamodb_server.h"
#include "testutil/test_certificates.h"

namespace indelible::aws {
namespace {

class Https : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    temp_ = new testutil::TempDir();
    const std::string d = temp_->path().string();
    // A CA, and a server certificate for the address 127.0.0.1 signed by it.
    testutil::TestCertificates certificates;
    std::string output;
    if (!certificates.Make(d, &output)) {
      ADD_FAILURE() << "openssl could not make the certificates (scripts/install-deps.sh):\n"
                    << output;
      return;
    }
    ::setenv("INDELIBLE_DYNAMODB_TLS_DIR", d.c_str(), 1);
    server_ = new testutil::DynamoDbServer("dynalite");
    const bool started = server_->Start();
    ::unsetenv("INDELIBLE_DYNAMODB_TLS_DIR");
    if (!started) ADD_FAILURE() << "dynalite did not start with TLS:\n" << server_->output();
  }
  static void TearDownTestSuite() {
    delete server_;
    delete temp_;
  }

  void SetUp() override {
    ASSERT_TRUE(server_ != nullptr && server_->endpoint().starts_with("https://"))
        << "no https server";
  }

  static std::unique_ptr<Client> MakeClient(const std::string& endpoint, bool trust_ca) {
    ClientOptions o;
    o.endpoint = *net::ParseUrl(endpoint);
    o.region = "us-east-1";
    o.credentials = {"AKIDTEST", "secret", "", "test"};
    if (trust_ca) o.ca_file = temp_->Sub("ca.pem");
    return Client::Create(o).value();
  }

  static testutil::TempDir* temp_;
  static testutil::DynamoDbServer* server_;
};
testutil::TempDir* Https::temp_ = nullptr;
testutil::DynamoDbServer* Https::server_ = nullptr;

TEST_F(Https, TrustedServerOnOneConnection) {
  auto client = MakeClient(server_->endpoint(), true);
  for (int i = 0; i < 20; ++i) {
    Reply r = client->Call("ListTables", {});
    ASSERT_TRUE(r.ok()) << r.status.ToString();
    EXPECT_TRUE(r.body.contains("TableNames"));
  }
  EXPECT_EQ(client->counters().connects, 1u);  // one handshake, then keep-alive
  EXPECT_EQ(client->counters().requests, 20u);
}

TEST_F(Https, UntrustedCertificateIsRefusedWithoutRetries) {
  auto client = MakeClient(server_->endpoint(), false);  // the system's CAs only
  Reply r = client->Call("ListTables", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status.code(), ErrorCode::kUnauthorized) << r.status.ToString();
  EXPECT_NE(r.status.message().find("is not trusted for '127.0.0.1': unable to get local issuer"),
            std::string::npos)
      << r.status.message();
  EXPECT_EQ(r.attempts, 1);
}

TEST_F(Https, CertificateForAnotherNameIsRefused) {
  // Same server, same trusted CA, but reached as "localhost": the
  // certificate names 127.0.0.1 only.
  const std::string endpoint = "https://localhost:" + std::to_string(server_->port());
  auto client = MakeClient(endpoint, true);
  Reply r = client->Call("ListTables", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status.code(), ErrorCode::kUnauthorized) << r.status.ToString();
  EXPECT_NE(r.status.message().find("not trusted for 'localhost': it names another host"),
            std::string::npos)
      << r.status.message();
}

TEST_F(Https, MissingCaFileIsInvalid) {
  ClientOptions o;
  o.endpoint = *net::ParseUrl(server_->endpoint());
  o.ca_file = "/nonexistent/ca.pem";
  auto client = Client::Create(o);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(client.status().field(), "ca_file");
}

}  // namespace
}  // namespace indelible::aws
