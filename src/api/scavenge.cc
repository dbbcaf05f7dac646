// api/scavenge.h: POST /scavenge's request and answer as JSON.
#include "api/scavenge.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "api/decoding.h"
#include "core/event_json.h"

namespace indelible::api {
namespace json = boost::json;

using decoding::NotOurs;
using decoding::ParseObject;
using decoding::RequiredInteger;

Status ScavengeRequestFromJson(std::string_view body) {
  const auto blank = body.find_first_not_of(" \t\r\n");
  if (blank == std::string_view::npos) return Status::Ok();
  boost::system::error_code ec;
  const json::value value = json::parse(body, ec);
  if (ec || !value.is_object() || !value.as_object().empty())
    return Status::Invalid("body",
                           "POST /scavenge takes no options: send no body, or {} (it removes "
                           "what every stream's retention hides)");
  return Status::Ok();
}

std::string ScavengeReportToJson(const ScavengeReport& report, std::int64_t took_ms) {
  return fmt::format(
      R"({{"streams":{},"events":{},"bytes":{},"diskBytesBefore":{},"diskBytesAfter":{},)"
      R"("tookMs":{}}})",
      report.streams, report.events, report.bytes, report.disk_bytes_before,
      report.disk_bytes_after, took_ms);
}

Result<ScavengeReport> ScavengeReportFromJson(std::string_view body, std::int64_t* took_ms) {
  constexpr std::string_view kWhat = "scavenge report";
  auto parsed = ParseObject(body, kWhat);
  if (!parsed.ok()) return parsed.status();
  ScavengeReport report;
  const std::pair<std::string_view, std::uint64_t*> counts[] = {
      {"streams", &report.streams},
      {"events", &report.events},
      {"bytes", &report.bytes},
      {"diskBytesBefore", &report.disk_bytes_before},
      {"diskBytesAfter", &report.disk_bytes_after}};
  for (const auto& [key, out] : counts) {
    auto value = RequiredInteger(*parsed, key, kWhat);
    if (!value.ok()) return value.status();
    if (*value < 0) return NotOurs(kWhat, fmt::format("a negative '{}'", key));
    *out = static_cast<std::uint64_t>(*value);
  }
  auto took = RequiredInteger(*parsed, "tookMs", kWhat);
  if (!took.ok()) return took.status();
  if (*took < 0) return NotOurs(kWhat, "a negative 'tookMs'");
  if (took_ms != nullptr) *took_ms = *took;
  return report;
}

std::string ShredReportToJson(const ShredReport& report) {
  return fmt::format(R"({{"subject":{},"keys":{}}})", QuoteJson(report.subject), report.keys);
}

Result<ShredReport> ShredReportFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "shred report";
  auto parsed = ParseObject(body, kWhat);
  if (!parsed.ok()) return parsed.status();
  ShredReport report;
  const json::value* subject = parsed->if_contains("subject");
  if (subject == nullptr || !subject->is_string()) return NotOurs(kWhat, "no 'subject'");
  report.subject = std::string(subject->as_string());
  auto keys = RequiredInteger(*parsed, "keys", kWhat);
  if (!keys.ok()) return keys.status();
  if (*keys < 0) return NotOurs(kWhat, "a negative 'keys'");
  report.keys = static_cast<std::uint64_t>(*keys);
  return report;
}

}  // namespace indelible::api
