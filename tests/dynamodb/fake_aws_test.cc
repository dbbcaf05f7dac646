// The fakes of tests/dynamodb/fake_aws.mjs, checked with a plain HTTP client
// and requests signed by aws::Sign, before the credential providers and the
// load tests trust them: IMDSv2 only, STS's documents and errors, the
// container endpoint's token, and the DynamoDB front that refuses expired,
// mistokened and badly signed requests and throttles the fraction asked.
#include "dynamodb/fake_aws.h"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "aws/sigv4.h"
#include "testutil/dynamodb_server.h"

namespace indelible::testutil {
namespace {

namespace json = boost::json;
namespace http = net::http;
using std::chrono::seconds;

constexpr char kRoleArn[] = "arn:aws:iam::123456789012:role/test";

// The text of the first <name> element of `xml`; empty when there is none.
std::string Element(const std::string& xml, const std::string& name) {
  const auto open = xml.find("<" + name + ">");
  if (open == std::string::npos) return "";
  const auto begin = open + name.size() + 2;
  const auto end = xml.find("</" + name + ">", begin);
  return end == std::string::npos ? "" : xml.substr(begin, end - begin);
}

// "2026-11-28T17:40:00Z" as Unix seconds; -1 when not of that form.
long long IsoSeconds(const std::string& text) {
  std::tm tm{};
  if (text.size() != 20 || text.back() != 'Z' ||
      ::strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr)
    return -1;
  return static_cast<long long>(::timegm(&tm));
}

long long NowSeconds() {
  return std::chrono::duration_cast<seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Keys to sign with (aws::Credentials has members without defaults).
aws::Credentials Keys(std::string id, std::string secret, std::string token = "") {
  aws::Credentials keys;
  keys.access_key_id = std::move(id);
  keys.secret_access_key = std::move(secret);
  keys.session_token = std::move(token);
  return keys;
}

std::unique_ptr<net::HttpClient> ClientOf(const std::string& url) {
  net::HttpClientOptions o;
  o.endpoint = *net::ParseUrl(url);
  auto client = net::HttpClient::Create(o);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(*client) : nullptr;
}

// Sends `request` once; an answer with status 0 when there was none.
net::Response Once(net::HttpClient& client, const net::Request& request) {
  net::Exchange exchange = client.Send(request, net::RetryPolicy{});
  EXPECT_TRUE(exchange.ok()) << exchange.status.ToString();
  if (!exchange.ok()) {
    net::Response none;
    none.result(static_cast<unsigned>(0));
    return none;
  }
  return exchange.response;
}

net::Response Get(net::HttpClient& client, std::string_view target,
                  const std::vector<aws::Header>& headers = {}) {
  net::Request request = client.MakeRequest(http::verb::get, target);
  for (const auto& [name, value] : headers) request.set(name, value);
  return Once(client, request);
}

// A POST / signed as the AWS SDKs sign it: host, content-type, x-amz-date,
// the session token and `extra` among the signed headers.
net::Request Signed(net::HttpClient& client, const std::string& content_type, std::string body,
                    const aws::Credentials& credentials, std::string_view region,
                    std::string_view service, std::vector<aws::Header> extra = {}) {
  net::Request request = client.MakeRequest(http::verb::post, "/");
  const std::string amz_date = aws::AmzDate(std::chrono::system_clock::now());
  std::vector<aws::Header> headers = std::move(extra);
  headers.emplace_back("host", std::string(request[http::field::host]));
  headers.emplace_back("content-type", content_type);
  for (auto& header : aws::SigningHeaders(credentials, amz_date)) headers.push_back(header);
  aws::SigningRequest signing;
  signing.method = "POST";
  signing.headers = headers;
  signing.body = body;
  const aws::Signature signature = aws::Sign(signing, credentials, region, service, amz_date);
  for (const auto& [name, value] : headers)
    if (name != "host") request.set(name, value);
  request.set(http::field::authorization, signature.authorization);
  request.body() = std::move(body);
  request.prepare_payload();
  return request;
}

// A DynamoDB call through the front.
net::Response DynamoDb(net::HttpClient& client, const aws::Credentials& credentials,
                       std::string_view operation, const std::string& body = "{}",
                       std::string_view region = "eu-test-1") {
  return Once(client,
              Signed(client, "application/x-amz-json-1.0", body, credentials, region, "dynamodb",
                     {{"x-amz-target", "DynamoDB_20120810." + std::string(operation)}}));
}

std::string ErrorType(const net::Response& answer) {
  boost::system::error_code ec;
  const json::value body = json::parse(answer.body(), ec);
  if (ec || !body.is_object() || !body.as_object().contains("__type")) return "";
  return std::string(body.at("__type").as_string());
}

std::int64_t Count(const json::object& stats, std::string_view name) {
  const auto* value = stats.if_contains(name);
  return value != nullptr && value->is_int64() ? value->as_int64() : -1;
}

// The credentials of an AssumeRoleWithWebIdentity answer.
aws::Credentials WebIdentityCredentials(FakeAws& fake, const std::string& token) {
  auto sts = ClientOf(fake.sts_url());
  net::Request request = sts->MakeRequest(http::verb::post, "/");
  request.set(http::field::content_type, "application/x-www-form-urlencoded; charset=utf-8");
  request.body() = "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" +
                   aws::UriEncode(kRoleArn, false) +
                   "&RoleSessionName=fake-test&WebIdentityToken=" + aws::UriEncode(token, false);
  request.prepare_payload();
  const net::Response answer = Once(*sts, request);
  EXPECT_EQ(answer.result_int(), 200u) << answer.body();
  return Keys(Element(answer.body(), "AccessKeyId"), Element(answer.body(), "SecretAccessKey"),
              Element(answer.body(), "SessionToken"));
}

class FakeAwsTest : public ::testing::Test {
 protected:
  // A fake in front of the shared DynamoDB Local.
  std::unique_ptr<FakeAws> StartFake(FakeAwsOptions options) {
    auto& server = SharedDynamoDbServer("local");
    EXPECT_FALSE(server.endpoint().empty()) << server.output();
    options.dynamodb = server.endpoint();
    auto fake = std::make_unique<FakeAws>(std::move(options));
    EXPECT_TRUE(fake->Start()) << fake->output();
    return fake;
  }
};

TEST_F(FakeAwsTest, ImdsIsVersionTwoOnly) {
  auto fake = StartFake({.lifetime_s = 60});
  auto imds = ClientOf(fake->imds_url());
  const std::string role_path = "/latest/meta-data/iam/security-credentials/";

  EXPECT_EQ(Get(*imds, role_path).result_int(), 401u) << "IMDSv1, a GET without a token";
  EXPECT_EQ(Get(*imds, role_path, {{"X-aws-ec2-metadata-token", "made-up"}}).result_int(), 401u);

  auto put_token = [&](std::vector<aws::Header> headers) {
    net::Request request = imds->MakeRequest(http::verb::put, "/latest/api/token");
    for (const auto& [name, value] : headers) request.set(name, value);
    return Once(*imds, request);
  };
  EXPECT_EQ(put_token({}).result_int(), 400u) << "the TTL header is required";
  EXPECT_EQ(put_token({{"X-aws-ec2-metadata-token-ttl-seconds", "0"}}).result_int(), 400u);
  EXPECT_EQ(put_token({{"X-aws-ec2-metadata-token-ttl-seconds", "21601"}}).result_int(), 400u);
  EXPECT_EQ(
      put_token({{"X-aws-ec2-metadata-token-ttl-seconds", "60"}, {"X-Forwarded-For", "1.2.3.4"}})
          .result_int(),
      403u)
      << "a proxied token request";
  EXPECT_EQ(Get(*imds, "/latest/api/token").result_int(), 405u);

  const net::Response token = put_token({{"X-aws-ec2-metadata-token-ttl-seconds", "21600"}});
  ASSERT_EQ(token.result_int(), 200u);
  EXPECT_EQ(token["X-aws-ec2-metadata-token-ttl-seconds"], "21600");
  const std::vector<aws::Header> with_token{{"X-aws-ec2-metadata-token", token.body()}};

  const net::Response role = Get(*imds, role_path, with_token);
  ASSERT_EQ(role.result_int(), 200u);
  EXPECT_EQ(role.body(), "indelible-test-role");
  const net::Response credentials = Get(*imds, role_path + role.body(), with_token);
  ASSERT_EQ(credentials.result_int(), 200u);
  const json::object document = json::parse(credentials.body()).as_object();
  EXPECT_EQ(document.at("Code").as_string(), "Success");
  EXPECT_EQ(document.at("Type").as_string(), "AWS-HMAC");
  EXPECT_TRUE(std::string(document.at("AccessKeyId").as_string()).starts_with("ASIAFAKE"));
  EXPECT_FALSE(document.at("SecretAccessKey").as_string().empty());
  EXPECT_FALSE(document.at("Token").as_string().empty());
  const long long expires = IsoSeconds(std::string(document.at("Expiration").as_string()));
  EXPECT_NEAR(expires - NowSeconds(), 60, 2) << document.at("Expiration");
  EXPECT_GT(IsoSeconds(std::string(document.at("LastUpdated").as_string())), 0);
  // The instance profile hands out the same set until it nears its expiry.
  EXPECT_EQ(json::parse(Get(*imds, role_path + role.body(), with_token).body()).at("AccessKeyId"),
            document.at("AccessKeyId"));

  EXPECT_EQ(Get(*imds, "/latest/meta-data/placement/region", with_token).body(), "eu-test-1");
  const net::Response identity =
      Get(*imds, "/latest/dynamic/instance-identity/document", with_token);
  EXPECT_EQ(json::parse(identity.body()).at("region").as_string(), "eu-test-1");
  EXPECT_EQ(Get(*imds, "/latest/meta-data/no-such-thing", with_token).result_int(), 404u);

  // A token lives its TTL and no longer.
  const net::Response short_lived = put_token({{"X-aws-ec2-metadata-token-ttl-seconds", "1"}});
  ASSERT_EQ(short_lived.result_int(), 200u);
  EXPECT_EQ(Get(*imds, role_path, {{"X-aws-ec2-metadata-token", short_lived.body()}}).result_int(),
            200u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(Get(*imds, role_path, {{"X-aws-ec2-metadata-token", short_lived.body()}}).result_int(),
            401u);

  const json::object stats = fake->Stats();
  EXPECT_EQ(Count(stats, "imds_tokens"), 2);
  EXPECT_EQ(Count(stats.at("issued").as_object(), "imds"), 1);
}

TEST_F(FakeAwsTest, StsAnswersAsTheApiReferenceShows) {
  auto fake = StartFake({.lifetime_s = 900,
                         .web_identity_token = "eyJ.web.identity",
                         .source_key_id = "AKIDSOURCE",
                         .source_secret = "source-secret"});
  auto sts = ClientOf(fake->sts_url());

  // AssumeRoleWithWebIdentity: unsigned, the token is the proof.
  const aws::Credentials web = WebIdentityCredentials(*fake, "eyJ.web.identity");
  EXPECT_TRUE(web.access_key_id.starts_with("ASIAFAKE"));
  EXPECT_FALSE(web.secret_access_key.empty());
  EXPECT_FALSE(web.session_token.empty());
  {
    net::Request request = sts->MakeRequest(http::verb::post, "/");
    request.set(http::field::content_type, "application/x-www-form-urlencoded");
    request.body() =
        "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%"
        "3A12345678901"
        "2%3Arole%2Ftest&RoleSessionName=s1&WebIdentityToken=eyJ.web.identity";
    request.prepare_payload();
    const net::Response answer = Once(*sts, request);
    ASSERT_EQ(answer.result_int(), 200u);
    EXPECT_EQ(answer[http::field::content_type], "text/xml");
    const std::string& xml = answer.body();
    EXPECT_NE(xml.find("<AssumeRoleWithWebIdentityResponse "
                       "xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"),
              std::string::npos)
        << xml;
    EXPECT_FALSE(Element(xml, "SubjectFromWebIdentityToken").empty());
    EXPECT_EQ(Element(xml, "Arn"), "arn:aws:sts::123456789012:assumed-role/test/s1");
    EXPECT_FALSE(Element(xml, "RequestId").empty());
    EXPECT_NEAR(IsoSeconds(Element(xml, "Expiration")) - NowSeconds(), 900, 2)
        << Element(xml, "Expiration");

    request.body() =
        "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%"
        "3A12345678901"
        "2%3Arole%2Ftest&RoleSessionName=s1&WebIdentityToken=another";
    request.prepare_payload();
    const net::Response refused = Once(*sts, request);
    EXPECT_EQ(refused.result_int(), 400u);
    EXPECT_EQ(Element(refused.body(), "Code"), "InvalidIdentityToken") << refused.body();
    EXPECT_EQ(Element(refused.body(), "Type"), "Sender");
  }

  // AssumeRole: signed, by the source profile's key or by temporary keys.
  const std::string assume_role =
      "Action=AssumeRole&Version=2011-06-15&RoleArn=" + aws::UriEncode(kRoleArn, false) +
      "&RoleSessionName=indelible-1";
  const std::string form = "application/x-www-form-urlencoded; charset=utf-8";
  auto assume = [&](const aws::Credentials& credentials, std::string_view service = "sts") {
    return Once(*sts, Signed(*sts, form, assume_role, credentials, "eu-test-1", service));
  };
  const net::Response by_source = assume(Keys("AKIDSOURCE", "source-secret"));
  ASSERT_EQ(by_source.result_int(), 200u) << by_source.body();
  EXPECT_NE(by_source.body().find("<AssumeRoleResponse "
                                  "xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"),
            std::string::npos);
  EXPECT_TRUE(Element(by_source.body(), "AccessKeyId").starts_with("ASIAFAKE"));
  EXPECT_EQ(Element(by_source.body(), "Arn"),
            "arn:aws:sts::123456789012:assumed-role/test/indelible-1");
  EXPECT_EQ(assume(web).result_int(), 200u) << "role chaining, with temporary keys";

  const net::Response wrong_secret = assume(Keys("AKIDSOURCE", "not-the-secret"));
  EXPECT_EQ(wrong_secret.result_int(), 403u);
  EXPECT_EQ(Element(wrong_secret.body(), "Code"), "SignatureDoesNotMatch");
  const net::Response unknown = assume(Keys("AKIDUNKNOWN", "secret"));
  EXPECT_EQ(unknown.result_int(), 403u);
  EXPECT_EQ(Element(unknown.body(), "Code"), "InvalidClientTokenId");
  EXPECT_EQ(Element(assume(web, "dynamodb").body(), "Code"), "SignatureDoesNotMatch")
      << "scoped to another service";
  {
    net::Request unsigned_request = sts->MakeRequest(http::verb::post, "/");
    unsigned_request.set(http::field::content_type, form);
    unsigned_request.body() = assume_role;
    unsigned_request.prepare_payload();
    const net::Response answer = Once(*sts, unsigned_request);
    EXPECT_EQ(answer.result_int(), 403u);
    EXPECT_EQ(Element(answer.body(), "Code"), "MissingAuthenticationToken");
  }

  const json::object stats = fake->Stats();
  EXPECT_EQ(Count(stats.at("issued").as_object(), "web_identity"), 2);
  EXPECT_EQ(Count(stats.at("issued").as_object(), "sts"), 2);
}

TEST_F(FakeAwsTest, StsRefusesExpiredKeys) {
  auto fake = StartFake({.lifetime_s = 1});
  const aws::Credentials web = WebIdentityCredentials(*fake, "any token will do");
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  auto sts = ClientOf(fake->sts_url());
  const net::Response answer =
      Once(*sts, Signed(*sts, "application/x-www-form-urlencoded",
                        "Action=AssumeRole&Version=2011-06-15&RoleArn=" +
                            aws::UriEncode(kRoleArn, false) + "&RoleSessionName=late",
                        web, "eu-test-1", "sts"));
  EXPECT_EQ(answer.result_int(), 403u);
  EXPECT_EQ(Element(answer.body(), "Code"), "ExpiredToken") << answer.body();
}

TEST_F(FakeAwsTest, ContainerEndpointWantsItsToken) {
  auto fake = StartFake({.lifetime_s = 60, .container_token = "Bearer container-secret"});
  auto container = ClientOf(fake->container_url());
  EXPECT_EQ(Get(*container, "/v2/credentials/abc").result_int(), 401u);
  EXPECT_EQ(Get(*container, "/creds", {{"Authorization", "Bearer other"}}).result_int(), 401u);
  const net::Response answer =
      Get(*container, "/creds", {{"Authorization", "Bearer container-secret"}});
  ASSERT_EQ(answer.result_int(), 200u);
  const json::object document = json::parse(answer.body()).as_object();
  for (const char* member : {"AccessKeyId", "SecretAccessKey", "Token", "Expiration", "RoleArn"})
    EXPECT_TRUE(document.contains(member)) << member;
  EXPECT_NEAR(IsoSeconds(std::string(document.at("Expiration").as_string())) - NowSeconds(), 60, 2);
  EXPECT_EQ(Count(fake->Stats().at("issued").as_object(), "container"), 1);
}

TEST_F(FakeAwsTest, FrontRefusesWhatDynamoDbWouldAndForwardsTheRest) {
  // Long enough for the calls before the expiry even on a slow (ASan) run.
  auto fake = StartFake({.lifetime_s = 5, .region = "eu-test-1"});
  auto front = ClientOf(fake->dynamodb_url());

  aws::Credentials fresh = WebIdentityCredentials(*fake, "t");
  const net::Response listed = DynamoDb(*front, fresh, "ListTables");
  ASSERT_EQ(listed.result_int(), 200u) << listed.body();
  EXPECT_TRUE(json::parse(listed.body()).as_object().contains("TableNames")) << listed.body();

  // A header whose value has runs of blanks: signed in its canonical form.
  const net::Response spaced = Once(
      *front, Signed(*front, "application/x-amz-json-1.0", "{}", fresh, "eu-test-1", "dynamodb",
                     {{"x-amz-target", "DynamoDB_20120810.ListTables"},
                      {"x-amz-meta-note", "  two   words "}}));
  EXPECT_EQ(spaced.result_int(), 200u) << spaced.body();

  aws::Credentials wrong_token = fresh;
  wrong_token.session_token += "x";
  const net::Response mistokened = DynamoDb(*front, wrong_token, "ListTables");
  EXPECT_EQ(mistokened.result_int(), 400u);
  EXPECT_EQ(ErrorType(mistokened), "com.amazon.coral.service#UnrecognizedClientException");

  aws::Credentials wrong_secret = fresh;
  wrong_secret.secret_access_key += "x";
  const net::Response missigned = DynamoDb(*front, wrong_secret, "ListTables");
  EXPECT_EQ(missigned.result_int(), 400u);
  EXPECT_EQ(ErrorType(missigned), "com.amazon.coral.service#InvalidSignatureException");
  EXPECT_EQ(ErrorType(DynamoDb(*front, fresh, "ListTables", "{}", "us-east-1")),
            "com.amazon.coral.service#InvalidSignatureException")
      << "signed for another region";

  // A key the fake did not issue is not its to check: forwarded.
  EXPECT_EQ(DynamoDb(*front, Keys("test", "test"), "ListTables").result_int(), 200u);

  std::this_thread::sleep_for(std::chrono::milliseconds(5100));
  const net::Response expired = DynamoDb(*front, fresh, "ListTables");
  EXPECT_EQ(expired.result_int(), 400u);
  EXPECT_EQ(ErrorType(expired), "com.amazon.coral.service#ExpiredTokenException");
  EXPECT_EQ(json::parse(expired.body()).at("message").as_string(),
            "The security token included in the request is expired");
  const aws::Credentials renewed = WebIdentityCredentials(*fake, "t");
  EXPECT_NE(renewed.access_key_id, fresh.access_key_id);
  EXPECT_EQ(DynamoDb(*front, renewed, "ListTables").result_int(), 200u);

  json::object stats = fake->Stats();
  EXPECT_EQ(Count(stats, "requests"), 8);
  EXPECT_EQ(Count(stats.at("actions").as_object(), "DynamoDB_20120810.ListTables"), 8);
  EXPECT_EQ(Count(stats, "expired_signatures"), 1);
  EXPECT_EQ(Count(stats, "bad_tokens"), 1);
  EXPECT_EQ(Count(stats, "bad_signatures"), 2);
  EXPECT_EQ(Count(stats, "foreign_keys"), 1);
  EXPECT_EQ(Count(stats, "throttled"), 0);

  ASSERT_TRUE(fake->Reset());
  stats = fake->Stats();
  EXPECT_EQ(Count(stats, "requests"), 0);
  EXPECT_TRUE(stats.at("actions").as_object().empty());
  EXPECT_EQ(Count(stats, "expired_signatures"), 0);
  EXPECT_EQ(Count(stats.at("issued").as_object(), "web_identity"), 0);
  EXPECT_EQ(DynamoDb(*front, renewed, "ListTables").result_int(), 200u)
      << "a reset forgets counts, not keys";
}

TEST_F(FakeAwsTest, ThrottleAnswersTheFractionAskedForAsLongAsAsked) {
  auto fake = StartFake({});
  auto front = ClientOf(fake->dynamodb_url());
  const aws::Credentials credentials = Keys("test", "test");
  ASSERT_TRUE(fake->Throttle(0.3, 60));
  constexpr int kRequests = 400;
  int throttled = 0;
  for (int i = 0; i < kRequests; ++i) {
    const net::Response answer = DynamoDb(*front, credentials, "ListTables");
    if (answer.result_int() == 400) {
      ASSERT_EQ(ErrorType(answer), "com.amazonaws.dynamodb.v20120810#ThrottlingException");
      ASSERT_EQ(json::parse(answer.body()).at("message").as_string(),
                "Rate of requests exceeds the allowed throughput.");
      ++throttled;
    } else {
      ASSERT_EQ(answer.result_int(), 200u) << answer.body();
    }
  }
  // 30 % of 400: 120, with a standard deviation of 9.2.
  EXPECT_GT(throttled, 80);
  EXPECT_LT(throttled, 160);
  EXPECT_EQ(Count(fake->Stats(), "throttled"), throttled);

  // The window closes when its time is up.
  ASSERT_TRUE(fake->Throttle(1.0, 1));
  EXPECT_EQ(DynamoDb(*front, credentials, "ListTables").result_int(), 400u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(DynamoDb(*front, credentials, "ListTables").result_int(), 200u);
  EXPECT_FALSE(fake->Throttle(1.5, 1)) << "a fraction past 1";
}

TEST(FakeAwsStart, SaysWhyItDidNotStart) {
  FakeAws fake({.dynamodb = "not a url"});
  EXPECT_FALSE(fake.Start());
  EXPECT_FALSE(fake.output().empty());
}

}  // namespace
}  // namespace indelible::testutil
