// What a DynamoDB endpoint answers, as the store reads it
// (src/storage/dynamodb): event and tip items (tip.h), snapshot items,
// Query answers ({"Items": [...]}), error documents (errors.h) and consumed
// capacity (capacity.h). The input is the answer's body; the store parses
// it with boost::json (client.cc) and hands the object to these readers.
// An endpoint may be a proxy, an emulator or an attacker: nothing it sends
// may crash the store. Invariants: an event item read back from its own
// encoding is the same event; consumed capacity is a finite, non-negative
// number (the client converts it to an integer counter).
#include <boost/json.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aws/capacity.h"
#include "aws/errors.h"
#include "fuzz_check.h"
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/change_records.h"
#include "storage/dynamodb/eventlog.h"
#include "storage/dynamodb/tip.h"

namespace {

namespace json = boost::json;
namespace ddb = indelible::dynamodb;
namespace aws = indelible::aws;

void CheckEventRoundTrip(const indelible::RecordedEvent& event) {
  auto again = ddb::ParseEventItem(ddb::EventItem(event));
  FUZZ_CHECK(again.ok(), "an event item of our own does not parse");
  FUZZ_CHECK(again->stream == event.stream && again->version == event.version &&
                 again->id == event.id && again->type == event.type &&
                 again->schema == event.schema && again->content_type == event.content_type &&
                 again->data == event.data && again->metadata == event.metadata &&
                 again->timestamp_ms == event.timestamp_ms,
             "event item: decode -> encode -> decode changed the event");
}

// An append item (append_item.h) read back from its own encoding is the same
// append.
void CheckAppendRoundTrip(const ddb::AppendItem& append) {
  auto again = ddb::ParseAppendItem(ddb::MakeAppendItem(append.events, append.life_first));
  FUZZ_CHECK(again.ok(), "an append item of our own does not parse");
  FUZZ_CHECK(again->first == append.first && again->events.size() == append.events.size() &&
                 again->life_first == append.life_first && again->counted,
             "append item: decode -> encode -> decode changed the append");
  for (std::size_t i = 0; i < append.events.size(); ++i) CheckEventRoundTrip(append.events[i]);
}

void Item(const json::object& item) {
  if (auto event = ddb::ParseEventItem(item); event.ok()) CheckEventRoundTrip(*event);
  if (auto append = ddb::ParseAppendItem(item); append.ok()) CheckAppendRoundTrip(*append);
  // As a change record's new image of an INSERT (the $all indexer's input).
  (void)ddb::AppendedBy(json::object{
      {"dynamodb",
       json::object{
           {"Keys",
            json::object{
                {"stream", item.contains("stream") ? item.at("stream") : json::value(nullptr)},
                {"version", item.contains("version") ? item.at("version") : json::value(nullptr)}}},
           {"NewImage", item}}}});
  auto tip = ddb::ParseTip("fuzz-1", item);
  if (!tip.ok()) return;
  indelible::AppendRequest append;
  append.stream = "fuzz-1";
  for (const auto& a : tip->appends)
    for (const auto& e : a.events) {
      CheckEventRoundTrip(e);
      if (append.events.size() >= 8) continue;
      indelible::EventData retry;
      retry.id = e.id;
      retry.type = e.type;
      append.events.push_back(std::move(retry));
    }
  const auto known = ddb::KnownIds(*tip, append);
  FUZZ_CHECK(known.size() == append.events.size(), "KnownIds: one answer per event");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)ddb::ParseIsoTimeMs(text);

  boost::system::error_code ec;
  json::value doc = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec || !doc.is_object()) return 0;
  const json::object& answer = doc.get_object();

  // Capacity of any answer.
  const double units = aws::ConsumedUnits(answer);
  FUZZ_CHECK(std::isfinite(units) && units >= 0 && units < 1e15,
             "consumed capacity is not a finite, non-negative number");

  // An error answer, with each status the client may see.
  for (const int status : {400, 500}) {
    const std::string type = aws::ErrorType(answer);
    (void)aws::ErrorMessage(answer);
    (void)aws::IsThrottle(type);
    (void)aws::IsRetryable(status, type);
    (void)aws::MapError("http://127.0.0.1:8000", "TransactWriteItems", status, answer);
  }
  (void)aws::CancellationReasons(answer);

  // GetItem ({"Item": ...}), an ALL_OLD answer ({"Attributes": ...}), or an
  // item itself.
  Item(answer);
  for (const char* member : {"Item", "Attributes"})
    if (const auto* item = answer.if_contains(member); item != nullptr && item->is_object())
      Item(item->get_object());

  // A Query answer: items, and the snapshot items of the tip's snapshot.
  if (const auto* items = answer.if_contains("Items"); items != nullptr && items->is_array()) {
    for (const auto& item : items->get_array())
      if (item.is_object()) Item(item.get_object());
    if (auto ref = ddb::ParseSnapshotRef(answer, "snap"))
      (void)ddb::ParseSnapshotItems("fuzz-1", *ref, items->get_array());
  }
  return 0;
}
