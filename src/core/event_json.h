// The JSON form of events, shared by the CLI (export/import, --json) and
// the HTTP API (src/api/ builds the API's other documents on it).
// docs/CLI.md shows it.
//
//   {"id":"...","stream":"account-1","version":0,"position":1,
//    "type":"Deposited","schema":"V1","data":{...},"metadata":{...},
//    "tags":["user:alice"],"timestamp":1700000000000}
//
// `tags` is left out when the event has none.
//
// `data` is embedded as JSON when the content type is application/json
// (then "contentType" is omitted); otherwise it is base64 text with
// "contentType" and "dataEncoding":"base64".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/event.h"
#include "indelible/result.h"
#include "indelible/types.h"

namespace indelible {

// `text` as a JSON string literal, quotes included.
std::string QuoteJson(std::string_view text);
// Standard base64 with '=' padding (binary event data in JSON).
std::string Base64Encode(std::string_view bytes);
// nullopt when `text` is not base64 with valid padding.
std::optional<std::string> Base64Decode(std::string_view text);

// Appends the event's JSON object to *out.
void AppendEventJson(const EventView& event, std::string* out);
std::string EventToJson(const EventView& event);

// One event object or an array of them (what a client appends). `id` is
// optional (the store makes one), `type` required, `data` any JSON value
// (or base64 text with a contentType), `metadata` an object. Errors are
// invalid with the field named ("[2].type").
//
// The text is parsed once: one pass checks it is valid JSON, without
// building a document, and each event's `data` and `metadata` are then cut
// out of it as sent, so they are known to be valid JSON (a JSON value, an
// object) without another parse (the HTTP server hands them to the store
// as such: src/store/store_access.h).
Result<std::vector<EventData>> EventsFromJson(std::string_view text);
// The same for `text` already checked as valid JSON (a member of a body
// that was): only decodes.
Result<std::vector<EventData>> EventsFromCheckedJson(std::string_view text);

// A line of an export: the event with where it was.
struct ExportedEvent {
  std::string stream;
  StreamVersion version;
  Position position;
  EventData event;  // timestamp_ms set
};
Result<ExportedEvent> ExportedEventFromJson(std::string_view text);

}  // namespace indelible
