// indelible-ledger: the bank-account ledger of the reference design, end to
// end, on the entity API (account.h): rules with an overdraft, an outbound
// accountOverdrawn event, append_to, recalculate. Prints what happens in the
// reference's format, one line per step.
#include <indelible/client.h>
#include <indelible/entity.h>
#include <indelible/store.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "account.h"

namespace {

using indelible::Codec;
using indelible::MakeEvent;
using ledger::BankAccount;
using ledger::Transaction;

int Fail(const char* step, const indelible::Status& status) {
  std::fprintf(stderr, "indelible-ledger: %s failed: %s\n", step, status.ToString().c_str());
  return 1;
}

std::string PublishedJson(const indelible::PublishedEvent& event) {
  return boost::json::serialize(
      boost::json::object{{"type", event.type}, {"data", boost::json::parse(event.data)}});
}

int Run(indelible::Store& store, const std::string& account_id) {
  const indelible::Rules<BankAccount> rules = ledger::AccountRules();
  const indelible::Entity<BankAccount> accounts(store, rules);
  const std::string stream = "BANK_ACCOUNT/" + account_id;

  // A new account, and its owner's name.
  auto created = accounts.Append(
      stream, {MakeEvent(ledger::kAccountCreation, ledger::AccountCreation{account_id})});
  if (!created.ok()) return Fail("creating the account", created.status());
  auto updated = accounts.Append(
      stream, {MakeEvent(ledger::kAccountUpdate, ledger::AccountUpdate{"John", "Brown"})});
  if (!updated.ok()) return Fail("updating the owner", updated.status());

  // Two transactions in one append; the second takes the account overdrawn.
  auto ab = accounts.Append(
      stream, {MakeEvent(ledger::kTransactionAccepted, Transaction{"Transaction A", 200}),
               MakeEvent(ledger::kTransactionAccepted, Transaction{"Transaction B", -300})});
  if (!ab.ok()) return Fail("transactions A and B", ab.status());
  for (const auto& event : ab->published)
    std::printf("Published event: %s\n", PublishedJson(event).c_str());

  // Another transaction, then one appended to the state in hand (no read).
  auto c = accounts.Append(
      stream, {MakeEvent(ledger::kTransactionAccepted, Transaction{"Transaction C", 50})});
  if (!c.ok()) return Fail("transaction C", c.status());
  for (const auto& event : c->published)
    std::printf("Published event: %s\n", PublishedJson(event).c_str());
  auto d = accounts.AppendTo(
      c->entity, {MakeEvent(ledger::kTransactionAccepted, Transaction{"Transaction D", 25})});
  if (!d.ok()) return Fail("transaction D", d.status());
  for (const auto& event : d->published)
    std::printf("Published event: %s\n", PublishedJson(event).c_str());

  auto account = accounts.Get(stream);
  if (!account.ok()) return Fail("reading the account", account.status());
  std::printf("Account details: %s\n", Codec<BankAccount>::Encode(account->state).c_str());

  // Verify by replaying every event; then recalculate with one more.
  auto verified = accounts.Recalculate(stream);
  if (!verified.ok()) return Fail("recalculating", verified.status());
  std::printf("Verified balance: %s\n", Codec<BankAccount>::Encode(verified->entity.state).c_str());
  auto final_balance = accounts.Recalculate(
      stream, {MakeEvent(ledger::kTransactionAccepted, Transaction{"Transaction E", 25})});
  if (!final_balance.ok()) return Fail("recalculating with transaction E", final_balance.status());
  std::printf("Final balance: %s\n",
              Codec<BankAccount>::Encode(final_balance->entity.state).c_str());

  // Past the overdraft: the rule rejects it and nothing is written.
  auto f = accounts.Append(
      stream, {MakeEvent(ledger::kTransactionAccepted, Transaction{"Transaction F", -2000})});
  if (f.ok() || f.status().code() != indelible::ErrorCode::kRejected)
    return Fail("rejecting transaction F",
                f.ok() ? indelible::Status::Internal("accepted") : f.status());
  auto head = store.Head(stream);
  if (!head.ok()) return Fail("reading the head", head.status());
  std::printf("Rejected transaction: %s (%s stays at version %lld)\n", f.status().message().c_str(),
              stream.c_str(), static_cast<long long>(head->version.value()));
  std::printf("complete\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"indelible-ledger: the reference bank-account ledger on indelible entities"};
  std::string store_url;
  std::string server_url;
  std::string account_id = std::to_string(std::random_device()() % 1000000);
  app.add_option("--store", store_url,
                 "store URL (file:PATH, memory: or dynamodb://HOST:PORT?...); default: a "
                 "temporary embedded store");
  app.add_option("--url", server_url,
                 "an `indelible serve` to write to instead (http://HOST:PORT); the API key, if "
                 "it asks for one, from $INDELIBLE_API_KEY")
      ->excludes("--store");
  app.add_option("--account-id", account_id, "account id (default: random)");
  CLI11_PARSE(app, argc, argv);

  std::filesystem::path temporary;
  if (!server_url.empty()) {
    // The same entities over HTTP: each command is one POST /commits.
    indelible::ClientOptions options;
    if (const char* key = std::getenv("INDELIBLE_API_KEY")) options.credential = key;
    auto store = indelible::OpenRemoteStore(server_url, options);
    if (!store.ok()) {
      std::fprintf(stderr, "indelible-ledger: %s\n", store.status().ToString().c_str());
      return 1;
    }
    return Run(**store, account_id);
  }
  if (store_url.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "indelible-ledger-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("indelible-ledger: making a temporary folder");
      return 1;
    }
    temporary = pattern;
    store_url = "file:" + pattern;
  }
  int rc = 0;
  {
    auto store = indelible::Store::Open(store_url);
    if (!store.ok()) {
      std::fprintf(stderr, "indelible-ledger: %s\n", store.status().ToString().c_str());
      rc = 1;
    } else {
      rc = Run(**store, account_id);
    }
  }
  if (!temporary.empty()) std::filesystem::remove_all(temporary);
  return rc;
}
