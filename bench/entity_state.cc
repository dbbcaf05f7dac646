// The Tally entity's rules and codecs (entity_bench.h), in the style of
// examples/ledger/account.cc: parse to a json::object, read named fields
// (examples/common/json_fields.h).
#include <boost/json.hpp>

#include "bench/entity_bench.h"
#include "json_fields.h"

namespace json = boost::json;

namespace indelible {
using json_fields::Integer;
using json_fields::ParseObject;

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
