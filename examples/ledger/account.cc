#include "account.h"

#include <boost/json.hpp>

#include "json_fields.h"

namespace json = boost::json;
using indelible::Result;
using indelible::Status;

using json_fields::Integer;
using json_fields::ParseObject;
using json_fields::String;

namespace ledger {

indelible::Rules<BankAccount> AccountRules() {
  using indelible::RuleContext;
  indelible::Rules<BankAccount> rules{BankAccount{}};
  rules.On<AccountCreation>(kAccountCreation,
                            [](BankAccount a, const AccountCreation& e, RuleContext&) {
                              a.id = e.id;
                              return Result<BankAccount>(std::move(a));
                            });
  rules.On<AccountUpdate>(kAccountUpdate, [](BankAccount a, const AccountUpdate& e, RuleContext&) {
    a.owner_first = e.owner_first;
    a.owner_last = e.owner_last;
    return Result<BankAccount>(std::move(a));
  });
  rules.On<Transaction>(
      kTransactionAccepted,
      [](BankAccount a, const Transaction& t, RuleContext& ctx) -> Result<BankAccount> {
        const std::int64_t next = a.balance + t.amount;
        if (next < a.minimum_balance) return Status::Rejected("insufficient funds");
        if (a.balance >= 0 && next < 0) ctx.Publish(kAccountOverdrawn, AccountOverdrawn{a.id});
        a.balance = next;
        return a;
      });
  return rules;
}

}  // namespace ledger

using namespace ledger;

std::string indelible::Codec<BankAccount>::Encode(const BankAccount& a) {
  return json::serialize(json::object{{"id", a.id},
                                      {"ownerFirst", a.owner_first},
                                      {"ownerLast", a.owner_last},
                                      {"balance", a.balance},
                                      {"minimumBalance", a.minimum_balance}});
}
Result<BankAccount> indelible::Codec<BankAccount>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto id = String(*o, "id");
  auto first = String(*o, "ownerFirst");
  auto last = String(*o, "ownerLast");
  auto balance = Integer(*o, "balance");
  auto minimum = Integer(*o, "minimumBalance");
  for (const Status* s :
       {&id.status(), &first.status(), &last.status(), &balance.status(), &minimum.status()})
    if (!s->ok()) return *s;
  return BankAccount{*id, *first, *last, *balance, *minimum};
}

std::string indelible::Codec<AccountCreation>::Encode(const AccountCreation& e) {
  return json::serialize(json::object{{"id", e.id}});
}
Result<AccountCreation> indelible::Codec<AccountCreation>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto id = String(*o, "id");
  if (!id.ok()) return id.status();
  return AccountCreation{*id};
}

std::string indelible::Codec<AccountUpdate>::Encode(const AccountUpdate& e) {
  return json::serialize(json::object{{"ownerFirst", e.owner_first}, {"ownerLast", e.owner_last}});
}
Result<AccountUpdate> indelible::Codec<AccountUpdate>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto first = String(*o, "ownerFirst");
  if (!first.ok()) return first.status();
  auto last = String(*o, "ownerLast");
  if (!last.ok()) return last.status();
  return AccountUpdate{*first, *last};
}

std::string indelible::Codec<Transaction>::Encode(const Transaction& t) {
  return json::serialize(json::object{{"desc", t.desc}, {"amount", t.amount}});
}
Result<Transaction> indelible::Codec<Transaction>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto desc = String(*o, "desc");
  if (!desc.ok()) return desc.status();
  auto amount = Integer(*o, "amount");
  if (!amount.ok()) return amount.status();
  return Transaction{*desc, *amount};
}

std::string indelible::Codec<AccountOverdrawn>::Encode(const AccountOverdrawn& e) {
  return json::serialize(json::object{{"accountId", e.account_id}});
}
Result<AccountOverdrawn> indelible::Codec<AccountOverdrawn>::Decode(std::string_view text) {
  auto o = ParseObject(text);
  if (!o.ok()) return o.status();
  auto id = String(*o, "accountId");
  if (!id.ok()) return id.status();
  return AccountOverdrawn{*id};
}
