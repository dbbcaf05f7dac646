// dynamodb:// store URLs (http(s) endpoints: tests/net/url_test.cc).
#include <gtest/gtest.h>

#include "storage/dynamodb/store_url.h"

namespace indelible::dynamodb {
namespace {

// No environment, and instance metadata off: a test machine on EC2 would
// otherwise give its region.
std::optional<std::string> NoEnv(const char* name) {
  if (std::string_view(name) == "AWS_EC2_METADATA_DISABLED") return "true";
  return std::nullopt;
}

TEST(StoreUrl, LocalEmulator) {
  auto u = ParseStoreUrl("dynamodb://127.0.0.1:8000?region=us-east-1&prefix=ib_&tls=0", NoEnv);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_FALSE(u->endpoint.tls);
  EXPECT_EQ(u->endpoint.host, "127.0.0.1");
  EXPECT_EQ(u->endpoint.port, "8000");
  EXPECT_EQ(u->endpoint.url, "http://127.0.0.1:8000");
  EXPECT_EQ(u->endpoint.host_header, "127.0.0.1:8000");
  EXPECT_EQ(u->region, "us-east-1");
  EXPECT_EQ(u->table_prefix, "ib_");
}

TEST(StoreUrl, AwsHostNamesItsRegionAndUsesTls) {
  auto u = ParseStoreUrl("dynamodb://dynamodb.eu-west-1.amazonaws.com?prefix=shop_", NoEnv);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_TRUE(u->endpoint.tls);
  EXPECT_EQ(u->endpoint.port, "443");
  EXPECT_EQ(u->endpoint.url, "https://dynamodb.eu-west-1.amazonaws.com");
  EXPECT_EQ(u->endpoint.host_header, "dynamodb.eu-west-1.amazonaws.com");
  EXPECT_EQ(u->region, "eu-west-1");
  EXPECT_EQ(u->table_prefix, "shop_");
}

TEST(StoreUrl, RegionFromTheEnvironmentAndTuning) {
  auto env = [](const char* name) -> std::optional<std::string> {
    if (std::string_view(name) == "AWS_DEFAULT_REGION") return "ca-central-1";
    return std::nullopt;
  };
  auto u = ParseStoreUrl(
      "dynamodb://[::1]:8000?tls=0&connect_timeout_ms=500&request_timeout_ms=2000&max_attempts=3"
      "&commit_threads=4&tip_appends=8&tip_bytes=4096",
      env);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->endpoint.host, "::1");
  EXPECT_EQ(u->endpoint.host_header, "[::1]:8000");
  EXPECT_EQ(u->region, "ca-central-1");
  EXPECT_EQ(u->table_prefix, "indelible_");
  EXPECT_EQ(u->connect_timeout, std::chrono::milliseconds(500));
  EXPECT_EQ(u->request_timeout, std::chrono::milliseconds(2000));
  EXPECT_EQ(u->max_attempts, 3);
  EXPECT_EQ(u->commit_threads, 4);
  EXPECT_EQ(u->tip_appends, 8);
  EXPECT_EQ(u->tip_bytes, 4096);
  EXPECT_EQ(ParseStoreUrl("dynamodb://h?region=r", NoEnv)->commit_threads, 16);
}

TEST(StoreUrl, MistakesAreInvalidAndSaySo) {
  for (const auto& [url, says] : std::vector<std::pair<std::string, std::string>>{
           {"dynamodb://localhost:8000?tls=0", "names no region"},
           {"dynamodb://localhost?region=x&regoin=y", "unknown parameter 'regoin'"},
           {"dynamodb://localhost?region=x&tls=yes", "tls=yes must be 0 or 1"},
           {"dynamodb://localhost?region=x&prefix=a/b", "prefix 'a/b'"},
           {"dynamodb://localhost:99999?region=x", "port '99999'"},
           {"dynamodb://localhost/table?region=x", "no path"},
           {"dynamodb://key:secret@localhost?region=x", "credentials come from the environment"},
           {"dynamodb://localhost?region=x&max_attempts=0", "max_attempts=0"},
           {"dynamodb://localhost?region=x&deadline_ms=0", "deadline_ms=0"},
           {"dynamodb://localhost?region=x&commit_threads=0", "commit_threads=0"},
           {"dynamodb://localhost?region=x&commit_threads=many", "commit_threads=many"},
           {"dynamodb://localhost?region=x&tip_appends=65", "tip_appends=65"},
           {"dynamodb://localhost?region=x&tip_bytes=100", "tip_bytes=100"},
           {"http://localhost:8000", "is not a dynamodb://"},
       }) {
    auto u = ParseStoreUrl(url, NoEnv);
    ASSERT_FALSE(u.ok()) << url;
    EXPECT_EQ(u.status().code(), ErrorCode::kInvalid) << url;
    EXPECT_EQ(u.status().field(), "url") << url;
    EXPECT_NE(u.status().message().find(says), std::string::npos) << u.status().message();
  }
}

}  // namespace
}  // namespace indelible::dynamodb
