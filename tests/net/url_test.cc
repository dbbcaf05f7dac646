// net/url.h: http:// and https:// URLs, and percent-encoding.
#include "net/url.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace indelible::net {
namespace {

TEST(Url, HttpWithPortAndPrefix) {
  auto e = ParseUrl("http://127.0.0.1:2113/events/");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_FALSE(e->tls);
  EXPECT_EQ(e->host, "127.0.0.1");
  EXPECT_EQ(e->port, "2113");
  EXPECT_EQ(e->host_header, "127.0.0.1:2113");
  EXPECT_EQ(e->base_path, "/events");
  EXPECT_EQ(e->url, "http://127.0.0.1:2113/events/");  // as given, for messages
}

TEST(Url, HttpsDefaultsTo443AndLeavesItOutOfHost) {
  auto e = ParseUrl("https://dynamodb.us-east-1.amazonaws.com");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_TRUE(e->tls);
  EXPECT_EQ(e->port, "443");
  EXPECT_EQ(e->host_header, "dynamodb.us-east-1.amazonaws.com");
  EXPECT_EQ(e->base_path, "");
  e = ParseUrl("https://example.com:443/");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->host_header, "example.com");
  e = ParseUrl("https://example.com:8443");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->host_header, "example.com:8443");
  e = ParseUrl("http://example.com");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->port, "80");
  EXPECT_EQ(e->host_header, "example.com");
}

TEST(Url, Ipv6InBrackets) {
  auto e = ParseUrl("https://[::1]:8443/p");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->host, "::1");
  EXPECT_EQ(e->port, "8443");
  EXPECT_EQ(e->host_header, "[::1]:8443");
  EXPECT_EQ(e->base_path, "/p");
  e = ParseUrl("http://[::1]");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->host_header, "[::1]");
}

TEST(Url, MistakesAreInvalidAndSaySo) {
  for (const auto& [url, says] : std::vector<std::pair<std::string, std::string>>{
           {"ftp://x", "does not start with http:// or https://"},
           {"127.0.0.1:2113", "does not start with http://"},
           {"http://", "the host is missing"},
           {"https://:443", "the host is missing"},
           {"http://x:0", "port '0'"},
           {"http://x:99999", "port '99999'"},
           {"http://x:", "the port after ':' is missing"},
           {"http://x:port", "port 'port'"},
           {"http://x/path?q=1", "a query or fragment"},
           {"https://x#f", "a query or fragment"},
           {"https://user:pw@x", "user names and passwords"},
           {"http://[::1", "lacks its ']'"},
           {"http://[::1]x", "unexpected text after the IPv6 address"},
           {"http://::1:80", "an IPv6 address goes in brackets"},
       }) {
    auto e = ParseUrl(url, "endpoint");
    ASSERT_FALSE(e.ok()) << url;
    EXPECT_EQ(e.status().code(), ErrorCode::kInvalid) << url;
    EXPECT_EQ(e.status().field(), "endpoint") << url;
    EXPECT_NE(e.status().message().find(says), std::string::npos) << e.status().message();
  }
}

TEST(Url, MakeEndpointFromParts) {
  auto e = MakeEndpoint(false, "streams.local", "8000", "url");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->url, "http://streams.local:8000");
  EXPECT_EQ(e->host_header, "streams.local:8000");
  e = MakeEndpoint(true, "fe80::1", "", "url");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->url, "https://[fe80::1]");
  EXPECT_EQ(e->port, "443");
  EXPECT_FALSE(MakeEndpoint(true, "", "", "url").ok());
}

TEST(Url, PercentEncodingKeepsOnlyUnreservedBytes) {
  EXPECT_EQ(PercentEncode("BANK_ACCOUNT/123"), "BANK_ACCOUNT%2F123");
  EXPECT_EQ(PercentEncode("a b?c&d=e"), "a%20b%3Fc%26d%3De");
  EXPECT_EQ(PercentEncode("Az09-._~"), "Az09-._~");
  EXPECT_EQ(PercentEncode("\xc3\xa9"), "%C3%A9");
}

}  // namespace
}  // namespace indelible::net
