// Stores started together on new tables (docs/DYNAMODB.md, "Opening"), on
// DynamoDB Local: every open succeeds however the table creation, the
// change stream and the TTL requests of the openers interleave, and the
// indexers that lose the race for the $all lease follow without failing.
// Each round uses a fresh prefix and deletes its tables after: the suite
// shares one DynamoDB Local.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <algorithm>
#include <barrier>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "aws/client.h"
#include "aws/credentials.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/dynamodb_store.h"
#include "storage/dynamodb/indexer.h"
#include "storage/dynamodb/store_url.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

// Four openers at once, ten times over: before the fix, the TTL race made
// 8 to 12 of the 40 opens fail (three runs), and every round's indexer race
// had three losers fail. About 3 s on an idle DynamoDB Local.
constexpr int kOpeners = 4;
constexpr int kRounds = 10;

class ConcurrentOpenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // indexer=0: the stores' own indexers would race for the lease too, at
    // moments of their own; the test races indexers of its own instead.
    base_ = testutil::DynamoDbTestUrl("co", "&indexer=0");
    ASSERT_FALSE(base_.empty());
    auto parsed = dynamodb::ParseStoreUrl(base_);
    auto credentials = aws::LoadCredentials();
    ASSERT_TRUE(parsed.ok() && credentials.ok());
    options_ = dynamodb::ClientOptionsFromUrl(*parsed, *credentials);
    auto client = aws::Client::Create(options_);
    ASSERT_TRUE(client.ok());
    client_ = std::move(*client);
  }

  std::unique_ptr<aws::Client> StreamsClient() const {
    aws::ClientOptions options = options_;
    options.target_prefix = "DynamoDBStreams_20120810.";
    auto client = aws::Client::Create(options);
    EXPECT_TRUE(client.ok());
    return client.ok() ? std::move(*client) : nullptr;
  }

  std::string EventsStreamArn(const std::string& prefix) {
    aws::Reply reply = client_->Call("DescribeTable", {{"TableName", prefix + "events"}});
    EXPECT_TRUE(reply.ok()) << reply.status.ToString();
    const auto* table = dynamodb::ObjectAt(reply.body, "Table");
    return table != nullptr ? dynamodb::StringAt(*table, "LatestStreamArn") : "";
  }

  void DeleteTables(const std::string& prefix) {
    for (const char* name : {"events", "all", "checkpoints"}) {
      aws::Reply reply = client_->Call("DeleteTable", {{"TableName", prefix + name}});
      EXPECT_TRUE(reply.ok()) << prefix << name << ": " << reply.status.ToString();
    }
  }

  std::string base_;
  aws::ClientOptions options_;
  std::unique_ptr<aws::Client> client_;
};

TEST_F(ConcurrentOpenTest, StoresOpenedTogetherOnNewTablesAllOpen) {
  int failed_opens = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string url = base_ + "r" + std::to_string(round) + "_";
    const std::string prefix = url.substr(url.find("&prefix=") + 8);
    std::vector<Status> opened(kOpeners);
    {
      std::vector<std::unique_ptr<Store>> stores(kOpeners);
      std::barrier start(kOpeners);
      std::vector<std::thread> threads;
      for (int i = 0; i < kOpeners; ++i)
        threads.emplace_back([&, i] {
          start.arrive_and_wait();
          // What Store::Open does with a dynamodb:// URL (`indelible serve`).
          auto store = dynamodb::OpenDynamoDbStore(url, StoreOptions{});
          opened[i] = store.status();
          if (store.ok()) stores[i] = std::move(*store);
        });
      for (auto& t : threads) t.join();
    }
    for (int i = 0; i < kOpeners; ++i) {
      EXPECT_TRUE(opened[i].ok()) << "round " << round << ", opener " << i << ": "
                                  << opened[i].ToString();
      failed_opens += opened[i].ok() ? 0 : 1;
    }
    if (std::none_of(opened.begin(), opened.end(), [](const Status& s) { return s.ok(); })) {
      DeleteTables(prefix);
      continue;
    }

    // The $all lease on the new tables: every indexer reads the fresh state
    // (lease free), then all write at once. One wins; the others lose the
    // race, which is no failure: their pass succeeds, they report ok, and
    // they follow the winner.
    const std::string arn = EventsStreamArn(prefix);
    ASSERT_FALSE(arn.empty());
    auto streams = StreamsClient();
    ASSERT_TRUE(streams);
    dynamodb::AllIndex index(*client_, prefix + "all");
    std::vector<std::unique_ptr<dynamodb::Indexer>> indexers;
    for (int i = 0; i < kOpeners; ++i) {
      dynamodb::IndexerOptions options;
      options.stream_arn = arn;
      options.owner = "indexer-" + std::to_string(i);
      indexers.push_back(std::make_unique<dynamodb::Indexer>(*streams, index, options));
      ASSERT_TRUE(indexers.back()->Prime().ok());
    }
    std::vector<Status> passed(kOpeners);
    {
      std::barrier start(kOpeners);
      std::vector<std::thread> threads;
      for (int i = 0; i < kOpeners; ++i)
        threads.emplace_back([&, i] {
          start.arrive_and_wait();
          passed[i] = indexers[i]->Pass().status();
        });
      for (auto& t : threads) t.join();
    }
    int owners = 0;
    std::uint64_t lost = 0;
    for (int i = 0; i < kOpeners; ++i) {
      EXPECT_TRUE(passed[i].ok()) << "round " << round << ", indexer " << i << ": "
                                  << passed[i].ToString();
      EXPECT_TRUE(indexers[i]->status().ok()) << indexers[i]->status().ToString();
      owners += indexers[i]->stats().owner ? 1 : 0;
      lost += indexers[i]->stats().races_lost;
    }
    EXPECT_EQ(owners, 1) << "round " << round << ": one indexer holds the lease";
    EXPECT_EQ(lost, static_cast<std::uint64_t>(kOpeners - 1)) << "round " << round;
    // The losers follow: their next pass reads the winner's lease and
    // writes nothing.
    for (int i = 0; i < kOpeners; ++i) {
      if (indexers[i]->stats().owner) continue;
      auto again = indexers[i]->Pass();
      EXPECT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_FALSE(indexers[i]->stats().owner);
    }
    indexers.clear();
    DeleteTables(prefix);
  }
  EXPECT_EQ(failed_opens, 0);
}

}  // namespace
}  // namespace indelible
