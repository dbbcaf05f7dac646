// The entity of the entity crash test, shared by the writer it kills
// (entity_crash_writer.cc) and the test that checks what survived
// (entity_crash_test.cc): a tally of items whose rule publishes one
// outbound event for every inbound one and rejects empty items.
#pragma once

#include <indelible/entity.h>

#include <boost/json.hpp>
#include <cstdint>
#include <string>

namespace indelible::crash {

struct Tally {
  std::int64_t count = 0;
  std::int64_t sum = 0;
  bool operator==(const Tally&) const = default;
};
struct ItemAdded {
  std::int64_t n = 0;
};
struct ItemSeen {
  std::int64_t n = 0;
  std::int64_t count = 0;  // the tally's count with this item
};

inline constexpr const char* kItemAdded = "ITEM_ADDED";
inline constexpr const char* kItemSeen = "itemSeen";

// Streams "tally-w-<i>" keep a state record on every write, "tally-n-<i>"
// one every 4 events: the test knows each stream's policy by its name.
inline EntityOptions OptionsFor(const std::string& stream) {
  EntityOptions options;
  if (stream.starts_with("tally-n-")) options.snapshots = SnapshotPolicy::Every(4);
  options.max_attempts = 100;  // four writers share six streams
  return options;
}

inline Result<std::int64_t> IntegerField(std::string_view json, std::string_view key) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(json, ec);
  if (ec || !value.is_object()) return Status::Invalid("data", "expected a JSON object");
  const boost::json::value* field = value.as_object().if_contains(key);
  if (field == nullptr || !field->is_int64())
    return Status::Invalid(std::string(key), "expected an integer");
  return field->as_int64();
}

inline Rules<Tally> TallyRules() {
  Rules<Tally> rules{Tally{}};
  rules.On<ItemAdded>(kItemAdded,
                      [](Tally t, const ItemAdded& e, RuleContext& ctx) -> Result<Tally> {
                        if (e.n == 0) return Status::Rejected("an empty item");
                        t.count += 1;
                        t.sum += e.n;
                        ctx.Publish(kItemSeen, ItemSeen{e.n, t.count});
                        return t;
                      });
  return rules;
}

}  // namespace indelible::crash

template <>
struct indelible::Codec<indelible::crash::Tally> {
  static std::string Encode(const crash::Tally& t) {
    return boost::json::serialize(boost::json::object{{"count", t.count}, {"sum", t.sum}});
  }
  static Result<crash::Tally> Decode(std::string_view json) {
    auto count = crash::IntegerField(json, "count");
    if (!count.ok()) return count.status();
    auto sum = crash::IntegerField(json, "sum");
    if (!sum.ok()) return sum.status();
    return crash::Tally{*count, *sum};
  }
};
template <>
struct indelible::Codec<indelible::crash::ItemAdded> {
  static std::string Encode(const crash::ItemAdded& e) {
    return boost::json::serialize(boost::json::object{{"n", e.n}});
  }
  static Result<crash::ItemAdded> Decode(std::string_view json) {
    auto n = crash::IntegerField(json, "n");
    if (!n.ok()) return n.status();
    return crash::ItemAdded{*n};
  }
};
template <>
struct indelible::Codec<indelible::crash::ItemSeen> {
  static std::string Encode(const crash::ItemSeen& e) {
    return boost::json::serialize(boost::json::object{{"n", e.n}, {"count", e.count}});
  }
  static Result<crash::ItemSeen> Decode(std::string_view json) {
    auto n = crash::IntegerField(json, "n");
    if (!n.ok()) return n.status();
    auto count = crash::IntegerField(json, "count");
    if (!count.ok()) return count.status();
    return crash::ItemSeen{*n, *count};
  }
};
