// The bank account of the reference ledger: its state, its inbound events
// (account creation, owner update, accepted transactions), its outbound
// event (accountOverdrawn), and the rules between them.
#pragma once

#include <indelible/rules.h>

#include <cstdint>
#include <string>

namespace ledger {

struct BankAccount {
  std::string id;
  std::string owner_first;
  std::string owner_last;
  std::int64_t balance = 0;
  std::int64_t minimum_balance = -1000;  // new accounts get an overdraft
};

inline constexpr const char* kAccountCreation = "ACCOUNT_CREATION";
inline constexpr const char* kAccountUpdate = "ACCOUNT_UPDATE";
inline constexpr const char* kTransactionAccepted = "TRANSACTION_ACCEPTED";
inline constexpr const char* kAccountOverdrawn = "accountOverdrawn";

struct AccountCreation {
  std::string id;
};
struct AccountUpdate {
  std::string owner_first;
  std::string owner_last;
};
struct Transaction {
  std::string desc;
  std::int64_t amount = 0;
};
struct AccountOverdrawn {
  std::string account_id;
};

// The rules of the account: a transaction that would take the balance under
// the minimum is rejected ("insufficient funds"); the one that takes it from
// zero or more to under zero publishes accountOverdrawn.
indelible::Rules<BankAccount> AccountRules();

}  // namespace ledger

// JSON codecs (account.cc), in the reference's field names.
template <>
struct indelible::Codec<ledger::BankAccount> {
  static std::string Encode(const ledger::BankAccount& value);
  static indelible::Result<ledger::BankAccount> Decode(std::string_view json);
};
template <>
struct indelible::Codec<ledger::AccountCreation> {
  static std::string Encode(const ledger::AccountCreation& value);
  static indelible::Result<ledger::AccountCreation> Decode(std::string_view json);
};
template <>
struct indelible::Codec<ledger::AccountUpdate> {
  static std::string Encode(const ledger::AccountUpdate& value);
  static indelible::Result<ledger::AccountUpdate> Decode(std::string_view json);
};
template <>
struct indelible::Codec<ledger::Transaction> {
  static std::string Encode(const ledger::Transaction& value);
  static indelible::Result<ledger::Transaction> Decode(std::string_view json);
};
template <>
struct indelible::Codec<ledger::AccountOverdrawn> {
  static std::string Encode(const ledger::AccountOverdrawn& value);
  static indelible::Result<ledger::AccountOverdrawn> Decode(std::string_view json);
};
