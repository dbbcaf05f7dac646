// The real `indelible serve` on DynamoDB (DynamoDB Local behind the fake's
// front), with nothing but one credential source in its environment, under a
// load of appends while every credential it gets expires after 20 s: web
// identity (EKS IRSA), container credentials with the token in the
// environment and in a file (ECS, Fargate, EKS Pod Identity), the instance
// profile over IMDSv2 (with the region from IMDS), and a profile that
// assumes a role. All sources run at once, each with its own fake and
// server. No append may fail and no request may reach DynamoDB signed with
// expired, foreign or mismatched credentials (the front checks each one);
// every source must have been asked again and again (refresh).
//
// INDELIBLE_CREDENTIALS_LOAD_SECONDS sets the load's length (default 60).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dynamodb/fake_aws.h"
#include "testutil/dynamodb_server.h"
#include "testutil/temp_dir.h"

namespace indelible::testutil {
namespace {

constexpr int kLifetimeSeconds = 20;
constexpr char kRoleArn[] = "arn:aws:iam::123456789012:role/test";
constexpr char kWebIdentityToken[] = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJpbmRlbGlibGUifQ.c2lnbmF0dXJl";
constexpr char kContainerToken[] = "Basic Y29udGFpbmVyLXRva2Vu";

int LoadSeconds() {
  const char* text = std::getenv("INDELIBLE_CREDENTIALS_LOAD_SECONDS");
  return text != nullptr && std::atoi(text) > 0 ? std::atoi(text) : 60;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

// One credential source: its fake, and the server that gets its credentials
// only from there.
struct Source {
  std::string name;    // also the stat in "issued" that counts its issues
  std::string issued;  // "web_identity", "container", "imds", "sts"
  std::unique_ptr<FakeAws> fake;
  std::unique_ptr<IsolatedServer> server;
  AppendLoadResult load;
};

class CredentialsLoadTest : public ::testing::Test {
 protected:
  // The environment every server starts from: no AWS keys, a HOME and AWS
  // files of its own that are empty, so neither the machine's ~/.aws nor its
  // variables are read; no instance metadata unless the source is IMDS.
  static std::vector<std::string> BaseEnv(const std::string& home, bool imds) {
    std::vector<std::string> env = IsolatedServer::SanitizerEnv();
    env.push_back("HOME=" + home);
    env.push_back("AWS_CONFIG_FILE=" + home + "/no-config");
    env.push_back("AWS_SHARED_CREDENTIALS_FILE=" + home + "/no-credentials");
    if (!imds) env.push_back("AWS_EC2_METADATA_DISABLED=true");
    return env;
  }

  // Starts the fake of `source` in front of the shared DynamoDB Local.
  static void StartFake(Source& source, FakeAwsOptions options) {
    auto& dynamodb = SharedDynamoDbServer("local");
    ASSERT_FALSE(dynamodb.endpoint().empty()) << dynamodb.output();
    options.dynamodb = dynamodb.endpoint();
    options.lifetime_s = kLifetimeSeconds;
    // Every signature must be scoped to the region, also where only IMDS says it.
    options.region = "eu-test-1";
    source.fake = std::make_unique<FakeAws>(std::move(options));
    ASSERT_TRUE(source.fake->Start()) << source.name << ": " << source.fake->output();
  }

  // Starts the server of `source` with `env` (and nothing else) on tables of
  // its own, through the fake's front; region= in the URL when `region_in_url`.
  void StartServer(Source& source, std::vector<std::string> env, bool region_in_url) {
    auto& dynamodb = SharedDynamoDbServer("local");
    static const unsigned run = std::random_device()() % 100000;
    const std::string prefix = "credload_" + source.name + "_" + std::to_string(run) + "_";
    if (std::getenv("INDELIBLE_DYNAMODB_LOCAL_ENDPOINT_FILE") != nullptr)
      DropTablesAtExit(dynamodb.endpoint(), prefix);
    const std::string url = "dynamodb://127.0.0.1:" + std::to_string(source.fake->dynamodb_port()) +
                            "?" + (region_in_url ? "region=eu-test-1&" : "") + "prefix=" + prefix +
                            "&tls=0";
    source.server = std::make_unique<IsolatedServer>(
        INDELIBLE_PATH, std::vector<std::string>{"--data", url, "serve", "--listen", "127.0.0.1:0"},
        std::move(env), tmp_.Sub(source.name + ".log"));
    ASSERT_TRUE(source.server->Start())
        << "the server with " << source.name
        << " credentials did not start (its credential chain must find them there):\n"
        << source.server->LogTail();
  }

  // An empty folder of its own for a source: its HOME.
  std::string Home(const std::string& name) {
    const std::string dir = tmp_.Sub(name);
    std::filesystem::create_directories(dir);
    return dir;
  }

  TempDir tmp_;
};

TEST_F(CredentialsLoadTest, AppendsRunThroughCredentialRefreshesFromEverySource) {
  std::vector<Source> sources(5);

  // EKS IRSA: a projected token file and a role, STS at its regional endpoint.
  Source& web = sources[0];
  web.name = "web_identity";
  web.issued = "web_identity";
  ASSERT_NO_FATAL_FAILURE(StartFake(web, {.web_identity_token = kWebIdentityToken}));
  {
    const std::string home = Home(web.name);
    WriteFile(home + "/token", kWebIdentityToken);
    auto env = BaseEnv(home, false);
    env.push_back("AWS_WEB_IDENTITY_TOKEN_FILE=" + home + "/token");
    env.push_back(std::string("AWS_ROLE_ARN=") + kRoleArn);
    env.push_back("AWS_ENDPOINT_URL_STS=" + web.fake->sts_url());
    ASSERT_NO_FATAL_FAILURE(StartServer(web, env, true));
  }

  // ECS and Fargate: the full URI, the token in the environment.
  Source& container = sources[1];
  container.name = "container_token";
  container.issued = "container";
  ASSERT_NO_FATAL_FAILURE(StartFake(container, {.container_token = kContainerToken}));
  {
    auto env = BaseEnv(Home(container.name), false);
    env.push_back("AWS_CONTAINER_CREDENTIALS_FULL_URI=" + container.fake->container_url() +
                  "/creds");
    env.push_back(std::string("AWS_CONTAINER_AUTHORIZATION_TOKEN=") + kContainerToken);
    ASSERT_NO_FATAL_FAILURE(StartServer(container, env, true));
  }

  // EKS Pod Identity: the token in a file, read again at every refresh.
  Source& pod = sources[2];
  pod.name = "container_token_file";
  pod.issued = "container";
  ASSERT_NO_FATAL_FAILURE(StartFake(pod, {.container_token = kContainerToken}));
  {
    const std::string home = Home(pod.name);
    WriteFile(home + "/container-token", kContainerToken);
    auto env = BaseEnv(home, false);
    env.push_back("AWS_CONTAINER_CREDENTIALS_FULL_URI=" + pod.fake->container_url() +
                  "/v1/credentials");
    env.push_back("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=" + home + "/container-token");
    ASSERT_NO_FATAL_FAILURE(StartServer(pod, env, true));
  }

  // EC2: the instance profile over IMDSv2, and the region from IMDS (none in
  // the URL, none in the environment).
  Source& imds = sources[3];
  imds.name = "imds";
  imds.issued = "imds";
  ASSERT_NO_FATAL_FAILURE(StartFake(imds, {}));
  {
    auto env = BaseEnv(Home(imds.name), true);
    env.push_back("AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imds.fake->imds_url());
    ASSERT_NO_FATAL_FAILURE(StartServer(imds, env, false));
  }

  // A profile that assumes a role with the keys of another profile.
  Source& profile = sources[4];
  profile.name = "assume_role_profile";
  profile.issued = "sts";
  ASSERT_NO_FATAL_FAILURE(StartFake(
      profile, {.source_key_id = "AKIDSOURCE", .source_secret = "source-profile-secret"}));
  {
    const std::string home = Home(profile.name);
    WriteFile(home + "/config", std::string("[profile app]\nrole_arn = ") + kRoleArn +
                                    "\nsource_profile = base\n\n[profile base]\n"
                                    "aws_access_key_id = AKIDSOURCE\n"
                                    "aws_secret_access_key = source-profile-secret\n");
    std::vector<std::string> env = IsolatedServer::SanitizerEnv();
    env.push_back("HOME=" + home);
    env.push_back("AWS_CONFIG_FILE=" + home + "/config");
    env.push_back("AWS_SHARED_CREDENTIALS_FILE=" + home + "/no-credentials");
    env.push_back("AWS_EC2_METADATA_DISABLED=true");
    env.push_back("AWS_PROFILE=app");
    env.push_back("AWS_ENDPOINT_URL_STS=" + profile.fake->sts_url());
    ASSERT_NO_FATAL_FAILURE(StartServer(profile, env, true));
  }

  // What starting cost (table creation, the first credentials) is not load.
  for (Source& s : sources) ASSERT_TRUE(s.fake->Reset());
  const int seconds = LoadSeconds();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::vector<std::thread> loads;
  for (Source& s : sources)
    loads.emplace_back([&s, until] { s.load = RunAppendLoad(s.server->url(), s.name, 2, until); });
  for (auto& t : loads) t.join();

  // A refresh (a new issue) per lifetime that passed: 3 in the 60 s of CI.
  // A local run shorter than a lifetime cannot show one.
  const std::int64_t min_issues = seconds / kLifetimeSeconds;
  if (min_issues == 0)
    std::printf("%d s is shorter than a credential's life: refreshes are not checked\n", seconds);
  for (Source& s : sources) {
    SCOPED_TRACE(s.name);
    EXPECT_GT(s.load.acknowledged, 0u);
    EXPECT_EQ(s.load.failed, 0u) << ::testing::PrintToString(s.load.failures) << "\n"
                                 << s.server->LogTail();
    const boost::json::object stats = s.fake->Stats();
    ASSERT_FALSE(stats.empty()) << "the fake did not answer";
    const auto count = [&stats](const char* name) { return stats.at(name).as_int64(); };
    EXPECT_GT(count("requests"), 0);
    EXPECT_EQ(count("expired_signatures"), 0) << "requests signed with expired credentials";
    EXPECT_EQ(count("bad_tokens"), 0) << "a session token of other credentials";
    EXPECT_EQ(count("bad_signatures"), 0) << "signatures that do not check (or another region)";
    EXPECT_EQ(count("foreign_keys"), 0) << "requests signed with keys the source did not issue";
    EXPECT_EQ(count("unsigned"), 0);
    EXPECT_GE(stats.at("issued").at(s.issued).as_int64(), min_issues)
        << "credentials were not refreshed: " << boost::json::serialize(stats);
    std::printf("%s: %llu appends, %lld DynamoDB requests, issued %s\n", s.name.c_str(),
                static_cast<unsigned long long>(s.load.acknowledged),
                static_cast<long long>(count("requests")),
                boost::json::serialize(stats.at("issued")).c_str());
  }
  for (Source& s : sources) {
    SCOPED_TRACE(s.name);
    EXPECT_EQ(s.server->Stop(), 0) << s.server->LogTail();
  }
}

}  // namespace
}  // namespace indelible::testutil
