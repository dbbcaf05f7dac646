// Names and URLs from users: stream names (ValidateStreamName and the text
// checks under it), event ids, the server URL a client is given, and store
// URLs (dynamodb://..., parsed only: nothing is opened). Invariants: a name
// the client percent-encodes into a path segment comes back whole from the
// server's target parser (Boost.URL), and error-message text (Printable)
// is valid UTF-8 without control characters.
#include <boost/url/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "fuzz_check.h"
#include "indelible/types.h"
#include "net/url.h"
#include "storage/dynamodb/store_url.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const bool valid = indelible::ValidateStreamName(text).ok();
  const bool valid_reserved = indelible::ValidateStreamName(text, true).ok();
  FUZZ_CHECK(!valid || valid_reserved, "a name valid for users is refused for the store");
  const std::string_view category = indelible::StreamCategory(text);
  FUZZ_CHECK(text.starts_with(category), "the category is not a prefix of the name");
  const bool utf8 = indelible::IsValidUtf8(text);
  FUZZ_CHECK(!valid || utf8, "a valid name is not UTF-8");
  if (utf8) FUZZ_CHECK(!valid || !indelible::HasControlCharacter(text), "control character");
  const std::string printable = indelible::Printable(text);
  FUZZ_CHECK(indelible::IsValidUtf8(printable) && !indelible::HasControlCharacter(printable),
             "Printable is not printable");

  // The client's path segment, as the server's Dispatch splits it.
  const std::string target = "/streams/" + indelible::net::PercentEncode(text) + "?limit=1";
  auto parsed = boost::urls::parse_origin_form(target);
  FUZZ_CHECK(parsed.has_value(), "an encoded name is not a valid target");
  std::vector<std::string> segments;
  for (auto segment : parsed->segments()) segments.emplace_back(segment);
  FUZZ_CHECK(segments.size() == 2 && segments[1] == text, "the name did not come back whole");

  auto id = indelible::EventId::Parse(text);
  if (id.ok()) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
    FUZZ_CHECK(id->ToString() == lower, "an event id does not print as it was read");
  }

  auto endpoint = indelible::net::ParseUrl(text);
  if (endpoint.ok()) FUZZ_CHECK(!endpoint->host.empty(), "a server URL without a host");

  // No environment: what the URL says and nothing else.
  const indelible::aws::EnvLookup no_env = [](const char*) -> std::optional<std::string> {
    return std::nullopt;
  };
  auto store = indelible::dynamodb::ParseStoreUrl(text, no_env);
  if (store.ok()) {
    FUZZ_CHECK(!store->endpoint.host.empty() && !store->endpoint.port.empty(),
               "a store URL without a host or port");
    FUZZ_CHECK(store->commit_threads > 0 && store->tip_appends > 0 && store->tip_bytes > 0,
               "a store URL with a non-positive size");
  }
  return 0;
}
