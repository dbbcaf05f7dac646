// The Tally entity's rules and codecs (entity_bench.h), written as an
// application would: parse to a json::object, read named fields. (Its own
// two readers, not the examples' json_fields: the benchmark is part of the
// `indelible` binary, which carries no example code.)
#include <boost/json.hpp>
#include <cstdint>
#include <string>

#include "bench/entity_bench.h"

namespace json = boost::json;

namespace indelible {
namespace {

Result<json::object> ParseObject(std::string_view text) {
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec || !value.is_object()) return Status::Invalid("data", "must be a JSON object");
  return std::move(value.as_object());
}

Result<std::int64_t> Integer(const json::object& o, std::string_view key) {
  const json::value* value = o.if_contains(key);
  if (value == nullptr || !value->is_int64())
    return Status::Invalid(std::string(key), "must be an integer");
  return value->as_int64();
}

}  // namespace

namespace bench {

Rules<Tally> TallyRules() {
  Rules<Tally> rules{Tally{}};
  rules.On<Deposit>(kDeposited, [](Tally t, const Deposit& d, RuleContext&) {
    t.balance += d.amount;
    ++t.deposits;
    t.last_seq = d.seq;
    return Result<Tally>(t);
  });
  return rules;
}

}  // namespace bench

using bench::Deposit;
using bench::Tally;

std::string Codec<Tally>::Encode(const Tally& t) {
  return json::serialize(
      json::object{{"balance", t.balance}, {"deposits", t.deposits}, {"lastSeq", t.last_seq}});
}

Result<Tally> Codec<Tally>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto balance = Integer(*o, "balance");
  if (!balance.ok()) return balance.status();
  auto deposits = Integer(*o, "deposits");
  if (!deposits.ok()) return deposits.status();
  auto last_seq = Integer(*o, "lastSeq");
  if (!last_seq.ok()) return last_seq.status();
  return Tally{*balance, *deposits, *last_seq};
}

Result<Deposit> Codec<Deposit>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto seq = Integer(*o, "seq");
  if (!seq.ok()) return seq.status();
  auto amount = Integer(*o, "amount");
  if (!amount.ok()) return amount.status();
  return Deposit{*seq, *amount};
}

}  // namespace indelible
