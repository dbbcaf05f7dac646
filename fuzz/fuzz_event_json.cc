// Event JSON decoding (src/core/event_json.h): what a client appends
// (EventsFromJson) and an export line (ExportedEventFromJson), then the
// append checks every backend runs (ValidateCommit). Invariants: CheckJson
// agrees with the JSON parser, a decoded event's data and metadata are JSON
// without another check (the server skips it), and every decoded event survives a trip
// through its JSON form unchanged (but for the last bit of a double), if
// the store would accept it. The same bytes go through every decoder of a
// server's answer (src/api/), which a client runs on what any server sends:
// they may refuse it, never crash or throw.
#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/commits.h"
#include "api/wire.h"
#include "core/event_json.h"
#include "core/json_check.h"
#include "fuzz_check.h"
#include "store/append_validation.h"

namespace {

using indelible::EventData;

// Equal JSON, doubles within a relative 1e-12: Boost.JSON 1.81 does not
// parse every double to the nearest value, so a number written out and read
// again may move in its last bit (export -> import shows it).
bool SameJson(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_double() && b.is_double()) {
    const double x = a.get_double(), y = b.get_double();
    return x == y || std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!SameJson(x[i], y[i])) return false;
    return true;
  }
  if (a.is_object()) {
    const auto &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& [key, value] : x) {
      const auto* other = y.if_contains(key);
      if (other == nullptr || !SameJson(value, *other)) return false;
    }
    return true;
  }
  return a == b;
}

bool SameJsonText(std::string_view a, std::string_view b) {
  if (a == b) return true;
  boost::system::error_code ea, eb;
  const auto x = boost::json::parse(boost::json::string_view(a.data(), a.size()), ea);
  const auto y = boost::json::parse(boost::json::string_view(b.data(), b.size()), eb);
  return !ea && !eb && SameJson(x, y);
}

// The event as the server would write it back, read again.
void CheckRoundTrip(const EventData& event) {
  indelible::EventView view;
  view.id = event.id;
  view.stream = "fuzz-1";
  view.version = indelible::StreamVersion(3);
  view.position = indelible::Position(7);
  view.type = event.type;
  view.schema = event.schema;
  view.content_type = event.content_type;
  view.data = event.data;
  view.metadata = event.metadata;
  view.timestamp_ms = 1700000000000;
  const std::string json = indelible::EventToJson(view);
  auto again = indelible::ExportedEventFromJson(json);
  if (!again.ok())
    std::fprintf(stderr, "%s\n%s\n", json.c_str(), again.status().ToString().c_str());
  FUZZ_CHECK(again.ok(), "an event's own JSON does not decode");
  const EventData& back = again->event;
  FUZZ_CHECK(again->stream == "fuzz-1" && again->version.value() == 3 &&
                 again->position.value() == 7 && back.timestamp_ms == 1700000000000,
             "envelope changed");
  FUZZ_CHECK(back.id == event.id, "id changed");
  FUZZ_CHECK(back.type == event.type && back.schema == event.schema, "names changed");
  FUZZ_CHECK(back.content_type == event.content_type, "content type changed");
  FUZZ_CHECK(back.content_type == indelible::kJsonContentType ? SameJsonText(back.data, event.data)
                                                              : back.data == event.data,
             "data changed");
  FUZZ_CHECK(SameJsonText(back.metadata, event.metadata), "metadata changed");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  boost::system::error_code ec;
  (void)boost::json::parse(boost::json::string_view(text.data(), text.size()), ec);
  FUZZ_CHECK(indelible::CheckJson(text).empty() == !ec, "CheckJson disagrees with json::parse");
  (void)indelible::CheckJson(text, indelible::JsonShape::kObject);

  // What a store would accept (ValidateCommit: 1e400 decodes, as
  // Infinity, but is refused there) must survive the trip through JSON.
  auto accepted = [](std::vector<EventData> events) {
    std::vector<indelible::AppendRequest> appends(1);
    appends[0].stream = "fuzz-1";
    appends[0].events = std::move(events);
    indelible::CommitOptions options;
    options.keep_timestamps = true;
    if (indelible::store::ValidateCommit(appends, indelible::Limits{}, options).ok())
      for (const EventData& event : appends[0].events) CheckRoundTrip(event);
  };
  auto events = indelible::EventsFromJson(text);
  if (events.ok()) {
    // What the one parse of a body vouches for, so the store does not check
    // it again (store/store_access.h): data of a JSON content type is JSON,
    // metadata a JSON object.
    for (const EventData& event : *events) {
      if (event.content_type == indelible::kJsonContentType)
        FUZZ_CHECK(indelible::CheckJson(event.data).empty(), "decoded data is not JSON");
      FUZZ_CHECK(indelible::CheckJson(event.metadata, indelible::JsonShape::kObject).empty(),
                 "decoded metadata is not a JSON object");
    }
    accepted(std::move(*events));
  }
  auto exported = indelible::ExportedEventFromJson(text);
  if (exported.ok()) accepted({std::move(exported->event)});

  namespace api = indelible::api;
  (void)api::StatusFromAnswer(409, text);
  (void)api::AppendResultFromJson(text);
  (void)api::HeadFromJson(text);
  (void)api::HealthFromJson(text);
  (void)api::StoredEventFromJson(text);
  (void)api::StreamPageFromJson(text);
  (void)api::AllPageFromJson(text);
  (void)api::ConsumerGroupInfoFromJson(text);
  (void)api::ConsumerGroupListFromJson(text);
  (void)api::DeliveriesFromJson(text);
  (void)api::VersionFromETag(text);
  (void)api::AppendBodyFromJson(text);
  (void)api::CommitFromJson(text);
  (void)api::CommitResultFromJson(text);
  (void)api::StateRecordFromJson(text);
  (void)api::StreamListFromJson(text);
  return 0;
}
