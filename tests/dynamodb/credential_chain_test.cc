// Each source of the credential chain against a local fake of its endpoint
// (fake_aws.mjs: STS, IMDSv2, the container endpoint), reached through the
// SDKs' own endpoint variables, and temporary credentials refreshed from it.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "aws/credentials.h"
#include "aws/metadata.h"
#include "aws/refreshing_credentials.h"
#include "dynamodb/fake_aws.h"
#include "testutil/temp_dir.h"

namespace indelible::aws {
namespace {

using namespace std::chrono_literals;
using std::chrono::system_clock;

ChainOptions Chain(EnvLookup env) {
  ChainOptions options;
  options.env = std::move(env);
  return options;
}

constexpr const char* kRole = "arn:aws:iam::123456789012:role/indelible-test";

class CredentialChain : public ::testing::Test {
 protected:
  void StartFake(int lifetime_s = 3600) {
    testutil::FakeAwsOptions o;
    o.dynamodb = "http://127.0.0.1:9";  // unused here: no DynamoDB call is made
    o.lifetime_s = lifetime_s;
    o.web_identity_token = "the-oidc-token";
    o.container_token = "the-container-token";
    o.source_key_id = "AKIDSOURCE";
    o.source_secret = "source-secret";
    fake_ = std::make_unique<testutil::FakeAws>(o);
    ASSERT_TRUE(fake_->Start()) << fake_->output();
  }

  // Exactly `vars`, plus an empty HOME (no host files) and instance
  // metadata off unless a test points it at the fake.
  EnvLookup Env(std::map<std::string, std::string> vars) {
    vars.emplace("HOME", temp_.path().string());
    if (!vars.count("AWS_EC2_METADATA_SERVICE_ENDPOINT"))
      vars.emplace("AWS_EC2_METADATA_DISABLED", "true");
    return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
      const auto it = vars.find(name);
      if (it == vars.end() || it->second.empty()) return std::nullopt;
      return it->second;
    };
  }

  std::string File(const std::string& name, const std::string& text) {
    const std::string path = temp_.Sub(name);
    std::ofstream(path) << text;
    return path;
  }

  static std::shared_ptr<const Credentials> Now(const CredentialsProvider& provider) {
    auto c = provider.Current();
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *c : nullptr;
  }

  std::int64_t Issued(const char* kind) {
    const auto stats = fake_->Stats();
    return stats.at("issued").as_object().at(kind).as_int64();
  }

  testutil::TempDir temp_;
  std::unique_ptr<testutil::FakeAws> fake_;
};

TEST_F(CredentialChain, WebIdentityFromTheEnvironment) {
  StartFake();
  const auto env = Env({{"AWS_WEB_IDENTITY_TOKEN_FILE", File("token", "the-oidc-token\n")},
                        {"AWS_ROLE_ARN", kRole},
                        {"AWS_ENDPOINT_URL_STS", fake_->sts_url()},
                        {"AWS_REGION", "eu-test-1"}});
  auto provider = DefaultCredentialsChain(Chain(env));
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  const auto c = Now(**provider);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->access_key_id.starts_with("ASIAFAKE")) << c->access_key_id;
  EXPECT_FALSE(c->session_token.empty());
  ASSERT_TRUE(c->expiration.has_value());
  EXPECT_GT(*c->expiration, system_clock::now() + 50min);
  EXPECT_NE(c->source.find(kRole), std::string::npos) << c->source;
  EXPECT_EQ(Issued("web_identity"), 1);
}

TEST_F(CredentialChain, ARefusedWebIdentityIsAnErrorNotAFallThrough) {
  StartFake();
  const auto env = Env({{"AWS_WEB_IDENTITY_TOKEN_FILE", File("token", "a-stolen-token")},
                        {"AWS_ROLE_ARN", kRole},
                        {"AWS_ENDPOINT_URL_STS", fake_->sts_url()},
                        {"AWS_CONTAINER_CREDENTIALS_FULL_URI", fake_->container_url() + "/c"},
                        {"AWS_REGION", "eu-test-1"}});
  auto provider = DefaultCredentialsChain(Chain(env));
  ASSERT_FALSE(provider.ok());
  EXPECT_EQ(provider.status().code(), ErrorCode::kUnauthorized);
  const std::string& m = provider.status().message();
  EXPECT_NE(m.find("InvalidIdentityToken"), std::string::npos) << m;
  EXPECT_NE(m.find("environment: AWS_ACCESS_KEY_ID"), std::string::npos) << m;
  EXPECT_EQ(Issued("container"), 0);
}

TEST_F(CredentialChain, AProfileThatAssumesARoleWithItsSourceProfile) {
  StartFake();
  const std::string config = File("config",
                                  "[profile app]\n"
                                  "role_arn = " +
                                      std::string(kRole) +
                                      "\n"
                                      "source_profile = base\n"
                                      "role_session_name = chain-test\n"
                                      "region = eu-test-1\n");
  const std::string credentials = File("credentials",
                                       "[base]\n"
                                       "aws_access_key_id = AKIDSOURCE\n"
                                       "aws_secret_access_key = source-secret\n");
  const auto env = Env({{"AWS_CONFIG_FILE", config},
                        {"AWS_SHARED_CREDENTIALS_FILE", credentials},
                        {"AWS_PROFILE", "app"},
                        {"AWS_ENDPOINT_URL_STS", fake_->sts_url()}});
  auto provider = DefaultCredentialsChain(Chain(env));
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  const auto c = Now(**provider);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->access_key_id.starts_with("ASIAFAKE"));
  EXPECT_EQ(Issued("sts"), 1);

  // A source profile whose keys STS does not know is refused by name.
  const std::string wrong = File("credentials2",
                                 "[base]\naws_access_key_id = AKIDOTHER\n"
                                 "aws_secret_access_key = nope\n");
  auto refused = DefaultCredentialsChain(Chain(Env({{"AWS_CONFIG_FILE", config},
                                                    {"AWS_SHARED_CREDENTIALS_FILE", wrong},
                                                    {"AWS_PROFILE", "app"},
                                                    {"AWS_ENDPOINT_URL_STS", fake_->sts_url()}})));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("AssumeRole"), std::string::npos)
      << refused.status().message();
}

TEST_F(CredentialChain, AProfileWithAWebIdentityTokenFile) {
  StartFake();
  const std::string config =
      File("config", "[default]\nrole_arn = " + std::string(kRole) +
                         "\nweb_identity_token_file = " + File("token", "the-oidc-token") +
                         "\nregion = eu-test-1\n");
  auto provider = DefaultCredentialsChain(
      Chain(Env({{"AWS_CONFIG_FILE", config}, {"AWS_ENDPOINT_URL_STS", fake_->sts_url()}})));
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  EXPECT_TRUE(Now(**provider)->access_key_id.starts_with("ASIAFAKE"));
  EXPECT_EQ(Issued("web_identity"), 1);
}

TEST_F(CredentialChain, ContainerCredentialsWithATokenOrATokenFile) {
  StartFake();
  for (const bool from_file : {false, true}) {
    std::map<std::string, std::string> vars = {
        {"AWS_CONTAINER_CREDENTIALS_FULL_URI", fake_->container_url() + "/v2/credentials/x"}};
    if (from_file)
      vars["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = File("auth", "the-container-token\n");
    else
      vars["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "the-container-token";
    auto provider = DefaultCredentialsChain(Chain(Env(vars)));
    ASSERT_TRUE(provider.ok()) << provider.status().ToString();
    EXPECT_TRUE(Now(**provider)->access_key_id.starts_with("ASIAFAKE"));
  }
  // Like the ECS agent, the fake serves one set until half its life is past.
  EXPECT_EQ(Issued("container"), 1);
  auto refused = DefaultCredentialsChain(Chain(
      Env({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", fake_->container_url() + "/v2/credentials/x"},
           {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong"}})));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kUnauthorized);
  EXPECT_NE(refused.status().message().find("HTTP 401"), std::string::npos)
      << refused.status().message();
}

TEST_F(CredentialChain, InstanceMetadataV2CredentialsAndRegion) {
  StartFake();
  const auto env = Env({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", fake_->imds_url()}});
  auto provider = DefaultCredentialsChain(Chain(env));
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  const auto c = Now(**provider);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->access_key_id.starts_with("ASIAFAKE"));
  EXPECT_NE(c->source.find("indelible-test-role"), std::string::npos) << c->source;
  MetadataOptions metadata;
  metadata.env = env;
  auto region = InstanceMetadataRegion(metadata);
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  EXPECT_EQ(*region, "eu-test-1");
  EXPECT_GE(fake_->Stats().at("imds_tokens").as_int64(), 1);
}

TEST_F(CredentialChain, NoInstanceMetadataFailsOverInAboutASecond) {
  // A port where nothing listens: refused at once. (A silent address would
  // take the 1 s timeout: the SDKs' figure.)
  const auto start = std::chrono::steady_clock::now();
  auto provider = DefaultCredentialsChain(
      Chain(Env({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:9"}})));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(provider.ok());
  EXPECT_LT(took, 3s);
  const std::string& m = provider.status().message();
  EXPECT_NE(m.find("no AWS credentials found"), std::string::npos) << m;
  EXPECT_NE(m.find("instance metadata: no instance metadata (IMDSv2) at http://127.0.0.1:9"),
            std::string::npos)
      << m;
}

TEST_F(CredentialChain, ShortLivedCredentialsAreRefreshedFromTheirSource) {
  StartFake(/*lifetime_s=*/4);
  const auto env = Env({{"AWS_WEB_IDENTITY_TOKEN_FILE", File("token", "the-oidc-token")},
                        {"AWS_ROLE_ARN", kRole},
                        {"AWS_ENDPOINT_URL_STS", fake_->sts_url()},
                        {"AWS_REGION", "eu-test-1"}});
  auto provider = DefaultCredentialsChain(Chain(env));
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  std::set<std::string> keys;
  const auto end = system_clock::now() + 9s;
  while (system_clock::now() < end) {
    const auto c = Now(**provider);
    ASSERT_TRUE(c);
    EXPECT_GT(*c->expiration, system_clock::now()) << "an expired key was handed out";
    keys.insert(c->access_key_id);
    std::this_thread::sleep_for(20ms);
  }
  // Lifetime 4 s, refreshed at half of it: about 4 more in 9 s.
  EXPECT_GE(keys.size(), 4u);
  EXPECT_GE(Issued("web_identity"), 4);
}

}  // namespace
}  // namespace indelible::aws
