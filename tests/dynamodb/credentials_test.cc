// The credential sources in their order, and the errors that say what is
// missing where.
#include "aws/credentials.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "testutil/temp_dir.h"

namespace indelible::aws {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
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
  EXPECT_NE(c.status().message().find("has no [prod] profile"), std::string::npos)
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
  EXPECT_NE(c.status().message().find("AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not set"),
            std::string::npos);
  EXPECT_NE(c.status().message().find(path() + " cannot be read"), std::string::npos)
      << c.status().message();
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
