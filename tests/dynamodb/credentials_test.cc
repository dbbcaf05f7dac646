// The credential sources in their order, and the errors that say what is
// missing where.
#include "aws/credentials.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "aws/metadata.h"
#include "aws/refreshing_credentials.h"
#include "aws/retry_strategy.h"
#include "aws/shared_config.h"
#include "aws/sts.h"
#include "testutil/temp_dir.h"

namespace indelible::aws {
namespace {

// An environment of exactly `vars`, with instance metadata off (unless they
// say otherwise), so that no test waits for 169.254.169.254.
EnvLookup Env(std::map<std::string, std::string> vars) {
  vars.emplace("AWS_EC2_METADATA_DISABLED", "true");
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

TEST(Credentials, EnvironmentComesFirst) {
  testutil::TempDir home;
  auto c = LoadCredentials(Env({{"AWS_ACCESS_KEY_ID", "AKID"},
                                {"AWS_SECRET_ACCESS_KEY", "secret"},
                                {"AWS_SESSION_TOKEN", "token"},
                                {"HOME", home.path().string()}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "AKID");
  EXPECT_EQ(c->secret_access_key, "secret");
  EXPECT_EQ(c->session_token, "token");
  EXPECT_EQ(c->source, "environment");
}

TEST(Credentials, HalfAPairInTheEnvironmentIsAnError) {
  auto c = LoadCredentials(Env({{"AWS_ACCESS_KEY_ID", "AKID"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kUnauthorized);
  EXPECT_NE(c.status().message().find("AWS_SECRET_ACCESS_KEY is not"), std::string::npos);
}

class CredentialsFile : public ::testing::Test {
 protected:
  void Write(const std::string& text) {
    std::filesystem::create_directories(temp_.path() / ".aws");
    std::ofstream(path()) << text;
  }
  std::string path() const { return temp_.Sub(".aws/credentials"); }
  std::string home() const { return temp_.path().string(); }
  testutil::TempDir temp_;
};

constexpr const char* kFile =
    "# written by aws configure\n"
    "[default]\n"
    "aws_access_key_id = AKIDDEFAULT\n"
    "aws_secret_access_key=secretdefault\n"
    "\n"
    "[ci]\n"
    "  AWS_ACCESS_KEY_ID =  ASIACI  \n"
    "aws_secret_access_key = secret/ci+=\n"
    "; a comment\n"
    "aws_session_token = tokenci\n"
    "[broken]\n"
    "aws_access_key_id = AKIDBROKEN\n";

TEST_F(CredentialsFile, DefaultProfileFromHome) {
  Write(kFile);
  auto c = LoadCredentials(Env({{"HOME", home()}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "AKIDDEFAULT");
  EXPECT_EQ(c->secret_access_key, "secretdefault");
  EXPECT_EQ(c->session_token, "");
  EXPECT_EQ(c->source, path() + " [default]");
}

TEST_F(CredentialsFile, ProfileAndFileFromTheEnvironment) {
  Write(kFile);
  auto c = LoadCredentials(
      Env({{"AWS_SHARED_CREDENTIALS_FILE", path()}, {"AWS_PROFILE", "ci"}, {"HOME", "/nowhere"}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "ASIACI");
  EXPECT_EQ(c->secret_access_key, "secret/ci+=");
  EXPECT_EQ(c->session_token, "tokenci");
}

TEST_F(CredentialsFile, MissingProfileIsNamed) {
  Write(kFile);
  auto c = LoadCredentials(Env({{"HOME", home()}, {"AWS_PROFILE", "prod"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kUnauthorized);
  EXPECT_NE(c.status().message().find("AWS_PROFILE=prod: no such profile"), std::string::npos)
      << c.status().message();
}

TEST_F(CredentialsFile, MissingKeyIsNamed) {
  Write(kFile);
  auto c = LoadCredentials(Env({{"HOME", home()}, {"AWS_PROFILE", "broken"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("has no aws_secret_access_key"), std::string::npos)
      << c.status().message();
}

TEST_F(CredentialsFile, NoSourceAtAllSaysWhatWasTried) {
  auto c = LoadCredentials(Env({{"HOME", home()}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kUnauthorized);
  const std::string& m = c.status().message();
  for (const char* said :
       {"environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set", "do not exist",
        "web identity: AWS_WEB_IDENTITY_TOKEN_FILE is not set",
        "container: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI are not set",
        "instance metadata: AWS_EC2_METADATA_DISABLED=true"})
    EXPECT_NE(m.find(said), std::string::npos) << said << " in: " << m;
  EXPECT_NE(m.find(path()), std::string::npos) << m;
}

TEST_F(CredentialsFile, MalformedLineIsInvalid) {
  Write("[default]\naws_access_key_id AKID\n");
  auto c = LoadCredentials(Env({{"HOME", home()}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(c.status().message().find(":2:"), std::string::npos) << c.status().message();
}

}  // namespace
}  // namespace indelible::aws

namespace indelible::aws {
namespace {

using std::chrono::system_clock;
using namespace std::chrono_literals;

ChainOptions Chain(EnvLookup env) {
  ChainOptions options;
  options.env = std::move(env);
  return options;
}

class SharedFiles : public ::testing::Test {
 protected:
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(temp_.Sub(name)) << text;
  }
  EnvLookup Files(std::map<std::string, std::string> more = {}) {
    more.emplace("AWS_CONFIG_FILE", temp_.Sub("config"));
    more.emplace("AWS_SHARED_CREDENTIALS_FILE", temp_.Sub("credentials"));
    more.emplace("HOME", "/nowhere");
    return Env(std::move(more));
  }
  testutil::TempDir temp_;
};

TEST_F(SharedFiles, ConfigProfilesAreNamedProfileAndTheCredentialsFileWins) {
  Write("config",
        "[default]\nregion = eu-west-1\n"
        "[profile app]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = fromconfig\n"
        "region = us-west-2\n"
        "[sso-session corp]\nsso_region = us-east-1\n");
  Write("credentials", "[app]\naws_secret_access_key = fromcredentials\n");
  auto c = LoadCredentials(Files({{"AWS_PROFILE", "app"}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "AKIDCONFIG");
  EXPECT_EQ(c->secret_access_key, "fromcredentials");
  EXPECT_EQ(ConfiguredRegion(Files({{"AWS_PROFILE", "app"}})), "us-west-2");
  EXPECT_EQ(ConfiguredRegion(Files()), "eu-west-1");
  EXPECT_EQ(ConfiguredRegion(Files({{"AWS_REGION", "ap-south-1"}})), "ap-south-1");
}

TEST_F(SharedFiles, AProfileWithARegionOnlyIsSkippedNotAnError) {
  Write("config", "[default]\nregion = eu-west-1\n");
  auto c = LoadCredentials(Files());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kUnauthorized);
  EXPECT_NE(c.status().message().find("no credentials in it"), std::string::npos)
      << c.status().message();
}

TEST_F(SharedFiles, ACredentialProcessIsRunAndItsDocumentRead) {
  Write("config",
        "[default]\ncredential_process = printf '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROC\", "
        "\"SecretAccessKey\": \"s\", \"SessionToken\": \"t\", \"Expiration\": "
        "\"2099-01-01T00:00:00Z\"}'\n");
  auto provider = DefaultCredentialsChain(Chain(Files()));
  ASSERT_TRUE(provider.ok()) << provider.status().ToString();
  auto c = (*provider)->Current();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->access_key_id, "AKIDPROC");
  EXPECT_EQ((*c)->session_token, "t");
  ASSERT_TRUE((*c)->expiration.has_value());
  EXPECT_EQ(*(*c)->expiration, *ParseTimestamp("2099-01-01T00:00:00Z"));
}

TEST_F(SharedFiles, AFailingCredentialProcessStopsTheChain) {
  Write("config", "[default]\ncredential_process = exit 3\n");
  auto c = LoadCredentials(Files({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:9/x"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("failed with status 3"), std::string::npos)
      << c.status().message();
  EXPECT_EQ(c.status().message().find("container"), std::string::npos)
      << "a configured source that fails must not fall through: " << c.status().message();
}

TEST_F(SharedFiles, ProfilesThatCannotWorkSayWhy) {
  Write("config",
        "[profile mfa]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = mfa\nmfa_serial = x\n"
        "[profile loop]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = loop2\n"
        "[profile loop2]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = loop\n"
        "[profile sso]\nsso_session = corp\n"
        "[profile bare]\nrole_arn = arn:aws:iam::1:role/r\n");
  const std::map<std::string, std::string> expected = {{"mfa", "mfa_serial"},
                                                       {"loop", "leads back to itself"},
                                                       {"sso", "aws configure export-credentials"},
                                                       {"bare", "neither source_profile"}};
  for (const auto& [profile, said] : expected) {
    auto c = LoadCredentials(Files({{"AWS_PROFILE", profile}}));
    ASSERT_FALSE(c.ok()) << profile;
    EXPECT_NE(c.status().message().find(said), std::string::npos)
        << profile << ": " << c.status().message();
  }
}

TEST(CredentialDocuments, TimestampsAsAwsWritesThem) {
  const auto base = ParseTimestamp("2026-11-28T17:40:00Z");
  ASSERT_TRUE(base.has_value());
  EXPECT_EQ(system_clock::to_time_t(*base), 1795887600);
  EXPECT_EQ(ParseTimestamp("2026-11-28T17:40:00.123Z"), base);
  EXPECT_EQ(ParseTimestamp("2026-11-28T18:40:00+01:00"), base);
  for (const char* bad :
       {"", "2026-11-28", "2026-11-28T17:40:00", "2026-11-28T17:40:00Zjunk", "yesterday"})
    EXPECT_FALSE(ParseTimestamp(bad).has_value()) << bad;
}

TEST(CredentialDocuments, ContainerAndMetadataDocuments) {
  auto c = ParseCredentialsDocument(
      R"({"Code":"Success","AccessKeyId":"ASIA1","SecretAccessKey":"s","Token":"t",)"
      R"("Expiration":"2026-11-28T17:40:00Z"})",
      "test");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->session_token, "t");
  EXPECT_TRUE(c->expiration.has_value());
  EXPECT_FALSE(ParseCredentialsDocument(R"({"AccessKeyId":"A"})", "test").ok());
  EXPECT_FALSE(ParseCredentialsDocument(R"({"Code":"Failure","Message":"m"})", "test").ok());
  EXPECT_FALSE(ParseCredentialsDocument("<html>", "test").ok());
}

TEST(ContainerCredentials, PlainHttpOnlyToLoopbackOrTheAgents) {
  auto c = LoadCredentials(Env(
      {{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://example.com/creds"}, {"HOME", "/nowhere"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(c.status().message().find("use https"), std::string::npos) << c.status().message();
}

TEST(StsEndpoint, RegionalUnlessOverridden) {
  EXPECT_EQ(ChooseStsEndpoint(Env({}), "eu-west-1").url, "https://sts.eu-west-1.amazonaws.com");
  EXPECT_EQ(ChooseStsEndpoint(Env({}), "").url, "https://sts.amazonaws.com");
  EXPECT_EQ(ChooseStsEndpoint(Env({}), "").region, "us-east-1");
  EXPECT_EQ(ChooseStsEndpoint(Env({{"AWS_ENDPOINT_URL", "http://127.0.0.1:1"}}), "x").url,
            "http://127.0.0.1:1");
  EXPECT_EQ(ChooseStsEndpoint(Env({{"AWS_ENDPOINT_URL", "http://127.0.0.1:1"},
                                   {"AWS_ENDPOINT_URL_STS", "http://127.0.0.1:2"}}),
                              "x")
                .url,
            "http://127.0.0.1:2");
}

TEST(Refresh, AheadOfExpiryByTheSdksRuleOrHalfTheLifetime) {
  const auto now = system_clock::now();
  EXPECT_EQ(RefreshTime(now, now + 1h), now + 55min);
  EXPECT_EQ(RefreshTime(now, now + 20s), now + 10s);
  EXPECT_EQ(UsableUntil(now, now + 1h), now + 1h - 15s);
  EXPECT_EQ(UsableUntil(now, now + 16s), now + 14s);
}

Credentials Expiring(int n, std::chrono::milliseconds lifetime) {
  Credentials c{"ASIA" + std::to_string(n), "secret", "token", "test"};
  c.expiration = system_clock::now() + lifetime;
  return c;
}

TEST(Refresh, ShortLivedCredentialsAreReplacedBeforeTheyExpire) {
  std::atomic<int> loads{0};
  RefreshingCredentials provider([&]() -> Result<Credentials> { return Expiring(++loads, 1200ms); },
                                 Expiring(0, 1200ms));
  std::set<std::string> seen;
  const auto end = system_clock::now() + 3500ms;
  while (system_clock::now() < end) {
    auto c = provider.Current();
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    // Never handed out at or past its expiration.
    EXPECT_GT(*(*c)->expiration, system_clock::now());
    seen.insert((*c)->access_key_id);
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_GE(provider.refreshes(), 4);
  EXPECT_GE(seen.size(), 4u);
}

TEST(Refresh, ExpiredCredentialsAreRefusedWhileRefreshesFail) {
  std::atomic<bool> fail{true};
  RefreshingCredentials provider(
      [&]() -> Result<Credentials> {
        if (fail) return Status::Unavailable("the fake source is down");
        return Expiring(1, 10s);
      },
      Expiring(0, 800ms));
  ASSERT_TRUE(provider.Current().ok());
  std::this_thread::sleep_for(900ms);
  auto c = provider.Current();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(c.status().message().find("the fake source is down"), std::string::npos)
      << c.status().message();
  EXPECT_GE(provider.refresh_failures(), 1);
  fail = false;
  const auto end = system_clock::now() + 5s;
  while (!provider.Current().ok() && system_clock::now() < end) std::this_thread::sleep_for(20ms);
  auto back = provider.Current();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->access_key_id, "ASIA1");
}

TEST(RetryStrategy, FullJitterUnderTheCeilingWithAThrottleBase) {
  RetryOptions options;
  EXPECT_EQ(RetryDelay(options, RetryKind::kTransient, 1, 25), 25ms);
  EXPECT_EQ(RetryDelay(options, RetryKind::kThrottle, 1, 500), 500ms);
  EXPECT_EQ(RetryDelay(options, RetryKind::kThrottle, 2, 1000), 1000ms);
  EXPECT_EQ(RetryDelay(options, RetryKind::kThrottle, 30, 20000), 20000ms);  // the cap
  EXPECT_EQ(RetryDelay(options, RetryKind::kThrottle, 30, 20001), 0ms);
  for (std::uint64_t r = 0; r < 2000; r += 7)
    EXPECT_LE(RetryDelay(options, RetryKind::kOther, 3, r), 100ms);
}

TEST(RetryStrategy, TheQuotaEmptiesAndRefills) {
  RetryQuota quota(500);
  int retries = 0;
  while (quota.Acquire(RetryKind::kThrottle) != 0) ++retries;
  EXPECT_EQ(retries, 100);  // 500 tokens, 5 a retry
  EXPECT_EQ(quota.Acquire(RetryKind::kTransient), 0);
  quota.Release(RetryQuota::kRetryCost);  // a retried call succeeded
  EXPECT_EQ(quota.tokens(), 5);
  for (int i = 0; i < 5; ++i) quota.Release(0);  // calls that needed no retry
  EXPECT_EQ(quota.tokens(), 10);
  EXPECT_EQ(quota.Acquire(RetryKind::kTransient), 10);
  for (int i = 0; i < 1000; ++i) quota.Release(0);
  EXPECT_EQ(quota.tokens(), 500);  // never past its capacity
  RetryQuota off(0);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(off.Acquire(RetryKind::kThrottle), 5);
}

}  // namespace
}  // namespace indelible::aws
