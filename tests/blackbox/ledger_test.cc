// indelible-ledger (examples/ledger) end to end: the real binary prints the
// reference ledger's steps exactly, on its default temporary store, on
// memory:, on a folder that the test then opens to check what it wrote,
// and over a server (OpenRemoteStore: the entities' commits over HTTP).
#include <gtest/gtest.h>
#include <indelible/client.h>
#include <indelible/store.h>

#include <boost/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "testutil/cli_runner.h"
#include "testutil/dynamodb_server.h"
#include "testutil/server_process.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

const std::vector<std::string> kExpectedLines = {
    R"(Published event: {"type":"accountOverdrawn","data":{"accountId":"123456"}})",
    R"(Account details: {"id":"123456","ownerFirst":"John","ownerLast":"Brown","balance":-25,"minimumBalance":-1000})",
    R"(Verified balance: {"id":"123456","ownerFirst":"John","ownerLast":"Brown","balance":-25,"minimumBalance":-1000})",
    R"(Final balance: {"id":"123456","ownerFirst":"John","ownerLast":"Brown","balance":0,"minimumBalance":-1000})",
    R"(Rejected transaction: insufficient funds (BANK_ACCOUNT/123456 stays at version 6))",
    R"(complete)",
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

testutil::CliOutcome RunLedger(const std::string& args, const testutil::TempDir& scratch) {
  return testutil::RunCli(INDELIBLE_LEDGER_PATH, "", "--account-id 123456 " + args, "", scratch);
}

void ExpectReferenceOutput(const testutil::CliOutcome& run) {
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Lines(run.out), kExpectedLines) << "stdout:\n" << run.out << "stderr:\n" << run.err;
  EXPECT_TRUE(run.out.ends_with("complete\n"));
}

TEST(LedgerTest, PrintsTheReferenceStepsOnItsTemporaryStore) {
  testutil::TempDir scratch;
  ExpectReferenceOutput(RunLedger("", scratch));
}

TEST(LedgerTest, PrintsTheReferenceStepsOnAMemoryStore) {
  testutil::TempDir scratch;
  ExpectReferenceOutput(RunLedger("--store memory:", scratch));
}

TEST(LedgerTest, PrintsTheReferenceStepsOnDynamoDb) {
  const std::string url = testutil::DynamoDbTestUrl("ledger");
  ASSERT_FALSE(url.empty());
  testutil::TempDir scratch;
  ExpectReferenceOutput(RunLedger("--store '" + url + "'", scratch));

  // What it wrote, read back: the account's seven events and its outbound one.
  auto opened = Store::Open(url);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto account = ReadStreamEvents(**opened, "BANK_ACCOUNT/123456");
  ASSERT_TRUE(account.ok()) << account.status().ToString();
  EXPECT_EQ(account->size(), 7u);
  auto state = (*opened)->ReadState("BANK_ACCOUNT/123456");
  ASSERT_TRUE(state.ok() && state->has_value()) << "the state record rides in the tip";
}

// What the ledger wrote, read back through `store`: the account's seven
// events, its outbound event caused by B, the state record of the last one.
void ExpectWhatTheLedgerWrote(Store& store) {
  // Creation, owner, A and B (one append), C, D, E: versions 0..6; F was
  // rejected and left nothing.
  auto account = ReadStreamEvents(store, "BANK_ACCOUNT/123456");
  ASSERT_TRUE(account.ok()) << account.status().ToString();
  ASSERT_EQ(account->size(), 7u);
  for (std::size_t v = 0; v < account->size(); ++v)
    EXPECT_EQ((*account)[v].version.value(), static_cast<std::int64_t>(v));
  const RecordedEvent& b = (*account)[3];
  EXPECT_EQ(b.type, "TRANSACTION_ACCEPTED");
  EXPECT_NE(b.data.find("Transaction B"), std::string::npos) << b.data;

  // B took the balance under zero: the one outbound event, caused by B.
  auto outbox = ReadStreamEvents(store, "outbox-BANK_ACCOUNT/123456");
  ASSERT_TRUE(outbox.ok()) << outbox.status().ToString();
  ASSERT_EQ(outbox->size(), 1u);
  const RecordedEvent& overdrawn = (*outbox)[0];
  EXPECT_EQ(overdrawn.type, "accountOverdrawn");
  EXPECT_EQ(overdrawn.data, R"({"accountId":"123456"})");
  const boost::json::value metadata = boost::json::parse(overdrawn.metadata);
  ASSERT_TRUE(metadata.is_object()) << overdrawn.metadata;
  const boost::json::value* causation = metadata.as_object().if_contains("causationId");
  ASSERT_NE(causation, nullptr) << overdrawn.metadata;
  EXPECT_EQ(*causation, boost::json::value(b.id.ToString()));

  // The state record covers the whole stream (E came through Recalculate).
  auto state = store.ReadState("BANK_ACCOUNT/123456");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  ASSERT_TRUE(state->has_value());
  EXPECT_EQ((*state)->version.value(), 6);
  EXPECT_EQ(
      (*state)->data,
      R"({"id":"123456","ownerFirst":"John","ownerLast":"Brown","balance":0,"minimumBalance":-1000})");
}

TEST(LedgerTest, WritesTheAccountAndOneOutboundEventToAFolder) {
  testutil::TempDir scratch;
  const std::string dir = scratch.Sub("data");
  ExpectReferenceOutput(RunLedger("--store file:" + dir, scratch));

  auto opened = Store::Open("file:" + dir);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Store& store = **opened;
  EXPECT_TRUE(store.Check().ok()) << store.Check().ToString();
  ExpectWhatTheLedgerWrote(store);
}

// The same entities over HTTP (--url: OpenRemoteStore), each command one
// POST /commits: the same lines, and the server holds the same data.
TEST(LedgerTest, PrintsTheReferenceStepsOverAServer) {
  testutil::TempDir scratch;
  testutil::ServerProcess server(INDELIBLE_PATH,
                                 {"serve", "--store", "file:" + scratch.Sub("data")});
  ASSERT_TRUE(server.Start()) << server.output();
  ExpectReferenceOutput(RunLedger("--url " + server.url(), scratch));
  auto remote = OpenRemoteStore(server.url());
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  ExpectWhatTheLedgerWrote(**remote);
}

}  // namespace
}  // namespace indelible
