// SigV4: AWS's published test-suite signatures, and DynamoDB requests signed
// both by our signer and by @smithy/signature-v4 (the AWS SDK for
// JavaScript's), which must agree byte for byte. Neither emulator checks
// signatures, so this is what stands between us and a 403 from AWS.
#include "aws/sigv4.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "testutil/dynamodb_server.h"
#include "testutil/temp_dir.h"

namespace indelible::aws {
namespace {

const Credentials kExample{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "", "test"};

// The AWS SigV4 test suite's requests: host example.amazonaws.com, region
// us-east-1, service "service", 2015-08-30 12:36:00 UTC, empty body.
Signature SignSuite(std::string method, std::string query) {
  SigningRequest request;
  request.method = std::move(method);
  request.query = std::move(query);
  request.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  return Sign(request, kExample, "us-east-1", "service", "20150830T123600Z");
}

TEST(SigV4, AwsTestSuiteGetVanilla) {
  const Signature s = SignSuite("GET", "");
  EXPECT_EQ(s.canonical_request,
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4, AwsTestSuitePostVanilla) {
  EXPECT_EQ(SignSuite("POST", "").signature,
            "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

TEST(SigV4, AwsTestSuiteQueryOrderKeyCase) {
  // Parameters are signed sorted by name, whatever order the URL has.
  EXPECT_EQ(SignSuite("GET", "Param2=value2&Param1=value1").signature,
            "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST(SigV4, AmzDateIsUtc) {
  EXPECT_EQ(AmzDate(std::chrono::system_clock::from_time_t(1440938160)), "20150830T123600Z");
}

TEST(SigV4, SessionTokenIsSentAndSigned) {
  const auto headers =
      SigningHeaders({"AKID", "secret", "token/with+chars=", "test"}, "20240101T000000Z");
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[1], Header("x-amz-security-token", "token/with+chars="));
  EXPECT_EQ(SigningHeaders({"AKID", "secret", "", "test"}, "20240101T000000Z").size(), 1u);
}

struct Case {
  std::string name;
  std::string host;  // the Host header: "127.0.0.1:8000"
  std::string hostname;
  int port = 0;  // 0: the scheme's own
  std::string operation;
  std::string body;
  std::string query;
  Credentials credentials;
  std::string region;
  std::string amz_date;
  std::string extra_header;  // "name:value", signed too; empty for none
};

std::vector<Case> Cases() {
  const Credentials key{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "",
                        "t"};
  Credentials session = key;
  session.access_key_id = "ASIAIOSFODNN7EXAMPLE";
  session.session_token =
      "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+example/token+with=padding==";
  const std::string put =
      R"j({"TableName":"indelible_events","Item":{"stream":{"S":"account-42"},"version":{"N":"0"},)j"
      R"j("data":{"S":"{\"amount\":100}"}},"ConditionExpression":"attribute_not_exists(stream)"})j";
  return {
      {"PutItemLoopbackPort", "127.0.0.1:8000", "127.0.0.1", 8000, "PutItem", put, "", key,
       "us-east-1", "20240229T235959Z", ""},
      {"PutItemSessionToken", "127.0.0.1:8000", "127.0.0.1", 8000, "PutItem", put, "", session,
       "us-east-1", "20240229T235959Z", ""},
      {"QueryAwsHostUnicode", "dynamodb.eu-west-1.amazonaws.com",
       "dynamodb.eu-west-1.amazonaws.com", 0, "Query",
       R"({"TableName":"t","KeyConditionExpression":"#s = :s","ExpressionAttributeNames":{"#s":"stream"},)"
       R"("ExpressionAttributeValues":{":s":{"S":"Zürich-北京-🙂"}}})",
       "", session, "eu-west-1", "20251231T000000Z", ""},
      {"EmptyBodyAndQuery", "localhost:4567", "localhost", 4567, "ListTables", "",
       "b=2&a=x%20y&a=1&c=~-_.!", key, "ap-southeast-2", "20000101T120000Z", ""},
      {"HeaderValueSpaces", "127.0.0.1:8000", "127.0.0.1", 8000, "GetItem", "{}", "", key,
       "us-east-1", "20240101T000000Z", "x-amz-meta-note:  two   spaces  inside "},
  };
}

// Our Authorization header for a case, over the headers the client sends.
std::string OurAuthorization(const Case& c) {
  SigningRequest request;
  request.method = "POST";
  request.query = c.query;
  request.headers = {{"host", c.host},
                     {"content-type", "application/x-amz-json-1.0"},
                     {"x-amz-target", "DynamoDB_20120810." + c.operation}};
  if (!c.extra_header.empty()) {
    const auto colon = c.extra_header.find(':');
    request.headers.emplace_back(c.extra_header.substr(0, colon), c.extra_header.substr(colon + 1));
  }
  for (auto& h : SigningHeaders(c.credentials, c.amz_date)) request.headers.push_back(h);
  request.body = c.body;
  return Sign(request, c.credentials, c.region, "dynamodb", c.amz_date).authorization;
}

boost::json::object SmithyInput(const Case& c) {
  boost::json::object headers{{"host", c.host},
                              {"content-type", "application/x-amz-json-1.0"},
                              {"x-amz-target", "DynamoDB_20120810." + c.operation}};
  if (!c.extra_header.empty()) {
    const auto colon = c.extra_header.find(':');
    headers[c.extra_header.substr(0, colon)] = c.extra_header.substr(colon + 1);
  }
  // smithy takes the query decoded, as an object (a repeated name: an array).
  boost::json::object query;
  std::string_view rest = c.query;
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    std::string param(rest.substr(0, amp));
    rest = amp == std::string_view::npos ? "" : rest.substr(amp + 1);
    const auto eq = param.find('=');
    std::string name = param.substr(0, eq), value = param.substr(eq + 1);
    for (std::size_t p; (p = value.find("%20")) != std::string::npos;) value.replace(p, 3, " ");
    if (auto* existing = query.if_contains(name)) {
      if (!existing->is_array()) *existing = boost::json::array{*existing};
      existing->as_array().push_back(boost::json::value(value));
    } else {
      query[name] = value;
    }
  }
  boost::json::object o{{"method", "POST"},
                        {"hostname", c.hostname},
                        {"path", "/"},
                        {"query", query},
                        {"headers", headers},
                        {"body", c.body},
                        {"region", c.region},
                        {"service", "dynamodb"},
                        {"accessKeyId", c.credentials.access_key_id},
                        {"secretAccessKey", c.credentials.secret_access_key},
                        {"amzDate", c.amz_date}};
  if (c.port != 0) o["port"] = c.port;
  if (!c.credentials.session_token.empty()) o["sessionToken"] = c.credentials.session_token;
  return o;
}

TEST(SigV4, AgreesWithSmithySignatureV4) {
  const auto cases = Cases();
  boost::json::array input;
  for (const auto& c : cases) input.push_back(SmithyInput(c));
  testutil::TempDir temp;
  const std::string path = temp.Sub("cases.json");
  std::ofstream(path) << boost::json::serialize(input);

  std::string output;
  const int rc = testutil::RunCommand(testutil::DynamoDbScript() + " node '" +
                                          std::string(INDELIBLE_SOURCE_DIR) +
                                          "/tests/dynamodb/sigv4_reference.js' '" + path + "'",
                                      &output);
  // Never a silent skip: without node or the npm packages, this fails.
  ASSERT_EQ(rc, 0) << "the reference signer did not run:\n" << output;
  boost::system::error_code ec;
  const auto signed_headers = boost::json::parse(output, ec);
  ASSERT_FALSE(ec) << output;
  ASSERT_EQ(signed_headers.as_array().size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& theirs = signed_headers.as_array()[i].as_object();
    SCOPED_TRACE(cases[i].name);
    EXPECT_EQ(OurAuthorization(cases[i]), theirs.at("authorization").as_string());
    EXPECT_EQ(theirs.at("x-amz-date").as_string(), cases[i].amz_date);
    if (!cases[i].credentials.session_token.empty()) {
      EXPECT_EQ(theirs.at("x-amz-security-token").as_string(), cases[i].credentials.session_token);
    }
  }
}

}  // namespace
}  // namespace indelible::aws
