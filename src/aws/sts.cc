#include "aws/sts.h"

#include <fmt/format.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <sstream>

#include "aws/http_fetch.h"
#include "aws/metadata.h"
#include "aws/sigv4.h"
#include "net/url.h"

namespace indelible::aws {
namespace {

namespace pt = boost::property_tree;

std::string FormBody(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string body;
  for (const auto& [name, value] : fields) {
    if (!body.empty()) body += '&';
    body += UriEncode(name, false) + "=" + UriEncode(value, false);
  }
  return body;
}

// Boost.PropertyTree's XML reader (RapidXML inside) is enough for STS's
// small, fixed documents; namespaces are attributes to it, not part of names.
Result<pt::ptree> ParseXml(const std::string& body, const std::string& what) {
  pt::ptree tree;
  try {
    std::istringstream in(body);
    pt::read_xml(in, tree, pt::xml_parser::trim_whitespace);
  } catch (const pt::xml_parser_error& e) {
    return Status::Unauthorized(
        fmt::format("{} answered something that is not XML ({}): {:.200}", what, e.what(), body));
  }
  return tree;
}

}  // namespace

StsEndpoint ChooseStsEndpoint(const EnvLookup& env, const std::string& region) {
  const std::string signing = region.empty() ? "us-east-1" : region;
  if (auto url = env("AWS_ENDPOINT_URL_STS")) return {*url, signing};
  if (auto url = env("AWS_ENDPOINT_URL")) return {*url, signing};
  if (region.empty()) return {"https://sts.amazonaws.com", signing};
  return {fmt::format("https://sts.{}.amazonaws.com", region), region};
}

Result<Credentials> AssumeRole(const StsEndpoint& endpoint, const AssumeRoleRequest& request,
                               std::chrono::milliseconds timeout) {
  const bool web_identity = request.web_identity_token.has_value();
  const char* action = web_identity ? "AssumeRoleWithWebIdentity" : "AssumeRole";
  std::string session = request.session_name;
  if (session.empty())
    session = fmt::format("indelible-{}", std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
  std::vector<std::pair<std::string, std::string>> fields = {{"Action", action},
                                                             {"Version", "2011-06-15"},
                                                             {"RoleArn", request.role_arn},
                                                             {"RoleSessionName", session}};
  if (web_identity) fields.emplace_back("WebIdentityToken", *request.web_identity_token);
  if (!request.external_id.empty()) fields.emplace_back("ExternalId", request.external_id);
  if (request.duration_seconds)
    fields.emplace_back("DurationSeconds", std::to_string(*request.duration_seconds));

  FetchRequest post;
  post.method = "POST";
  post.url = endpoint.url;
  post.body = FormBody(fields);
  post.timeout = timeout;
  post.attempts = 3;
  const auto [origin, target] = SplitOrigin(endpoint.url);
  auto parsed = net::ParseUrl(origin, "AWS_ENDPOINT_URL_STS");
  if (!parsed.ok()) return parsed.status();
  const std::string content_type = "application/x-www-form-urlencoded; charset=utf-8";
  post.headers = {{"Content-Type", content_type}};
  if (!web_identity) {
    // Signed once: the attempts Fetch makes after a lost connection resend
    // the same signature, which STS accepts for 5 minutes.
    const std::string amz_date = AmzDate(std::chrono::system_clock::now());
    SigningRequest signing;
    signing.method = "POST";
    signing.path = target.substr(0, target.find('?'));
    signing.query =
        target.find('?') == std::string::npos ? "" : target.substr(target.find('?') + 1);
    signing.headers = {{"host", parsed->host_header}, {"content-type", content_type}};
    for (auto& header : SigningHeaders(request.caller, amz_date))
      signing.headers.push_back(std::move(header));
    signing.body = post.body;
    const Signature signature = Sign(signing, request.caller, endpoint.region, "sts", amz_date);
    for (const auto& [name, value] : signing.headers)
      if (name != "host" && name != "content-type") post.headers.emplace_back(name, value);
    post.headers.emplace_back("Authorization", signature.authorization);
  }
  const std::string what =
      fmt::format("STS {} at {} (role {})", action, endpoint.url, request.role_arn);
  auto answer = Fetch(post);
  if (!answer.ok())
    return Status::Unavailable(fmt::format("{}: {}", what, answer.status().message()));
  if (answer->status >= 500)
    return Status::Unavailable(fmt::format("{}: HTTP {}", what, answer->status));
  auto tree = ParseXml(answer->body, what);
  if (!tree.ok()) return tree.status();
  if (answer->status != 200) {
    const auto error = tree->get_child_optional("ErrorResponse.Error");
    const std::string code = error ? error->get<std::string>("Code", "") : "";
    const std::string message = error ? error->get<std::string>("Message", "") : "";
    // A throttled STS is worth waiting for; a refusal is not.
    if (code == "Throttling" || code == "IDPCommunicationError")
      return Status::Unavailable(fmt::format("{}: {} {}", what, code, message));
    return Status::Unauthorized(fmt::format("{}: HTTP {} {}: {}", what, answer->status,
                                            code.empty() ? "(no error code)" : code, message));
  }
  const auto credentials =
      tree->get_child_optional(fmt::format("{}Response.{}Result.Credentials", action, action));
  if (!credentials)
    return Status::Unauthorized(fmt::format("{} answered without {}Result.Credentials: {:.300}",
                                            what, action, answer->body));
  Credentials out;
  out.access_key_id = credentials->get<std::string>("AccessKeyId", "");
  out.secret_access_key = credentials->get<std::string>("SecretAccessKey", "");
  out.session_token = credentials->get<std::string>("SessionToken", "");
  out.source =
      fmt::format("{} ({})", web_identity ? "web identity" : "assumed role", request.role_arn);
  out.expiration = ParseTimestamp(credentials->get<std::string>("Expiration", ""));
  if (out.access_key_id.empty() || out.secret_access_key.empty() || out.session_token.empty() ||
      !out.expiration)
    return Status::Unauthorized(
        fmt::format("{} answered incomplete credentials: {:.300}", what, answer->body));
  return out;
}

}  // namespace indelible::aws
